// The cost of a call where the work is tiny: an eager op, a step through the gradient tape,
// a traced function's call. Peers: eager_overhead_torch.cc (libtorch) for the first two,
// TensorFlow's C API and tf.function for the call (run_eager_overhead.sh runs them all).
//
//   eager_overhead [calls] [add|tape|call]   (one of them alone: for a profiler)
//
// - eager Add: y = x + one on 1-element float tensors, through ops::Add on an eager scope;
// - tape step: loss = sum(relu(x·w + b)) with x [4,8], w [8,8], b [8] watched, then
//   d(loss)/d(w, b) from a GradientTape;
// - Function call: y = x·W + b (run_step_overhead.sh's graph) as a traced Function.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "client/eager_context.h"
#include "client/function.h"
#include "client/gradient_tape.h"
#include "graph/builder/array_ops.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/nn_ops.h"
#include "graph/builder/ops.h"

using namespace tensoract;

namespace {

template <class F>
double MicrosPerCall(int calls, F f) {
  for (int i = 0; i < calls / 10 + 10; ++i) f();  // warm-up: kernels made, caches filled
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) f();
  return 1e6 * std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / calls;
}

Output Filled(const Scope& s, std::vector<int64_t> dims, float first) {
  TensorShape shape(dims);
  std::vector<float> v(shape.num_elements());
  for (size_t i = 0; i < v.size(); ++i) v[i] = first + 0.01f * static_cast<float>(i % 17) - 0.08f;
  return FromTensor(s, Tensor::FromVector<float>(v, shape));
}

int Run(int calls, const std::string& only) {
  SessionOptions options;
  options.num_threads = 1;  // the peers run on one thread too
  auto made = EagerContext::New(options);
  if (!made.ok()) {
    std::fprintf(stderr, "eager_overhead: %s\n", made.status().ToString().c_str());
    return 1;
  }
  EagerContext& ctx = *made.value();
  Scope s = ctx.scope();

  auto wanted = [&](const char* part) { return only.empty() || only == part; };
  Output x = Filled(s, {1}, 1.f), one = Filled(s, {1}, 1.f);
  double add_us = 0, tape_us = 0, call_us = 0;
  if (wanted("add")) add_us = MicrosPerCall(calls, [&] { x = ops::Add(s, x, one); });

  Output xs = Filled(s, {4, 8}, 0.1f), w = Filled(s, {8, 8}, 0.2f), b = Filled(s, {8}, 0.f);
  if (wanted("tape")) tape_us = MicrosPerCall(calls / 10, [&] {
    GradientTape tape(ctx);
    tape.Watch(w);
    tape.Watch(b);
    Output loss = ops::Sum(s, ops::Relu(s, ops::Add(s, ops::MatMul(s, xs, w), b)), {0, 1});
    auto g = tape.Gradient(loss, {w, b});
    if (!g.ok()) s.UpdateStatus(g.status());
  });

  Function affine(ctx, "affine", [](const Scope& g, const std::vector<FunctionArg>& args) {
    Output W = ops::Const(g, {{1.f, 2.f}, {3.f, 4.f}}), bias = ops::Const(g, {0.5f, -0.5f});
    return std::vector<Output>{ops::AddV2(g, ops::MatMul(g, std::get<Output>(args[0]), W), bias)};
  });
  Output xv = FromTensor(s, Tensor::FromVector<float>({1, 1}, TensorShape({1, 2})));
  Status call_status;
  if (wanted("call")) call_us = MicrosPerCall(calls / 10, [&] {
    auto y = affine(s, {xv});
    if (!y.ok()) call_status = y.status();
  });

  if (!s.ok() || !call_status.ok()) {
    std::fprintf(stderr, "eager_overhead: %s %s\n", s.status().ToString().c_str(), call_status.ToString().c_str());
    return 1;
  }
  std::printf("tensoract eager Add, 1 element:      %8.3f us/op    (%d ops)\n", add_us, calls);
  std::printf("tensoract tape step, fwd+bwd:        %8.2f us/step  (%d steps)\n", tape_us, calls / 10);
  std::printf("tensoract Function call, 3-op graph: %8.2f us/call  (%d calls, traced %d time(s))\n", call_us,
              calls / 10, affine.trace_count());
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return Run(argc > 1 ? std::atoi(argv[1]) : 200000, argc > 2 ? argv[2] : ""); }
