// Per-iteration overhead of a while loop (issue 7): the executor's frames and iterations,
// dead values and NextIteration bookkeeping, on loops whose bodies do almost nothing.
//
//   loop_overhead [iterations] [steps] [dir]
// times each loop at `iterations` and at 0 iterations (the step's own cost) and prints
// "(t(iterations) - t(0)) / iterations" per iteration; it writes the GraphDefs to
// dir/loop_<case>.pb so the TensorFlow peer (loop_overhead_tf.py) runs the same graphs.
// Cases (n is fed):
//   counter      i = 0; while (i < n) i += 1                       (8 nodes per iteration)
//   accumulate   i, a = 0, 0; while (i < n) { i += 1; a += x }     (x a loop invariant)
//   counter_p1   the counter with parallel_iterations = 1
// Graph passes are off and there is one thread, on both sides; a second run of the cases
// ("sequential") turns on the one pass that gives each loop one kernel
// (GraphOptimizerOptions::sequential_loops).
#include <chrono>
#include <cstdio>
#include <string>

#include "client/session.h"
#include "base/proto_io.h"
#include "graph/builder/control_flow.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/ops.h"

using namespace tensoract;

namespace {

const PartialTensorShape kScalar(std::vector<int64_t>{});

tensorflow::GraphDef Loop(bool accumulate, int64_t parallel_iterations) {
  Scope root = Scope::NewRootScope();
  auto n = ops::Placeholder(root.WithOpName("n"), tensorflow::DT_INT32, kScalar);
  auto x = ops::Placeholder(root.WithOpName("x"), tensorflow::DT_FLOAT, kScalar);
  std::vector<Output> vars{ops::Const(root, 0)};
  if (accumulate) vars.push_back(ops::Const(root, 0.f));
  std::vector<Output> out;
  ops::WhileLoopOptions options;
  options.parallel_iterations = parallel_iterations;
  Status s = ops::WhileLoop(
      root, vars,
      [&](const Scope& sc, const std::vector<Output>& v, Output* pred) {
        *pred = ops::Less(sc, v[0], n);
        return sc.status();
      },
      [&](const Scope& sc, const std::vector<Output>& v, std::vector<Output>* next) {
        next->push_back(ops::Add(sc, v[0], 1));
        if (accumulate) next->push_back(ops::Add(sc, v[1], x));
        return sc.status();
      },
      &out, options);
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    std::exit(1);
  }
  ops::Identity(root.WithOpName("out"), out.back());
  tensorflow::GraphDef def;
  if (!root.ToGraphDef(&def).ok()) std::abort();
  return def;
}

double MicrosPerStep(Session& session, int iterations, int steps) {
  std::vector<std::pair<std::string, Tensor>> feeds{{"n", Tensor::Scalar<int32_t>(iterations)},
                                                    {"x", Tensor::Scalar<float>(1.f)}};
  std::vector<Tensor> out;
  for (int i = 0; i < 3; ++i) {
    Status s = session.Run(feeds, {"out"}, {}, &out);
    if (!s.ok()) {
      std::fprintf(stderr, "%s\n", s.ToString().c_str());
      std::exit(1);
    }
  }
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < steps; ++i) session.Run(feeds, {"out"}, {}, &out).IgnoreError();
  std::chrono::duration<double, std::micro> elapsed = std::chrono::steady_clock::now() - start;
  return elapsed.count() / steps;
}

}  // namespace

int main(int argc, char** argv) {
  const int iterations = argc > 1 ? std::atoi(argv[1]) : 10000;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 20;
  const std::string dir = argc > 3 ? argv[3] : ".";
  SessionOptions options;
  options.num_threads = 1;
  options.optimizer = GraphOptimizerOptions::AllOff();
  struct Case {
    const char* name;
    tensorflow::GraphDef graph;
  };
  Case cases[] = {{"counter", Loop(false, 10)}, {"accumulate", Loop(true, 10)}, {"counter_p1", Loop(false, 1)}};
  // The executor's frames, then the same loops as one _SequentialLoop kernel each
  // (graph/optimizer/sequential_loops.h), the one pass on.
  SessionOptions sequential = options;
  sequential.optimizer.sequential_loops = true;
  for (const auto& [label, opts] : {std::make_pair("tensoract", options), std::make_pair("sequential", sequential)}) {
    for (Case& c : cases) {
      if (!WriteBinaryProto(dir + "/loop_" + c.name + ".pb", c.graph).ok()) {
        std::fprintf(stderr, "could not write %s\n", c.name);
      }
      auto session = Session::New(opts).value();
      if (!session->Create(c.graph).ok()) return 1;
      const double empty = MicrosPerStep(*session, 0, steps * 10);
      const double full = MicrosPerStep(*session, iterations, steps);
      std::printf("%-10s %-10s %d iterations: %9.1f us/step (0 iterations: %6.1f us) %6.3f us/iteration\n", label,
                  c.name, iterations, full, empty, (full - empty) / iterations);
    }
  }
  return 0;
}
