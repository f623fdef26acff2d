// Regression tests for the gradients the differential harness's gradient mode
// (tests/compat/tf_fidelity_compat.py: tf.gradients there, AddSymbolicGradients here) found
// differing from TensorFlow's: numeric checks (client/gradient_checker.h) in double of the
// cases it ran.
#include <catch2/catch.hpp>

#include "client/gradient_checker.h"
#include "tests/actors/gradient_check_util.h"
#include "graph/builder/array_ops.h"
#include "graph/builder/attr_util.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/nn_ops.h"
#include "graph/builder/ops.h"
#include "graph/gradients/gradients.h"

namespace tensoract {
namespace {

using testing::kDouble;
using testing::Values;



// The loss and the backprop output both used: a gradient reaches output 1 too, and the
// logits' gradient must include the softmax's gradient of it (TensorFlow's grad_grad term).
// The labels' gradient is the loss's alone, as TensorFlow's (-log_softmax; it leaves out
// the backprop output's -dy), so only the logits are checked numerically here.
TEST_CASE("SoftmaxCrossEntropyWithLogits: the logits' gradient includes the backprop output's", "[gradients]") {
  Scope root = Scope::NewRootScope();
  auto logits = ops::Placeholder(root.WithOpName("logits"), kDouble, PartialTensorShape({2, 3}));
  auto labels = ops::Const(root, {{0.2, 0.3, 0.5}, {0.0, 1.0, 0.0}});
  ops::CrossEntropyOutputs out = ops::SoftmaxCrossEntropyWithLogits(root, logits, labels);
  auto weights = ops::Const(root, {{0.5, -1.5, 2.0}, {1.0, 0.25, -0.75}});
  auto y = ops::Add(root, out.loss, ops::Sum(root, ops::Mul(root, out.backprop, weights), 1));
  testing::CheckGradient(root, {logits}, {Values({0.1, -0.4, 1.2, 2.0, 0.3, -1.0}, {2, 3})}, y);
}

TEST_CASE("SparseSoftmaxCrossEntropyWithLogits: the logits' gradient includes the backprop output's",
          "[gradients]") {
  Scope root = Scope::NewRootScope();
  auto logits = ops::Placeholder(root.WithOpName("logits"), kDouble, PartialTensorShape({3, 2}));
  auto labels = ops::Const(root, {1, 0, 1});
  ops::CrossEntropyOutputs out = ops::SparseSoftmaxCrossEntropyWithLogits(root, logits, labels);
  auto weights = ops::Const(root, {{0.5, -1.5}, {2.0, 1.0}, {0.25, -0.75}});
  auto y = ops::Add(root, ops::Mul(root, out.loss, 3.0), ops::Sum(root, ops::Mul(root, out.backprop, weights), 1));
  testing::CheckGradient(root, {logits}, {Values({0.1, -0.4, 1.2, 2.0, 0.3, -1.0}, {3, 2})}, y);
}

// A fed axis (PlaceholderWithDefault: not a constant when the gradient is built) and
// params of unknown rank: the permutations are computed in the graph, as TensorFlow's.
TEST_CASE("GatherV2: the gradient with a fed axis and unknown ranks", "[gradients]") {
  const Tensor params = Values({1, 2, -3, 0.5, 1.5, -2, 4, 0.25, -1, 3, 2.5, -0.5}, {2, 3, 2});
  for (int axis : {0, 1, -1, 2, -3}) {
    INFO("axis " << axis);
    Scope root = Scope::NewRootScope();
    auto x = ops::Placeholder(root.WithOpName("x"), kDouble, PartialTensorShape());
    auto fed_axis = ops::PlaceholderWithDefault(root, ops::Const(root, axis), PartialTensorShape());
    auto indices = ops::Const(root, {{1, 0}, {1, 1}});
    auto y = ops::Square(root, ops::GatherV2(root, x, indices, fed_axis));
    testing::CheckGradient(root, {x}, {params}, y);
  }
}

TEST_CASE("GatherV2: the gradient with a constant axis 0 and 2-D indices", "[gradients]") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), kDouble, PartialTensorShape({3, 2}));
  auto indices = ops::Cast(root, {{2, 0}, {2, 2}}, tensorflow::DT_INT64);
  auto y = ops::Square(root, ops::GatherV2(root, x, indices, 0));
  testing::CheckGradient(root, {x}, {Values({1, 2, -3, 0.5, 1.5, -2}, {3, 2})}, y);
}

// Logits and labels broadcast against each other: both gradients come back in their
// inputs' shapes (TensorFlow's keep the broadcast shape, which tf.gradients refuses).
TEST_CASE("SoftmaxCrossEntropyWithLogits: broadcast logits and labels get gradients of their own shapes",
          "[gradients]") {
  struct Shapes {
    std::vector<int64_t> logits, labels;
  };
  for (const Shapes& sh : {Shapes{{3, 4}, {1, 4}}, Shapes{{1, 4}, {3, 4}}, Shapes{{3, 1}, {3, 4}}}) {
    INFO("logits " << sh.logits[0] << "x" << sh.logits[1] << ", labels " << sh.labels[0] << "x" << sh.labels[1]);
    Scope root = Scope::NewRootScope();
    auto logits = ops::Placeholder(root.WithOpName("logits"), kDouble, PartialTensorShape(sh.logits));
    auto labels = ops::Placeholder(root.WithOpName("labels"), kDouble, PartialTensorShape(sh.labels));
    // Rows of labels that sum to 1 (the op's backprop, softmax - labels, assumes it).
    auto values = [](const std::vector<int64_t>& shape, bool distribution) {
      std::vector<double> v;
      for (int64_t r = 0; r < shape[0]; ++r) {
        double total = 0;
        for (int64_t c = 0; c < shape[1]; ++c) {
          v.push_back(distribution ? 1.0 + static_cast<double>((r * 3 + c * 7) % 5)
                                   : 0.3 * static_cast<double>((r * 4 + c * 7) % 5) - 0.4);
          total += v.back();
        }
        if (distribution) {
          for (int64_t c = 0; c < shape[1]; ++c) v[r * shape[1] + c] /= total;
        }
      }
      return Values(v, TensorShape(shape));
    };
    ops::CrossEntropyOutputs out = ops::SoftmaxCrossEntropyWithLogits(root, logits, labels);
    testing::CheckGradient(root, {logits, labels}, {values(sh.logits, false), values(sh.labels, true)}, out.loss);
  }
}

// EXPLICIT padding: MaxPoolGrad gets the pool's explicit_paddings.
TEST_CASE("MaxPool: the gradient with EXPLICIT padding", "[gradients]") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), kDouble, PartialTensorShape({1, 3, 4, 1}));
  auto y = ops::TypedOp(root, "MaxPool", {x},
                        {{"ksize", ops::IntListAttr({1, 2, 2, 1})},
                         {"strides", ops::IntListAttr({1, 2, 1, 1})},
                         {"padding", ops::StringAttr("EXPLICIT")},
                         {"explicit_paddings", ops::IntListAttr({0, 0, 1, 0, 0, 1, 0, 0})}});
  testing::CheckGradient(root, {x}, {Values({0.5, -1, 2, 3.5, -2.5, 1.25, 0.75, -0.25, 4, -3, 1.5, 2.25}, {1, 3, 4, 1})},
        ops::Square(root, y));
}

// Mean's divisor: a constant for known shapes, from x's shape at the axes otherwise (negative
// axes, keep_dims); neither reads the Mean's output.
TEST_CASE("Mean: the gradient with known and unknown shapes", "[gradients]") {
  const Tensor value = Values({1, 2, -3, 0.5, 1.5, -2, 4, 0.25, -1, 3, 2.5, -0.5}, {2, 3, 2});
  for (bool known : {true, false}) {
    for (bool keep : {false, true}) {
      INFO("known shape " << known << ", keep_dims " << keep);
      Scope root = Scope::NewRootScope();
      auto x = ops::Placeholder(root.WithOpName("x"), kDouble,
                                known ? PartialTensorShape({2, 3, 2}) : PartialTensorShape());
      auto y = ops::Mean(root, ops::Square(root, x), {-1, 0}, {keep});
      testing::CheckGradient(root, {x}, {value}, y);
    }
  }
}

// TensorFlow defines the gradient of Floor, Ceil and Round as None: a path through them
// carries nothing (and is not an error).
TEST_CASE("Split and SplitV into one piece: the piece's gradient is the input's", "[gradients]") {
  // ConcatV2 wants two inputs or more; TensorFlow's concat passes a single one through.
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), kDouble, PartialTensorShape({2, 3}));
  auto weights = ops::Const(root, {{0.5, -1.5, 2.0}, {1.0, 0.25, -0.75}});
  OutputList v = ops::SplitV(root, x, {3}, 1, 1);
  OutputList s = ops::Split(root, 0, x, 1);
  auto y = ops::Add(root, ops::Sum(root, ops::Mul(root, v[0], weights), {0, 1}),
                    ops::Sum(root, ops::Square(root, s[0]), {0, 1}));
  testing::CheckGradient(root, {x}, {Values({0.1, -0.4, 1.2, 2.0, 0.3, -1.0}, {2, 3})}, y);
}

TEST_CASE("Floor, Ceil and Round pass no gradient back", "[gradients]") {
  for (const char* op : {"Floor", "Ceil", "Round"}) {
    INFO(op);
    Scope root = Scope::NewRootScope();
    auto x = ops::Placeholder(root.WithOpName("x"), kDouble, PartialTensorShape({3}));
    std::vector<Output> dx;
    REQUIRE(AddSymbolicGradients(root, {ops::TypedOp(root, op, {x})}, {x}, &dx).ok());
    REQUIRE(dx.size() == 1);
    CHECK(dx[0].node == nullptr);
  }
}

// As tf.gradients: a gradient whose shape cannot be its input's refuses the graph (here
// SigmoidGrad of inputs its kernel refuses, [3,1] and [3]: their gradients broadcast to [3,3]).
TEST_CASE("a gradient of a shape its input cannot have is refused", "[gradients]") {
  Scope root = Scope::NewRootScope();
  auto y = ops::Placeholder(root.WithOpName("y"), kDouble, PartialTensorShape({3, 1}));
  auto dy = ops::Placeholder(root.WithOpName("dy"), kDouble, PartialTensorShape({3}));
  auto g = ops::SigmoidGrad(root, y, dy);
  std::vector<Output> dx;
  Status s = AddSymbolicGradients(root, {g}, {y, dy}, &dx);
  REQUIRE_FALSE(s.ok());
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Catch::Contains("Incompatible shapes between op input and calculated input gradient"));
}

// Second derivatives of the element-wise gradient ops and the gradient of BiasAddGrad,
// which the harness found missing (TensorFlow's math_grad.py and nn_grad.py have them).
TEST_CASE("second derivatives: the gradients of the element-wise gradient ops", "[gradients]") {
  const Tensor y_value = Values({0.3, -0.6, 0.8, 0.45, -0.2, 0.65}, {2, 3});
  const Tensor positive = Values({0.3, 0.6, 0.8, 1.45, 2.2, 0.65}, {2, 3});
  const Tensor dy_value = Values({1.5, -0.5, 2, 0.25, -1.25, 0.75}, {2, 3});
  struct Case {
    const char* op;
    const Tensor& first;
  };
  for (const Case& c : {Case{"TanhGrad", y_value}, Case{"SigmoidGrad", y_value}, Case{"SqrtGrad", positive},
                        Case{"RsqrtGrad", positive}, Case{"ReciprocalGrad", positive}}) {
    INFO(c.op);
    Scope root = Scope::NewRootScope();
    auto a = ops::Placeholder(root.WithOpName("a"), kDouble, PartialTensorShape({2, 3}));
    auto b = ops::Placeholder(root.WithOpName("b"), kDouble, PartialTensorShape({2, 3}));
    testing::CheckGradient(root, {a, b}, {c.first, dy_value}, ops::TypedOp(root, c.op, {a, b}));
  }
  // ReluGrad, Relu6Grad, EluGrad and SoftplusGrad take (gradients, features or outputs).
  for (const char* op : {"ReluGrad", "Relu6Grad", "EluGrad", "SoftplusGrad"}) {
    INFO(op);
    Scope root = Scope::NewRootScope();
    auto g = ops::Placeholder(root.WithOpName("g"), kDouble, PartialTensorShape({2, 3}));
    auto x = ops::Placeholder(root.WithOpName("x"), kDouble, PartialTensorShape({2, 3}));
    testing::CheckGradient(root, {g, x}, {dy_value, Values({0.3, -0.6, 7, 0.45, -0.2, 5.5}, {2, 3})}, ops::TypedOp(root, op, {g, x}));
  }
  for (const char* format : {"NHWC", "NCHW"}) {
    INFO(format);
    Scope root = Scope::NewRootScope();
    auto g = ops::Placeholder(root.WithOpName("g"), kDouble, PartialTensorShape({2, 3, 2}));
    auto y = ops::TypedOp(root, "BiasAddGrad", {g}, {{"data_format", ops::StringAttr(format)}});
    testing::CheckGradient(root, {g}, {Values({1, 2, -3, 0.5, 1.5, -2, 4, 0.25, -1, 3, 2.5, -0.5}, {2, 3, 2})}, ops::Square(root, y));
  }
}

TEST_CASE("DivNoNan: the gradient, zero where the divisor is zero", "[gradients]") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), kDouble, PartialTensorShape({2, 3}));
  auto y = ops::Placeholder(root.WithOpName("y"), kDouble, PartialTensorShape({3}));
  testing::CheckGradient(root, {x, y}, {Values({1, 2, -3, 0.5, 1.5, -2}, {2, 3}), Values({0.5, -2, 1.25}, {3})},
        ops::DivNoNan(root, x, y));
}

// Prod: the product of the others, zeros included (an exclusive Cumprod from each end), over
// any axes and with unknown shapes.
TEST_CASE("Prod: the gradient over several axes, with zeros", "[gradients]") {
  const Tensor value = Values({1, 2, -3, 0.5, 1.5, -2, 0, 0.25, -1, 3, 2.5, 0}, {2, 3, 2});
  for (bool known : {true, false}) {
    for (bool keep : {false, true}) {
      INFO("known shape " << known << ", keep_dims " << keep);
      Scope root = Scope::NewRootScope();
      auto x = ops::Placeholder(root.WithOpName("x"), kDouble,
                                known ? PartialTensorShape({2, 3, 2}) : PartialTensorShape());
      testing::CheckGradient(root, {x}, {value}, ops::Prod(root, x, {-1, 0}, {keep}));
      testing::CheckGradient(root, {x}, {value}, ops::Prod(root, x, 1, {keep}));
    }
  }
}

}  // namespace
}  // namespace tensoract
