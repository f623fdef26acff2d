// Per-step overhead of Session::Run on a tiny graph, y = x·W + b with a 2x2 W: the cost
// of a RunStep through master, worker and executor actors, since the kernels themselves
// take well under a microsecond. Prints steps per second and microseconds per step.
//
//   step_overhead [steps] [caller|scheduler]
// caller (the default): the step's actors run on the calling thread while it waits
// (RunOptions::run_on_caller_thread), the peer being TensorFlow's C API with its ops on
// the caller's thread; scheduler: on the actor system's threads, the peer being its C API
// with one pool thread.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "client/session.h"
#include "graph/builder/ops.h"

using namespace tensoract;

int main(int argc, char** argv) {
  const int steps = argc > 1 ? std::atoi(argv[1]) : 20000;
  const bool on_caller = argc <= 2 || std::string(argv[2]) != "scheduler";
  RunOptions run_options;
  run_options.run_on_caller_thread = on_caller;
  Scope root = Scope::NewRootScope();
  auto W = ops::Const(root.WithOpName("W"), {{1.f, 2.f}, {3.f, 4.f}});
  auto b = ops::Const(root.WithOpName("b"), {0.5f, -0.5f});
  auto x = ops::Placeholder(root.WithOpName("x"), tensorflow::DT_FLOAT);
  ops::AddV2(root.WithOpName("y"), ops::MatMul(root, x, W), b);
  tensorflow::GraphDef graph;
  Status s = root.ToGraphDef(&graph);
  SessionOptions options;
  options.num_threads = 1;  // like the peer's single inter-op thread below
  auto session = Session::New(options);
  if (s.ok()) s = session.status();
  if (s.ok()) s = (*session)->Create(graph);
  Tensor xv = Tensor::FromVector<float>({1, 1}, TensorShape({1, 2}));
  std::vector<Tensor> out;
  auto run = [&] { return (*session)->Run(run_options, {{"x", xv}}, {"y"}, {}, &out, nullptr); };
  for (int i = 0; i < 200 && s.ok(); ++i) s = run();  // warm-up
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < steps && s.ok(); ++i) s = run();
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!s.ok()) {
    std::fprintf(stderr, "step_overhead: %s\n", s.ToString().c_str());
    return 1;
  }
  std::printf("tensoract  Session::Run, 3-op graph: %8.1f us/step  (%.0f steps/s, %d steps, %s)\n",
              1e6 * seconds / steps, steps / seconds, steps,
              on_caller ? "actors on the caller's thread" : "actors on the scheduler's threads");
  return 0;
}
