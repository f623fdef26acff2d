// The neural-network kernels (kernels/cpu/relu_op.cc, softplus_op.cc, bias_op.cc,
// softmax_op.cc, xent_op.cc) against values TensorFlow 2.21 computed for the same inputs
// (tf.nn.* and gen_nn_ops.*), for every dtype registered, and their errors.
#include <Eigen/Core>
#include <catch2/catch.hpp>

#include <limits>
#include <string>
#include <vector>

#include "graph/builder/nn_ops.h"
#include "graph/builder/ops.h"
#include "tests/kernels/nn_kernel_runner.h"

namespace tensoract {
namespace {

using nn_test::AsDoubles;
using nn_test::CheckClose;
using nn_test::KernelRunner;
using nn_test::Make;
namespace tf = ::tensorflow;

const std::vector<double> kX = {-2.5, -0.5, 0.0, 1.0, 3.0, 6.0, 7.5, -1e-3};
const std::vector<double> kG = {1, 2, 3, 4, 5, 6, 7, 8};
const TensorShape kShape({2, 4});

using UnaryBuilder = Output (*)(const Scope&, const Input&);
using BinaryBuilder = Output (*)(const Scope&, const Input&, const Input&);

template <class T>
std::vector<double> RunUnary(UnaryBuilder f, const std::vector<double>& x) {
  Scope s = Scope::NewRootScope();
  Output node = f(s, ops::Placeholder(s, DataTypeToEnum<T>::value));
  REQUIRE(s.ok());
  KernelRunner r;
  auto out = r.Run(node, {Make<T>(x, kShape)});
  INFO(out.status());
  REQUIRE(out.ok());
  REQUIRE(out->at(0).shape() == kShape);
  return AsDoubles<T>(out->at(0));
}

template <class T>
StatusOr<std::vector<Tensor>> RunBinary(BinaryBuilder f, const Tensor& a, const Tensor& b) {
  Scope s = Scope::NewRootScope();
  Output node = f(s, ops::Placeholder(s, a.dtype()), ops::Placeholder(s, b.dtype()));
  REQUIRE(s.ok());
  KernelRunner r;
  return r.Run(node, {a, b});
}

template <class T>
std::vector<double> RunGrad(BinaryBuilder f, const std::vector<double>& features) {
  auto out = RunBinary<T>(f, Make<T>(kG, kShape), Make<T>(features, kShape));
  INFO(out.status());
  REQUIRE(out.ok());
  return AsDoubles<T>(out->at(0));
}

TEMPLATE_TEST_CASE("Relu, Relu6 and their gradients match TensorFlow", "[nn]", float, double, int32_t, int64_t) {
  const bool is_int = std::is_integral<TestType>::value;
  // Integers: the inputs truncated toward zero (-2.5 -> -2, 7.5 -> 7, -1e-3 -> 0).
  const std::vector<double> x = is_int ? std::vector<double>{-2, 0, 0, 1, 3, 6, 7, 0} : kX;
  CheckClose(RunUnary<TestType>(ops::Relu, x), is_int ? std::vector<double>{0, 0, 0, 1, 3, 6, 7, 0}
                                                      : std::vector<double>{0, 0, 0, 1, 3, 6, 7.5, 0}, 0);
  CheckClose(RunUnary<TestType>(ops::Relu6, x), {0, 0, 0, 1, 3, 6, 6, 0}, 0);
  CheckClose(RunGrad<TestType>(ops::ReluGrad, x), {0, 0, 0, 4, 5, 6, 7, 0}, 0);
  CheckClose(RunGrad<TestType>(ops::Relu6Grad, x), {0, 0, 0, 4, 5, 0, 0, 0}, 0);
}

TEMPLATE_TEST_CASE("Elu, Softplus and their gradients match TensorFlow", "[nn]", float, double) {
  const double tol = std::is_same<TestType, float>::value ? 1e-6 : 1e-8;
  CheckClose(RunUnary<TestType>(ops::Elu, kX),
             {-0.917915001, -0.39346934, 0, 1, 3, 6, 7.5, -0.000999500167}, tol);
  CheckClose(RunUnary<TestType>(ops::Softplus, kX),
             {0.0788897343, 0.474076984, 0.693147181, 1.31326169, 3.04858735, 6.00247569, 7.50055293, 0.692647306},
             tol);
  CheckClose(RunGrad<TestType>(ops::EluGrad, RunUnary<TestType>(ops::Elu, kX)),
             {0.0820849986, 1.21306132, 3, 4, 5, 6, 7, 7.992004}, tol);
  CheckClose(RunGrad<TestType>(ops::SoftplusGrad, kX),
             {0.07585818, 0.755081338, 1.5, 2.92423431, 4.76287063, 5.98516426, 6.99613055, 3.998}, tol);
}

TEST_CASE("Softplus stays finite for very large and very negative features", "[nn]") {
  Scope s = Scope::NewRootScope();
  Output node = ops::Softplus(s, ops::Placeholder(s, tf::DT_FLOAT));
  KernelRunner r;
  auto out = r.Run(node, {Tensor::FromVector<float>({1000.f, -1000.f, -50.f})});
  REQUIRE(out.ok());
  CHECK(out->at(0).base<float>()[0] == 1000.f);
  CHECK(out->at(0).base<float>()[1] == 0.f);
  CHECK(out->at(0).base<float>()[2] == Approx(std::exp(-50.0)).epsilon(1e-5));
}

TEST_CASE("activation gradients refuse inputs of different shapes", "[nn]") {
  auto out = RunBinary<float>(ops::ReluGrad, Make<float>({1, 2, 3}, TensorShape({3})),
                              Make<float>({1, 2}, TensorShape({2})));
  REQUIRE(out.status().code() == error::INVALID_ARGUMENT);
  CHECK_THAT(out.status().message(), Catch::Contains("must have the same size and shape"));
}

TEMPLATE_TEST_CASE("BiasAdd and BiasAddGrad match TensorFlow in both data formats", "[nn]", float, double, int32_t,
                   int64_t) {
  const std::vector<double> x = {-2, -1, 0, 1, 3, 6, 7, 0};
  {
    auto out = RunBinary<TestType>([](const Scope& s, const Input& v, const Input& b) { return ops::BiasAdd(s, v, b); },
                                   Make<TestType>(x, kShape), Make<TestType>({1, -1, 2, 0}, TensorShape({4})));
    REQUIRE(out.ok());
    CheckClose(AsDoubles<TestType>(out->at(0)), {-1, -2, 2, 1, 4, 5, 9, 0}, 0);
  }
  Scope s = Scope::NewRootScope();
  KernelRunner r;
  auto grad = r.Run(ops::BiasAddGrad(s, ops::Placeholder(s, DataTypeToEnum<TestType>::value)),
                    {Make<TestType>(x, kShape)});
  REQUIRE(grad.ok());
  CheckClose(AsDoubles<TestType>(grad->at(0)), {1, 5, 7, 1}, 0);

  // NCHW: x = arange(12) as [2,3,2], bias [1,2,3].
  std::vector<double> x3;
  for (int i = 0; i < 12; ++i) x3.push_back(i);
  Output add = ops::BiasAdd(s, ops::Placeholder(s, DataTypeToEnum<TestType>::value),
                            ops::Placeholder(s, DataTypeToEnum<TestType>::value), {"NCHW"});
  auto nchw = r.Run(add, {Make<TestType>(x3, TensorShape({2, 3, 2})), Make<TestType>({1, 2, 3}, TensorShape({3}))});
  REQUIRE(nchw.ok());
  CheckClose(AsDoubles<TestType>(nchw->at(0)), {1, 2, 4, 5, 7, 8, 7, 8, 10, 11, 13, 14}, 0);
  auto nchw_grad = r.Run(ops::BiasAddGrad(s, ops::Placeholder(s, DataTypeToEnum<TestType>::value), {"NCHW"}),
                         {Make<TestType>(x3, TensorShape({2, 3, 2}))});
  REQUIRE(nchw_grad.ok());
  CheckClose(AsDoubles<TestType>(nchw_grad->at(0)), {14, 22, 30}, 0);
}

TEST_CASE("BiasAdd on a large batch (spread over threads) adds the bias to every row", "[nn]") {
  const int64_t rows = 4096, cols = 256;
  std::vector<float> v(rows * cols), b(cols);
  for (int64_t i = 0; i < rows * cols; ++i) v[i] = static_cast<float>(i % 97);
  for (int64_t j = 0; j < cols; ++j) b[j] = static_cast<float>(j);
  auto out = RunBinary<float>([](const Scope& s, const Input& x, const Input& y) { return ops::BiasAdd(s, x, y); },
                              Tensor::FromVector(v, TensorShape({rows, cols})), Tensor::FromVector(b));
  REQUIRE(out.ok());
  const float* o = out->at(0).base<float>();
  bool all = true;
  for (int64_t i = 0; i < rows * cols; ++i) all &= o[i] == v[i] + b[i % cols];
  CHECK(all);
}

TEST_CASE("BiasAdd refuses a bias that does not match the channels, and values below 2-D", "[nn]") {
  auto f = [](const Scope& s, const Input& v, const Input& b) { return ops::BiasAdd(s, v, b); };
  auto out = RunBinary<float>(f, Make<float>(kX, kShape), Make<float>({1, 2, 3}, TensorShape({3})));
  REQUIRE(out.status().code() == error::INVALID_ARGUMENT);
  CHECK_THAT(out.status().message(), Catch::Contains("Must provide as many biases as the last dimension"));
  out = RunBinary<float>(f, Make<float>({1, 2}, TensorShape({2})), Make<float>({1, 2}, TensorShape({2})));
  REQUIRE(out.status().code() == error::INVALID_ARGUMENT);
  CHECK_THAT(out.status().message(), Catch::Contains("Input tensor must be at least 2D"));
}

TEST_CASE("BiasAdd's shape function merges the bias into the channel dimension", "[nn]") {
  Scope s = Scope::NewRootScope();
  Output v = ops::Placeholder(s, tf::DT_FLOAT, PartialTensorShape({-1, -1}));
  Output b = ops::Placeholder(s, tf::DT_FLOAT, PartialTensorShape({10}));
  Output out = ops::BiasAdd(s, v, b);
  REQUIRE(s.ok());
  CHECK(out.node->output_shape(0).DebugString() == PartialTensorShape({-1, 10}).DebugString());
  ops::BiasAdd(s, ops::Placeholder(s, tf::DT_FLOAT, PartialTensorShape({2, 3})),
               ops::Placeholder(s, tf::DT_FLOAT, PartialTensorShape({4})));
  CHECK(!s.ok());
}

TEMPLATE_TEST_CASE("Softmax and LogSoftmax match TensorFlow", "[nn]", float, double) {
  const double tol = std::is_same<TestType, float>::value ? 1e-6 : 1e-8;
  CheckClose(RunUnary<TestType>(ops::Softmax, kX),
             {0.0186264824, 0.137632124, 0.22691701, 0.616824384, 0.00899665639, 0.180702674, 0.8098532,
              0.000447469454},
             tol);
  CheckClose(RunUnary<TestType>(ops::LogSoftmax, kX),
             {-3.98317092, -1.98317092, -1.48317092, -0.483170924, -4.71090228, -1.71090228, -0.210902282,
              -7.71190228},
             tol);
}

// half and bfloat16: TensorFlow's steps, each rounded to the type as its Eigen expression
// rounds it, give TensorFlow's values bit for bit here (the sums are exact in float).
template <class T>
const std::vector<double>& SmallFloat(const std::vector<double>& half, const std::vector<double>& bfloat16) {
  return std::is_same<T, Eigen::half>::value ? half : bfloat16;
}

TEMPLATE_TEST_CASE("Softmax and LogSoftmax in half and bfloat16 match TensorFlow bit for bit", "[nn][softmax]",
                   Eigen::half, Eigen::bfloat16) {
  CheckClose(RunUnary<TestType>(ops::Softmax, kX),
             SmallFloat<TestType>({0.01861572265625, 0.1375732421875, 0.2269287109375, 0.61669921875,
                                   0.00899505615234375, 0.1806640625, 0.8095703125, 0.0004477500915527344},
                                  {0.0185546875, 0.1376953125, 0.2265625, 0.6171875, 0.00897216796875, 0.1796875,
                                   0.80859375, 0.000446319580078125}),
             0);
  CheckClose(RunUnary<TestType>(ops::LogSoftmax, kX),
             SmallFloat<TestType>({-3.982421875, -1.9833984375, -1.4833984375, -0.483154296875, -4.7109375,
                                   -1.7109375, -0.2113037109375, -7.7109375},
                                  {-3.984375, -1.984375, -1.484375, -0.48046875, -4.71875, -1.7109375, -0.2109375,
                                   -7.71875}),
             0);
}

TEST_CASE("a half Softmax whose sum passes 65504 is 0, its LogSoftmax -inf, as TensorFlow's", "[nn][softmax]") {
  const TensorShape row({1, 100000});
  Tensor zeros = Make<Eigen::half>(std::vector<double>(100000, 0.0), row);
  for (UnaryBuilder f : {static_cast<UnaryBuilder>(ops::Softmax), static_cast<UnaryBuilder>(ops::LogSoftmax)}) {
    Scope s = Scope::NewRootScope();
    KernelRunner r;
    auto out = r.Run(f(s, ops::Placeholder(s, tf::DT_HALF)), {zeros});
    REQUIRE(out.ok());
    const double first = static_cast<double>(out->at(0).base<Eigen::half>()[0]);
    if (f == static_cast<UnaryBuilder>(ops::Softmax)) CHECK(first == 0.0);
    else CHECK(first == -std::numeric_limits<double>::infinity());
  }
  // bfloat16 has float's range: 1 / 100000 to its precision.
  Scope s = Scope::NewRootScope();
  KernelRunner r;
  auto out = r.Run(ops::Softmax(s, ops::Placeholder(s, tf::DT_BFLOAT16)),
                   {Make<Eigen::bfloat16>(std::vector<double>(100000, 0.0), row)});
  REQUIRE(out.ok());
  CHECK(static_cast<double>(out->at(0).base<Eigen::bfloat16>()[0]) == 9.953975677490234e-06);
}

TEST_CASE("Softmax does not overflow on large logits", "[nn]") {
  Scope s = Scope::NewRootScope();
  KernelRunner r;
  auto out = r.Run(ops::Softmax(s, ops::Placeholder(s, tf::DT_FLOAT)), {Tensor::FromVector<float>({1000.f, 1000.f})});
  REQUIRE(out.ok());
  CHECK(out->at(0).base<float>()[0] == Approx(0.5));
}

TEMPLATE_TEST_CASE("SparseSoftmaxCrossEntropyWithLogits matches TensorFlow for int32 and int64 labels", "[nn]",
                   float, double) {
  const double tol = std::is_same<TestType, float>::value ? 1e-6 : 1e-8;
  for (DataType label_type : {tf::DT_INT32, tf::DT_INT64}) {
    Scope s = Scope::NewRootScope();
    auto xent = ops::SparseSoftmaxCrossEntropyWithLogits(s, ops::Placeholder(s, DataTypeToEnum<TestType>::value),
                                                         ops::Placeholder(s, label_type));
    REQUIRE(s.ok());
    Tensor labels = label_type == tf::DT_INT32 ? Tensor::FromVector<int32_t>({3, 0}) : Tensor::FromVector<int64_t>({3, 0});
    KernelRunner r;
    auto out = r.Run(xent.loss, {Make<TestType>(kX, kShape), labels});
    INFO(out.status());
    REQUIRE(out.ok());
    CheckClose(AsDoubles<TestType>(out->at(0)), {0.483170924, 4.71090228}, tol);
    CheckClose(AsDoubles<TestType>(out->at(1)),
               {0.0186264824, 0.137632124, 0.22691701, -0.383175616, -0.991003344, 0.180702674, 0.8098532,
                0.000447469454},
               tol);

    Tensor bad = label_type == tf::DT_INT32 ? Tensor::FromVector<int32_t>({4, 0}) : Tensor::FromVector<int64_t>({4, 0});
    auto err = r.Run({Make<TestType>(kX, kShape), bad});
    REQUIRE(err.status().code() == error::INVALID_ARGUMENT);
    CHECK_THAT(err.status().message(),
               Catch::Contains("Received a label value of 4 which is outside the valid range of [0, 4).  Label "
                               "values: 4 0"));
    Tensor negative = label_type == tf::DT_INT32 ? Tensor::FromVector<int32_t>({0, -1}) : Tensor::FromVector<int64_t>({0, -1});
    CHECK(r.Run({Make<TestType>(kX, kShape), negative}).status().code() == error::INVALID_ARGUMENT);
    Tensor short_labels = label_type == tf::DT_INT32 ? Tensor::FromVector<int32_t>({0}) : Tensor::FromVector<int64_t>({0});
    auto mismatch = r.Run({Make<TestType>(kX, kShape), short_labels});
    REQUIRE(mismatch.status().code() == error::INVALID_ARGUMENT);
    CHECK_THAT(mismatch.status().message(), Catch::Contains("must have the same first dimension"));
  }
}

TEMPLATE_TEST_CASE("both cross entropies in half and bfloat16 match TensorFlow bit for bit", "[nn][xent]", Eigen::half,
                   Eigen::bfloat16) {
  const DataType dt = DataTypeToEnum<TestType>::value;
  Scope s = Scope::NewRootScope();
  auto sparse = ops::SparseSoftmaxCrossEntropyWithLogits(s, ops::Placeholder(s, dt), ops::Placeholder(s, tf::DT_INT64));
  REQUIRE(s.ok());
  KernelRunner r;
  auto out = r.Run(sparse.loss, {Make<TestType>(kX, kShape), Tensor::FromVector<int64_t>({3, 0})});
  INFO(out.status());
  REQUIRE(out.ok());
  CheckClose(AsDoubles<TestType>(out->at(0)), SmallFloat<TestType>({0.483154296875, 4.7109375}, {0.48046875, 4.71875}),
             0);
  // exp / sum, not exp * (1 / sum) as Softmax: 0.01863 here, 0.01862 there (half).
  CheckClose(AsDoubles<TestType>(out->at(1)),
             SmallFloat<TestType>({0.0186309814453125, 0.1376953125, 0.2269287109375, -0.38330078125, -0.9912109375,
                                   0.1806640625, 0.8095703125, 0.0004477500915527344},
                                  {0.0186767578125, 0.1376953125, 0.2275390625, -0.3828125, -0.9921875, 0.1806640625,
                                   0.80859375, 0.0004482269287109375}),
             0);

  Scope d = Scope::NewRootScope();
  auto dense = ops::SoftmaxCrossEntropyWithLogits(d, ops::Placeholder(d, dt), ops::Placeholder(d, dt));
  REQUIRE(d.ok());
  KernelRunner rd;
  auto dout =
      rd.Run(dense.loss, {Make<TestType>(kX, kShape), Make<TestType>({0.1, 0.2, 0.3, 0.4, 0.5, 0, 0.5, 0}, kShape)});
  INFO(dout.status());
  REQUIRE(dout.ok());
  CheckClose(AsDoubles<TestType>(dout->at(0)), SmallFloat<TestType>({1.43359375, 2.4609375}, {1.4375, 2.46875}), 0);
  CheckClose(AsDoubles<TestType>(dout->at(1)),
             SmallFloat<TestType>({-0.08135986328125, -0.062255859375, -0.0731201171875, 0.216796875, -0.490966796875,
                                   0.1806640625, 0.3095703125, 0.0004477500915527344},
                                  {-0.08154296875, -0.0625, -0.0732421875, 0.216796875, -0.490234375, 0.1806640625,
                                   0.30859375, 0.0004482269287109375}),
             0);
}

TEMPLATE_TEST_CASE("SoftmaxCrossEntropyWithLogits matches TensorFlow, broadcasting labels", "[nn]", float, double) {
  const double tol = std::is_same<TestType, float>::value ? 1e-6 : 1e-8;
  Scope s = Scope::NewRootScope();
  auto xent = ops::SoftmaxCrossEntropyWithLogits(s, ops::Placeholder(s, DataTypeToEnum<TestType>::value),
                                                 ops::Placeholder(s, DataTypeToEnum<TestType>::value));
  KernelRunner r;
  auto out = r.Run(xent.loss, {Make<TestType>(kX, kShape), Make<TestType>({0.1, 0.2, 0.3, 0.4, 0.5, 0, 0.5, 0}, kShape)});
  INFO(out.status());
  REQUIRE(out.ok());
  CheckClose(AsDoubles<TestType>(out->at(0)), {1.43317092, 2.46090228}, tol);
  CheckClose(AsDoubles<TestType>(out->at(1)),
             {-0.0813735176, -0.0623678764, -0.0730829902, 0.216824384, -0.491003344, 0.180702674, 0.3098532,
              0.000447469454},
             tol);
  // One label row for every example: the same as the row repeated.
  auto bcast = r.Run({Make<TestType>(kX, kShape), Make<TestType>({0, 0, 0, 1}, TensorShape({1, 4}))});
  REQUIRE(bcast.ok());
  CHECK(AsDoubles<TestType>(bcast->at(0))[0] == Approx(0.483170924).epsilon(1e-6));
  auto bad = r.Run({Make<TestType>(kX, kShape), Make<TestType>({1, 0, 0}, TensorShape({1, 3}))});
  REQUIRE(bad.status().code() == error::INVALID_ARGUMENT);
  CHECK_THAT(bad.status().message(), Catch::Contains("must be broadcastable"));
}

}  // namespace
}  // namespace tensoract
