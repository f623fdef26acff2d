#include "examples/distributed_fashion_mnist/runner.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

namespace tensoract {
namespace distributed_mnist {
namespace {

// Rows [begin, end) of a batch (float images or int32 labels) as a tensor of its own.
Tensor Rows(const Tensor& t, int64_t begin, int64_t end) {
  std::vector<int64_t> dims = t.shape().dim_sizes();
  const int64_t row_elements = dims[0] == 0 ? 0 : t.NumElements() / dims[0];
  dims[0] = end - begin;
  TensorShape shape;
  for (int64_t d : dims) shape.AddDim(d);
  Tensor rows(t.dtype(), shape);
  const size_t row_bytes = static_cast<size_t>(row_elements) * DataTypeSize(t.dtype());
  std::memcpy(rows.data(), static_cast<const char*>(t.data()) + begin * row_bytes, (end - begin) * row_bytes);
  return rows;
}

void PrintPartitions(const std::string& label, const RunMetadata& metadata);

}  // namespace

StatusOr<std::vector<std::pair<std::string, Tensor>>> Feeds(const MlpGraph& graph, const Tensor& images,
                                                            const Tensor& labels) {
  const int64_t towers = static_cast<int64_t>(graph.images.size());
  const int64_t rows = images.dim_size(0);
  if (rows % towers != 0) {
    // Unequal shares would make the mean of the towers' mean gradients differ from the
    // whole batch's.
    return errors::InvalidArgument("a batch of ", rows, " does not split evenly among ", towers, " towers");
  }
  std::vector<std::pair<std::string, Tensor>> feeds;
  const int64_t share = rows / towers;
  for (int64_t i = 0; i < towers; ++i) {
    feeds.emplace_back(graph.images[i], Rows(images, i * share, (i + 1) * share));
    feeds.emplace_back(graph.labels[i], Rows(labels, i * share, (i + 1) * share));
  }
  return feeds;
}

namespace {

void PrintPartitions(const std::string& label, const RunMetadata& metadata) {
  for (const auto& part : metadata.partition_graphs) {
    int sends = 0, recvs = 0;
    for (const auto& node : part.node()) sends += node.op() == "_Send", recvs += node.op() == "_Recv";
    std::printf("%s: partition on %s: %d nodes, %d _Send, %d _Recv\n", label.c_str(),
                part.node_size() ? part.node(0).device().c_str() : "?", part.node_size(), sends, recvs);
  }
}

}  // namespace

BatchStream::BatchStream(const ImageDataset* data, int64_t batch, uint64_t seed)
    : batcher_(data, {batch, /*shuffle=*/true, seed, /*flatten=*/true, /*drop_remainder=*/true}) {
  batcher_.StartEpoch(0);
}

void BatchStream::Next(Tensor* images, Tensor* labels) {
  if (batcher_.Next(images, labels)) return;
  batcher_.StartEpoch(++epoch_);
  batcher_.Next(images, labels);  // an epoch has at least one batch: main checks batch <= examples
}

void BatchStream::Skip() {
  Tensor images, labels;
  Next(&images, &labels);
}

void BatchStream::NextOf(int stride, int offset, Tensor* images, Tensor* labels) {
  for (int i = 0; i < stride; ++i) {
    if (i == offset) {
      Next(images, labels);
    } else {
      Skip();
    }
  }
}

Status Train(Session& session, const MlpGraph& graph, BatchStream& stream, const TrainOptions& options,
             TrainStats* stats) {
  const int report_every = std::max(1, options.steps / 10);
  const auto start = std::chrono::steady_clock::now();
  Tensor images, labels;
  std::vector<Tensor> out;
  for (int step = 0; step < options.steps; ++step) {
    stream.NextOf(options.stride, options.offset, &images, &labels);
    TA_ASSIGN_OR_RETURN(auto feeds, Feeds(graph, images, labels));
    RunOptions run_options;
    run_options.output_partition_graphs = options.show_partitions && step == 0;
    RunMetadata metadata;
    Status s = session.Run(run_options, feeds, {graph.loss}, {graph.train}, &out, &metadata);
    if (!s.ok()) return errors::Aborted(options.label, ": step ", step, " failed: ", s.ToString());
    if (run_options.output_partition_graphs) PrintPartitions(options.label, metadata);
    stats->steps = step + 1;
    stats->examples += images.dim_size(0);
    stats->last_loss = out[0].base<float>()[0];
    if ((step + 1) % report_every == 0 || step + 1 == options.steps) {
      std::printf("%s: step %d/%d  loss %.4f\n", options.label.c_str(), step + 1, options.steps, stats->last_loss);
      std::fflush(stdout);
    }
  }
  stats->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return Status::OK();
}

StatusOr<double> Evaluate(Session& session, const MlpGraph& graph, const ImageDataset& test) {
  Batcher batches(&test, {/*batch_size=*/1000, /*shuffle=*/false, /*seed=*/0, /*flatten=*/true});
  double correct = 0;
  Tensor images, labels;
  std::vector<Tensor> out;
  while (batches.Next(&images, &labels)) {
    TA_ASSIGN_OR_RETURN(auto feeds, Feeds(graph, images, labels));
    TA_RETURN_IF_ERROR(session.Run(feeds, {graph.correct}, {}, &out));
    correct += out[0].base<float>()[0];
  }
  return correct / static_cast<double>(test.count);
}

void InitGate::Open(bool initialized) {
  std::lock_guard<std::mutex> lock(mu_);
  state_ = initialized ? kInitialized : kFailed;
  cv_.notify_all();
}

Status InitGate::Wait() {
  constexpr auto kInitWait = std::chrono::seconds(60);
  std::unique_lock<std::mutex> lock(mu_);
  if (!cv_.wait_for(lock, kInitWait, [&] { return state_ != kWaiting; })) {
    return errors::DeadlineExceeded("replica 0 did not initialize the variables within ", kInitWait.count(), " s");
  }
  if (state_ == kFailed) return errors::Aborted("replica 0 failed to initialize the variables");
  return Status::OK();
}

Status CreateReplica(Session& session, const MlpGraph& graph, int r, InitGate& gate) {
  Status created = session.Create(graph.def);
  if (r == 0) {
    Status init = created.ok() ? session.Run({}, {}, {graph.init}, nullptr) : created;
    gate.Open(init.ok());
    return init;
  }
  TA_RETURN_IF_ERROR(created);
  return gate.Wait();
}

Status TrainBackup(const std::vector<Session*>& replicas, Session& chief, const std::vector<MlpGraph>& graphs,
                   const ImageDataset& train, int64_t batch, uint64_t seed, int steps, BackupStats* stats) {
  const int n = static_cast<int>(replicas.size());
  if (n == 0 || graphs.size() != replicas.size() || !graphs[0].sync_replicas) {
    return errors::InvalidArgument("TrainBackup wants one backup-mode graph per replica session");
  }
  const SyncReplicasNames& chief_names = *graphs[0].sync_replicas;
  InitGate gate;
  std::vector<Status> statuses(n + 1);
  stats->examples.assign(n, 0);
  auto replica = [&](int r) -> Status {
    Session& session = *replicas[r];
    const SyncReplicasNames& names = *graphs[r].sync_replicas;
    TA_RETURN_IF_ERROR(CreateReplica(session, graphs[r], r, gate));
    if (r > 0) TA_RETURN_IF_ERROR(session.Run({}, {}, {names.local_init}, nullptr));
    TA_RETURN_IF_ERROR(session.Run({}, {}, {names.local_step_init}, nullptr));
    BatchStream stream(&train, batch, seed);
    // Until a token says the last global step is done: the chief hands out one per replica
    // after every step, so none waits for a token that never comes.
    for (int64_t next_step = 0; next_step < steps;) {
      Tensor images, labels;
      stream.NextOf(n, r, &images, &labels);  // batches r, r + n, ... of the stream
      TA_ASSIGN_OR_RETURN(auto feeds, Feeds(graphs[r], images, labels));
      std::vector<Tensor> out;
      TA_RETURN_IF_ERROR(session.Run(feeds, {names.token}, {graphs[r].train}, &out)
                             .WithContext(StrCat("backup replica ", r, " before global step ", next_step)));
      next_step = out[0].base<int64_t>()[0];
      stats->examples[r] += batch;
    }
    return Status::OK();
  };
  auto run_chief = [&]() -> Status {
    TA_RETURN_IF_ERROR(gate.Wait());
    TA_RETURN_IF_ERROR(chief.Create(graphs[0].def));
    TA_RETURN_IF_ERROR(chief.Run({}, {}, {chief_names.chief_init, chief_names.init_tokens}, nullptr));
    const auto start = std::chrono::steady_clock::now();
    for (int step = 0; step < steps; ++step) {
      TA_RETURN_IF_ERROR(chief.Run({}, {}, {chief_names.sync_op}, nullptr).WithContext(StrCat("global step ", step)));
      if ((step + 1) % std::max(1, steps / 10) == 0) {
        std::printf("backup: global step %d of %d\n", step + 1, steps);
        std::fflush(stdout);
      }
    }
    stats->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return Status::OK();
  };
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r) threads.emplace_back([&, r] { statuses[r] = replica(r); });
  threads.emplace_back([&] { statuses[n] = run_chief(); });
  for (auto& t : threads) t.join();  // every Run has its deadline, and so has the gate
  for (const Status& s : statuses) TA_RETURN_IF_ERROR(s);
  return Status::OK();
}

}  // namespace distributed_mnist
}  // namespace tensoract
