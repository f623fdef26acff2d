// Model parallelism over four CPU devices (whitepaper section 3.2): a 784-512-256-128-10
// classifier whose layer i, its variables and its updates live on /device:CPU:i, trained
// on Fashion-MNIST. The same training runs twice, once on one device and once spread over
// four, and the program checks that every step's loss is bit-for-bit the same: placement
// and partitioning change where nodes run, never what they compute.
//
//   model_parallel [--steps N] [--batch B] [--show-partitions] [--trace FILE]
//
// --trace writes the last four-device step as Chrome trace-event JSON: open it in
// https://ui.perfetto.dev or chrome://tracing to see each device's nodes and the arrows of
// the tensors crossing between them.
//
// Exit status 0 when the two runs agree, 1 when they differ, 2 on an error.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "actors/chrome_trace.h"
#include "client/session.h"
#include "data/batcher.h"
#include "data/fashion_mnist.h"
#include "graph/builder/array_ops.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/nn_ops.h"
#include "graph/builder/ops.h"
#include "graph/builder/random_ops.h"
#include "graph/training/optimizers.h"
#include "graph/training/variables.h"

namespace tensoract {
namespace {

struct Net {
  Output images, labels, loss;
  Node* train = nullptr;
  Node* init = nullptr;
};

// Layer i on `device(i)`; an empty name leaves the node to the placer (one device).
StatusOr<Net> BuildNet(const Scope& root, bool spread) {
  auto device = [&](int i) { return spread ? StrCat("/device:CPU:", i) : std::string(); };
  const std::vector<int32_t> widths = {784, 512, 256, 128, 10};
  Net net;
  Scope in = root.WithDevice(device(0));
  net.images = ops::Placeholder(in.WithOpName("images"), tensorflow::DT_FLOAT, PartialTensorShape({-1, 784}));
  net.labels = ops::Placeholder(in.WithOpName("labels"), tensorflow::DT_INT32, PartialTensorShape({-1}));
  Output x = net.images;
  std::vector<Variable> vars;
  for (int i = 0; i + 1 < static_cast<int>(widths.size()); ++i) {
    Scope layer = root.WithDevice(device(i));
    const int32_t fan_in = widths[i], fan_out = widths[i + 1];
    const std::string name = StrCat("layer", i);
    Variable w = NewVariable(layer, name + "/kernel", [&](const Scope& s) {
      ops::RandomAttrs seeds;
      seeds.seed = 7;
      seeds.seed2 = i + 1;
      Output u = ops::RandomUniform(s, ops::Const(s, {fan_in, fan_out}), tensorflow::DT_FLOAT, seeds);
      float limit = std::sqrt(6.0f / static_cast<float>(fan_in + fan_out));
      return ops::Sub(s, ops::Mul(s, u, 2 * limit), limit);
    });
    Variable b = NewVariable(layer, name + "/bias", [&](const Scope& s) { return ops::Fill(s, {fan_out}, 0.0f); });
    vars.push_back(w);
    vars.push_back(b);
    Scope ops_scope = layer.NewSubScope(name);
    x = ops::BiasAdd(ops_scope, ops::MatMul(ops_scope, x, w.value), b.value);
    if (i + 2 < static_cast<int>(widths.size())) x = ops::Relu(ops_scope, x);
  }
  Scope loss = root.WithDevice(device(3)).NewSubScope("loss");
  net.loss = ops::Mean(loss, ops::SparseSoftmaxCrossEntropyWithLogits(loss, x, net.labels).loss, {0});
  GradientDescentOptimizer sgd(0.1);
  net.train = sgd.Minimize(root, net.loss, vars);
  net.init = GroupInitializers(root, vars);
  TA_RETURN_IF_ERROR(root.status());
  return net;
}

// Trains for `steps` batches and returns every step's loss.
StatusOr<std::vector<float>> Train(bool spread, const ImageDataset& data, int steps, int64_t batch,
                                   bool show_partitions, const std::string& trace_path) {
  Scope root = Scope::NewRootScope();
  TA_ASSIGN_OR_RETURN(Net net, BuildNet(root, spread));
  tensorflow::GraphDef graph;
  TA_RETURN_IF_ERROR(root.ToGraphDef(&graph));
  // One thread per device either way, so every kernel sums in the same order.
  SessionOptions options;
  options.num_cpu_devices = spread ? 4 : 1;
  options.num_threads = options.num_cpu_devices;
  TA_ASSIGN_OR_RETURN(auto session, Session::New(options));
  TA_RETURN_IF_ERROR(session->Create(graph));
  std::vector<Tensor> out;
  TA_RETURN_IF_ERROR(session->Run({}, {}, {net.init->name()}, &out));
  Batcher batches(&data, {batch, /*shuffle=*/true, /*seed=*/1, /*flatten=*/true});
  batches.StartEpoch(0);
  std::vector<float> losses;
  Tensor x, y;
  for (int step = 0; step < steps; ++step) {
    if (!batches.Next(&x, &y)) batches.StartEpoch(step), batches.Next(&x, &y);
    RunOptions run_options;
    run_options.output_partition_graphs = show_partitions && step == 0;
    const bool trace = !trace_path.empty() && step + 1 == steps;
    if (trace) run_options.trace_level = RunOptions::FULL_TRACE;
    RunMetadata metadata;
    TA_RETURN_IF_ERROR(session->Run(run_options, {{net.images.name(), x}, {net.labels.name(), y}}, {net.loss.name()},
                                    {net.train->name()}, &out, &metadata));
    losses.push_back(out[0].base<float>()[0]);
    if (trace) {
      TA_RETURN_IF_ERROR(WriteChromeTrace(metadata.step_stats, trace_path));
      std::printf("  step %d traced to %s\n", step, trace_path.c_str());
    }
    for (const auto& part : metadata.partition_graphs) {
      int sends = 0, recvs = 0;
      for (const auto& node : part.node()) sends += node.op() == "_Send", recvs += node.op() == "_Recv";
      std::printf("  partition %s: %d nodes, %d _Send, %d _Recv\n",
                  part.node_size() ? part.node(0).device().c_str() : "?", part.node_size(), sends, recvs);
    }
  }
  return losses;
}

int Main(int argc, char** argv) {
  int steps = 100;
  int64_t batch = 64;
  bool show_partitions = false;
  std::string trace_path;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--steps" && i + 1 < argc) {
      steps = std::atoi(argv[++i]);
    } else if (arg == "--batch" && i + 1 < argc) {
      batch = std::atoll(argv[++i]);
    } else if (arg == "--trace" && i + 1 < argc) {
      trace_path = argv[++i];
    } else if (arg == "--show-partitions") {
      show_partitions = true;
    } else {
      std::fprintf(stderr, "model_parallel: unknown option '%s'\nusage: model_parallel [--steps N] [--batch B] "
                   "[--show-partitions] [--trace FILE]\n", arg.c_str());
      return 2;
    }
  }
  if (steps <= 0 || batch <= 0) {
    std::fprintf(stderr, "model_parallel: --steps and --batch must be positive\n");
    return 2;
  }
  auto data = LoadFashionMnist(DefaultFashionMnistDir(), "train");
  if (!data.ok()) {
    std::fprintf(stderr, "model_parallel: %s\n", data.status().ToString().c_str());
    return 2;
  }
  auto one = Train(false, *data, steps, batch, false, "");
  if (!one.ok()) {
    std::fprintf(stderr, "model_parallel: one device: %s\n", one.status().ToString().c_str());
    return 2;
  }
  std::printf("four devices, one layer each:\n");
  auto four = Train(true, *data, steps, batch, show_partitions, trace_path);
  if (!four.ok()) {
    std::fprintf(stderr, "model_parallel: four devices: %s\n", four.status().ToString().c_str());
    return 2;
  }
  int differ = 0;
  for (int s = 0; s < steps; ++s) {
    bool same = std::memcmp(&(*one)[s], &(*four)[s], sizeof(float)) == 0;
    differ += !same;
    if (s % 10 == 0 || s + 1 == steps || !same) {
      std::printf("step %4d  loss one device %.7f  four devices %.7f  %s\n", s, (*one)[s], (*four)[s],
                  same ? "same" : "DIFFERENT");
    }
  }
  std::printf("%d of %d steps differ\n", differ, steps);
  return differ == 0 ? 0 : 1;
}

}  // namespace
}  // namespace tensoract

int main(int argc, char** argv) { return tensoract::Main(argc, argv); }
