// Shape inference evaluates small constant subgraphs (graph/eval_const_tensor.h), as
// TensorFlow's shape refiner does: a shape computed from constants is known when the graph
// is built, and the Slice gradient whose paddings come out negative is refused then, with
// TensorFlow's code (issue 32's one open finding). The graph layer runs no kernels, so these
// tests install an evaluator of their own for the few int32 ops the subgraphs use.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "graph/builder/array_ops.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/ops.h"
#include "graph/eval_const_tensor.h"
#include "graph/gradients/gradients.h"
#include "graph/optimizer/constant_folding.h"
#include "graph/shape_inference.h"
#include "tests/graph/test_util.h"

namespace tensoract {
namespace {

using testing::ShapeOf;
using testing::ShapeText;

namespace tf = tensorflow;

std::vector<int64_t> Ints(const tf::TensorProto& p) {
  std::vector<int64_t> v;
  REQUIRE(shape_inference::TensorProtoToInt64s(p, &v).ok());
  return v;
}

std::vector<int64_t> Dims(const tf::TensorProto& p) {
  std::vector<int64_t> d;
  for (const auto& dim : p.tensor_shape().dim()) d.push_back(dim.size());
  return d;
}

tf::TensorProto Int32s(const std::vector<int64_t>& dims, const std::vector<int64_t>& values) {
  tf::TensorProto p;
  p.set_dtype(tf::DT_INT32);
  for (int64_t d : dims) p.mutable_tensor_shape()->add_dim()->set_size(d);
  for (int64_t v : values) p.add_int_val(static_cast<int32_t>(v));
  return p;
}

// Sub, Reshape and ConcatV2 of int32 tensors: what the tests' subgraphs compute.
class Int32Evaluator : public ConstantEvaluator {
 public:
  Status Evaluate(const NodeDef& node, const tf::OpDef&, const std::vector<const tf::TensorProto*>& in,
                  std::vector<tf::TensorProto>* out) const override {
    evaluated.push_back(node.op());
    if (node.op() == "Sub") {
      std::vector<int64_t> a = Ints(*in[0]), b = Ints(*in[1]);
      if (a.size() != b.size()) return errors::InvalidArgument("fake Sub: sizes differ");
      for (size_t i = 0; i < a.size(); ++i) a[i] -= b[i];
      out->assign(1, Int32s(Dims(*in[0]), a));
      return Status::OK();
    }
    if (node.op() == "Reshape") {
      std::vector<int64_t> values = Ints(*in[0]), shape = Ints(*in[1]);
      int64_t known = 1;
      for (int64_t d : shape) known *= d == -1 ? 1 : d;
      for (int64_t& d : shape) d = d == -1 ? static_cast<int64_t>(values.size()) / known : d;
      out->assign(1, Int32s(shape, values));
      return Status::OK();
    }
    if (node.op() == "ConcatV2") {
      const int n = static_cast<int>(in.size()) - 1;
      const int64_t axis = Ints(*in[n])[0];
      std::vector<int64_t> dims = Dims(*in[0]);
      int64_t outer = 1;
      for (int64_t d = 0; d < axis; ++d) outer *= dims[d];
      dims[axis] = 0;
      std::vector<std::vector<int64_t>> values;
      for (int i = 0; i < n; ++i) {
        values.push_back(Ints(*in[i]));
        dims[axis] += Dims(*in[i])[axis];
      }
      std::vector<int64_t> result;
      for (int64_t o = 0; o < outer; ++o) {
        for (const auto& v : values) {
          const int64_t chunk = static_cast<int64_t>(v.size()) / outer;
          result.insert(result.end(), v.begin() + o * chunk, v.begin() + (o + 1) * chunk);
        }
      }
      out->assign(1, Int32s(dims, result));
      return Status::OK();
    }
    return errors::Unimplemented("fake evaluator: no ", node.op());
  }
  mutable std::vector<std::string> evaluated;  // the tests are single-threaded
};

// Installs an evaluator for one test, and restores the one before (none in graph_tests).
class ScopedEvaluator {
 public:
  explicit ScopedEvaluator(const ConstantEvaluator* e) : previous_(shape_inference::SetConstantEvaluator(e)) {}
  ~ScopedEvaluator() { shape_inference::SetConstantEvaluator(previous_); }

 private:
  const ConstantEvaluator* previous_;
};



TEST_CASE("a shape computed from constants is known when the graph is built", "[shape][eval_const]") {
  Int32Evaluator evaluator;
  ScopedEvaluator installed(&evaluator);
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, tf::DT_FLOAT, PartialTensorShape({6}));
  auto shape = ops::Concat(root, {ops::Const(root, {2}), ops::Const(root, {3})}, 0);
  CHECK(ShapeOf(root, ops::Reshape(root, x, shape)) == ShapeText({2, 3}));
  CHECK(evaluator.evaluated == std::vector<std::string>{"ConcatV2"});

  // The Shape of a known shape needs no evaluator; Sub of it does.
  auto shape_of_x = ops::Shape(root, ops::Placeholder(root, tf::DT_FLOAT, PartialTensorShape({2, 3})));
  CHECK(ShapeOf(root, ops::Reshape(root, x, shape_of_x)) == ShapeText({2, 3}));
  auto less = ops::Sub(root, shape_of_x, ops::Const(root, {1, 1}));
  CHECK(ShapeOf(root, ops::Fill(root, less, 1.0f)) == ShapeText({1, 2}));

  // A wrong shape is now refused when the graph is built, as TensorFlow refuses it.
  auto wrong = ops::Concat(root, {ops::Const(root, {4}), ops::Const(root, {4})}, 0);
  Scope refused = root.NewSubScope("refused");
  ops::Reshape(refused, x, wrong);
  CHECK(refused.status().code() == error::INVALID_ARGUMENT);
}

TEST_CASE("what is not computed from constants alone stays unknown", "[shape][eval_const]") {
  Int32Evaluator evaluator;
  ScopedEvaluator installed(&evaluator);
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, tf::DT_FLOAT, PartialTensorShape({6}));
  // A fed part: nothing is evaluated, but the constant part is read (TensorFlow's
  // ConstantPartialShape): [2, ?], so [2, 3] for 6 elements.
  auto fed = ops::Placeholder(root, tf::DT_INT32, PartialTensorShape({1}));
  CHECK(ShapeOf(root, ops::Reshape(root, x, ops::Concat(root, {ops::Const(root, {2}), fed}, 0))) == ShapeText({2, 3}));
  // The Shape of a partly known shape.
  auto partial = ops::Shape(root, ops::Placeholder(root, tf::DT_FLOAT, PartialTensorShape({-1, 3})));
  CHECK(ShapeOf(root, ops::Reshape(root, x, ops::Sub(root, partial, ops::Const(root, {0, 0})))) == ShapeText({-1, -1}));
  // A constant input larger than the bound.
  const int64_t n = shape_inference::kMaxEvaluatedElements + 1;
  auto big = ops::Const(root, Int32s({n}, std::vector<int64_t>(n, 1)));
  auto sliced = ops::Sub(root, big, big);
  CHECK(ShapeOf(root, ops::Fill(root, ops::Reshape(root, ops::Slice(root, sliced, {0}, {1}), {1}), 1.0f)) ==
        ShapeText({-1}));
  CHECK(evaluator.evaluated.empty());
  // With no evaluator installed, a Sum of constants is not evaluated (before this, always);
  // a Concat of constants is still read element by element, as TensorFlow reads it.
  ScopedEvaluator none(nullptr);
  auto summed = ops::Add(root, ops::Const(root, {2, 1}), ops::Const(root, {0, 2}));
  CHECK(ShapeOf(root, ops::Reshape(root, x, summed)) == ShapeText({-1, -1}));
  auto shape = ops::Concat(root, {ops::Const(root, {2}), ops::Const(root, {3})}, 0);
  CHECK(ShapeOf(root, ops::Reshape(root, x, shape)) == ShapeText({2, 3}));
  CHECK(evaluator.evaluated.empty());
}

TEST_CASE("a shape made of the Shape of a partly known tensor and constants is read element by element",
          "[shape][eval_const]") {
  // Keras' Dense on a rank-3 input reshapes its product by ConcatV2(GatherV2(ShapeText(x),
  // [0, 1]), [units]): TensorFlow infers [?, ?, units], which the remapper needs to fuse the
  // Dense's bias and activation into its MatMul.
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, tf::DT_FLOAT, PartialTensorShape({-1, -1, 5}));
  auto product = ops::Placeholder(root, tf::DT_FLOAT, PartialTensorShape({-1, 7}));
  auto leading = ops::GatherV2(root, ops::Shape(root, x), ops::Const(root, {0, 1}), ops::Const(root, 0));
  auto shape = ops::Concat(root, {leading, ops::Const(root, {7})}, 0);
  CHECK(ShapeOf(root, ops::Reshape(root, product, shape)) == ShapeText({-1, -1, 7}));
  // A Pack of a constant and an unknown scalar.
  auto n = ops::Placeholder(root, tf::DT_INT32, PartialTensorShape(std::vector<int64_t>{}));
  CHECK(ShapeOf(root, ops::Reshape(root, product, ops::Stack(root, {n, ops::Const(root, 7)}))) == ShapeText({-1, 7}));
}

TEST_CASE("the Slice gradient with a negative padding is refused when it is built, as TensorFlow's",
          "[shape][eval_const][gradients]") {
  Int32Evaluator evaluator;
  ScopedEvaluator installed(&evaluator);
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), tf::DT_FLOAT, PartialTensorShape({5}));
  std::vector<Output> grads;
  // In range: paddings [1, 1], computed when the gradient is built.
  auto inside = ops::Slice(root, x, {1}, {3});
  REQUIRE(AddSymbolicGradients(root, {inside}, {x}, &grads).ok());
  CHECK(ShapeOf(root, grads[0]) == ShapeText({5}));
  // Past the end: the forward Slice's shape function lets it through (its kernel refuses
  // it), and the gradient's paddings Concat(begin, ShapeText(x) - ShapeText(y) - begin) are
  // [3, -1]: TensorFlow refuses the Pad ("Paddings must be non-negative") as the gradient
  // is built, an InvalidArgument.
  auto past = ops::Slice(root, x, {3}, {3});
  Status s = AddSymbolicGradients(root, {past}, {x}, &grads);
  INFO(s.ToString());
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK(s.message().find("Pad") != std::string::npos);
}

}  // namespace
}  // namespace tensoract
