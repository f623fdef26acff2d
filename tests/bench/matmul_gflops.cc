// MatMul throughput of our CPU kernel, run as the runtime runs it: a graph of 10 chained
// n x n float MatMuls (y_i = y_{i-1} . b, b scaled to keep values bounded), executed
// through Session::Run with the given number of threads. run_matmul_bench.sh prints it
// next to the machine's best BLAS (PyTorch's and NumPy's matmul) measured in the same run.
// A size MxKxN times 10 products [M, K] x [K, N] of the same operands instead, each after
// the last (a control edge), as a layer's MatMul runs in a training step.
//
//   matmul_gflops --threads N [sizes...]      (default sizes 256 512 1024 2048; or MxKxN)
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include "client/session.h"
#include "graph/builder/ops.h"
#include "kernels/cpu/gemm.h"

using namespace tensoract;

int main(int argc, char** argv) {
  int threads = 1;
  struct Size {
    int64_t m, k, n;
  };
  std::vector<Size> sizes;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--threads" && i + 1 < argc) {
      threads = std::atoi(argv[++i]);
    } else {
      long long m = 0, k = 0, n = 0;
      if (std::sscanf(a.c_str(), "%lldx%lldx%lld", &m, &k, &n) != 3) m = k = n = std::atoll(a.c_str());
      if (m <= 0 || k <= 0 || n <= 0) {
        std::fprintf(stderr, "matmul_gflops: size '%s' is neither N nor MxKxN\n", a.c_str());
        return 1;
      }
      sizes.push_back({m, k, n});
    }
  }
  if (sizes.empty()) sizes = {{256, 256, 256}, {512, 512, 512}, {1024, 1024, 1024}, {2048, 2048, 2048}};
  constexpr int kChain = 10;
  for (const Size& size : sizes) {
    const int64_t m = size.m, k = size.k, n = size.n;
    const bool square = m == k && k == n;
    Scope root = Scope::NewRootScope();
    auto x = ops::Placeholder(root.WithOpName("x"), tensorflow::DT_FLOAT, PartialTensorShape({m, k}));
    auto b = ops::Placeholder(root.WithOpName("b"), tensorflow::DT_FLOAT, PartialTensorShape({k, n}));
    Output y = x;
    for (int i = 0; i < kChain; ++i) {
      if (square) y = ops::MatMul(root, y, b);
      else y = ops::MatMul(i == 0 ? root : root.WithControlDependencies({y}), x, b);
    }
    ops::NoOp(root.WithOpName("done").WithControlDependencies({y}));
    tensorflow::GraphDef graph;
    Status s = root.ToGraphDef(&graph);
    SessionOptions options;
    options.num_threads = threads;
    auto session = Session::New(options);
    if (s.ok()) s = session.status();
    if (s.ok()) s = (*session)->Create(graph);
    Tensor xv(tensorflow::DT_FLOAT, TensorShape({m, k})), bv(tensorflow::DT_FLOAT, TensorShape({k, n}));
    std::mt19937 rng(1);
    std::normal_distribution<float> normal(0.f, 1.f);
    const float scale = 1.0f / std::sqrt(static_cast<float>(k));
    for (int64_t i = 0; i < m * k; ++i) xv.base<float>()[i] = normal(rng);
    for (int64_t i = 0; i < k * n; ++i) bv.base<float>()[i] = normal(rng) * scale;
    auto run = [&] { return (*session)->Run({{"x", xv}, {"b", bv}}, {}, {"done"}, nullptr); };
    if (s.ok()) s = run();  // warm-up
    if (!s.ok()) {
      std::fprintf(stderr, "matmul_gflops: %s\n", s.ToString().c_str());
      return 1;
    }
    const double flops = 2.0 * m * n * k * kChain;
    const int reps = flops < 4e9 ? 20 : (flops < 3e10 ? 4 : 1);
    auto start = std::chrono::steady_clock::now();
    for (int r = 0; r < reps; ++r) run();
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (square) std::printf("tensoract matmul n=%lld", static_cast<long long>(n));
    else std::printf("tensoract matmul %lldx%lldx%lld", static_cast<long long>(m), static_cast<long long>(k),
                     static_cast<long long>(n));
    std::printf(" threads %d: %.1f GFLOP/s (kernels %s)\n", threads, flops * reps / secs / 1e9, gemm::KernelIsa());
  }
  return 0;
}
