// Executor overhead per node: a chain of N scalar Add nodes (each waits for the previous)
// and a fan-out of N independent scalar Add nodes (all ready at once, joined by a NoOp).
//
//   executor_overhead [nodes] [steps] [dir]
// prints "chain: X us/node" and "fanout: Y us/node", and writes the two GraphDefs to
// dir/chain.pb and dir/fanout.pb so the TensorFlow peer (executor_overhead_tf.py) runs
// exactly the same graphs. Graph passes are off: this measures the executor, not folding.
#include <chrono>
#include <cstdio>
#include <string>

#include "client/session.h"
#include "base/proto_io.h"
#include "graph/builder/ops.h"

using namespace tensoract;

namespace {

// x (a fed scalar) -> a_1 = x + 1 -> a_2 = a_1 + 1 -> ... ; fetch a_N.
tensorflow::GraphDef Chain(int n) {
  Scope root = Scope::NewRootScope();
  auto one = ops::Const(root.WithOpName("one"), 1.f);
  Output prev = ops::Placeholder(root.WithOpName("x"), tensorflow::DT_FLOAT, PartialTensorShape(std::vector<int64_t>{}));
  for (int i = 0; i < n; ++i) prev = ops::Add(root.WithOpName("a"), prev, one);
  ops::Identity(root.WithOpName("out"), prev);
  tensorflow::GraphDef def;
  if (!root.ToGraphDef(&def).ok()) std::abort();
  return def;
}

// b_i = x + 1 for i < N, all joined by the NoOp "done" (the target).
tensorflow::GraphDef FanOut(int n) {
  Scope root = Scope::NewRootScope();
  auto one = ops::Const(root.WithOpName("one"), 1.f);
  auto x = ops::Placeholder(root.WithOpName("x"), tensorflow::DT_FLOAT, PartialTensorShape(std::vector<int64_t>{}));
  std::vector<Output> all;
  for (int i = 0; i < n; ++i) all.push_back(ops::Add(root.WithOpName("b"), x, one));
  ops::NoOp(root.WithOpName("done").WithControlDependencies(all));
  tensorflow::GraphDef def;
  if (!root.ToGraphDef(&def).ok()) std::abort();
  return def;
}

double MicrosPerStep(Session& session, const std::vector<std::string>& fetches,
                     const std::vector<std::string>& targets, int steps) {
  Tensor x = Tensor::Scalar<float>(0.f);
  std::vector<Tensor> out;
  for (int i = 0; i < 3; ++i) {
    Status s = session.Run({{"x", x}}, fetches, targets, &out);
    if (!s.ok()) {
      std::fprintf(stderr, "%s\n", s.ToString().c_str());
      std::exit(1);
    }
  }
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < steps; ++i) session.Run({{"x", x}}, fetches, targets, &out).IgnoreError();
  std::chrono::duration<double, std::micro> elapsed = std::chrono::steady_clock::now() - start;
  return elapsed.count() / steps;
}

}  // namespace

int main(int argc, char** argv) {
  const int nodes = argc > 1 ? std::atoi(argv[1]) : 10000;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 50;
  const std::string dir = argc > 3 ? argv[3] : ".";
  SessionOptions options;
  options.num_threads = 1;
  options.optimizer = GraphOptimizerOptions::AllOff();
  struct Case {
    const char* name;
    tensorflow::GraphDef graph;
    std::vector<std::string> fetches, targets;
  };
  Case cases[] = {{"chain", Chain(nodes), {"out"}, {}}, {"fanout", FanOut(nodes), {}, {"done"}}};
  for (Case& c : cases) {
    if (!WriteBinaryProto(dir + "/" + c.name + ".pb", c.graph).ok()) std::fprintf(stderr, "could not write %s\n", c.name);
    auto session = Session::New(options).value();
    if (!session->Create(c.graph).ok()) return 1;
    double us = MicrosPerStep(*session, c.fetches, c.targets, steps);
    std::printf("tensoract %-6s %d nodes: %8.1f us/step %6.3f us/node\n", c.name, nodes, us, us / nodes);
  }
  return 0;
}
