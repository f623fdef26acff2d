// The gradients of DepthwiseConv2dNative (and of its two backprops) and of FusedBatchNorm,
// V2 and V3 (training and inference, NHWC and NCHW) and of FusedBatchNormGradV3 checked
// against central differences through a real Session (client/gradient_checker.h).
#include <catch2/catch.hpp>

#include <cmath>

#include "client/gradient_checker.h"
#include "graph/builder/nn_batch_norm_ops.h"
#include "graph/builder/nn_depthwise_ops.h"
#include "graph/builder/ops.h"
#include "tests/actors/gradient_check_util.h"

namespace tensoract {
namespace {

using testing::kDouble;

const DataType kFloat = tensorflow::DT_FLOAT;

template <class T>
Tensor DepthwisePattern(TensorShape shape, double seed, double scale = 1.0, double offset = 0.0) {
  std::vector<T> v(shape.num_elements());
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<T>(offset + scale * std::sin(0.9 * i + seed));
  return Tensor::FromVector<T>(v, shape);
}

void Check(const Scope& root, const std::vector<Output>& xs, const std::vector<Tensor>& values, const Output& y,
           double tolerance, double delta = 1e-3) {
  INFO(root.status().ToString());
  auto err = MaxGradientError(root, xs, values, y, delta);
  INFO(err.status().ToString());
  REQUIRE(err.ok());
  INFO("max error " << err.value());
  CHECK(err.value() < tolerance);
}

struct DepthwiseCase {
  const char* name;
  TensorShape input, filter;
  std::vector<int64_t> strides;
  const char* padding;
  std::vector<int64_t> explicit_paddings;
};

TEST_CASE("DepthwiseConv2dNative's gradient with respect to input and filter", "[gradients][depthwise]") {
  const DepthwiseCase cases[] = {
      {"SAME, multiplier 2", {2, 5, 5, 2}, {3, 3, 2, 2}, {1, 1, 1, 1}, "SAME", {}},
      {"VALID, multiplier 1", {1, 6, 5, 3}, {3, 2, 3, 1}, {1, 1, 1, 1}, "VALID", {}},
      {"SAME stride 2, multiplier 3", {2, 5, 6, 2}, {3, 3, 2, 3}, {1, 2, 2, 1}, "SAME", {}},
      {"VALID stride 2", {1, 7, 7, 1}, {3, 3, 1, 2}, {1, 2, 2, 1}, "VALID", {}},
      {"EXPLICIT", {1, 4, 5, 2}, {2, 3, 2, 2}, {1, 1, 1, 1}, "EXPLICIT", {0, 0, 1, 0, 2, 1, 0, 0}},
  };
  for (const DepthwiseCase& c : cases) {
    INFO(c.name);
    Scope root = Scope::NewRootScope();
    auto x = ops::Placeholder(root.WithOpName("x"), kDouble);
    auto f = ops::Placeholder(root.WithOpName("f"), kDouble);
    ops::DepthwiseConv2dNativeAttrs attrs;
    attrs.explicit_paddings = c.explicit_paddings;
    auto y = ops::DepthwiseConv2dNative(root.WithOpName("y"), x, f, c.strides, c.padding, attrs);
    // Bilinear: central differences are exact up to rounding.
    Check(root, {x, f}, {DepthwisePattern<double>(c.input, 0.2), DepthwisePattern<double>(c.filter, 1.1)}, y, 1e-4);
  }
}

TEST_CASE("the gradients of the depthwise backprops", "[gradients][depthwise]") {
  const std::vector<int64_t> strides = {1, 2, 2, 1};
  SECTION("DepthwiseConv2dNativeBackpropInput, with respect to filter and out_backprop") {
    Scope root = Scope::NewRootScope();
    auto f = ops::Placeholder(root.WithOpName("f"), kDouble);
    auto dy = ops::Placeholder(root.WithOpName("dy"), kDouble);
    auto sizes = ops::Const(root, {1, 5, 5, 2});
    auto y = ops::DepthwiseConv2dNativeBackpropInput(root.WithOpName("y"), sizes, f, dy, strides, "SAME");
    Check(root, {f, dy}, {DepthwisePattern<double>({3, 3, 2, 2}, 0.4), DepthwisePattern<double>({1, 3, 3, 4}, 0.8)}, y, 1e-4);
  }
  SECTION("DepthwiseConv2dNativeBackpropFilter, with respect to input and out_backprop") {
    Scope root = Scope::NewRootScope();
    auto x = ops::Placeholder(root.WithOpName("x"), kDouble);
    auto dy = ops::Placeholder(root.WithOpName("dy"), kDouble);
    auto sizes = ops::Const(root, {3, 3, 2, 2});
    auto y = ops::DepthwiseConv2dNativeBackpropFilter(root.WithOpName("y"), x, sizes, dy, strides, "SAME");
    Check(root, {x, dy}, {DepthwisePattern<double>({1, 5, 5, 2}, 0.4), DepthwisePattern<double>({1, 3, 3, 4}, 0.8)}, y, 1e-4);
  }
}

// FusedBatchNormV3 computes in float only: differences of delta 1e-2 on values near 1
// leave ~1e-4 of rounding and curvature; a missing term of the training gradient (the
// batch mean's or variance's, 1/n of it with n = 8 per channel) is off by far more.
// TensorFlow 1 graphs' FusedBatchNorm and V2 differentiate through FusedBatchNormGrad and
// GradV2, which must agree with V3's.
TEST_CASE("FusedBatchNorm's, V2's and V3's gradients with respect to x, scale and offset", "[gradients][batch_norm]") {
  for (int version : {1, 2, 3}) {
    for (const char* format : {"NHWC", "NCHW"}) {
      for (bool training : {true, false}) {
        INFO("version " << version << " " << format << (training ? " training" : " inference"));
        const bool nchw = std::string(format) == "NCHW";
        Scope root = Scope::NewRootScope();
        auto x = ops::Placeholder(root.WithOpName("x"), kFloat);
        auto scale = ops::Placeholder(root.WithOpName("scale"), kFloat);
        auto offset = ops::Placeholder(root.WithOpName("offset"), kFloat);
        auto mean = ops::Const(root, {0.1f, -0.2f, 0.3f});
        auto variance = ops::Const(root, {0.5f, 1.5f, 0.8f});
        ops::FusedBatchNormAttrs attrs;
        attrs.data_format = format;
        attrs.is_training = training;
        attrs.epsilon = 0.001f;
        const Scope bn = root.WithOpName("bn");
        Output y = version == 1   ? ops::FusedBatchNorm(bn, x, scale, offset, mean, variance, attrs).y
                   : version == 2 ? ops::FusedBatchNormV2(bn, x, scale, offset, mean, variance, attrs).y
                                  : ops::FusedBatchNormV3(bn, x, scale, offset, mean, variance, attrs).y;
        const TensorShape shape = nchw ? TensorShape({2, 3, 2, 2}) : TensorShape({2, 2, 2, 3});
        Check(root, {x, scale, offset},
              {DepthwisePattern<float>(shape, 0.3), DepthwisePattern<float>({3}, 0.7, 0.5, 1.0), DepthwisePattern<float>({3}, 2.0)}, y, 2e-3,
              1e-2);
      }
    }
  }
}

// Second derivatives: FusedBatchNormGradV3's own gradients with respect to dy, x and scale
// (graph/gradients/batch_norm_grad_grad.cc). In training its mean and variance come from
// the forward op on the same x, as in a network, so a difference of x moves them too.
TEST_CASE("FusedBatchNormGradV3's gradients (second derivatives through batch norm)", "[gradients][batch_norm]") {
  for (const char* format : {"NHWC", "NCHW"}) {
    for (bool training : {true, false}) {
      const bool nchw = std::string(format) == "NCHW";
      if (nchw && !training) continue;  // the CPU kernel refuses it, as TensorFlow's
      for (int output : {0, 1}) {
        INFO(format << (training ? " training" : " inference") << (output == 0 ? " x_backprop" : " scale_backprop"));
        Scope root = Scope::NewRootScope();
        auto dy = ops::Placeholder(root.WithOpName("dy"), kFloat);
        auto x = ops::Placeholder(root.WithOpName("x"), kFloat);
        auto scale = ops::Placeholder(root.WithOpName("scale"), kFloat);
        ops::FusedBatchNormAttrs attrs;
        attrs.data_format = format;
        attrs.is_training = training;
        attrs.epsilon = 0.001f;
        auto mean = ops::Const(root, {0.1f, -0.2f, 0.3f});
        auto variance = ops::Const(root, {0.5f, 1.5f, 0.8f});
        auto forward = ops::FusedBatchNormV3(root.WithOpName("bn"), x, scale, ops::Const(root, {0.f, 0.f, 0.f}),
                                             mean, variance, attrs);
        auto grad = ops::FusedBatchNormGradV3(root.WithOpName("bn_grad"), dy, x, scale,
                                              training ? forward.reserve_space_1 : Output(mean),
                                              training ? forward.reserve_space_2 : Output(variance),
                                              forward.reserve_space_3, attrs);
        const TensorShape shape = nchw ? TensorShape({2, 3, 2, 2}) : TensorShape({2, 2, 2, 3});
        Check(root, {dy, x, scale},
              {DepthwisePattern<float>(shape, 1.1), DepthwisePattern<float>(shape, 0.3), DepthwisePattern<float>({3}, 0.7, 0.5, 1.0)},
              output == 0 ? grad.x_backprop : grad.scale_backprop, 3e-3, 1e-2);
      }
    }
  }
}

}  // namespace
}  // namespace tensoract
