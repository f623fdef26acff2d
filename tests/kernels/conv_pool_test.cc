// Conv2D, its two backprops, MaxPool, AvgPool and their gradients on the CPU (NHWC),
// against naive loops written here from the definitions, against a few values computed by
// TensorFlow 2.21, and their errors.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "graph/builder/nn_ops.h"
#include "graph/builder/ops.h"
#include "kernels/cpu/winograd_conv.h"
#include "tests/kernels/kernel_test_util.h"

namespace tensoract {
namespace {

using testing::I32;

using testing::Values;
using testing::Make;
using testing::AttrMap;
using testing::Ints;
using testing::RunMaybe;
using testing::Str;

// Deterministic values in [-1, 1] that are all different enough for max-pool checks.
std::vector<double> Pattern(int64_t n, double seed) {
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = std::sin(0.7 * static_cast<double>(i) + seed);
  return v;
}



template <class T>
void ExpectClose(const Tensor& got, const std::vector<double>& want, double tol) {
  std::vector<T> g = Values<T>(got);
  REQUIRE(g.size() == want.size());
  for (size_t i = 0; i < g.size(); ++i) {
    INFO("element " << i << ": got " << g[i] << ", want " << want[i]);
    REQUIRE(std::abs(static_cast<double>(g[i]) - want[i]) <= tol * std::max(1.0, std::abs(want[i])));
  }
}

// ---- The naive reference -----------------------------------------------------------------

// One convolution (or pool: o = c, kh/kw the window) in NHWC and its geometry.
struct Geometry {
  int64_t n, h, w, c, kh, kw, o;
  int64_t sh = 1, sw = 1, dh = 1, dw = 1;
  std::string padding = "SAME";
  int64_t oh = 0, ow = 0, pt = 0, pl = 0;

  // TensorFlow's rule: SAME gives ceil(in / stride) outputs, with the padding split so that
  // any extra element goes after; VALID pads nothing.
  Geometry& Plan() {
    auto dim = [&](int64_t in, int64_t k, int64_t d, int64_t s, int64_t* out, int64_t* pad) {
      const int64_t eff = (k - 1) * d + 1;
      if (padding == "SAME") {
        *out = (in + s - 1) / s;
        *pad = std::max<int64_t>(0, (*out - 1) * s + eff - in) / 2;
      } else {
        *out = (in - eff + s) / s;
        *pad = 0;
      }
    };
    dim(h, kh, dh, sh, &oh, &pt);
    dim(w, kw, dw, sw, &ow, &pl);
    return *this;
  }
  int64_t X(int64_t b, int64_t y, int64_t x, int64_t ch) const { return ((b * h + y) * w + x) * c + ch; }
  int64_t F(int64_t y, int64_t x, int64_t ci, int64_t co) const { return ((y * kw + x) * c + ci) * o + co; }
  int64_t Y(int64_t b, int64_t y, int64_t x, int64_t ch) const { return ((b * oh + y) * ow + x) * o + ch; }
  TensorShape InShape() const { return TensorShape({n, h, w, c}); }
  TensorShape FilterShape() const { return TensorShape({kh, kw, c, o}); }
  TensorShape OutShape() const { return TensorShape({n, oh, ow, o}); }
  // Calls fn(b, oy, ox, ky, kx, iy, ix) for every tap inside the input.
  template <class Fn>
  void ForEachTap(Fn fn) const {
    for (int64_t b = 0; b < n; ++b)
      for (int64_t oy = 0; oy < oh; ++oy)
        for (int64_t ox = 0; ox < ow; ++ox)
          for (int64_t ky = 0; ky < kh; ++ky)
            for (int64_t kx = 0; kx < kw; ++kx) {
              const int64_t iy = oy * sh - pt + ky * dh, ix = ox * sw - pl + kx * dw;
              if (iy >= 0 && iy < h && ix >= 0 && ix < w) fn(b, oy, ox, ky, kx, iy, ix);
            }
  }
  AttrMap ConvAttrs(DataType t) const {
    return {{"T", testing::TypeA(t)}, {"strides", Ints({1, sh, sw, 1})}, {"dilations", Ints({1, dh, dw, 1})},
            {"padding", Str(padding)}};
  }
  AttrMap PoolAttrs(DataType t) const {
    return {{"T", testing::TypeA(t)}, {"ksize", Ints({1, kh, kw, 1})}, {"strides", Ints({1, sh, sw, 1})},
            {"padding", Str(padding)}};
  }
};

std::vector<double> RefConv(const Geometry& g, const std::vector<double>& x, const std::vector<double>& f) {
  std::vector<double> y(g.OutShape().num_elements(), 0.0);
  g.ForEachTap([&](int64_t b, int64_t oy, int64_t ox, int64_t ky, int64_t kx, int64_t iy, int64_t ix) {
    for (int64_t co = 0; co < g.o; ++co)
      for (int64_t ci = 0; ci < g.c; ++ci) y[g.Y(b, oy, ox, co)] += x[g.X(b, iy, ix, ci)] * f[g.F(ky, kx, ci, co)];
  });
  return y;
}

std::vector<double> RefBackpropInput(const Geometry& g, const std::vector<double>& f, const std::vector<double>& dy) {
  std::vector<double> dx(g.InShape().num_elements(), 0.0);
  g.ForEachTap([&](int64_t b, int64_t oy, int64_t ox, int64_t ky, int64_t kx, int64_t iy, int64_t ix) {
    for (int64_t co = 0; co < g.o; ++co)
      for (int64_t ci = 0; ci < g.c; ++ci) dx[g.X(b, iy, ix, ci)] += f[g.F(ky, kx, ci, co)] * dy[g.Y(b, oy, ox, co)];
  });
  return dx;
}

std::vector<double> RefBackpropFilter(const Geometry& g, const std::vector<double>& x, const std::vector<double>& dy) {
  std::vector<double> df(g.FilterShape().num_elements(), 0.0);
  g.ForEachTap([&](int64_t b, int64_t oy, int64_t ox, int64_t ky, int64_t kx, int64_t iy, int64_t ix) {
    for (int64_t co = 0; co < g.o; ++co)
      for (int64_t ci = 0; ci < g.c; ++ci) df[g.F(ky, kx, ci, co)] += x[g.X(b, iy, ix, ci)] * dy[g.Y(b, oy, ox, co)];
  });
  return df;
}

// Max and average pools and their gradients (g.o == g.c). The max's argmax is the first
// maximum in the window's raster order.
struct PoolRef {
  std::vector<double> max, avg, max_grad, avg_grad;
};
PoolRef RefPools(const Geometry& g, const std::vector<double>& x, const std::vector<double>& dy) {
  PoolRef r;
  const int64_t outs = g.OutShape().num_elements();
  r.max.assign(outs, -1e300);
  r.avg.assign(outs, 0.0);
  std::vector<int64_t> argmax(outs, -1), count(outs, 0);
  g.ForEachTap([&](int64_t b, int64_t oy, int64_t ox, int64_t, int64_t, int64_t iy, int64_t ix) {
    for (int64_t ch = 0; ch < g.c; ++ch) {
      const int64_t yi = g.Y(b, oy, ox, ch), xi = g.X(b, iy, ix, ch);
      if (argmax[yi] < 0 || x[xi] > r.max[yi]) {
        r.max[yi] = x[xi];
        argmax[yi] = xi;
      }
      r.avg[yi] += x[xi];
      ++count[yi];
    }
  });
  for (int64_t i = 0; i < outs; ++i) r.avg[i] /= static_cast<double>(count[i]);
  r.max_grad.assign(x.size(), 0.0);
  r.avg_grad.assign(x.size(), 0.0);
  for (int64_t i = 0; i < outs; ++i) r.max_grad[argmax[i]] += dy[i];
  g.ForEachTap([&](int64_t b, int64_t oy, int64_t ox, int64_t, int64_t, int64_t iy, int64_t ix) {
    for (int64_t ch = 0; ch < g.c; ++ch) {
      const int64_t yi = g.Y(b, oy, ox, ch);
      r.avg_grad[g.X(b, iy, ix, ch)] += dy[yi] / static_cast<double>(count[yi]);
    }
  });
  return r;
}

// ---- Convolutions ------------------------------------------------------------------------

std::vector<Geometry> ConvConfigs() {
  std::vector<Geometry> out;
  auto add = [&](Geometry g) { out.push_back(g.Plan()); };
  add({2, 7, 6, 3, 3, 3, 4});                                        // SAME, stride 1
  add({2, 8, 9, 2, 3, 2, 3, 2, 2, 1, 1, "VALID"});                   // VALID, stride 2, odd sizes
  add({1, 7, 7, 2, 4, 4, 3, 2, 2, 1, 1, "SAME"});                    // even filter: uneven padding
  add({3, 9, 8, 2, 3, 3, 2, 1, 1, 2, 2, "SAME"});                    // dilation 2
  add({2, 9, 10, 3, 3, 2, 2, 1, 2, 2, 3, "VALID"});                  // dilations 2x3, strides 1x2
  add({2, 5, 4, 6, 1, 1, 5});                                        // 1x1, stride 1: no im2col
  add({2, 5, 5, 3, 1, 1, 4, 2, 2, 1, 1, "SAME"});                    // 1x1, stride 2
  add({8, 16, 15, 8, 5, 5, 16});                                     // big enough for every thread
  add({1, 3, 3, 2, 5, 5, 2, 1, 1, 1, 1, "SAME"});                    // filter larger than the input
  // Shapes for the float AVX-512 kernels (gemm.h): 64-wide and 32-wide filter panels, partial
  // panels, input depths that are (or are not) multiples of 16, strides they decline.
  add({2, 14, 14, 32, 5, 5, 64});                                    // the tutorial CNN's second conv
  add({3, 6, 7, 16, 3, 3, 70});                                      // 70 outputs: 32-wide panels, partial
  add({2, 7, 5, 48, 3, 2, 10, 1, 1, 1, 1, "VALID"});                 // 48 inputs: a half input panel
  add({1, 9, 9, 32, 3, 3, 64, 2, 2, 1, 1, "SAME"});                  // stride 2: backprops decline
  add({2, 5, 6, 16, 4, 4, 128});                                     // even filter, two 64-wide panels
  // The filter gradient's tiles: 6 input depths x 64 outputs, 8 x 32, 8 x 16, and the
  // shorter tiles of the depths left over (7 = one tile of 7; 13 = 8 + 5).
  add({2, 6, 6, 7, 3, 3, 32});
  add({2, 5, 5, 13, 2, 2, 20});
  // The forward kernel reads a filter row of a window as one run of a padded image copy:
  // strided and row-dilated windows, images of exactly one tile (tiles then span two images
  // where a thread's range starts mid-image), and images smaller than a tile (per-tap path).
  add({2, 9, 10, 16, 3, 3, 64, 2, 1, 2, 1, "SAME"});
  add({5, 3, 2, 16, 3, 3, 64});
  add({4, 2, 2, 16, 3, 3, 64});
  // Real networks' layers, on oneDNN where it is built in (the backprops too): ResNet's
  // strided 1x1 shortcut, a VALID 3x3, 1x1 bottlenecks; odd batches split unevenly over the
  // threads.
  add({3, 8, 8, 32, 1, 1, 64, 2, 2, 1, 1, "SAME"});
  add({3, 7, 7, 24, 3, 3, 16, 1, 1, 1, 1, "VALID"});
  add({5, 6, 6, 64, 1, 1, 32});
  // An RGB stem (a 7x7, stride 2, on a depth of 3), and a filter of 2 MiB whose layout
  // oneDNN blocks by 48 output channels (reordered in slices of whole blocks).
  add({1, 16, 16, 3, 7, 7, 64, 2, 2, 1, 1, "SAME"});
  add({1, 3, 3, 1024, 1, 1, 512});
  add({5, 28, 28, 1, 5, 5, 32});                                     // the tutorial CNN's first conv
  add({2, 9, 8, 1, 3, 3, 40});                                       // 1-deep, 3x3, a partial panel
  add({2, 10, 9, 1, 5, 5, 16, 1, 1, 1, 1, "VALID"});                 // 1-deep, VALID
  add({1, 6, 7, 1, 4, 4, 8});                                        // 1-deep, 4x4: the filter grad declines
  return out;
}

template <class T>
void CheckConvConfigs(DataType dtype, double tol) {
  for (const Geometry& g : ConvConfigs()) {
    INFO("input " << g.InShape().DebugString() << " filter " << g.FilterShape().DebugString() << " strides " << g.sh
                  << "x" << g.sw << " dilations " << g.dh << "x" << g.dw << " " << g.padding);
    const auto x = Pattern(g.InShape().num_elements(), 0.1);
    const auto f = Pattern(g.FilterShape().num_elements(), 0.9);
    const auto dy = Pattern(g.OutShape().num_elements(), 2.3);
    auto y = testing::RunOp("Conv2D", {Make<T>(x, g.InShape()), Make<T>(f, g.FilterShape())}, g.ConvAttrs(dtype));
    REQUIRE(y.status.ok());
    REQUIRE(y.outputs[0].shape() == g.OutShape());
    ExpectClose<T>(y.outputs[0], RefConv(g, x, f), tol);

    const std::vector<int32_t> in_sizes = {int32_t(g.n), int32_t(g.h), int32_t(g.w), int32_t(g.c)};
    auto dx = testing::RunOp("Conv2DBackpropInput", {I32(in_sizes), Make<T>(f, g.FilterShape()), Make<T>(dy, g.OutShape())},
                             g.ConvAttrs(dtype));
    INFO(dx.status);
    REQUIRE(dx.status.ok());
    REQUIRE(dx.outputs[0].shape() == g.InShape());
    ExpectClose<T>(dx.outputs[0], RefBackpropInput(g, f, dy), tol);

    const std::vector<int32_t> f_sizes = {int32_t(g.kh), int32_t(g.kw), int32_t(g.c), int32_t(g.o)};
    auto df = testing::RunOp("Conv2DBackpropFilter", {Make<T>(x, g.InShape()), I32(f_sizes), Make<T>(dy, g.OutShape())},
                             g.ConvAttrs(dtype));
    INFO(df.status);
    REQUIRE(df.status.ok());
    REQUIRE(df.outputs[0].shape() == g.FilterShape());
    ExpectClose<T>(df.outputs[0], RefBackpropFilter(g, x, dy), tol);

    // The remapper's _Conv2DBackpropFilterWithBias: the same filter gradient to the bit, and
    // BiasAddGrad(dy) (summed in another order: close, not equal).
    auto fused = testing::RunOp("_Conv2DBackpropFilterWithBias",
                                {Make<T>(x, g.InShape()), I32(f_sizes), Make<T>(dy, g.OutShape())}, g.ConvAttrs(dtype));
    INFO(fused.status);
    REQUIRE(fused.status.ok());
    REQUIRE(fused.outputs.size() == 2);
    CHECK(Values<T>(fused.outputs[0]) == Values<T>(df.outputs[0]));
    std::vector<double> bias_grad(g.o, 0.0);
    for (size_t i = 0; i < dy.size(); ++i) bias_grad[i % g.o] += dy[i];
    REQUIRE(fused.outputs[1].shape() == TensorShape({g.o}));
    ExpectClose<T>(fused.outputs[1], bias_grad, tol);
  }
}

TEST_CASE("Conv2D and its backprops match naive loops: SAME/VALID, strides, dilations, 1x1, batches", "[conv]") {
  // Float sums of up to 2,048 products (the 4x4x128 backprop) in another order than the
  // double reference: a few 1e-4 relative.
  SECTION("float") { CheckConvConfigs<float>(tensorflow::DT_FLOAT, 5e-4); }
  SECTION("double") { CheckConvConfigs<double>(tensorflow::DT_DOUBLE, 1e-10); }
}

// A deep layer at batch 1 (a filter many times its image: oneDNN runs it in pieces of output
// channels, each with its slice of the filter, the batch norm's factor folded in, its part of
// the shift, and the residual gathered into and scattered out of its own buffer) against the
// naive convolution followed by the fused ops.
TEST_CASE("_FusedConv2D of a deep layer at batch 1 matches the naive loops and its fused ops", "[conv]") {
  struct Case {
    Geometry g;
    bool residual;
    std::string activation;
  };
  // Deep layers at batch 1 run in slices of output channels, a wide image in bands of rows,
  // a batch by images (onednn_conv.cc); Swish, Sigmoid and Tanh are applied after oneDNN's
  // primitive, on each piece (ActivatesAfter).
  std::vector<Case> cases;
  for (const char* activation : {"Relu", "_MklSwish", "Sigmoid", "Tanh"}) {
    cases.push_back(Case{Geometry{1, 3, 3, 256, 3, 3, 128}.Plan(), true, activation});
    cases.push_back(Case{Geometry{1, 12, 14, 16, 1, 1, 96}.Plan(), false, activation});
    cases.push_back(Case{Geometry{4, 6, 6, 32, 3, 3, 48}.Plan(), true, activation});
  }
  cases.push_back(Case{Geometry{1, 2, 3, 512, 1, 1, 256}.Plan(), false, "Relu"});
  cases.push_back(Case{Geometry{1, 4, 4, 128, 3, 3, 192}.Plan(), true, "Relu"});
  for (const Case& c : cases) {
    const Geometry& g = c.g;
    INFO("input " << g.InShape().DebugString() << " filter " << g.FilterShape().DebugString() << " "
                  << c.activation);
    const auto x = Pattern(g.InShape().num_elements(), 0.1);
    const auto f = Pattern(g.FilterShape().num_elements(), 0.9);
    const auto scale = Pattern(g.o, 1.7), shift = Pattern(g.o, 2.9), addend = Pattern(g.OutShape().num_elements(), 0.4);
    std::vector<Tensor> inputs = {Make<float>(x, g.InShape()), Make<float>(f, g.FilterShape()),
                                  Make<float>(scale, TensorShape({g.o})), Make<float>(shift, TensorShape({g.o}))};
    std::vector<std::string> ops = {"ChannelMul", "BiasAdd"};
    if (c.residual) {
      inputs.push_back(Make<float>(addend, g.OutShape()));
      ops.push_back("Add");
    }
    ops.push_back(c.activation);
    AttrMap attrs = g.ConvAttrs(tensorflow::DT_FLOAT);
    attrs["fused_ops"] = testing::Strs(ops);
    attrs["num_args"] = testing::IntA(static_cast<int64_t>(inputs.size() - 2));
    tensorflow::AttrValue types;
    for (size_t i = 2; i < inputs.size(); ++i) types.mutable_list()->add_type(tensorflow::DT_FLOAT);
    attrs["TArgs"] = types;
    auto y = testing::RunOp("_FusedConv2D", inputs, attrs);
    INFO(y.status);
    REQUIRE(y.status.ok());
    std::vector<double> want = RefConv(g, x, f);
    for (size_t i = 0; i < want.size(); ++i) {
      const size_t ch = i % static_cast<size_t>(g.o);
      want[i] = want[i] * scale[ch] + shift[ch] + (c.residual ? addend[i] : 0.0);
      const double v = want[i];
      if (c.activation == "Relu") want[i] = std::max(v, 0.0);
      if (c.activation == "_MklSwish") want[i] = v / (1 + std::exp(-v));
      if (c.activation == "Sigmoid") want[i] = 1 / (1 + std::exp(-v));
      if (c.activation == "Tanh") want[i] = std::tanh(v);
    }
    // Sums of up to 2,304 products in float.
    ExpectClose<float>(y.outputs[0], want, 5e-4);
  }
}

// Expected values printed by TensorFlow 2.21 (CPU) with:
//   x = np.arange(1, 26, dtype=np.float32).reshape(1,5,5,1) / 10.0
//   x = np.concatenate([x, -x*0.5], axis=3)                                  # [1,5,5,2]
//   w = (np.arange(1, 37, dtype=np.float32).reshape(2,3,2,3) - 9) / 10.0     # [2,3,2,3]
//   dy = (np.arange(27, dtype=np.float32).reshape(1,3,3,3) - 13) / 10
//   tf.nn.conv2d(x, w, strides=[1,2,2,1], padding="SAME")
//   tf.raw_ops.Conv2DBackpropInput(input_sizes=[1,5,5,2], filter=w, out_backprop=dy, strides=[1,2,2,1], padding="SAME")
//   tf.raw_ops.Conv2DBackpropFilter(input=x, filter_sizes=[2,3,2,3], out_backprop=dy, strides=[1,2,2,1], padding="SAME")
//   tf.nn.avg_pool2d(x, ksize=[1,2,2,1], strides=[1,2,2,1], padding="SAME")
//   tf.nn.max_pool2d(x, ksize=[1,3,3,1], strides=[1,2,2,1], padding="SAME")
struct TensorFlowCase {
  std::vector<double> x, w, dy;
  TensorFlowCase() {
    for (int i = 1; i <= 25; ++i) {
      x.push_back(i / 10.0);
      x.push_back(-i / 20.0);
    }
    for (int i = 1; i <= 36; ++i) w.push_back((i - 9) / 10.0);
    for (int i = 0; i < 27; ++i) dy.push_back((i - 13) / 10.0);
  }
};

TEST_CASE("Conv2D, its backprops and the pools give TensorFlow's values on an uneven SAME stride-2 case", "[conv]") {
  const TensorFlowCase c;
  const AttrMap conv = {{"T", testing::TypeA(tensorflow::DT_FLOAT)}, {"strides", Ints({1, 2, 2, 1})},
                        {"padding", Str("SAME")}};
  const Tensor x = Make<float>(c.x, {1, 5, 5, 2}), w = Make<float>(c.w, {2, 3, 2, 3}), dy = Make<float>(c.dy, {1, 3, 3, 3});
  auto y = testing::RunOp("Conv2D", {x, w}, conv);
  REQUIRE(y.status.ok());
  ExpectClose<float>(y.outputs[0], {1.04, 1.12, 1.2, 1.455, 1.62, 1.785, 0.62, 0.76, 0.9, 2.44, 2.72, 3, 2.655, 3.12,
                                    3.585, 0.82, 1.16, 1.5, -0.415, -0.2, 0.0150001, -1.665, -1.32, -0.975, -1.945, -1.7,
                                    -1.455},
                     1e-5);
  auto dx = testing::RunOp("Conv2DBackpropInput", {I32({1, 5, 5, 2}), w, dy}, conv);
  REQUIRE(dx.status.ok());
  ExpectClose<float>(dx.outputs[0],
                     {0.38,  -0.7,  0.13,  -1.76, 0.29,  -0.52, -0.05, -1.4,  0.2,   -0.34, -6.1,  -7.18, -11.21,
                      -13.1, -4.57, -5.38, -8.15, -9.5,  -3.04, -3.58, 0.11,  -0.16, -0.41, -0.68, 0.02,  0.02,
                      -0.59, -0.32, -0.07, 0.2,   -1.51, -1.78, -2.03, -2.3,  0.02,  0.02,  1.03,  1.3,   1.55,
                      1.82,  -0.16, 0.38,  -0.95, 0.4,   -0.25, 0.56,  -1.13, 0.76,  -0.34, 0.74},
                     1e-5);
  auto dw = testing::RunOp("Conv2DBackpropFilter", {x, I32({2, 3, 2, 3}), dy}, conv);
  REQUIRE(dw.status.ok());
  ExpectClose<float>(dw.outputs[0], {4.08,  4.86,  5.64, -2.04, -2.43, -2.82, 4.59,  5.76,  6.93,  -2.295, -2.88, -3.465,
                                     1.74,  2.52,  3.3,  -0.87, -1.26, -1.65, -1.12, -0.6,  -0.08, 0.56,   0.3,   0.04,
                                     -2.7,  -1.92, -1.14, 1.35, 0.96,  0.57,  -2.68, -2.16, -1.64, 1.34,   1.08,  0.82},
                     1e-5);
  const AttrMap pool2 = {{"T", testing::TypeA(tensorflow::DT_FLOAT)}, {"ksize", Ints({1, 2, 2, 1})},
                         {"strides", Ints({1, 2, 2, 1})}, {"padding", Str("SAME")}};
  auto avg = testing::RunOp("AvgPool", {x}, pool2);
  REQUIRE(avg.status.ok());
  ExpectClose<float>(avg.outputs[0], {0.4, -0.2, 0.6, -0.3, 0.75, -0.375, 1.4, -0.7, 1.6, -0.8, 1.75, -0.875, 2.15,
                                      -1.075, 2.35, -1.175, 2.5, -1.25},
                     1e-5);
  AttrMap pool3 = pool2;
  pool3["ksize"] = Ints({1, 3, 3, 1});
  auto max = testing::RunOp("MaxPool", {x}, pool3);
  REQUIRE(max.status.ok());
  ExpectClose<float>(max.outputs[0], {0.7, -0.05, 0.9, -0.1, 1, -0.2, 1.7, -0.3, 1.9, -0.35, 2, -0.45, 2.2, -0.8, 2.4,
                                      -0.85, 2.5, -0.95},
                     1e-5);
}

// ---- Winograd's F(2x2, 3x3) path (kernels/cpu/winograd_conv.h) --------------------------

// TENSORACT_WINOGRAD set for a scope (WinogradConv::Enabled reads it on each call), so the
// path runs in builds where it is off by default, and the direct path can be compared.
class WinogradSetting {
 public:
  explicit WinogradSetting(const char* value) { setenv("TENSORACT_WINOGRAD", value, 1); }
  ~WinogradSetting() { unsetenv("TENSORACT_WINOGRAD"); }
};

// Within tol of the largest value's magnitude: Winograd's transforms add and subtract up to
// four values before each product, so an element's rounding error follows the layer's
// scale (about 1e-6 of it in float, a few times a direct sum's), not its own value.
void ExpectCloseToScale(const Tensor& got, const std::vector<double>& want, double tol) {
  std::vector<float> g = Values<float>(got);
  REQUIRE(g.size() == want.size());
  double scale = 0;
  for (double w : want) scale = std::max(scale, std::abs(w));
  for (size_t i = 0; i < g.size(); ++i) {
    INFO("element " << i << ": got " << g[i] << ", want " << want[i] << ", largest " << scale);
    REQUIRE(std::abs(static_cast<double>(g[i]) - want[i]) <= tol * scale);
  }
}

// The kernels' geometry of `g` (what WinogradConv::Suits judges).
conv::ConvDims DimsOf(const Geometry& g) {
  conv::ConvDims d;
  d.batch = g.n;
  d.in_rows = g.h;
  d.in_cols = g.w;
  d.in_depth = g.c;
  d.filter_rows = g.kh;
  d.filter_cols = g.kw;
  d.out_depth = g.o;
  d.out_rows = g.oh;
  d.out_cols = g.ow;
  d.pad_top = g.pt;
  d.pad_left = g.pl;
  d.stride_rows = g.sh;
  d.stride_cols = g.sw;
  d.dilation_rows = g.dh;
  d.dilation_cols = g.dw;
  return d;
}

// A _FusedConv2D of `g` with a batch norm's factor and shift (ChannelMul, BiasAdd), a residual
// Add and Relu; its inputs, attrs and the naive loops' answer.
struct FusedCase {
  std::vector<Tensor> inputs;
  AttrMap attrs;
  std::vector<double> want;
};
FusedCase FusedConvCase(const Geometry& g, double filter_seed, double scale_seed) {
  const auto x = Pattern(g.InShape().num_elements(), 0.1);
  const auto f = Pattern(g.FilterShape().num_elements(), filter_seed);
  const auto scale = Pattern(g.o, scale_seed), shift = Pattern(g.o, 2.9);
  const auto addend = Pattern(g.OutShape().num_elements(), 0.4);
  FusedCase c;
  c.inputs = {Make<float>(x, g.InShape()), Make<float>(f, g.FilterShape()), Make<float>(scale, TensorShape({g.o})),
              Make<float>(shift, TensorShape({g.o})), Make<float>(addend, g.OutShape())};
  c.attrs = g.ConvAttrs(tensorflow::DT_FLOAT);
  c.attrs["fused_ops"] = testing::Strs({"ChannelMul", "BiasAdd", "Add", "Relu"});
  c.attrs["num_args"] = testing::IntA(3);
  tensorflow::AttrValue types;
  for (int i = 0; i < 3; ++i) types.mutable_list()->add_type(tensorflow::DT_FLOAT);
  c.attrs["TArgs"] = types;
  c.want = RefConv(g, x, f);
  for (size_t i = 0; i < c.want.size(); ++i) {
    const size_t ch = i % static_cast<size_t>(g.o);
    c.want[i] = std::max(c.want[i] * scale[ch] + shift[ch] + addend[i], 0.0);
  }
  return c;
}

TEST_CASE("3x3 stride-1 convolutions and both gradients through Winograd match naive loops and the direct path", "[conv]") {
  std::vector<Geometry> shapes;
  auto add = [&](Geometry g) { shapes.push_back(g.Plan()); };
  add({2, 13, 11, 16, 3, 3, 24});                     // odd sizes: the last tiles cut at both edges
  add({3, 12, 10, 16, 3, 3, 24, 1, 1, 1, 1, "VALID"});  // no padding
  add({3, 7, 7, 256, 3, 3, 160});  // slices of 128 and 32 channels, shared out; blocks across images
  add({4, 19, 17, 32, 3, 3, 40});  // three blocks of 120 tiles, each across images; a partial panel
  for (const Geometry& g : shapes) {
    INFO("input " << g.InShape().DebugString() << " filter " << g.FilterShape().DebugString() << " " << g.padding);
    const auto x = Pattern(g.InShape().num_elements(), 0.1);
    const auto f = Pattern(g.FilterShape().num_elements(), 0.9);
    const std::vector<Tensor> inputs = {Make<float>(x, g.InShape()), Make<float>(f, g.FilterShape())};
    const std::vector<double> want = RefConv(g, x, f);
    {
      WinogradSetting on("1");
      REQUIRE(WinogradConv::Suits(DimsOf(g)));
      auto y = testing::RunOp("Conv2D", inputs, g.ConvAttrs(tensorflow::DT_FLOAT));
      REQUIRE(y.status.ok());
      REQUIRE(y.outputs[0].shape() == g.OutShape());
      ExpectCloseToScale(y.outputs[0], want, 1e-5);

      // The gradient to the input: a convolution of out_backprop with the filter reversed.
      REQUIRE(WinogradConv::SuitsBackpropInput(DimsOf(g)));
      const auto dy = Pattern(g.OutShape().num_elements(), 2.3);
      const std::vector<int32_t> in_sizes = {int32_t(g.n), int32_t(g.h), int32_t(g.w), int32_t(g.c)};
      auto dx = testing::RunOp("Conv2DBackpropInput",
                               {I32(in_sizes), Make<float>(f, g.FilterShape()), Make<float>(dy, g.OutShape())},
                               g.ConvAttrs(tensorflow::DT_FLOAT));
      INFO(dx.status);
      REQUIRE(dx.status.ok());
      REQUIRE(dx.outputs[0].shape() == g.InShape());
      ExpectCloseToScale(dx.outputs[0], RefBackpropInput(g, f, dy), 1e-5);

      // The gradient to the filter (and the bias), F(3x3, 2x2).
      const std::vector<int32_t> f_sizes = {int32_t(g.kh), int32_t(g.kw), int32_t(g.c), int32_t(g.o)};
      auto df = testing::RunOp("_Conv2DBackpropFilterWithBias",
                               {Make<float>(x, g.InShape()), I32(f_sizes), Make<float>(dy, g.OutShape())},
                               g.ConvAttrs(tensorflow::DT_FLOAT));
      INFO(df.status);
      REQUIRE(df.status.ok());
      REQUIRE(df.outputs[0].shape() == g.FilterShape());
      ExpectCloseToScale(df.outputs[0], RefBackpropFilter(g, x, dy), 1e-5);
      std::vector<double> bias_grad(g.o, 0.0);
      for (size_t i = 0; i < dy.size(); ++i) bias_grad[i % g.o] += dy[i];
      ExpectClose<float>(df.outputs[1], bias_grad, 1e-4);
    }
    WinogradSetting off("0");
    REQUIRE_FALSE(WinogradConv::Suits(DimsOf(g)));
    auto direct = testing::RunOp("Conv2D", inputs, g.ConvAttrs(tensorflow::DT_FLOAT));
    REQUIRE(direct.status.ok());
    ExpectClose<float>(direct.outputs[0], want, 1e-4);
  }

  SECTION("the fused ops: the factor folded into the transformed filter, then shift, residual and Relu") {
    WinogradSetting on("1");
    for (const Geometry& g : {shapes[0], shapes[2]}) {
      INFO("input " << g.InShape().DebugString() << " filter " << g.FilterShape().DebugString());
      const FusedCase c = FusedConvCase(g, 0.9, 1.7);
      auto y = testing::RunOp("_FusedConv2D", c.inputs, c.attrs);
      INFO(y.status);
      REQUIRE(y.status.ok());
      ExpectCloseToScale(y.outputs[0], c.want, 1e-5);
    }
  }

  SECTION("one kernel kept: a new filter or a new factor is transformed again") {
    WinogradSetting on("1");
    const Geometry& g = shapes[2];
    std::unique_ptr<OpKernel> kernel;
    const FusedCase first = FusedConvCase(g, 0.9, 1.7);
    REQUIRE(testing::MakeKernel("_FusedConv2D", first.attrs, &kernel).ok());
    for (const FusedCase& c : {first, first, FusedConvCase(g, 0.3, 1.7), FusedConvCase(g, 0.3, 0.6)}) {
      auto y = testing::RunKernel(kernel.get(), c.inputs);
      REQUIRE(y.status.ok());
      ExpectCloseToScale(y.outputs[0], c.want, 1e-5);
    }
  }
}

TEST_CASE("Conv2D errors name the node and the shapes", "[conv]") {
  const AttrMap attrs = {{"T", testing::TypeA(tensorflow::DT_FLOAT)}, {"strides", Ints({1, 1, 1, 1})},
                         {"padding", Str("VALID")}};
  const Tensor x = Make<float>(Pattern(2 * 4 * 4 * 3, 0), {2, 4, 4, 3});
  SECTION("a filter of rank 3") {
    auto r = RunMaybe("Conv2D", {x, Make<float>(Pattern(27, 0), {3, 3, 3})}, attrs);
    REQUIRE(r.status.code() == error::INVALID_ARGUMENT);
    CHECK_THAT(r.status.message(), Catch::Contains("node 'n'") && Catch::Contains("filter must be 4-dimensional") &&
                                       Catch::Contains("[3,3,3]"));
  }
  SECTION("an input depth the filter's does not divide") {
    auto r = RunMaybe("Conv2D", {x, Make<float>(Pattern(3 * 3 * 2 * 1, 0), {3, 3, 2, 1})}, attrs);
    REQUIRE(r.status.code() == error::INVALID_ARGUMENT);
    CHECK_THAT(r.status.message(), Catch::Contains("node 'n'") && Catch::Contains("evenly divisible by filter depth: 3 vs 2"));
  }
  SECTION("a VALID window larger than the input") {
    auto r = RunMaybe("Conv2D", {x, Make<float>(Pattern(6 * 6 * 3, 0), {6, 6, 3, 1})}, attrs);
    REQUIRE(r.status.code() == error::INVALID_ARGUMENT);
    CHECK_THAT(r.status.message(), Catch::Contains("node 'n'") && Catch::Contains("negative") &&
                                       Catch::Contains("[2,4,4,3]"));
  }
  SECTION("NCHW on the CPU") {
    AttrMap nchw = attrs;
    nchw["data_format"] = Str("NCHW");
    auto r = RunMaybe("Conv2D", {x, Make<float>(Pattern(27, 0), {3, 3, 3, 1})}, nchw);
    REQUIRE(r.status.code() == error::UNIMPLEMENTED);  // TensorFlow's Conv2D code for it
    CHECK_THAT(r.status.message(), Catch::Contains("node 'n'") && Catch::Contains("NHWC"));
  }
  SECTION("EXPLICIT padding in the batch dimension") {
    // EXPLICIT padding itself runs (tests/kernels/nn_fidelity_regression_test.cc).
    AttrMap expl = attrs;
    expl["padding"] = Str("EXPLICIT");
    expl["explicit_paddings"] = Ints({1, 0, 1, 1, 1, 1, 0, 0});
    auto r = RunMaybe("Conv2D", {x, Make<float>(Pattern(27, 0), {3, 3, 3, 1})}, expl);
    REQUIRE(r.status.code() == error::INVALID_ARGUMENT);
    CHECK_THAT(r.status.message(), Catch::Contains("node 'n'") && Catch::Contains("batch or depth"));
  }
  SECTION("strides over the batch") {
    AttrMap s = attrs;
    s["strides"] = Ints({2, 1, 1, 1});
    auto r = RunMaybe("Conv2D", {x, Make<float>(Pattern(27, 0), {3, 3, 3, 1})}, s);
    REQUIRE_FALSE(r.status.ok());
    CHECK_THAT(r.status.message(), Catch::Contains("node 'n'"));
  }
  SECTION("an out_backprop of the wrong shape") {
    auto r = RunMaybe("Conv2DBackpropInput",
                      {I32({2, 4, 4, 3}), Make<float>(Pattern(27, 0), {3, 3, 3, 1}), Make<float>(Pattern(16, 0), {2, 2, 2, 2})},
                      attrs);
    REQUIRE(r.status.code() == error::INVALID_ARGUMENT);
    CHECK_THAT(r.status.message(), Catch::Contains("node 'n'") && Catch::Contains("out_backprop"));
  }
}

// ---- Pools -------------------------------------------------------------------------------

template <class T>
void CheckPoolConfigs(DataType dtype, double tol) {
  std::vector<Geometry> configs;
  auto add = [&](Geometry g) { configs.push_back(g.Plan()); };
  add({2, 6, 6, 3, 2, 2, 3, 2, 2, 1, 1, "VALID"});
  add({2, 7, 5, 3, 2, 2, 3, 2, 2, 1, 1, "SAME"});   // odd sizes: edge windows are partial
  add({1, 7, 8, 2, 3, 3, 2, 2, 2, 1, 1, "SAME"});   // overlapping windows
  add({3, 5, 6, 4, 3, 2, 4, 1, 1, 1, 1, "VALID"});
  add({2, 6, 5, 2, 3, 3, 2, 1, 2, 1, 1, "SAME"});
  add({16, 28, 28, 32, 2, 2, 32, 2, 2, 1, 1, "SAME"});  // the CNN's pool, split over threads
  for (const Geometry& g : configs) {
    INFO("input " << g.InShape().DebugString() << " window " << g.kh << "x" << g.kw << " strides " << g.sh << "x"
                  << g.sw << " " << g.padding);
    const auto x = Pattern(g.InShape().num_elements(), 0.3);
    const auto dy = Pattern(g.OutShape().num_elements(), 1.7);
    const PoolRef ref = RefPools(g, x, dy);
    const Tensor xt = Make<T>(x, g.InShape()), dyt = Make<T>(dy, g.OutShape());
    auto max = testing::RunOp("MaxPool", {xt}, g.PoolAttrs(dtype));
    REQUIRE(max.status.ok());
    REQUIRE(max.outputs[0].shape() == g.OutShape());
    ExpectClose<T>(max.outputs[0], ref.max, tol);
    auto avg = testing::RunOp("AvgPool", {xt}, g.PoolAttrs(dtype));
    REQUIRE(avg.status.ok());
    ExpectClose<T>(avg.outputs[0], ref.avg, tol);
    auto max_grad = testing::RunOp("MaxPoolGrad", {xt, max.outputs[0], dyt}, g.PoolAttrs(dtype));
    INFO(max_grad.status);
    REQUIRE(max_grad.status.ok());
    ExpectClose<T>(max_grad.outputs[0], ref.max_grad, tol);
    {
      // The remapper's _MaxPoolGradWithReluGrad is ReluGrad(MaxPoolGrad(x), x) to the bit, for
      // x a Relu's output (many windows all zero here) and for any x.
      std::vector<double> relu_x(x.size());
      for (size_t i = 0; i < x.size(); ++i) relu_x[i] = std::max(0.0, x[i] - 0.6);
      for (const Tensor& in : {Make<T>(relu_x, g.InShape()), xt}) {
        auto pooled = testing::RunOp("MaxPool", {in}, g.PoolAttrs(dtype));
        auto apart = testing::RunOp("MaxPoolGrad", {in, pooled.outputs[0], dyt}, g.PoolAttrs(dtype));
        REQUIRE(apart.status.ok());
        auto relu_grad = testing::RunOp("ReluGrad", {apart.outputs[0], in}, {{"T", testing::TypeA(dtype)}});
        auto fused = testing::RunOp("_MaxPoolGradWithReluGrad", {in, pooled.outputs[0], dyt}, g.PoolAttrs(dtype));
        INFO(fused.status);
        REQUIRE(fused.status.ok());
        CHECK(testing::Values<T>(fused.outputs[0]) == testing::Values<T>(relu_grad.outputs[0]));
        // With the kernel holding orig_input's only reference (the executor hands a value's
        // last consumer the value itself), windows that tile the input write the gradient
        // into orig_input's buffer; the same bits either way. ReluGrad likewise reuses its
        // gradient input's buffer.
        const bool tiles = g.kh == g.sh && g.kw == g.sw && g.pt == 0 && g.pl == 0 && g.oh * g.sh >= g.h && g.ow * g.sw >= g.w;
        for (const char* op : {"MaxPoolGrad", "_MaxPoolGradWithReluGrad"}) {
          INFO(op);
          const std::vector<Tensor> sole = {in.DeepCopy(), pooled.outputs[0], dyt};
          auto forwarded = testing::RunOp(op, sole, g.PoolAttrs(dtype));
          REQUIRE(forwarded.status.ok());
          CHECK(forwarded.outputs[0].SharesBufferWith(sole[0]) == tiles);
          const auto& expected = std::string(op) == "MaxPoolGrad" ? apart : fused;
          CHECK(testing::Values<T>(forwarded.outputs[0]) == testing::Values<T>(expected.outputs[0]));
        }
        const std::vector<Tensor> sole = {apart.outputs[0].DeepCopy(), in};
        auto relu_in_place = testing::RunOp("ReluGrad", sole, {{"T", testing::TypeA(dtype)}});
        REQUIRE(relu_in_place.status.ok());
        CHECK(relu_in_place.outputs[0].SharesBufferWith(sole[0]));
        CHECK(testing::Values<T>(relu_in_place.outputs[0]) == testing::Values<T>(relu_grad.outputs[0]));
        // A buffer someone else holds is never written.
        CHECK_FALSE(relu_grad.outputs[0].SharesBufferWith(apart.outputs[0]));
      }
    }
    const std::vector<int32_t> sizes = {int32_t(g.n), int32_t(g.h), int32_t(g.w), int32_t(g.c)};
    auto avg_grad = testing::RunOp("AvgPoolGrad", {I32(sizes), dyt}, g.PoolAttrs(dtype));
    INFO(avg_grad.status);
    REQUIRE(avg_grad.status.ok());
    ExpectClose<T>(avg_grad.outputs[0], ref.avg_grad, tol);
  }
}

TEST_CASE("MaxPool, AvgPool and their gradients match naive loops", "[conv]") {
  SECTION("float") { CheckPoolConfigs<float>(tensorflow::DT_FLOAT, 1e-5); }
  SECTION("double") { CheckPoolConfigs<double>(tensorflow::DT_DOUBLE, 1e-12); }
}

// TensorFlow 2.21 prints [0, 1, 2, 0, 0, 0, 0, 0, 3, 0, 4, 0, 0, 0, 0, 0] for
//   t = np.array([1,3,3,2, 0,3,1,1, 2,2,2,2, 1,1,1,1], np.float32).reshape(1,4,4,1)
//   tf.raw_ops.MaxPoolGrad(orig_input=t, orig_output=tf.nn.max_pool2d(t, 2, 2, "VALID"),
//       grad=[[[[1],[2]],[[3],[4]]]], ksize=[1,2,2,1], strides=[1,2,2,1], padding="VALID")
TEST_CASE("MaxPoolGrad gives a tied window's gradient to its first maximum, as TensorFlow", "[conv]") {
  const Tensor t = Make<float>({1, 3, 3, 2, 0, 3, 1, 1, 2, 2, 2, 2, 1, 1, 1, 1}, {1, 4, 4, 1});
  const AttrMap attrs = {{"T", testing::TypeA(tensorflow::DT_FLOAT)}, {"ksize", Ints({1, 2, 2, 1})},
                         {"strides", Ints({1, 2, 2, 1})}, {"padding", Str("VALID")}};
  auto max = testing::RunOp("MaxPool", {t}, attrs);
  REQUIRE(max.status.ok());
  auto g = testing::RunOp("MaxPoolGrad", {t, max.outputs[0], Make<float>({1, 2, 3, 4}, {1, 2, 2, 1})}, attrs);
  REQUIRE(g.status.ok());
  ExpectClose<float>(g.outputs[0], {0, 1, 2, 0, 0, 0, 0, 0, 3, 0, 4, 0, 0, 0, 0, 0}, 0);
}

// TensorFlow 2.21 prints [2, 3, 13, 11] (VALID 2x2 stride 2), [2, 2, 2, 3, 2, 2, 2, 3, 5, 5,
// 7, 7, 13, 11, 11, 11] (SAME 3x3 stride 1) and [2, 0, 0, 11] (orig_output [3, 9, nan, 1]) for
//   t = np.array([1,3,3,2, 3,1,2,2, 0,0,1,1, 1,0,1,0], np.float32).reshape(1,4,4,1)
//   tf.raw_ops.MaxPoolGradGrad(orig_input=t, orig_output=..., grad=np.arange(1, 17,
//       dtype=np.float32).reshape(1,4,4,1), ksize=..., strides=..., padding=...)
TEST_CASE("MaxPoolGradGrad takes grad at a window's first tap equal to orig_output, as TensorFlow", "[conv]") {
  const Tensor t = Make<float>({1, 3, 3, 2, 3, 1, 2, 2, 0, 0, 1, 1, 1, 0, 1, 0}, {1, 4, 4, 1});
  const Tensor grad = Make<float>({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, {1, 4, 4, 1});
  AttrMap attrs = {{"T", testing::TypeA(tensorflow::DT_FLOAT)}, {"ksize", Ints({1, 2, 2, 1})},
                   {"strides", Ints({1, 2, 2, 1})}, {"padding", Str("VALID")}};
  SECTION("tied windows, VALID") {
    auto max = testing::RunOp("MaxPool", {t}, attrs);
    REQUIRE(max.status.ok());
    auto gg = testing::RunOp("MaxPoolGradGrad", {t, max.outputs[0], grad}, attrs);
    REQUIRE(gg.status.ok());
    ExpectClose<float>(gg.outputs[0], {2, 3, 13, 11}, 0);
  }
  SECTION("overlapping windows past the edges, SAME") {
    attrs["ksize"] = Ints({1, 3, 3, 1});
    attrs["strides"] = Ints({1, 1, 1, 1});
    attrs["padding"] = Str("SAME");
    auto max = testing::RunOp("MaxPool", {t}, attrs);
    REQUIRE(max.status.ok());
    auto gg = testing::RunOp("MaxPoolGradGrad", {t, max.outputs[0], grad}, attrs);
    REQUIRE(gg.status.ok());
    ExpectClose<float>(gg.outputs[0], {2, 2, 2, 3, 2, 2, 2, 3, 5, 5, 7, 7, 13, 11, 11, 11}, 0);
  }
  SECTION("an orig_output no tap equals (NaN included) gives 0") {
    const Tensor y = Make<float>({3, 9, std::nanf(""), 1}, {1, 2, 2, 1});
    auto gg = testing::RunOp("MaxPoolGradGrad", {t, y, grad}, attrs);
    REQUIRE(gg.status.ok());
    ExpectClose<float>(gg.outputs[0], {2, 0, 0, 11}, 0);
  }
  SECTION("a grad not shaped like orig_input is refused") {
    const Tensor y = Make<float>({3, 3, 1, 1}, {1, 2, 2, 1});
    auto r = RunMaybe("MaxPoolGradGrad", {t, y, y}, attrs);
    REQUIRE(r.status.code() == error::INVALID_ARGUMENT);
    CHECK_THAT(r.status.message(), Catch::Contains("grad has shape [1,2,2,1]"));
  }
  SECTION("an orig_output not shaped like the pool's output is refused") {
    auto r = RunMaybe("MaxPoolGradGrad", {t, t, grad}, attrs);
    REQUIRE(r.status.code() == error::INVALID_ARGUMENT);
    CHECK_THAT(r.status.message(), Catch::Contains("orig_output has shape [1,4,4,1]"));
  }
}

TEST_CASE("pool errors name the node", "[conv]") {
  const Tensor x = Make<float>(Pattern(2 * 4 * 4 * 3, 0), {2, 4, 4, 3});
  AttrMap attrs = {{"T", testing::TypeA(tensorflow::DT_FLOAT)}, {"ksize", Ints({1, 2, 2, 1})},
                   {"strides", Ints({1, 2, 2, 1})}, {"padding", Str("VALID")}};
  SECTION("an input of rank 3") {
    auto r = RunMaybe("MaxPool", {Make<float>(Pattern(48, 0), {4, 4, 3})}, attrs);
    REQUIRE(r.status.code() == error::INVALID_ARGUMENT);
    CHECK_THAT(r.status.message(), Catch::Contains("node 'n'") && Catch::Contains("[4,4,3]"));
  }
  SECTION("a window over the batch") {
    attrs["ksize"] = Ints({2, 2, 2, 1});
    auto r = RunMaybe("AvgPool", {x}, attrs);
    REQUIRE_FALSE(r.status.ok());
    CHECK_THAT(r.status.message(), Catch::Contains("node 'n'") && Catch::Contains("batch"));
  }
  SECTION("NCHW on the CPU") {
    attrs["data_format"] = Str("NCHW");
    auto r = RunMaybe("MaxPool", {x}, attrs);
    REQUIRE(r.status.code() == error::INVALID_ARGUMENT);
    CHECK_THAT(r.status.message(), Catch::Contains("node 'n'") && Catch::Contains("NHWC"));
  }
  SECTION("a gradient of the wrong shape") {
    auto r = RunMaybe("AvgPoolGrad", {I32({2, 4, 4, 3}), Make<float>(Pattern(6, 0), {1, 2, 1, 3})}, attrs);
    REQUIRE(r.status.code() == error::INVALID_ARGUMENT);
    CHECK_THAT(r.status.message(), Catch::Contains("node 'n'") && Catch::Contains("[1,2,1,3]"));
  }
}

TEST_CASE("shape inference of the conv and pool ops follows TensorFlow's windows", "[conv]") {
  Scope root = Scope::NewRootScope();
  const DataType f32 = tensorflow::DT_FLOAT;
  auto x = ops::Placeholder(root, f32, PartialTensorShape({64, 28, 28, 1}));
  auto f = ops::Placeholder(root, f32, PartialTensorShape({5, 5, 1, 32}));
  auto same = ops::Conv2D(root, x, f, {1, 1, 1, 1}, "SAME");
  auto valid = ops::Conv2D(root, x, f, {1, 2, 2, 1}, "VALID");
  ops::Conv2DAttrs dilated;
  dilated.dilations = {1, 2, 2, 1};
  auto dil = ops::Conv2D(root, ops::Placeholder(root, f32, PartialTensorShape({-1, 28, -1, 1})), f, {1, 1, 1, 1},
                         "VALID", dilated);
  auto pool = ops::MaxPool(root, same, {1, 2, 2, 1}, {1, 2, 2, 1}, "SAME");
  auto avg = ops::AvgPool(root, ops::Placeholder(root, f32, PartialTensorShape({2, 7, 7, 3})), {1, 2, 2, 1},
                          {1, 2, 2, 1}, "VALID");
  auto dx = ops::Conv2DBackpropInput(root, ops::Const(root, {64, 28, 28, 1}), f, same, {1, 1, 1, 1}, "SAME");
  auto df = ops::Conv2DBackpropFilter(root, x, ops::Placeholder(root, tensorflow::DT_INT32), same, {1, 1, 1, 1}, "SAME");
  REQUIRE(root.status().ok());
  auto shape = [](const Output& o) { return o.node->output_shape(o.index).DebugString(); };
  CHECK(shape(same) == "[64,28,28,32]");
  CHECK(shape(valid) == "[64,12,12,32]");
  CHECK(shape(dil) == "[?,20,?,32]");
  CHECK(shape(pool) == "[64,14,14,32]");
  CHECK(shape(avg) == "[2,3,3,3]");
  CHECK(shape(dx) == "[64,28,28,1]");
  CHECK(shape(df) == "[?,?,?,?]");

  Scope bad = Scope::NewRootScope();
  ops::Conv2D(bad, ops::Placeholder(bad, f32, PartialTensorShape({1, 3, 3, 3})),
              ops::Placeholder(bad, f32, PartialTensorShape({5, 5, 3, 1})), {1, 1, 1, 1}, "VALID");
  CHECK_THAT(bad.status().message(), Catch::Contains("Negative dimension size caused by subtracting 5 from 3"));
}

}  // namespace
}  // namespace tensoract
