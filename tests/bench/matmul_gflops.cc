// MatMul throughput of our CPU kernel, run as the runtime runs it: a graph of 10 chained
// n x n float MatMuls (y_i = y_{i-1} . b, b scaled to keep values bounded), executed
// through Session::Run with the given number of threads. run_matmul_bench.sh prints it
// next to the machine's best BLAS (PyTorch's and NumPy's matmul) measured in the same run.
//
//   matmul_gflops --threads N [sizes...]      (default sizes 256 512 1024 2048)
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include "actors/session.h"
#include "graph/builder/ops.h"

using namespace tensoract;

int main(int argc, char** argv) {
  int threads = 1;
  std::vector<int64_t> sizes;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--threads" && i + 1 < argc) {
      threads = std::atoi(argv[++i]);
    } else {
      sizes.push_back(std::atoll(argv[i]));
    }
  }
  if (sizes.empty()) sizes = {256, 512, 1024, 2048};
  constexpr int kChain = 10;
  for (int64_t n : sizes) {
    Scope root = Scope::NewRootScope();
    auto x = ops::Placeholder(root.WithOpName("x"), tensorflow::DT_FLOAT, PartialTensorShape({n, n}));
    auto b = ops::Placeholder(root.WithOpName("b"), tensorflow::DT_FLOAT, PartialTensorShape({n, n}));
    Output y = x;
    for (int i = 0; i < kChain; ++i) y = ops::MatMul(root, y, b);
    ops::NoOp(root.WithOpName("done").WithControlDependencies({y}));
    tensorflow::GraphDef graph;
    Status s = root.ToGraphDef(&graph);
    SessionOptions options;
    options.num_threads = threads;
    auto session = Session::New(options);
    if (s.ok()) s = session.status();
    if (s.ok()) s = (*session)->Create(graph);
    Tensor xv(tensorflow::DT_FLOAT, TensorShape({n, n})), bv(tensorflow::DT_FLOAT, TensorShape({n, n}));
    std::mt19937 rng(1);
    std::normal_distribution<float> normal(0.f, 1.f);
    const float scale = 1.0f / std::sqrt(static_cast<float>(n));
    for (int64_t i = 0; i < n * n; ++i) {
      xv.base<float>()[i] = normal(rng);
      bv.base<float>()[i] = normal(rng) * scale;
    }
    auto run = [&] { return (*session)->Run({{"x", xv}, {"b", bv}}, {}, {"done"}, nullptr); };
    if (s.ok()) s = run();  // warm-up
    if (!s.ok()) {
      std::fprintf(stderr, "matmul_gflops: %s\n", s.ToString().c_str());
      return 1;
    }
    const int reps = n <= 512 ? 20 : (n <= 1024 ? 4 : 1);
    auto start = std::chrono::steady_clock::now();
    for (int r = 0; r < reps; ++r) run();
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    double flops = 2.0 * n * n * n * kChain * reps;
    std::printf("tensoract matmul n=%lld threads %d: %.1f GFLOP/s\n", static_cast<long long>(n), threads,
                flops / secs / 1e9);
  }
  return 0;
}
