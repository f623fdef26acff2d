// The gradients of Conv2D (and of its two backprops), Conv3D, MaxPool (V1 and V2) and AvgPool checked against
// central differences through a real Session (client/gradient_checker.h), in double.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "client/gradient_checker.h"
#include "tests/actors/gradient_check_util.h"
#include "graph/builder/attr_util.h"
#include "graph/builder/nn_ops.h"
#include "graph/builder/ops.h"

namespace tensoract {
namespace {

using testing::kDouble;

// As in gradient_check_test.cc: central differences with delta 1e-3 are exact for the
// bilinear convolutions up to rounding, and a wrong gradient is off by far more.

Tensor ConvPattern(TensorShape shape, double seed) {
  std::vector<double> v(shape.num_elements());
  for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(0.9 * static_cast<double>(i) + seed);
  return Tensor::FromVector<double>(v, shape);
}

struct ConvCase {
  const char* name;
  TensorShape input, filter;
  std::vector<int64_t> strides, dilations;
  const char* padding;
};

TEST_CASE("Conv2D's gradient with respect to input and filter: SAME, VALID, stride 2, dilation 2", "[gradients][conv]") {
  const ConvCase cases[] = {
      {"SAME", {2, 5, 5, 2}, {3, 3, 2, 3}, {1, 1, 1, 1}, {1, 1, 1, 1}, "SAME"},
      {"VALID", {1, 6, 5, 2}, {3, 2, 2, 2}, {1, 1, 1, 1}, {1, 1, 1, 1}, "VALID"},
      {"SAME stride 2", {2, 5, 6, 2}, {3, 3, 2, 2}, {1, 2, 2, 1}, {1, 1, 1, 1}, "SAME"},
      {"VALID stride 2", {1, 7, 7, 1}, {3, 3, 1, 2}, {1, 2, 2, 1}, {1, 1, 1, 1}, "VALID"},
      {"SAME dilation 2", {1, 6, 6, 2}, {3, 3, 2, 2}, {1, 1, 1, 1}, {1, 2, 2, 1}, "SAME"},
      {"VALID dilation 2", {1, 7, 6, 1}, {2, 2, 1, 3}, {1, 1, 1, 1}, {1, 2, 2, 1}, "VALID"},
  };
  for (const ConvCase& c : cases) {
    INFO(c.name);
    Scope root = Scope::NewRootScope();
    auto x = ops::Placeholder(root.WithOpName("x"), kDouble);
    auto f = ops::Placeholder(root.WithOpName("f"), kDouble);
    ops::Conv2DAttrs attrs;
    attrs.dilations = c.dilations;
    auto y = ops::Conv2D(root.WithOpName("y"), x, f, c.strides, c.padding, attrs);
    testing::CheckGradient(root, {x, f}, {ConvPattern(c.input, 0.2), ConvPattern(c.filter, 1.1)}, y);
  }
}

TEST_CASE("the gradients of Conv2DBackpropInput and Conv2DBackpropFilter", "[gradients][conv]") {
  const std::vector<int64_t> strides = {1, 2, 2, 1};
  SECTION("Conv2DBackpropInput, with respect to filter and out_backprop") {
    Scope root = Scope::NewRootScope();
    auto f = ops::Placeholder(root.WithOpName("f"), kDouble);
    auto dy = ops::Placeholder(root.WithOpName("dy"), kDouble);
    auto sizes = ops::Const(root, {1, 5, 5, 2});
    auto y = ops::Conv2DBackpropInput(root.WithOpName("y"), sizes, f, dy, strides, "SAME");
    testing::CheckGradient(root, {f, dy}, {ConvPattern({3, 3, 2, 2}, 0.4), ConvPattern({1, 3, 3, 2}, 0.8)}, y);
  }
  SECTION("Conv2DBackpropFilter, with respect to input and out_backprop") {
    Scope root = Scope::NewRootScope();
    auto x = ops::Placeholder(root.WithOpName("x"), kDouble);
    auto dy = ops::Placeholder(root.WithOpName("dy"), kDouble);
    auto sizes = ops::Const(root, {3, 3, 2, 2});
    auto y = ops::Conv2DBackpropFilter(root.WithOpName("y"), x, sizes, dy, strides, "SAME");
    testing::CheckGradient(root, {x, dy}, {ConvPattern({1, 5, 5, 2}, 0.4), ConvPattern({1, 3, 3, 2}, 0.8)}, y);
  }
}

TEST_CASE("MaxPool's gradient, at values without ties", "[gradients][conv]") {
  for (const char* padding : {"SAME", "VALID"}) {
    INFO(padding);
    Scope root = Scope::NewRootScope();
    auto x = ops::Placeholder(root.WithOpName("x"), kDouble);
    auto y = ops::MaxPool(root.WithOpName("y"), x, {1, 3, 3, 1}, {1, 2, 2, 1}, padding);
    // A permutation of 0.1 * [0, 50): no two values within the checker's delta of each other.
    std::vector<double> v(50);
    for (int i = 0; i < 50; ++i) v[i] = 0.1 * ((i * 17) % 50);
    testing::CheckGradient(root, {x}, {Tensor::FromVector<double>(v, {1, 5, 5, 2})}, y);
  }
}

// MaxPoolGrad and MaxPoolGradGrad are linear in their grad and each other's gradient there
// (TensorFlow's nn_grad.py): checked at x without ties, with respect to grad.
TEST_CASE("MaxPoolGrad's and MaxPoolGradGrad's gradients with respect to grad", "[gradients][conv]") {
  std::vector<double> v(50);
  for (int i = 0; i < 50; ++i) v[i] = 0.1 * ((i * 17) % 50);
  tensorflow::TensorProto x_value;
  Tensor::FromVector<double>(v, {1, 5, 5, 2}).AsProtoTensorContent(&x_value);
  for (const char* padding : {"SAME", "VALID"}) {
    INFO(padding);
    const int out = std::string(padding) == "SAME" ? 3 : 2;
    {
      Scope root = Scope::NewRootScope();
      auto x = ops::Const(root, x_value);
      auto pooled = ops::MaxPool(root, x, {1, 3, 3, 1}, {1, 2, 2, 1}, padding);
      auto dy = ops::Placeholder(root.WithOpName("dy"), kDouble);
      auto y = ops::MaxPoolGrad(root.WithOpName("y"), x, pooled, dy, {1, 3, 3, 1}, {1, 2, 2, 1}, padding);
      testing::CheckGradient(root, {dy}, {ConvPattern({1, out, out, 2}, 0.2)}, y);
    }
    {
      Scope root = Scope::NewRootScope();
      auto x = ops::Const(root, x_value);
      auto pooled = ops::MaxPool(root, x, {1, 3, 3, 1}, {1, 2, 2, 1}, padding);
      auto g = ops::Placeholder(root.WithOpName("g"), kDouble);
      ops::Attrs attrs = {{"ksize", ops::IntListAttr({1, 3, 3, 1})}, {"strides", ops::IntListAttr({1, 2, 2, 1})},
                          {"padding", ops::StringAttr(padding)}};
      auto y = ops::TypedOp(root.WithOpName("y"), "MaxPoolGradGrad", {x, pooled, g}, attrs);
      testing::CheckGradient(root, {g}, {ConvPattern({1, 5, 5, 2}, 0.6)}, y);
    }
  }
}

// The V2 ops (ksize and strides as inputs): the same gradients, the window passed on as the
// same tensors. MaxPoolGradGradV2's (MaxPoolGradV2) is ours alone: TensorFlow 2.21 registers
// none, though MaxPoolGradGrad has one.
TEST_CASE("MaxPoolV2's, MaxPoolGradV2's and MaxPoolGradGradV2's gradients", "[gradients][conv]") {
  std::vector<double> v(50);
  for (int i = 0; i < 50; ++i) v[i] = 0.1 * ((i * 17) % 50);
  const Tensor x_value = Tensor::FromVector<double>(v, {1, 5, 5, 2});
  tensorflow::TensorProto x_proto;
  x_value.AsProtoTensorContent(&x_proto);
  for (const char* padding : {"SAME", "VALID"}) {
    INFO(padding);
    const int out = std::string(padding) == "SAME" ? 3 : 2;
    const ops::Attrs attrs = {{"padding", ops::StringAttr(padding)}};
    {
      Scope root = Scope::NewRootScope();
      auto x = ops::Placeholder(root.WithOpName("x"), kDouble);
      auto y = ops::TypedOp(root.WithOpName("y"), "MaxPoolV2",
                            {x, ops::Const(root, {1, 3, 3, 1}), ops::Const(root, {1, 2, 2, 1})}, attrs);
      testing::CheckGradient(root, {x}, {x_value}, y);
    }
    for (const char* op : {"MaxPoolGradV2", "MaxPoolGradGradV2"}) {
      INFO(op);
      const bool grad_grad = std::string(op) == "MaxPoolGradGradV2";
      Scope root = Scope::NewRootScope();
      auto x = ops::Const(root, x_proto);
      auto ksize = ops::Const(root, {1, 3, 3, 1});
      auto strides = ops::Const(root, {1, 2, 2, 1});
      auto pooled = ops::TypedOp(root, "MaxPoolV2", {x, ksize, strides}, attrs);
      auto g = ops::Placeholder(root.WithOpName("g"), kDouble);
      auto y = ops::TypedOp(root.WithOpName("y"), op, {x, pooled, g, ksize, strides}, attrs);
      testing::CheckGradient(root, {g}, {grad_grad ? ConvPattern({1, 5, 5, 2}, 0.6) : ConvPattern({1, out, out, 2}, 0.2)}, y);
    }
  }
}

TEST_CASE("AvgPool's gradient, SAME (partial edge windows) and VALID", "[gradients][conv]") {
  for (const char* padding : {"SAME", "VALID"}) {
    INFO(padding);
    Scope root = Scope::NewRootScope();
    auto x = ops::Placeholder(root.WithOpName("x"), kDouble);
    auto y = ops::AvgPool(root.WithOpName("y"), x, {1, 2, 3, 1}, {1, 2, 2, 1}, padding);
    testing::CheckGradient(root, {x}, {ConvPattern({2, 5, 7, 2}, 0.5)}, y);
  }
}

TEST_CASE("AvgPoolGrad's gradient is AvgPool", "[gradients][conv]") {
  Scope root = Scope::NewRootScope();
  auto dy = ops::Placeholder(root.WithOpName("dy"), kDouble);
  auto sizes = ops::Const(root, {1, 5, 5, 2});
  auto y = ops::AvgPoolGrad(root.WithOpName("y"), sizes, dy, {1, 2, 2, 1}, {1, 2, 2, 1}, "SAME");
  testing::CheckGradient(root, {dy}, {ConvPattern({1, 3, 3, 2}, 0.3)}, y);
}

TEST_CASE("Conv3D's gradient with respect to input and filter: SAME, VALID, strides", "[gradients][conv]") {
  struct Case3 {
    const char* name;
    TensorShape input, filter;
    std::vector<int64_t> strides;
    const char* padding;
  };
  const Case3 cases[] = {
      {"SAME", {2, 3, 4, 4, 2}, {2, 3, 3, 2, 3}, {1, 1, 1, 1, 1}, "SAME"},
      {"VALID", {1, 4, 5, 4, 2}, {3, 2, 2, 2, 2}, {1, 1, 1, 1, 1}, "VALID"},
      {"SAME strides 2, 1, 2", {1, 5, 4, 5, 1}, {3, 3, 2, 1, 2}, {1, 2, 1, 2, 1}, "SAME"},
  };
  for (const Case3& c : cases) {
    INFO(c.name);
    Scope root = Scope::NewRootScope();
    auto x = ops::Placeholder(root.WithOpName("x"), kDouble);
    auto f = ops::Placeholder(root.WithOpName("f"), kDouble);
    auto y = ops::TypedOp(root.WithOpName("y"), "Conv3D", {x, f},
                          {{"strides", ops::IntListAttr(c.strides)}, {"padding", ops::StringAttr(c.padding)}});
    testing::CheckGradient(root, {x, f}, {ConvPattern(c.input, 0.2), ConvPattern(c.filter, 1.1)}, y);
  }
}

}  // namespace
}  // namespace tensoract
