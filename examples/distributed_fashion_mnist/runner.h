// The training and evaluation loops of examples/distributed_fashion_mnist: the same for
// the local baseline and every distributed mode, so the figures they print compare like
// with like. They only feed, fetch and run the names an MlpGraph gives.
//
// Blocking: every call runs session steps, each bounded by the session's step timeout.
// Thread-safety: a BatchStream belongs to one thread; Train and Evaluate may run on
// several threads at once with different streams (Session::Run is thread-safe).
#ifndef TENSORACT_EXAMPLES_DISTRIBUTED_FASHION_MNIST_RUNNER_H_
#define TENSORACT_EXAMPLES_DISTRIBUTED_FASHION_MNIST_RUNNER_H_

#include <condition_variable>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "client/session.h"
#include "data/batcher.h"
#include "examples/distributed_fashion_mnist/mlp_graphs.h"

namespace tensoract {
namespace distributed_mnist {

// The training batches of a run, epoch after epoch, in the order a Batcher with `seed`
// gives them: batch k is the same whichever loop (or replica) asks for it. Every batch
// has exactly `batch` rows (an epoch's smaller last batch is left out) so that it splits
// evenly among towers.
class BatchStream {
 public:
  BatchStream(const ImageDataset* data, int64_t batch, uint64_t seed);
  void Next(Tensor* images, Tensor* labels);
  void Skip();  // the next batch is another replica's
  // Batch `offset` of the next `stride` (a replica's share when `stride` replicas share the
  // stream), the others skipped.
  void NextOf(int stride, int offset, Tensor* images, Tensor* labels);

 private:
  Batcher batcher_;
  int64_t epoch_ = 0;
};

// What a training loop did.
struct TrainStats {
  int steps = 0;
  int64_t examples = 0;
  double seconds = 0;  // the training steps alone, without initialization or evaluation
  float last_loss = 0;
};

struct TrainOptions {
  int steps = 0;
  // This loop takes batches offset, offset + stride, ... of the stream (async replicas
  // share the stream's batches out between them; one loop alone takes every batch).
  int stride = 1, offset = 0;
  std::string label;          // prefixes the progress lines ("sync", "async replica 1")
  bool show_partitions = false;  // print where the first step's partitions ran
};

// The batch split evenly among the graph's towers, in order, as feeds; InvalidArgument
// when it does not split evenly.
StatusOr<std::vector<std::pair<std::string, Tensor>>> Feeds(const MlpGraph& graph, const Tensor& images,
                                                            const Tensor& labels);

// Runs the graph's train op for options.steps batches, printing the loss ten times.
// The first failing step's status, naming the step.
Status Train(Session& session, const MlpGraph& graph, BatchStream& stream, const TrainOptions& options,
             TrainStats* stats);

// Replica 0 initializes the shared variables; the other replicas must not train before.
class InitGate {
 public:
  void Open(bool initialized);
  // OK once replica 0 initialized; Aborted when it failed; DeadlineExceeded after a minute.
  Status Wait();

 private:
  enum State { kWaiting, kInitialized, kFailed };
  std::mutex mu_;
  std::condition_variable cv_;
  State state_ = kWaiting;
};

// Creates replica r's graph in its session; replica 0 then initializes the shared state
// and opens `gate`, the others wait for it.
Status CreateReplica(Session& session, const MlpGraph& graph, int r, InitGate& gate);

// What a backup-mode run did.
struct BackupStats {
  double seconds = 0;             // from the first tokens to the last global step
  std::vector<int64_t> examples;  // whose gradients each replica computed (used or dropped)
};

// The backup mode (BuildBackupReplica's graphs, graph/training/sync_replicas.h): replica r
// trains on `replicas[r]` with graphs[r], each on its own thread, sharing the stream's
// batches out as async replicas do; `chief` (a session of its own) runs graphs[0]'s sync
// op `steps` times, one global step each. Replica 0 initializes the shared state. Returns
// once every replica has seen the last global step; the first error otherwise.
Status TrainBackup(const std::vector<Session*>& replicas, Session& chief, const std::vector<MlpGraph>& graphs,
                   const ImageDataset& train, int64_t batch, uint64_t seed, int steps, BackupStats* stats);

// The fraction of `test` the graph classifies right, in batches of 1000 split among the
// towers like training batches.
StatusOr<double> Evaluate(Session& session, const MlpGraph& graph, const ImageDataset& test);

}  // namespace distributed_mnist
}  // namespace tensoract

#endif  // TENSORACT_EXAMPLES_DISTRIBUTED_FASHION_MNIST_RUNNER_H_
