// The libtorch peer of eager_overhead.cc: the same eager Add and tape step through
// libtorch's C++ API (the torch wheel's torch/include and torch/lib), on one thread.
//
//   eager_overhead_torch [calls]
#include <torch/torch.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace {

template <class F>
double MicrosPerCall(int calls, F f) {
  for (int i = 0; i < calls / 10 + 10; ++i) f();
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) f();
  return 1e6 * std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / calls;
}

torch::Tensor Filled(std::vector<int64_t> dims, float first) {
  auto t = torch::empty(dims, torch::kFloat32);
  float* p = t.data_ptr<float>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = first + 0.01f * static_cast<float>(i % 17) - 0.08f;
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  const int calls = argc > 1 ? std::atoi(argv[1]) : 200000;
  torch::set_num_threads(1);
  torch::Tensor x = Filled({1}, 1.f), one = Filled({1}, 1.f);
  double add_us;
  {
    torch::NoGradGuard no_grad;  // as our eager Add, which no tape records
    add_us = MicrosPerCall(calls, [&] { x = x + one; });
  }
  torch::Tensor xs = Filled({4, 8}, 0.1f);
  torch::Tensor w = Filled({8, 8}, 0.2f).requires_grad_(true), b = Filled({8}, 0.f).requires_grad_(true);
  double tape_us = MicrosPerCall(calls / 10, [&] {
    torch::Tensor loss = torch::relu(torch::matmul(xs, w) + b).sum();
    auto grads = torch::autograd::grad({loss}, {w, b});
  });
  std::printf("libtorch %s eager add, 1 element:  %8.3f us/op    (%d ops)\n", TORCH_VERSION, add_us, calls);
  std::printf("libtorch %s tape step, fwd+bwd:    %8.2f us/step  (%d steps)\n", TORCH_VERSION, tape_us, calls / 10);
  return 0;
}
