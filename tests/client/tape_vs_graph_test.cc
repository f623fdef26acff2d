// A tape's gradients are the graph's: for losses over convolutions, pooling, cross-entropy,
// slicing, gathering, concatenation, transposes, tiling, padding and reductions, the
// gradient a GradientTape computes eagerly equals what AddSymbolicGradients builds into a
// graph and a Session runs (the same gradient functions, two ways of running them).
#include <catch2/catch.hpp>

#include <functional>
#include <string>
#include <vector>

#include "client/gradient_tape.h"
#include "client/session.h"
#include "graph/builder/array_ops.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/nn_ops.h"
#include "graph/builder/ops.h"
#include "graph/gradients/gradients.h"
#include "tests/client/eager_test_util.h"

namespace tensoract {
namespace {

using testing::Floats;
using testing::NewContext;

using LossFn = std::function<Output(const Scope& s, const Output& x)>;

Tensor ShapedValues(const TensorShape& shape) {
  std::vector<float> v(shape.num_elements());
  for (size_t i = 0; i < v.size(); ++i) v[i] = 0.37f * static_cast<float>((i * 7) % 23) - 3.9f;
  return Tensor::FromVector<float>(v, shape);
}

// `t` as a constant of the scope's graph (or an eager constant).
Output ConstOf(const Scope& s, const Tensor& t) {
  tensorflow::TensorProto proto;
  t.AsProtoTensorContent(&proto);
  return ops::Const(s, Input(proto));
}

void CheckSameGradient(const std::string& what, const TensorShape& shape, const LossFn& loss) {
  INFO(what);
  Tensor x0 = ShapedValues(shape);
  // Eagerly, with a tape.
  auto ctx = NewContext();
  Scope s = ctx->scope();
  Output x = FromTensor(s, x0);
  GradientTape tape(*ctx);
  tape.Watch(x);
  Output y = loss(s, x);
  INFO(s.status().ToString());
  REQUIRE(s.status().ok());
  auto eager = tape.Gradient(y, {x});
  INFO(eager.status().ToString());
  REQUIRE(eager.ok());
  std::vector<float> got = Floats(eager.value()[0]);
  // In a graph.
  Scope g = Scope::NewRootScope();
  Output gx = ops::Placeholder(g.WithOpName("x"), tensorflow::DT_FLOAT, PartialTensorShape(shape.dim_sizes()));
  Output gy = loss(g, gx);
  std::vector<Output> grads;
  REQUIRE(AddSymbolicGradients(g, {gy}, {gx}, &grads).ok());
  tensorflow::GraphDef def;
  REQUIRE(g.ToGraphDef(&def).ok());
  auto session = Session::New().value();
  REQUIRE(session->Create(def).ok());
  std::vector<Tensor> out;
  Status ran = session->Run({{"x", x0}}, {grads[0].name()}, {}, &out);
  INFO(ran.ToString());
  REQUIRE(ran.ok());
  std::vector<float> want(out[0].base<float>(), out[0].base<float>() + out[0].NumElements());
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) CHECK(got[i] == Approx(want[i]).epsilon(1e-5).margin(1e-6));
}

TEST_CASE("a tape's gradients equal the graph's, op family by op family", "[tape]") {
  CheckSameGradient("conv, relu, max pool, mean", TensorShape({2, 6, 6, 2}), [](const Scope& s, const Output& x) {
    Output filter = ops::Mul(s, ConstOf(s, ShapedValues(TensorShape({3, 3, 2, 4}))), 0.1f);
    Output c = ops::Relu(s, ops::Conv2D(s, x, filter, {1, 1, 1, 1}, "SAME"));
    return ops::Mean(s, ops::MaxPool(s, c, {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID"), {0, 1, 2, 3});
  });
  CheckSameGradient("avg pool and squares", TensorShape({1, 4, 4, 3}), [](const Scope& s, const Output& x) {
    return ops::Sum(s, ops::Square(s, ops::AvgPool(s, x, {1, 2, 2, 1}, {1, 1, 1, 1}, "VALID")), {0, 1, 2, 3});
  });
  CheckSameGradient("sparse softmax cross-entropy", TensorShape({4, 5}), [](const Scope& s, const Output& x) {
    auto xent = ops::SparseSoftmaxCrossEntropyWithLogits(s, x, ops::Const(s, {1, 0, 4, 2}));
    return ops::Mean(s, xent.loss, {0});
  });
  CheckSameGradient("log softmax, keep_dims max", TensorShape({3, 4}), [](const Scope& s, const Output& x) {
    Output m = ops::Max(s, ops::LogSoftmax(s, x), {1}, ops::ReductionAttrs{true});
    return ops::Sum(s, ops::Mul(s, m, ops::Const(s, {{1.f}, {2.f}, {3.f}})), {0, 1});
  });
  CheckSameGradient("strided slice, transpose, concat", TensorShape({4, 6}), [](const Scope& s, const Output& x) {
    Output a = ops::StridedSlice(s, x, {1, 0}, {4, 6}, {2, 3});
    Output t = ops::Transpose(s, x, {1, 0});
    Output c = ops::Concat(s, {ops::Reshape(s, a, {-1}), ops::Reshape(s, t, {-1})}, 0);
    return ops::Sum(s, ops::Mul(s, c, ops::Tanh(s, c)), {0});
  });
  CheckSameGradient("gather, tile, pad", TensorShape({5, 3}), [](const Scope& s, const Output& x) {
    Output g = ops::GatherV2(s, x, ops::Const(s, {4, 0, 4, 2}), 0);
    Output t = ops::Tile(s, g, {2, 1});
    Output p = ops::Pad(s, t, ops::Const(s, {{1, 0}, {0, 2}}));
    return ops::Sum(s, ops::Sigmoid(s, p), {0, 1});
  });
  CheckSameGradient("matmul both ways, bias, broadcasting", TensorShape({3, 4}), [](const Scope& s, const Output& x) {
    Output w = ops::Mul(s, ConstOf(s, ShapedValues(TensorShape({4, 3}))), 0.2f);
    Output h = ops::BiasAdd(s, ops::MatMul(s, x, w), ops::Const(s, {0.1f, -0.2f, 0.3f}));
    Output back = ops::MatMul(s, h, x, {true, false});  // [3,4]
    return ops::Mean(s, ops::Mul(s, ops::Add(s, back, ops::Const(s, {1.f, 2.f, 3.f, 4.f})), 0.5f), {0, 1});
  });
}

}  // namespace
}  // namespace tensoract
