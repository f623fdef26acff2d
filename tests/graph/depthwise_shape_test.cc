// The shape functions of DepthwiseConv2dNative and its gradients, as TensorFlow 2.21's: the
// shapes TensorFlow printed for these placeholders, and what it refuses when the graph is
// built.
#include <catch2/catch.hpp>

#include "graph/builder/nn_depthwise_ops.h"
#include "graph/builder/ops.h"
#include "tests/graph/test_util.h"

namespace tensoract {
namespace {

using testing::ShapeOf;

using testing::kFloat;



TEST_CASE("DepthwiseConv2dNative's output shape: windowed rows and cols, in_depth * multiplier",
          "[depthwise][shape]") {
  Scope root = Scope::NewRootScope();
  auto f = ops::Placeholder(root, kFloat, PartialTensorShape({3, 2, 3, 2}));
  auto y = ops::DepthwiseConv2dNative(root, ops::Placeholder(root, kFloat, PartialTensorShape({-1, 9, 7, -1})), f,
                                      {1, 2, 2, 1}, "VALID");
  CHECK(ShapeOf(root, y) == PartialTensorShape({-1, 4, 3, 6}).DebugString());
  // Only the rows' window is unknown: SAME needs none, cols are known.
  auto y2 = ops::DepthwiseConv2dNative(root, ops::Placeholder(root, kFloat, PartialTensorShape({-1, -1, 7, 3})),
                                       ops::Placeholder(root, kFloat, PartialTensorShape({3, -1, 3, 2})),
                                       {1, 2, 2, 1}, "SAME");
  CHECK(ShapeOf(root, y2) == PartialTensorShape({-1, -1, 4, 6}).DebugString());
  ops::DepthwiseConv2dNativeAttrs nchw;
  nchw.data_format = "NCHW";
  nchw.explicit_paddings = {0, 0, 0, 0, 1, 2, 0, 3};
  auto y3 = ops::DepthwiseConv2dNative(root, ops::Placeholder(root, kFloat, PartialTensorShape({-1, 3, 9, 7})), f,
                                       {1, 1, 2, 2}, "EXPLICIT", nchw);
  CHECK(ShapeOf(root, y3) == PartialTensorShape({-1, 6, 5, 5}).DebugString());
  ops::DepthwiseConv2dNativeAttrs dilated;
  dilated.dilations = {1, 2, 3, 1};  // the kernel refuses them, the shape function counts them
  auto y4 = ops::DepthwiseConv2dNative(root, ops::Placeholder(root, kFloat, PartialTensorShape({-1, 9, 7, 3})), f,
                                       {1, 1, 1, 1}, "VALID", dilated);
  CHECK(ShapeOf(root, y4) == PartialTensorShape({-1, 5, 4, 6}).DebugString());
}

TEST_CASE("DepthwiseConv2dNative refuses at build time what TensorFlow's shape function refuses",
          "[depthwise][shape]") {
  auto refused = [](const std::vector<int64_t>& x, const std::vector<int64_t>& f, const char* padding,
                    ops::DepthwiseConv2dNativeAttrs attrs, std::vector<int64_t> strides = {1, 1, 1, 1}) {
    Scope root = Scope::NewRootScope();
    ops::DepthwiseConv2dNative(root, ops::Placeholder(root, kFloat, PartialTensorShape(x)),
                               ops::Placeholder(root, kFloat, PartialTensorShape(f)), strides, padding, attrs);
    return root.status();
  };
  Status s = refused({1, 5, 5, 3}, {3, 3, 4, 1}, "SAME", {});
  CHECK(s.code() == error::INVALID_ARGUMENT);  // depths 3 and 4
  s = refused({1, 2, 2, 3}, {4, 4, 3, 1}, "VALID", {});
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK(s.message().find("Negative dimension size caused by subtracting 4 from 2") != std::string::npos);
  ops::DepthwiseConv2dNativeAttrs batch_pad;
  batch_pad.explicit_paddings = {1, 0, 1, 1, 1, 1, 0, 0};
  s = refused({1, 5, 5, 3}, {3, 3, 3, 1}, "EXPLICIT", batch_pad);
  CHECK(s.message().find("Nonzero explicit padding in the batch or depth dimensions") != std::string::npos);
  ops::DepthwiseConv2dNativeAttrs same_pad;
  same_pad.explicit_paddings = {0, 0, 1, 1, 1, 1, 0, 0};
  s = refused({1, 5, 5, 3}, {3, 3, 3, 1}, "SAME", same_pad);
  CHECK(s.message().find("must be empty if the padding attribute is not EXPLICIT") != std::string::npos);
  s = refused({1, 5, 5, 3}, {3, 3, 3, 1}, "SAME", {}, {1, 1, 1});
  CHECK(s.message().find("stride attribute to contain 4 values") != std::string::npos);
}

TEST_CASE("the depthwise gradients' shapes are their size inputs, of rank 4", "[depthwise][shape]") {
  Scope root = Scope::NewRootScope();
  auto f = ops::Placeholder(root, kFloat, PartialTensorShape({3, 3, 2, 2}));
  auto dy = ops::Placeholder(root, kFloat);
  auto gi = ops::DepthwiseConv2dNativeBackpropInput(root, ops::Const(root, {1, 4, 5, 2}), f, dy, {1, 2, 2, 1}, "SAME");
  CHECK(ShapeOf(root, gi) == PartialTensorShape({1, 4, 5, 2}).DebugString());
  auto gf = ops::DepthwiseConv2dNativeBackpropFilter(root, dy, ops::Const(root, {3, 3, 2, 2}), dy, {1, 2, 2, 1}, "SAME");
  CHECK(ShapeOf(root, gf) == PartialTensorShape({3, 3, 2, 2}).DebugString());
  Scope bad = Scope::NewRootScope();
  ops::DepthwiseConv2dNativeBackpropInput(bad, ops::Const(bad, {5, 5}), ops::Placeholder(bad, kFloat),
                                          ops::Placeholder(bad, kFloat), {1, 1, 1, 1}, "SAME");
  CHECK(bad.status().code() == error::INVALID_ARGUMENT);
}

}  // namespace
}  // namespace tensoract
