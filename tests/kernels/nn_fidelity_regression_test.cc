// Regression tests for what the differential harness's neural-network family
// (tests/compat/fidelity_catalogue_nn.py) found against TensorFlow 2.21: Conv2D with
// EXPLICIT padding and grouped filters, the convolutions' error codes, the element-wise
// gradients' zeros, NaNs and orders of operations, FusedBatchNormV3's reserve spaces and
// empty batches, and the shape functions' refusals of windows longer than their input.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "graph/shape_inference.h"
#include "kernels/dtype_dispatch.h"
#include "tests/kernels/kernel_test_util.h"

namespace tensoract {
namespace {

using testing::Make;

using testing::Values;
using testing::AttrMap;
using testing::InferShapes;
using testing::Ints;
using testing::MakeDef;
using testing::RunMaybe;
using testing::Str;

tensorflow::AttrValue Float(float f) {
  tensorflow::AttrValue a;
  a.set_f(f);
  return a;
}


// Small integers: every sum of their products is exact in float, whatever the order.
std::vector<double> SmallInts(int64_t n, int64_t seed) {
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<double>((i * 7 + seed * 13) % 9) - 4.0;
  return v;
}

AttrMap ConvAttrs(const std::string& padding, std::vector<int64_t> explicit_paddings = {},
                  std::vector<int64_t> strides = {1, 1, 1, 1}, std::vector<int64_t> dilations = {1, 1, 1, 1}) {
  AttrMap a = {{"T", testing::TypeA(tensorflow::DT_FLOAT)}, {"strides", Ints(strides)},
               {"dilations", Ints(dilations)}, {"padding", Str(padding)}};
  if (!explicit_paddings.empty()) a["explicit_paddings"] = Ints(explicit_paddings);
  return a;
}

// x [b, h, w, c] zero-padded by (top, bottom, left, right).
std::vector<double> Pad(const std::vector<double>& x, int64_t b, int64_t h, int64_t w, int64_t c, int64_t top,
                        int64_t bottom, int64_t left, int64_t right) {
  const int64_t ph = h + top + bottom, pw = w + left + right;
  std::vector<double> out(b * ph * pw * c, 0.0);
  for (int64_t n = 0; n < b; ++n)
    for (int64_t y = 0; y < h; ++y)
      for (int64_t z = 0; z < w; ++z)
        for (int64_t k = 0; k < c; ++k) out[((n * ph + y + top) * pw + z + left) * c + k] = x[((n * h + y) * w + z) * c + k];
  return out;
}

// ---- Conv2D with EXPLICIT padding -------------------------------------------------------

TEST_CASE("Conv2D with EXPLICIT padding is the VALID convolution of the zero-padded input", "[nn_fidelity]") {
  struct Case {
    int64_t b, h, w, c, kh, kw, o;
    std::vector<int64_t> pads;  // top, bottom, left, right
    int64_t stride, dilation;
  };
  // The generic path (depth 3), the float fast kernels (depth 8), the 1-deep one, strides
  // and dilations, padding wider than the filter.
  for (const Case& k : {Case{1, 5, 6, 3, 3, 3, 4, {1, 2, 0, 3}, 1, 1}, Case{2, 8, 8, 8, 3, 3, 8, {1, 1, 1, 1}, 1, 1},
                        Case{1, 6, 7, 1, 5, 5, 8, {2, 0, 4, 1}, 1, 1}, Case{2, 6, 5, 2, 2, 3, 3, {4, 0, 2, 2}, 2, 1},
                        Case{1, 7, 7, 3, 3, 2, 2, {0, 3, 1, 0}, 1, 2}}) {
    INFO("input [" << k.b << "," << k.h << "," << k.w << "," << k.c << "] pads " << k.pads[0] << " " << k.pads[1]
                   << " " << k.pads[2] << " " << k.pads[3] << " stride " << k.stride << " dilation " << k.dilation);
    const auto x = SmallInts(k.b * k.h * k.w * k.c, 1);
    const auto f = SmallInts(k.kh * k.kw * k.c * k.o, 2);
    const std::vector<int64_t> strides = {1, k.stride, k.stride, 1}, dilations = {1, k.dilation, k.dilation, 1};
    const TensorShape fshape({k.kh, k.kw, k.c, k.o});
    auto got = RunMaybe("Conv2D", {Make<float>(x, TensorShape({k.b, k.h, k.w, k.c})), Make<float>(f, fshape)},
                        ConvAttrs("EXPLICIT", {0, 0, k.pads[0], k.pads[1], k.pads[2], k.pads[3], 0, 0}, strides,
                                  dilations));
    INFO(got.status);
    REQUIRE(got.status.ok());
    const int64_t ph = k.h + k.pads[0] + k.pads[1], pw = k.w + k.pads[2] + k.pads[3];
    auto want = RunMaybe("Conv2D",
                         {Make<float>(Pad(x, k.b, k.h, k.w, k.c, k.pads[0], k.pads[1], k.pads[2], k.pads[3]),
                                      TensorShape({k.b, ph, pw, k.c})),
                          Make<float>(f, fshape)},
                         ConvAttrs("VALID", {}, strides, dilations));
    REQUIRE(want.status.ok());
    REQUIRE(got.outputs[0].shape() == want.outputs[0].shape());
    CHECK(Values<float>(got.outputs[0]) == Values<float>(want.outputs[0]));
  }
}

TEST_CASE("Conv2D's gradients with EXPLICIT padding are those of the padded input's VALID convolution",
          "[nn_fidelity]") {
  const int64_t b = 2, h = 5, w = 6, c = 3, kh = 3, kw = 3, o = 4;
  const std::vector<int64_t> pads = {0, 0, 2, 1, 1, 3, 0, 0};
  const int64_t ph = h + 3, pw = w + 4, oh = ph - kh + 1, ow = pw - kw + 1;
  const auto x = SmallInts(b * h * w * c, 3);
  const auto f = SmallInts(kh * kw * c * o, 4);
  const auto dy = SmallInts(b * oh * ow * o, 5);
  const Tensor fshape = Tensor::FromVector(std::vector<int32_t>{kh, kw, c, o}, TensorShape({4}));
  const TensorShape dy_shape({b, oh, ow, o});

  // The input gradient: the padded input's gradient with the padding cut off.
  auto dx = RunMaybe("Conv2DBackpropInput",
                     {Tensor::FromVector(std::vector<int32_t>{b, h, w, c}, TensorShape({4})),
                      Make<float>(f, TensorShape({kh, kw, c, o})), Make<float>(dy, dy_shape)},
                     ConvAttrs("EXPLICIT", pads));
  INFO(dx.status);
  REQUIRE(dx.status.ok());
  auto dx_padded = RunMaybe("Conv2DBackpropInput",
                            {Tensor::FromVector(std::vector<int32_t>{b, ph, pw, c}, TensorShape({4})),
                             Make<float>(f, TensorShape({kh, kw, c, o})), Make<float>(dy, dy_shape)},
                            ConvAttrs("VALID"));
  REQUIRE(dx_padded.status.ok());
  const auto full = Values<float>(dx_padded.outputs[0]);
  std::vector<float> cut;
  for (int64_t n = 0; n < b; ++n)
    for (int64_t y = 0; y < h; ++y)
      for (int64_t z = 0; z < w; ++z)
        for (int64_t k = 0; k < c; ++k) cut.push_back(full[((n * ph + y + 2) * pw + z + 1) * c + k]);
  REQUIRE(dx.outputs[0].shape() == TensorShape({b, h, w, c}));
  CHECK(Values<float>(dx.outputs[0]) == cut);

  // The filter gradient: the padded input's.
  auto df = RunMaybe("Conv2DBackpropFilter", {Make<float>(x, TensorShape({b, h, w, c})), fshape, Make<float>(dy, dy_shape)},
                     ConvAttrs("EXPLICIT", pads));
  INFO(df.status);
  REQUIRE(df.status.ok());
  auto df_padded = RunMaybe("Conv2DBackpropFilter",
                            {Make<float>(Pad(x, b, h, w, c, 2, 1, 1, 3), TensorShape({b, ph, pw, c})), fshape,
                             Make<float>(dy, dy_shape)},
                            ConvAttrs("VALID"));
  REQUIRE(df_padded.status.ok());
  CHECK(Values<float>(df.outputs[0]) == Values<float>(df_padded.outputs[0]));
}

TEST_CASE("Conv2D refuses explicit paddings TensorFlow refuses", "[nn_fidelity]") {
  const std::vector<Tensor> ins = {Make<float>(SmallInts(25, 1), TensorShape({1, 5, 5, 1})),
                                   Make<float>(SmallInts(9, 2), TensorShape({3, 3, 1, 1}))};
  for (const std::vector<int64_t>& pads :
       {std::vector<int64_t>{1, 0, 1, 1, 1, 1, 0, 0}, std::vector<int64_t>{0, 0, -1, 1, 1, 1, 0, 0},
        std::vector<int64_t>{0, 0, 1, 1}, std::vector<int64_t>{0, 0, 1, 1, 1, 1, 0, 2}}) {
    auto r = RunMaybe("Conv2D", ins, ConvAttrs("EXPLICIT", pads));
    CHECK(r.status.code() == error::INVALID_ARGUMENT);
  }
  // The shape function refuses them as the graph is built, and paddings without EXPLICIT.
  const std::vector<PartialTensorShape> shapes = {PartialTensorShape({1, 5, 5, 1}), PartialTensorShape({3, 3, 1, 1})};
  CHECK(InferShapes("Conv2D", ConvAttrs("EXPLICIT", {1, 0, 1, 1, 1, 1, 0, 0}), shapes).code() ==
        error::INVALID_ARGUMENT);
  CHECK(InferShapes("Conv2D", ConvAttrs("SAME", {0, 0, 1, 1, 1, 1, 0, 0}), shapes).code() == error::INVALID_ARGUMENT);
  std::vector<PartialTensorShape> out;
  REQUIRE(InferShapes("Conv2D", ConvAttrs("EXPLICIT", {0, 0, 2, 0, 1, 3, 0, 0}), shapes, &out).ok());
  CHECK(out[0].DebugString() == PartialTensorShape({1, 5, 7, 1}).DebugString());
}

// ---- Grouped Conv2D and error codes ------------------------------------------------------

TEST_CASE("a grouped Conv2D convolves each group of channels with its slice of the filter", "[nn_fidelity]") {
  // Input depth 6, filter depth 2: three groups of 2 input channels, 3 output channels each.
  const int64_t b = 2, h = 5, w = 6, c = 6, g = 3, cg = 2, og = 3;
  const auto x = SmallInts(b * h * w * c, 6);
  const auto f = SmallInts(3 * 2 * cg * g * og, 7);
  auto got = RunMaybe("Conv2D", {Make<float>(x, TensorShape({b, h, w, c})), Make<float>(f, TensorShape({3, 2, cg, g * og}))},
                      ConvAttrs("SAME", {}, {1, 2, 1, 1}));
  INFO(got.status);
  REQUIRE(got.status.ok());
  const auto out = Values<float>(got.outputs[0]);
  const TensorShape out_shape = got.outputs[0].shape();
  REQUIRE(out_shape == TensorShape({b, 3, 6, g * og}));
  for (int64_t group = 0; group < g; ++group) {
    std::vector<double> xs, fs;
    for (int64_t p = 0; p < b * h * w; ++p)
      for (int64_t k = 0; k < cg; ++k) xs.push_back(x[p * c + group * cg + k]);
    for (int64_t t = 0; t < 3 * 2 * cg; ++t)
      for (int64_t k = 0; k < og; ++k) fs.push_back(f[t * g * og + group * og + k]);
    auto one = RunMaybe("Conv2D", {Make<float>(xs, TensorShape({b, h, w, cg})), Make<float>(fs, TensorShape({3, 2, cg, og}))},
                        ConvAttrs("SAME", {}, {1, 2, 1, 1}));
    REQUIRE(one.status.ok());
    const auto want = Values<float>(one.outputs[0]);
    for (int64_t p = 0; p < out_shape.num_elements() / (g * og); ++p)
      for (int64_t k = 0; k < og; ++k) CHECK(out[p * g * og + group * og + k] == want[p * og + k]);
  }
  // Output channels that the groups cannot share are refused, when run and when built.
  auto bad = RunMaybe("Conv2D", {Make<float>(x, TensorShape({b, h, w, c})), Make<float>(SmallInts(3 * 2 * cg * 4, 8),
                                                                                      TensorShape({3, 2, cg, 4}))},
                      ConvAttrs("SAME"));
  CHECK(bad.status.code() == error::INVALID_ARGUMENT);
  CHECK(InferShapes("Conv2D", ConvAttrs("SAME"), {PartialTensorShape({b, h, w, c}), PartialTensorShape({3, 2, cg, 4})})
            .code() == error::INVALID_ARGUMENT);
}

TEST_CASE("the convolutions refuse what TensorFlow's CPU kernels refuse, with its error codes", "[nn_fidelity]") {
  const Tensor x = Make<float>(SmallInts(30, 1), TensorShape({1, 2, 5, 3}));
  const Tensor f = Make<float>(SmallInts(18, 2), TensorShape({3, 3, 1, 2}));
  AttrMap nchw = ConvAttrs("SAME");
  nchw["data_format"] = Str("NCHW");
  CHECK(RunMaybe("Conv2D", {x, f}, nchw).status.code() == error::UNIMPLEMENTED);
  // A batch stride: Conv2D calls it unimplemented, its gradients invalid.
  const Tensor x4 = Make<float>(SmallInts(25, 1), TensorShape({1, 5, 5, 1}));
  const Tensor f4 = Make<float>(SmallInts(9, 2), TensorShape({3, 3, 1, 1}));
  CHECK(RunMaybe("Conv2D", {x4, f4}, ConvAttrs("SAME", {}, {2, 1, 1, 1})).status.code() == error::UNIMPLEMENTED);
  CHECK(RunMaybe("Conv2DBackpropInput",
                 {Tensor::FromVector(std::vector<int32_t>{1, 5, 5, 1}, TensorShape({4})), f4,
                  Make<float>(SmallInts(25, 3), TensorShape({1, 5, 5, 1}))},
                 ConvAttrs("SAME", {}, {2, 1, 1, 1}))
            .status.code() == error::INVALID_ARGUMENT);
  // The gradients of a grouped convolution: invalid on TensorFlow's CPU, and here.
  CHECK(RunMaybe("Conv2DBackpropInput",
                 {Tensor::FromVector(std::vector<int32_t>{1, 5, 5, 2}, TensorShape({4})), f4,
                  Make<float>(SmallInts(25, 3), TensorShape({1, 5, 5, 1}))},
                 ConvAttrs("SAME"))
            .status.code() == error::INVALID_ARGUMENT);
  // A filter of depth 0 is refused as the graph is built, whatever the input's depth.
  CHECK(InferShapes("Conv2D", ConvAttrs("SAME"), {PartialTensorShape({1, 5, 5, -1}), PartialTensorShape({3, 3, 0, 2})})
            .code() == error::INVALID_ARGUMENT);
  // An output channel count of zero is an empty output, not an error.
  auto empty = RunMaybe("Conv2D", {x4, Make<float>({}, TensorShape({3, 3, 1, 0}))}, ConvAttrs("SAME"));
  REQUIRE(empty.status.ok());
  CHECK(empty.outputs[0].shape() == TensorShape({1, 5, 5, 0}));
}

TEST_CASE("a VALID window longer than its input is refused as the graph is built, as TensorFlow", "[nn_fidelity]") {
  CHECK(InferShapes("Conv2D", ConvAttrs("VALID"), {PartialTensorShape({1, 2, 2, 1}), PartialTensorShape({3, 3, 1, 1})})
            .code() == error::INVALID_ARGUMENT);
  AttrMap pool = {{"T", testing::TypeA(tensorflow::DT_FLOAT)}, {"ksize", Ints({1, 3, 3, 1})},
                  {"strides", Ints({1, 1, 1, 1})}, {"padding", Str("VALID")}};
  CHECK(InferShapes("MaxPool", pool, {PartialTensorShape({1, 2, 2, 1})}).code() == error::INVALID_ARGUMENT);
  CHECK(InferShapes("AvgPool", pool, {PartialTensorShape({1, 2, 2, 1})}).code() == error::INVALID_ARGUMENT);
  // MaxPool windows the depth too: an empty depth under VALID is refused; AvgPool keeps it.
  pool["ksize"] = Ints({1, 2, 2, 1});
  CHECK(InferShapes("MaxPool", pool, {PartialTensorShape({1, 4, 4, 0})}).code() == error::INVALID_ARGUMENT);
  std::vector<PartialTensorShape> out;
  REQUIRE(InferShapes("AvgPool", pool, {PartialTensorShape({1, 4, 4, 0})}, &out).ok());
  CHECK(out[0].DebugString() == PartialTensorShape({1, 3, 3, 0}).DebugString());
  // Run on unknown shapes, the kernels give the empty output TensorFlow's do.
  auto r = RunMaybe("Conv2D", {Make<float>(SmallInts(4, 1), TensorShape({1, 2, 2, 1})),
                               Make<float>(SmallInts(9, 2), TensorShape({3, 3, 1, 1}))},
                    ConvAttrs("VALID"));
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({1, 0, 0, 1}));
}

// ---- Element-wise gradients --------------------------------------------------------------

template <class T>
std::vector<T> RunGradReg(const std::string& op, const std::vector<T>& a, const std::vector<T>& b) {
  const TensorShape shape({static_cast<int64_t>(a.size())});
  auto r = RunMaybe(op, {Tensor::FromVector(a, shape), Tensor::FromVector(b, shape)},
                    {{"T", testing::TypeA(DataTypeToEnum<T>::value)}});
  INFO(r.status);
  REQUIRE(r.status.ok());
  return Values<T>(r.outputs[0]);
}

TEST_CASE("ReluGrad and Relu6Grad multiply the gradient by 0 or 1, as TensorFlow: NaN stays NaN, -0 keeps its sign",
          "[nn_fidelity]") {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  // gradients, features
  const auto relu = RunGradReg<float>("ReluGrad", {nan, -0.0f, inf, 2.0f, -0.0f}, {-1.0f, 0.0f, -3.0f, 0.0f, 1.0f});
  CHECK(std::isnan(relu[0]));                        // NaN * 0
  CHECK((relu[1] == 0.0f && std::signbit(relu[1])));  // -0 * 0
  CHECK(std::isnan(relu[2]));                        // inf * 0
  CHECK((relu[3] == 0.0f && !std::signbit(relu[3])));
  CHECK((relu[4] == 0.0f && std::signbit(relu[4])));  // -0 * 1
  const auto relu6 = RunGradReg<float>("Relu6Grad", {nan, -0.0f, 5.0f, 5.0f}, {7.0f, 6.0f, 3.0f, 6.0f});
  CHECK(std::isnan(relu6[0]));
  CHECK((relu6[1] == 0.0f && std::signbit(relu6[1])));
  CHECK(relu6[2] == 5.0f);
  CHECK(relu6[3] == 0.0f);
  CHECK(RunGradReg<int32_t>("ReluGrad", {5, -7, 9}, {1, 0, -2}) == std::vector<int32_t>{5, 0, 0});
}

TEST_CASE("SqrtGrad, RsqrtGrad and ReciprocalGrad are 0 wherever dy is 0, as TensorFlow's mul_no_nan",
          "[nn_fidelity]") {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const float big = std::numeric_limits<float>::max();
  // (y, dy): y = 0, inf, NaN or huge with dy = 0 would be NaN as plain products.
  const std::vector<float> y = {0.0f, inf, nan, big, 0.0f}, dy = {0.0f, 0.0f, -0.0f, 0.0f, 1e-38f};
  const auto sqrt_grad = RunGradReg<float>("SqrtGrad", y, dy);
  const auto rsqrt_grad = RunGradReg<float>("RsqrtGrad", y, dy);
  const auto reciprocal_grad = RunGradReg<float>("ReciprocalGrad", y, dy);
  for (int i = 0; i < 4; ++i) {
    INFO("element " << i);
    CHECK((sqrt_grad[i] == 0.0f && !std::signbit(sqrt_grad[i])));
    CHECK((rsqrt_grad[i] == 0.0f && !std::signbit(rsqrt_grad[i])));
    CHECK((reciprocal_grad[i] == 0.0f && !std::signbit(reciprocal_grad[i])));
  }
  CHECK(sqrt_grad[4] == inf);  // (0.5 / 0) * dy, TensorFlow's vectorised order
  // SqrtGrad is (0.5 / y) * dy; RsqrtGrad (-0.5 * y * y) * (y * dy); ReciprocalGrad -(y * y) * dy.
  CHECK(RunGradReg<float>("SqrtGrad", {3.0f}, {0.7f})[0] == (0.5f / 3.0f) * 0.7f);
  CHECK(RunGradReg<float>("RsqrtGrad", {0.3f}, {1.7f})[0] == (-0.5f * (0.3f * 0.3f)) * (0.3f * 1.7f));
  CHECK(RunGradReg<float>("ReciprocalGrad", {0.3f}, {1.7f})[0] == -(0.3f * 0.3f) * 1.7f);
}

TEST_CASE("SigmoidGrad is dy * (y * (1 - y)): a huge dy does not overflow on the way", "[nn_fidelity]") {
  const float big = std::numeric_limits<float>::max();
  const auto g = RunGradReg<float>("SigmoidGrad", {1.5f, 0.25f}, {big, 0.3f});
  CHECK(g[0] == big * (1.5f * (1.0f - 1.5f)));  // -0.75 * max, finite
  CHECK(std::isfinite(g[0]));
  CHECK(g[1] == 0.3f * (0.25f * 0.75f));
}

// ---- FusedBatchNormV3 and its gradient ---------------------------------------------------

AttrMap BatchNormAttrs(bool training, float factor = 1.0f) {
  return {{"T", testing::TypeA(tensorflow::DT_FLOAT)}, {"U", testing::TypeA(tensorflow::DT_FLOAT)},
          {"epsilon", Float(0.001f)}, {"is_training", testing::BoolA(training)},
          {"exponential_avg_factor", Float(factor)}};
}

TEST_CASE("FusedBatchNormV3's reserve_space_3 is a scalar zero; an empty batch has NaN statistics", "[nn_fidelity]") {
  const Tensor scale = Make<float>({1, 2}, TensorShape({2})), offset = Make<float>({0, 1}, TensorShape({2}));
  const Tensor mean = Make<float>({0.5, -0.5}, TensorShape({2})), var = Make<float>({1, 2}, TensorShape({2}));
  auto r = RunMaybe("FusedBatchNormV3", {Make<float>(SmallInts(16, 1), TensorShape({2, 2, 2, 2})), scale, offset, mean, var},
                    BatchNormAttrs(true));
  REQUIRE(r.status.ok());
  REQUIRE(r.outputs.size() == 6);
  CHECK(r.outputs[5].shape() == TensorShape({}));
  CHECK(Values<float>(r.outputs[5]) == std::vector<float>{0.0f});
  for (bool training : {true, false}) {
    auto e = RunMaybe("FusedBatchNormV3", {Make<float>({}, TensorShape({0, 2, 2, 2})), scale, offset, mean, var},
                      BatchNormAttrs(training));
    REQUIRE(e.status.ok());
    for (int k : {1, 2}) {
      for (float v : Values<float>(e.outputs[k])) CHECK(std::isnan(v));
    }
  }
}

TEST_CASE("FusedBatchNormV3 in training with factor 1 reads no running statistics (any length)", "[nn_fidelity]") {
  const Tensor x = Make<float>(SmallInts(16, 1), TensorShape({2, 2, 2, 2}));
  const Tensor scale = Make<float>({1, 2}, TensorShape({2})), offset = Make<float>({0, 1}, TensorShape({2}));
  const Tensor empty = Make<float>({}, TensorShape({0}));
  CHECK(RunMaybe("FusedBatchNormV3", {x, scale, offset, empty, empty}, BatchNormAttrs(true)).status.ok());
  // Inference, or a running average, reads them: they must have the channels' length.
  CHECK(RunMaybe("FusedBatchNormV3", {x, scale, offset, empty, empty}, BatchNormAttrs(false)).status.code() ==
        error::INVALID_ARGUMENT);
  CHECK(RunMaybe("FusedBatchNormV3", {x, scale, offset, empty, empty}, BatchNormAttrs(true, 0.5f)).status.code() ==
        error::INVALID_ARGUMENT);
  const std::vector<PartialTensorShape> shapes = {PartialTensorShape({2, 2, 2, 2}), PartialTensorShape({2}),
                                                  PartialTensorShape({2}), PartialTensorShape({0}),
                                                  PartialTensorShape({0})};
  CHECK(InferShapes("FusedBatchNormV3", BatchNormAttrs(true), shapes).ok());
  CHECK(InferShapes("FusedBatchNormV3", BatchNormAttrs(false), shapes).code() == error::INVALID_ARGUMENT);
}

TEST_CASE("FusedBatchNormGradV3's reserve spaces 4 and 5 are empty; an empty batch has zero scale and offset "
          "gradients",
          "[nn_fidelity]") {
  const Tensor scale = Make<float>({1, 2}, TensorShape({2}));
  const Tensor mean = Make<float>({0.5, -0.5}, TensorShape({2})), var = Make<float>({1, 2}, TensorShape({2}));
  const Tensor r3 = Make<float>({}, TensorShape({0}));
  auto r = RunMaybe("FusedBatchNormGradV3",
                    {Make<float>(SmallInts(16, 2), TensorShape({2, 2, 2, 2})),
                     Make<float>(SmallInts(16, 1), TensorShape({2, 2, 2, 2})), scale, mean, var, r3},
                    BatchNormAttrs(true));
  REQUIRE(r.status.ok());
  CHECK(r.outputs[3].shape() == TensorShape({0}));
  CHECK(r.outputs[4].shape() == TensorShape({0}));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Tensor nan_stats = Make<float>({nan, nan}, TensorShape({2}));
  auto e = RunMaybe("FusedBatchNormGradV3",
                    {Make<float>({}, TensorShape({0, 2, 2, 2})), Make<float>({}, TensorShape({0, 2, 2, 2})), scale,
                     nan_stats, nan_stats, r3},
                    BatchNormAttrs(true));
  REQUIRE(e.status.ok());
  CHECK(Values<float>(e.outputs[1]) == std::vector<float>{0.0f, 0.0f});
  CHECK(Values<float>(e.outputs[2]) == std::vector<float>{0.0f, 0.0f});
}

// ---- More dtypes: MaxPool, MaxPoolGrad and MatMul ---------------------------------------

template <class T>
std::vector<T> Typed(const std::vector<double>& v) {
  std::vector<T> out;
  for (double d : v) out.push_back(static_cast<T>(d));
  return out;
}

template <class T>
void CheckMaxPoolOf() {
  // [1, 3, 3, 1] under a 2x2 SAME pool at stride 2: windows past the edges hold only
  // negative values, which the padding must not beat.
  const std::vector<double> x = {-5, -3, -9, -2, -8, -4, -7, -6, -1};
  AttrMap attrs = {{"T", testing::TypeA(DataTypeToEnum<T>::value)}, {"ksize", Ints({1, 2, 2, 1})},
                   {"strides", Ints({1, 2, 2, 1})}, {"padding", Str("SAME")}};
  auto r = RunMaybe("MaxPool", {Tensor::FromVector(Typed<T>(x), TensorShape({1, 3, 3, 1}))}, attrs);
  INFO(r.status);
  REQUIRE(r.status.ok());
  CHECK(Values<T>(r.outputs[0]) == Typed<T>({-2, -4, -6, -1}));
  // MaxPoolGrad routes each window's gradient to its maximum.
  auto g = RunMaybe("MaxPoolGrad",
                    {Tensor::FromVector(Typed<T>(x), TensorShape({1, 3, 3, 1})), r.outputs[0],
                     Tensor::FromVector(Typed<T>({1, 2, 3, 4}), TensorShape({1, 2, 2, 1}))},
                    attrs);
  INFO(g.status);
  REQUIRE(g.status.ok());
  CHECK(Values<T>(g.outputs[0]) == Typed<T>({0, 0, 0, 1, 0, 2, 0, 3, 4}));
}

TEST_CASE("MaxPool and MaxPoolGrad compute every real type TensorFlow's CPU kernels do", "[nn_fidelity]") {
  CheckMaxPoolOf<Eigen::half>();
  CheckMaxPoolOf<Eigen::bfloat16>();
  CheckMaxPoolOf<int8_t>();
  CheckMaxPoolOf<int16_t>();
  CheckMaxPoolOf<int32_t>();
  CheckMaxPoolOf<int64_t>();
}

TEST_CASE("AvgPool and AvgPoolGrad compute half and bfloat16", "[nn_fidelity]") {
  for (DataType t : {tensorflow::DT_HALF, tensorflow::DT_BFLOAT16}) {
    AttrMap attrs = {{"T", testing::TypeA(t)}, {"ksize", Ints({1, 2, 2, 1})}, {"strides", Ints({1, 2, 2, 1})},
                     {"padding", Str("SAME")}};
    // [1, 3, 3, 1]: one whole window and three cut by the edges (divided by their real taps).
    const std::vector<double> x = {1, 2, 3, 4, 5, 6, 7, 8, 9}, want = {3, 4.5, 7.5, 9}, g = {4, 2, 2, 1};
    const std::vector<double> want_grad = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    if (t == tensorflow::DT_HALF) {
      auto r = RunMaybe("AvgPool", {Tensor::FromVector(Typed<Eigen::half>(x), TensorShape({1, 3, 3, 1}))}, attrs);
      REQUIRE(r.status.ok());
      CHECK(Values<Eigen::half>(r.outputs[0]) == Typed<Eigen::half>(want));
      auto d = RunMaybe("AvgPoolGrad", {Tensor::FromVector(std::vector<int32_t>{1, 3, 3, 1}, TensorShape({4})),
                                        Tensor::FromVector(Typed<Eigen::half>(g), TensorShape({1, 2, 2, 1}))},
                        attrs);
      REQUIRE(d.status.ok());
      CHECK(Values<Eigen::half>(d.outputs[0]) == Typed<Eigen::half>(want_grad));
    } else {
      auto r = RunMaybe("AvgPool", {Tensor::FromVector(Typed<Eigen::bfloat16>(x), TensorShape({1, 3, 3, 1}))}, attrs);
      REQUIRE(r.status.ok());
      CHECK(Values<Eigen::bfloat16>(r.outputs[0]) == Typed<Eigen::bfloat16>(want));
    }
  }
}

TEST_CASE("Conv2D and its gradients compute half and bfloat16 as the float kernels, rounded once", "[nn_fidelity]") {
  // Small integers: the float results are exact, and so representable in half.
  const auto x = SmallInts(2 * 5 * 6 * 3, 1), f = SmallInts(3 * 3 * 3 * 4, 2), dy = SmallInts(2 * 5 * 6 * 4, 3);
  const TensorShape xs({2, 5, 6, 3}), fs({3, 3, 3, 4}), ys({2, 5, 6, 4});
  AttrMap attrs = ConvAttrs("SAME");
  auto want = RunMaybe("Conv2D", {Make<float>(x, xs), Make<float>(f, fs)}, attrs);
  auto want_dx = RunMaybe("Conv2DBackpropInput",
                          {Tensor::FromVector(std::vector<int32_t>{2, 5, 6, 3}, TensorShape({4})), Make<float>(f, fs),
                           Make<float>(dy, ys)},
                          attrs);
  REQUIRE(want.status.ok());
  REQUIRE(want_dx.status.ok());
  attrs["T"] = testing::TypeA(tensorflow::DT_HALF);
  auto got = RunMaybe("Conv2D", {Tensor::FromVector(Typed<Eigen::half>(x), xs), Tensor::FromVector(Typed<Eigen::half>(f), fs)},
                      attrs);
  REQUIRE(got.status.ok());
  std::vector<Eigen::half> rounded;
  for (float v : Values<float>(want.outputs[0])) rounded.push_back(Eigen::half(v));
  CHECK(Values<Eigen::half>(got.outputs[0]) == rounded);
  auto got_dx = RunMaybe("Conv2DBackpropInput",
                         {Tensor::FromVector(std::vector<int32_t>{2, 5, 6, 3}, TensorShape({4})),
                          Tensor::FromVector(Typed<Eigen::half>(f), fs), Tensor::FromVector(Typed<Eigen::half>(dy), ys)},
                         attrs);
  REQUIRE(got_dx.status.ok());
  rounded.clear();
  for (float v : Values<float>(want_dx.outputs[0])) rounded.push_back(Eigen::half(v));
  CHECK(Values<Eigen::half>(got_dx.outputs[0]) == rounded);
  // The float kernel's refusals, with their codes.
  attrs["data_format"] = Str("NCHW");
  CHECK(RunMaybe("Conv2D", {Tensor::FromVector(Typed<Eigen::half>(x), xs), Tensor::FromVector(Typed<Eigen::half>(f), fs)},
                 attrs)
            .status.code() == error::UNIMPLEMENTED);
}

TEST_CASE("integer MatMul wraps around as TensorFlow's; half MatMul rounds the float product", "[nn_fidelity]") {
  AttrMap attrs = {{"T", testing::TypeA(tensorflow::DT_INT32)}};
  const int32_t big = int32_t{1} << 30;
  auto r = RunMaybe("MatMul",
                    {Tensor::FromVector(std::vector<int32_t>{big, big, 3, -4}, TensorShape({2, 2})),
                     Tensor::FromVector(std::vector<int32_t>{2, 1, 2, 5}, TensorShape({2, 2}))},
                    attrs);
  REQUIRE(r.status.ok());
  // [2^31 + 2^31 wraps to 0, 2^30 + 5 * 2^30 = 6 * 2^30 wraps to -2^31; 6 - 8, 3 - 20]
  CHECK(Values<int32_t>(r.outputs[0]) == std::vector<int32_t>{0, std::numeric_limits<int32_t>::min(), -2, -17});
  auto t = RunMaybe("MatMul",
                    {Tensor::FromVector(std::vector<int64_t>{1, 2, 3, 4, 5, 6}, TensorShape({3, 2})),
                     Tensor::FromVector(std::vector<int64_t>{1, 0, -1}, TensorShape({3, 1}))},
                    {{"T", testing::TypeA(tensorflow::DT_INT64)}, {"transpose_a", testing::BoolA(true)}});
  REQUIRE(t.status.ok());
  CHECK(Values<int64_t>(t.outputs[0]) == std::vector<int64_t>{-4, -4});
  auto h = RunMaybe("MatMul",
                    {Tensor::FromVector(Typed<Eigen::half>({0.1, 0.2, 0.3}), TensorShape({1, 3})),
                     Tensor::FromVector(Typed<Eigen::half>({3, 5, 7}), TensorShape({3, 1}))},
                    {{"T", testing::TypeA(tensorflow::DT_HALF)}});
  REQUIRE(h.status.ok());
  const float want = static_cast<float>(Eigen::half(0.1)) * 3 + static_cast<float>(Eigen::half(0.2)) * 5 +
                     static_cast<float>(Eigen::half(0.3)) * 7;
  CHECK(Values<Eigen::half>(h.outputs[0])[0] == Eigen::half(want));
}

}  // namespace
}  // namespace tensoract
