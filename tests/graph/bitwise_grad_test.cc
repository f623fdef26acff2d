// The bitwise ops are not differentiable (TensorFlow's bitwise_ops.py declares each
// NotDifferentiable): a gradient request through one succeeds and reaches none of its inputs,
// as tf.gradients answers None.
#include <catch2/catch.hpp>

#include "graph/builder/math_ops.h"
#include "graph/builder/ops.h"
#include "graph/gradients/gradients.h"

namespace tensoract {
namespace {

TEST_CASE("a gradient through a bitwise op reaches none of its inputs", "[gradients]") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), tensorflow::DT_INT32, PartialTensorShape({2}));
  auto y = ops::Placeholder(root.WithOpName("y"), tensorflow::DT_INT32, PartialTensorShape({2}));
  const std::vector<Output> outs = {
      ops::BitwiseAnd(root, x, y), ops::BitwiseOr(root, x, y),  ops::BitwiseXor(root, x, y),
      ops::LeftShift(root, x, y),  ops::RightShift(root, x, y), ops::Invert(root, x)};
  for (const Output& out : outs) {
    INFO(out.node->type_string());
    std::vector<Output> grads;
    Status s = AddSymbolicGradients(root, {out}, {x, y}, {ops::Const(root, {1, 1})}, &grads);
    INFO(s.ToString());
    REQUIRE(s.ok());
    CHECK(grads[0].node == nullptr);
    CHECK(grads[1].node == nullptr);
  }
  auto count = ops::PopulationCount(root, x);
  CHECK(count.type() == tensorflow::DT_UINT8);
  std::vector<Output> grads;
  REQUIRE(AddSymbolicGradients(root, {count}, {x}, {ops::Cast(root, ops::Const(root, {1, 1}), tensorflow::DT_UINT8)}, &grads).ok());
  CHECK(grads[0].node == nullptr);
}

}  // namespace
}  // namespace tensoract
