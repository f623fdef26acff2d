// MatMul throughput on the GPU (cuBLAS through the runtime): two n x n float variables on
// the GPU, and a step of 20 chained products y_i = y_{i-1} . b (b scaled to keep values
// bounded) whose last result is summed and fetched, so the timed step includes the wait
// for the GPU. matmul_peers.py --device gpu measures PyTorch's torch.mm the same way.
//
//   gpu_matmul [sizes...]      (default 1024 2048 4096 8192)
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "client/session.h"
#include "graph/builder/array_ops.h"
#include "graph/builder/ops.h"
#include "graph/training/variables.h"

using namespace tensoract;

int main(int argc, char** argv) {
  std::vector<int64_t> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back(std::atoll(argv[i]));
  if (sizes.empty()) sizes = {1024, 2048, 4096, 8192};
  constexpr int kChain = 20;
  for (int64_t n : sizes) {
    Scope root = Scope::NewRootScope();
    Scope gpu = root.WithDevice("/device:GPU:0");
    auto x_in = ops::Placeholder(root.WithOpName("x_in"), tensorflow::DT_FLOAT);
    auto b_in = ops::Placeholder(root.WithOpName("b_in"), tensorflow::DT_FLOAT);
    auto x = ops::VarHandleOp(gpu.WithOpName("x"), tensorflow::DT_FLOAT, PartialTensorShape({n, n}));
    auto b = ops::VarHandleOp(gpu.WithOpName("b"), tensorflow::DT_FLOAT, PartialTensorShape({n, n}));
    ops::AssignVariableOp(gpu.WithOpName("init_x"), x, x_in);
    ops::AssignVariableOp(gpu.WithOpName("init_b"), b, b_in);
    Output bv = ops::ReadVariableOp(gpu, b, tensorflow::DT_FLOAT);
    Output y = ops::ReadVariableOp(gpu, x, tensorflow::DT_FLOAT);
    for (int i = 0; i < kChain; ++i) y = ops::MatMul(gpu, y, bv);
    ops::Sum(gpu.WithOpName("sum"), y, ops::Const(gpu, {0, 1}));
    tensorflow::GraphDef graph;
    Status s = root.ToGraphDef(&graph);
    auto session = Session::New({});
    if (s.ok()) s = session.status();
    if (s.ok()) s = (*session)->Create(graph);
    Tensor xv(tensorflow::DT_FLOAT, TensorShape({n, n})), bvv(tensorflow::DT_FLOAT, TensorShape({n, n}));
    std::mt19937 rng(1);
    std::normal_distribution<float> normal(0.f, 1.f);
    const float scale = 1.0f / std::sqrt(static_cast<float>(n));
    for (int64_t i = 0; i < n * n; ++i) xv.base<float>()[i] = normal(rng);
    for (int64_t i = 0; i < n * n; ++i) bvv.base<float>()[i] = normal(rng) * scale;
    if (s.ok()) s = (*session)->Run({{"x_in", xv}, {"b_in", bvv}}, {}, {"init_x", "init_b"}, nullptr);
    std::vector<Tensor> out;
    auto run = [&] { return (*session)->Run({}, {"sum"}, {}, &out); };
    if (s.ok()) s = run();  // warm-up
    if (s.ok()) s = run();
    if (!s.ok()) {
      std::fprintf(stderr, "gpu_matmul: %s\n", s.ToString().c_str());
      return 1;
    }
    const double flops = 2.0 * n * n * n * kChain;
    const int reps = flops < 1e12 ? 20 : 5;
    auto start = std::chrono::steady_clock::now();
    for (int r = 0; r < reps; ++r) run();
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("tensoract gpu matmul n=%lld: %.1f TFLOP/s (fp32, cuBLAS; sum %.3g)\n", static_cast<long long>(n),
                flops * reps / secs / 1e12, out[0].base<float>()[0]);
  }
  return 0;
}
