// The GPU device in a session: transfers between the CPU and the GPU, placement (GPU
// first), out-of-memory errors, and training the Fashion-MNIST MLP on the GPU with losses
// that track the CPU's.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "client/session.h"
#include "examples/fashion_mnist/model.h"
#include "graph/builder/array_ops.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/ops.h"
#include "kernels/gpu/gpu_context.h"

namespace tensoract {
namespace {

std::unique_ptr<Session> Open(const tensorflow::GraphDef& def, SessionOptions options = {}) {
  auto session = Session::New(options);
  REQUIRE(session.ok());
  Status s = (*session)->Create(def);
  INFO(s.ToString());
  REQUIRE(s.ok());
  return std::move(session).value();
}

TEST_CASE("tensors cross between the CPU and the GPU both ways, any size", "[gpu][transfer]") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), tensorflow::DT_FLOAT);
  auto shape = ops::Placeholder(root.WithOpName("shape"), tensorflow::DT_INT32);
  // CPU -> GPU -> CPU -> GPU -> CPU, and an int32 shape that stays in host memory.
  auto a = ops::Mul(root.WithDevice("/device:GPU:0"), x, 2.f);
  auto b = ops::Add(root.WithDevice("/device:CPU:0"), a, 1.f);
  auto c = ops::Reshape(root.WithDevice("/device:GPU:0").WithOpName("c"), ops::Neg(root.WithDevice("/device:GPU:0"), b), shape);
  tensorflow::GraphDef def;
  REQUIRE(root.ToGraphDef(&def).ok());
  auto session = Open(def);
  for (int64_t n : {0, 1, 17, 1 << 20, 3 << 20}) {
    INFO("elements: " << n);
    std::vector<float> v(n);
    for (int64_t i = 0; i < n; ++i) v[i] = static_cast<float>(i % 1000) * 0.5f;
    std::vector<Tensor> out;
    Status s = session->Run({{"x", Tensor::FromVector<float>(v)}, {"shape", Tensor::FromVector<int32_t>({1, static_cast<int32_t>(n)})}},
                            {"c"}, {}, &out);
    INFO(s.ToString());
    REQUIRE(s.ok());
    REQUIRE(out[0].shape() == TensorShape({1, n}));
    for (int64_t i = 0; i < n; i += 997) REQUIRE(out[0].base<float>()[i] == -(v[i] * 2 + 1));
  }
}

TEST_CASE("nodes with a GPU kernel go to the GPU, the others stay on the CPU", "[gpu][placement]") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), tensorflow::DT_FLOAT);
  auto y = ops::MatMul(root.WithOpName("y"), x, x);
  // No GPU kernel for int32 arithmetic: it stays on the CPU.
  auto n = ops::Add(root.WithOpName("n"), ops::Const(root, 1), ops::Const(root, 2));
  tensorflow::GraphDef def;
  REQUIRE(root.ToGraphDef(&def).ok());
  gpu::GpuContext* gpu = gpu::GpuContext::Get(0, {}).value();
  const int64_t before = gpu->device_allocator()->GetStats().num_allocs;
  auto session = Open(def);
  std::vector<Tensor> out;
  REQUIRE(session->Run({{"x", Tensor::FromVector<float>({1, 2, 3, 4}, TensorShape({2, 2}))}}, {"y", "n"}, {}, &out).ok());
  CHECK(out[0].base<float>()[0] == 7);
  CHECK(out[1].base<int32_t>()[0] == 3);
  CHECK(gpu->device_allocator()->GetStats().num_allocs > before);  // the MatMul's output was on the GPU
  // The device and its memory are in the worker's snapshot.
  const std::string inspect = session->Inspect();
  INFO(inspect);
  CHECK_THAT(inspect, Catch::Contains("/device:GPU:0") && Catch::Contains("compute capability") &&
                          Catch::Contains("largest free block") && Catch::Contains("pci bus id"));
}

TEST_CASE("visible_device_list 'none' hides the GPU: a node pinned to it cannot be placed", "[gpu][placement]") {
  Scope root = Scope::NewRootScope();
  ops::Identity(root.WithOpName("y").WithDevice("/device:GPU:0"), ops::Const(root, 1.f));
  tensorflow::GraphDef def;
  REQUIRE(root.ToGraphDef(&def).ok());
  SessionOptions options;
  options.gpu.visible_device_list = "none";
  auto session = Open(def, options);
  std::vector<Tensor> out;
  Status s = session->Run({}, {"y"}, {}, &out);
  INFO(s.ToString());
  CHECK(errors::IsInvalidArgument(s));
  CHECK_THAT(s.message(), Catch::Contains("GPU"));
}

TEST_CASE("a tensor larger than the GPU's memory is ResourceExhausted naming the node; the GPU keeps working", "[gpu][oom]") {
  Scope root = Scope::NewRootScope().WithDevice("/device:GPU:0");
  auto big = ops::Fill(root.WithOpName("big"), ops::Const(root, {1 << 20, 1 << 19}), 1.f);  // 2 TiB
  auto sum = ops::Sum(root.WithOpName("sum"), big, ops::Const(root, {0, 1}));
  auto small = ops::Sum(root.WithOpName("small"), ops::Fill(root, ops::Const(root, {3, 4}), 2.f), ops::Const(root, {0, 1}));
  tensorflow::GraphDef def;
  REQUIRE(root.ToGraphDef(&def).ok());
  auto session = Open(def);
  std::vector<Tensor> out;
  Status s = session->Run({}, {"sum"}, {}, &out);
  INFO(s.ToString());
  CHECK(errors::IsResourceExhausted(s));
  CHECK_THAT(s.message(), Catch::Contains("big") && Catch::Contains("GPU_0_bfc") && Catch::Contains("in use"));
  REQUIRE(session->Run({}, {"small"}, {}, &out).ok());
  CHECK(out[0].base<float>()[0] == 24.f);
}

// The losses of `steps` Adam steps of a Fashion-MNIST model on random data.
std::vector<float> Train(fashion_mnist::ModelKind kind, bool use_gpu, int steps, int batch) {
  Scope root = Scope::NewRootScope();
  auto model = fashion_mnist::BuildModel(root, kind);
  REQUIRE(model.ok());
  tensorflow::GraphDef def;
  REQUIRE(root.ToGraphDef(&def).ok());
  SessionOptions options;
  if (!use_gpu) options.gpu.visible_device_list = "none";
  auto session = Open(def, options);
  REQUIRE(session->Run({}, {}, {model->init->name()}, nullptr).ok());
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> pixel(0, 1);
  std::vector<float> losses;
  for (int step = 0; step < steps; ++step) {
    Tensor images(tensorflow::DT_FLOAT, kind == fashion_mnist::ModelKind::kMlp ? TensorShape({batch, 784})
                                                                              : TensorShape({batch, 28, 28, 1}));
    Tensor labels(tensorflow::DT_INT32, TensorShape({batch}));
    for (int64_t i = 0; i < images.NumElements(); ++i) images.base<float>()[i] = pixel(rng);
    for (int i = 0; i < batch; ++i) labels.base<int32_t>()[i] = static_cast<int32_t>(rng() % 10);
    std::vector<Tensor> out;
    Status s = session->Run({{model->images.name(), images}, {model->labels.name(), labels}}, {model->loss.name()},
                            {model->train->name()}, &out);
    INFO(s.ToString());
    REQUIRE(s.ok());
    losses.push_back(out[0].base<float>()[0]);
  }
  return losses;
}

TEST_CASE("the Fashion-MNIST MLP trains on the GPU with the CPU's losses", "[gpu][training]") {
  gpu::GpuContext* gpu = gpu::GpuContext::Get(0, {}).value();
  const int64_t before = gpu->device_allocator()->GetStats().num_allocs;
  std::vector<float> on_gpu = Train(fashion_mnist::ModelKind::kMlp, true, 40, 64);
  CHECK(gpu->device_allocator()->GetStats().num_allocs > before + 40);
  std::vector<float> on_cpu = Train(fashion_mnist::ModelKind::kMlp, false, 40, 64);
  for (size_t i = 0; i < on_gpu.size(); ++i) {
    INFO("step " << i << ": GPU " << on_gpu[i] << ", CPU " << on_cpu[i]);
    CHECK(std::abs(on_gpu[i] - on_cpu[i]) <= 1e-3 * std::abs(on_cpu[i]) + 1e-4);
  }
  CHECK(on_gpu.back() < on_gpu.front());
}

// The convolutions run on TF32 tensor cores (gpu_conv_array_test.cc): the losses agree to
// about 1%, not to float precision.
TEST_CASE("the Fashion-MNIST CNN trains on the GPU with the CPU's losses", "[gpu][training]") {
  std::vector<float> on_gpu = Train(fashion_mnist::ModelKind::kCnn, true, 15, 16);
  std::vector<float> on_cpu = Train(fashion_mnist::ModelKind::kCnn, false, 15, 16);
  for (size_t i = 0; i < on_gpu.size(); ++i) {
    INFO("step " << i << ": GPU " << on_gpu[i] << ", CPU " << on_cpu[i]);
    CHECK(std::abs(on_gpu[i] - on_cpu[i]) <= 1e-2 * std::abs(on_cpu[i]) + 1e-4);
  }
}

}  // namespace
}  // namespace tensoract
