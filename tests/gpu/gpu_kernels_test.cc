// Every GPU kernel against the CPU kernel of the same op, on random inputs with odd sizes,
// broadcasting and empty tensors: one graph holds both copies of the op, one pinned to
// /device:GPU:0 and one to /device:CPU:0, fed the same placeholders, and the results must
// agree within a tolerance that covers the different order of float sums.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "client/session.h"
#include "graph/builder/array_ops.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/nn_ops.h"
#include "graph/builder/ops.h"
#include "tests/gpu/gpu_test_util.h"

namespace tensoract {
namespace {

using testing::CompareWithCpu;
using testing::Build;

Tensor Random(DataType dtype, const TensorShape& shape, std::mt19937* rng, double lo = -2, double hi = 2) {
  return testing::RandomTensor(dtype, shape, rng, lo, hi);
}

TEST_CASE("unary GPU kernels agree with the CPU's, empty tensors included", "[gpu][cwise]") {
  std::mt19937 rng(1);
  using Fn = Output (*)(const Scope&, const Input&);
  const std::vector<std::pair<const char*, Fn>> ops_list = {
      {"Neg", ops::Neg}, {"Abs", ops::Abs}, {"Exp", ops::Exp}, {"Relu", ops::Relu}, {"Tanh", ops::Tanh},
      {"Sigmoid", ops::Sigmoid}, {"Square", ops::Square}, {"Floor", ops::Floor}, {"Ceil", ops::Ceil}};
  for (const TensorShape& shape : {TensorShape({}), TensorShape({0}), TensorShape({7}), TensorShape({33, 17}),
                                   TensorShape({3, 0, 5}), TensorShape({1001, 3})}) {
    for (auto [name, fn] : ops_list) {
      CompareWithCpu(std::string(name) + " " + shape.DebugString(), {Random(tensorflow::DT_FLOAT, shape, &rng)},
                     [fn = fn](const Scope& s, const std::vector<Output>& in) { return std::vector<Output>{fn(s, in[0])}; });
    }
    // Logs and roots of positive values.
    CompareWithCpu("Log/Sqrt/Rsqrt " + shape.DebugString(), {Random(tensorflow::DT_DOUBLE, shape, &rng, 0.1, 3)},
                   [](const Scope& s, const std::vector<Output>& in) {
                     return std::vector<Output>{ops::Log(s, in[0]), ops::Sqrt(s, in[0]), ops::Rsqrt(s, in[0])};
                   });
  }
}

TEST_CASE("binary GPU kernels broadcast as the CPU's do", "[gpu][cwise]") {
  std::mt19937 rng(2);
  const std::vector<std::pair<TensorShape, TensorShape>> shapes = {
      {{5, 3}, {5, 3}}, {{5, 3}, {3}}, {{}, {4, 2}}, {{4, 1, 3}, {1, 7, 1}}, {{2, 1, 3, 1, 5}, {3, 4, 1}},
      {{0, 3}, {3}}, {{1001}, {1}}, {{64, 256}, {256}}};
  for (const auto& [xs, ys] : shapes) {
    const std::string where = xs.DebugString() + " and " + ys.DebugString();
    CompareWithCpu("arithmetic " + where,
                   {Random(tensorflow::DT_FLOAT, xs, &rng), Random(tensorflow::DT_FLOAT, ys, &rng, 0.5, 2)},
                   [](const Scope& s, const std::vector<Output>& in) {
                     return std::vector<Output>{ops::Add(s, in[0], in[1]), ops::Sub(s, in[0], in[1]),
                                                ops::Mul(s, in[0], in[1]), ops::RealDiv(s, in[0], in[1]),
                                                ops::Maximum(s, in[0], in[1]), ops::Minimum(s, in[0], in[1]),
                                                ops::SquaredDifference(s, in[0], in[1])};
                   });
    CompareWithCpu("comparisons " + where,
                   {Random(tensorflow::DT_DOUBLE, xs, &rng), Random(tensorflow::DT_DOUBLE, ys, &rng)},
                   [](const Scope& s, const std::vector<Output>& in) {
                     return std::vector<Output>{ops::Less(s, in[0], in[1]), ops::GreaterEqual(s, in[0], in[1]),
                                                ops::Equal(s, in[0], in[0])};
                   });
  }
  const TensorShape same({9, 13});
  CompareWithCpu("activation gradients",
                 {Random(tensorflow::DT_FLOAT, same, &rng), Random(tensorflow::DT_FLOAT, same, &rng, 0.1, 0.9)},
                 [](const Scope& s, const std::vector<Output>& in) {
                   return std::vector<Output>{ops::ReluGrad(s, in[0], in[1]), ops::SigmoidGrad(s, in[1], in[0]),
                                              ops::TanhGrad(s, in[1], in[0])};
                 });
}

TEST_CASE("Cast, Select, AddN, Fill, ZerosLike and OnesLike on the GPU", "[gpu][cwise]") {
  std::mt19937 rng(3);
  const TensorShape shape({6, 11});
  CompareWithCpu("casts", {Random(tensorflow::DT_FLOAT, shape, &rng, -5, 5)}, [](const Scope& s, const std::vector<Output>& in) {
    Output d = ops::Cast(s, in[0], tensorflow::DT_DOUBLE);
    Output i = ops::Cast(s, in[0], tensorflow::DT_INT64);
    Output b = ops::Cast(s, in[0], tensorflow::DT_BOOL);
    return std::vector<Output>{d, i, b, ops::Cast(s, b, tensorflow::DT_FLOAT), ops::Cast(s, i, tensorflow::DT_FLOAT)};
  });
  CompareWithCpu("select and addn",
                 {Random(tensorflow::DT_FLOAT, shape, &rng), Random(tensorflow::DT_FLOAT, shape, &rng)},
                 [](const Scope& s, const std::vector<Output>& in) {
                   Output c = ops::Greater(s, in[0], in[1]);
                   return std::vector<Output>{ops::Select(s, c, in[0], in[1]),
                                              ops::AddN(s, {in[0], in[1], in[0], in[1], in[0], in[1], in[0], in[1], in[0]}),
                                              ops::ZerosLike(s, in[0]), ops::OnesLike(s, in[1])};
                 });
  CompareWithCpu("select broadcasting", {Random(tensorflow::DT_FLOAT, TensorShape({3, 1}), &rng),
                                        Random(tensorflow::DT_FLOAT, TensorShape({4}), &rng),
                                        Random(tensorflow::DT_FLOAT, TensorShape({2, 3, 4}), &rng)},
                 [](const Scope& s, const std::vector<Output>& in) {
                   Output rows = ops::Greater(s, ops::Reshape(s, in[0], ops::Const(s, {3})), 0.f);
                   return std::vector<Output>{
                       ops::SelectV2(s, ops::Greater(s, in[0], 0.f), in[1], in[2]),  // [3,1], [4], [2,3,4]
                       ops::SelectV2(s, ops::Greater(s, in[1], 0.f), in[0], 5.f),    // [4], [3,1], []
                       ops::Select(s, rows, ops::Tile(s, in[0], ops::Const(s, {1, 4})),
                                   ops::ZerosLike(s, ops::Tile(s, in[0], ops::Const(s, {1, 4}))))};  // rows
                 });
  CompareWithCpu("fill", {}, [](const Scope& s, const std::vector<Output>&) {
    return std::vector<Output>{ops::Fill(s, ops::Const(s, {3, 0}), 2.5f), ops::Fill(s, ops::Const(s, {4, 5}), 1.5)};
  });
}

TEST_CASE("MatMul and BatchMatMulV2 through cuBLAS agree with the CPU's", "[gpu][matmul]") {
  std::mt19937 rng(4);
  for (auto [m, k, n] : std::vector<std::tuple<int, int, int>>{{1, 1, 1}, {17, 33, 9}, {64, 784, 256}, {3, 0, 4}, {0, 5, 2}}) {
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        TensorShape as = ta ? TensorShape({k, m}) : TensorShape({m, k});
        TensorShape bs = tb ? TensorShape({n, k}) : TensorShape({k, n});
        CompareWithCpu("MatMul " + as.DebugString() + " x " + bs.DebugString(),
                       {Random(tensorflow::DT_FLOAT, as, &rng), Random(tensorflow::DT_FLOAT, bs, &rng)},
                       [ta = ta, tb = tb](const Scope& s, const std::vector<Output>& in) {
                         return std::vector<Output>{ops::MatMul(s, in[0], in[1], {ta, tb})};
                       },
                       1e-4);
      }
    }
  }
  CompareWithCpu("BatchMatMulV2 [4,5,6] x [4,6,3] and [4,5,6] x [6,7]",
                 {Random(tensorflow::DT_DOUBLE, TensorShape({4, 5, 6}), &rng),
                  Random(tensorflow::DT_DOUBLE, TensorShape({4, 6, 3}), &rng),
                  Random(tensorflow::DT_DOUBLE, TensorShape({6, 7}), &rng)},
                 [](const Scope& s, const std::vector<Output>& in) {
                   return std::vector<Output>{ops::BatchMatMulV2(s, in[0], in[1]), ops::BatchMatMulV2(s, in[0], in[2]),
                                              ops::BatchMatMulV2(s, in[1], in[0], {true, true})};
                 },
                 1e-10);
}

// Sums of thousands of terms in another order: the error follows the partial sums' size,
// so it is measured against the largest result.
TEST_CASE("reductions on the GPU agree with the CPU's over any axes", "[gpu][reduce]") {
  std::mt19937 rng(5);
  const std::vector<std::pair<TensorShape, std::vector<int>>> cases = {
      {{100}, {0}}, {{7, 9}, {0}}, {{7, 9}, {1}}, {{7, 9}, {0, 1}}, {{4, 5, 6}, {1}}, {{4, 5, 6}, {1, 2}},
      {{4, 5, 6}, {-1}}, {{3, 1, 8}, {0, 1}}, {{0, 4}, {0}}, {{513, 10}, {0}}, {{2, 3}, {}},
      // Long rows and tall columns, reduced in two passes.
      {{2, 70000}, {1}}, {{100000}, {0}}, {{20000, 32}, {0}}, {{3, 5000, 7}, {1}}, {{401408, 32}, {0}},
      {{3000, 100}, {0}},
      // Axes that are not neighbours: a pass per run of them (broadcasting gradients need these).
      {{2, 3, 4}, {0, 2}}, {{2, 3, 4}, {-1, -3}}, {{5, 1, 6, 7, 3}, {0, 3}}, {{4, 300, 2, 50}, {1, 3}}};
  for (const auto& [shape, axes] : cases) {
    for (bool keep : {false, true}) {
      std::string where = shape.DebugString() + " axes " + std::to_string(axes.size()) + (keep ? " keep_dims" : "");
      CompareWithCpu("reductions " + where, {Random(tensorflow::DT_FLOAT, shape, &rng)},
                     [axes = axes, keep](const Scope& s, const std::vector<Output>& in) {
                       tensorflow::TensorProto proto;
                       Tensor::FromVector<int32_t>(axes).AsProtoTensorContent(&proto);
                       Output a = ops::Const(s, proto);
                       ops::ReductionAttrs attrs{keep};
                       std::vector<Output> out = {ops::Sum(s, in[0], a, attrs), ops::Max(s, in[0], a, attrs),
                                                  ops::Min(s, in[0], a, attrs)};
                       if (!axes.empty()) out.push_back(ops::Mean(s, in[0], a, attrs));
                       return out;
                     },
                     // Float sums of up to 400,000 terms in another order: within 1e-4 of the
                     // largest result (the CPU's own error is of that order).
                     1e-4, /*scale_by_max=*/true);
    }
  }
}

TEST_CASE("BiasAdd, softmax and cross-entropy on the GPU agree with the CPU's", "[gpu][nn]") {
  std::mt19937 rng(6);
  for (auto [batch, classes] : std::vector<std::pair<int, int>>{{1, 1}, {64, 10}, {3, 1000}, {0, 10}}) {
    Tensor labels(tensorflow::DT_INT32, TensorShape({batch}));
    for (int i = 0; i < batch; ++i) labels.base<int32_t>()[i] = static_cast<int32_t>(rng() % classes);
    CompareWithCpu("nn ops " + std::to_string(batch) + "x" + std::to_string(classes),
                   {Random(tensorflow::DT_FLOAT, TensorShape({batch, classes}), &rng, -5, 5),
                    Random(tensorflow::DT_FLOAT, TensorShape({classes}), &rng), labels},
                   [](const Scope& s, const std::vector<Output>& in) {
                     auto xent = ops::SparseSoftmaxCrossEntropyWithLogits(s, in[0], in[2]);
                     return std::vector<Output>{ops::BiasAdd(s, in[0], in[1]), ops::BiasAddGrad(s, in[0]),
                                                ops::Softmax(s, in[0]), ops::LogSoftmax(s, in[0]), xent.loss,
                                                xent.backprop};
                   },
                   1e-5);
  }
}

TEST_CASE("BiasAdd and BiasAddGrad in NCHW on the GPU agree with the CPU's", "[gpu][nn]") {
  std::mt19937 rng(16);
  for (const TensorShape& shape : {TensorShape({2, 3, 4, 5}), TensorShape({64, 33, 9}), TensorShape({4, 7}),
                                   TensorShape({512, 32, 28, 28}), TensorShape({0, 3, 2, 2})}) {
    const int64_t channels = shape.dim_size(1);
    CompareWithCpu("NCHW bias " + shape.DebugString(),
                   {Random(tensorflow::DT_FLOAT, shape, &rng), Random(tensorflow::DT_FLOAT, TensorShape({channels}), &rng)},
                   [](const Scope& s, const std::vector<Output>& in) {
                     ops::BiasAddAttrs nchw;
                     nchw.data_format = "NCHW";
                     return std::vector<Output>{ops::BiasAdd(s, in[0], in[1], nchw), ops::BiasAddGrad(s, in[0], nchw)};
                   },
                   1e-4, /*scale_by_max=*/true);
  }
}

TEST_CASE("a label out of range is an error naming the node, and the GPU keeps working", "[gpu][nn]") {
  Scope root = Scope::NewRootScope().WithDevice("/device:GPU:0");
  auto logits = ops::Placeholder(root.WithOpName("logits"), tensorflow::DT_FLOAT);
  auto labels = ops::Placeholder(root.WithOpName("labels"), tensorflow::DT_INT32);
  auto xent = ops::SparseSoftmaxCrossEntropyWithLogits(root.WithOpName("xent"), logits, labels);
  tensorflow::GraphDef def;
  REQUIRE(root.ToGraphDef(&def).ok());
  auto session = Session::New({});
  REQUIRE(session.ok());
  REQUIRE((*session)->Create(def).ok());
  std::vector<Tensor> out;
  Tensor x = Tensor::FromVector<float>({1, 2, 3, 4}, TensorShape({2, 2}));
  Status bad = (*session)->Run({{"logits", x}, {"labels", Tensor::FromVector<int32_t>({0, 7})}}, {xent.loss.name()}, {}, &out);
  CHECK(errors::IsInvalidArgument(bad));
  CHECK_THAT(bad.message(), Catch::Contains("xent") && Catch::Contains("label value of 7"));
  REQUIRE((*session)->Run({{"logits", x}, {"labels", Tensor::FromVector<int32_t>({0, 1})}}, {xent.loss.name()}, {}, &out).ok());
  CHECK(out[0].NumElements() == 2);
}

}  // namespace
}  // namespace tensoract
