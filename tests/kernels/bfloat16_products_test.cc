// Products in bfloat16 (kernels/cpu/bfloat16_products.h): the rounding to bfloat16, and
// MatMul, _FusedMatMul and Conv2D with "_bfloat16_products" computing exactly the float sums
// of the rounded operands' products (each product is exact in float; only the order of the
// sums differs). Where the CPU has no bfloat16 units the attr is ignored, and the kernels
// must give their float results. Also MatMul with "_constant_weights", on oneDNN's float
// kernels in AVX-512 builds.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include <Eigen/Core>
#include <catch2/catch.hpp>

#include "kernels/cpu/bfloat16_products.h"
#include "kernels/cpu/erfc_float.h"
#include "tests/kernels/kernel_test_util.h"

namespace tensoract {
namespace {

using testing::AttrMap;
using testing::BoolA;
using testing::Ints;
using testing::Str;
using testing::TypeA;

float Bits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

uint16_t Rounded(float x) {
  uint16_t out;
  RoundToBfloat16(&x, &out, 1);
  return out;
}

// x rounded to bfloat16, as a float.
float RoundedToBfloat16(float x) { return Bits(static_cast<uint32_t>(Rounded(x)) << 16); }

Tensor Random(std::vector<int64_t> dims, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  std::vector<float> v(n);
  for (float& x : v) x = u(rng);
  return Tensor::FromVector<float>(v, TensorShape(dims));
}

// Each element of got against want (double), relative to the largest |want|.
void CheckNear(const Tensor& got, const std::vector<double>& want, double tolerance) {
  REQUIRE(got.NumElements() == static_cast<int64_t>(want.size()));
  double scale = 0;
  for (double w : want) scale = std::max(scale, std::fabs(w));
  double worst = 0;
  for (size_t i = 0; i < want.size(); ++i) worst = std::max(worst, std::fabs(got.base<float>()[i] - want[i]) / scale);
  INFO("largest difference / largest value = " << worst);
  CHECK(worst <= tolerance);
}

// op(a) x op(b) in double, each operand through `round`.
template <class Round>
std::vector<double> Product(const Tensor& a, const Tensor& b, bool ta, bool tb, Round round) {
  const int64_t m = a.dim_size(ta ? 1 : 0), k = a.dim_size(ta ? 0 : 1), n = b.dim_size(tb ? 0 : 1);
  std::vector<double> c(m * n, 0.0);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t p = 0; p < k; ++p) {
        const float x = a.base<float>()[ta ? p * m + i : i * k + p];
        const float y = b.base<float>()[tb ? j * k + p : p * n + j];
        sum += static_cast<double>(round(x)) * round(y);
      }
      c[i * n + j] = sum;
    }
  }
  return c;
}

// For each [m, k, n] of `shapes` and each transpose of a and b: random operands laid out
// for them (seeds `seed` and seed + 1) and MatMul's attrs with `attr` true, handed to
// check(a, b, ta, tb, attrs).
template <class Check>
void ForEachMatMul(const std::vector<std::vector<int64_t>>& shapes, const char* attr, uint32_t seed,
                   const Check& check) {
  for (const auto& shape : shapes) {
    for (const bool ta : {false, true}) {
      for (const bool tb : {false, true}) {
        const int64_t m = shape[0], k = shape[1], n = shape[2];
        INFO("m " << m << ", k " << k << ", n " << n << ", transpose_a " << ta << ", transpose_b " << tb);
        const Tensor a = Random(ta ? std::vector<int64_t>{k, m} : std::vector<int64_t>{m, k}, seed);
        const Tensor b = Random(tb ? std::vector<int64_t>{n, k} : std::vector<int64_t>{k, n}, seed + 1);
        check(a, b, ta, tb,
              AttrMap{{"T", TypeA(tensorflow::DT_FLOAT)}, {"transpose_a", BoolA(ta)}, {"transpose_b", BoolA(tb)},
                      {attr, BoolA(true)}});
      }
    }
  }
}

// _FusedMatMul's attrs for BiasAdd then Relu, with `attr` true.
AttrMap BiasReluAttrs(const char* attr) {
  tensorflow::AttrValue fused_ops;
  fused_ops.mutable_list()->add_s("BiasAdd");
  fused_ops.mutable_list()->add_s("Relu");
  tensorflow::AttrValue num_args;
  num_args.set_i(1);
  return AttrMap{{"T", TypeA(tensorflow::DT_FLOAT)}, {"fused_ops", fused_ops}, {"num_args", num_args},
                 {attr, BoolA(true)}};
}

// max(0, product + bias) for a product [m, n] (n = bias's size).
std::vector<double> BiasRelu(std::vector<double> product, const Tensor& bias) {
  const int64_t n = bias.NumElements();
  for (size_t i = 0; i < product.size(); ++i) product[i] = std::max(0.0, product[i] + bias.base<float>()[i % n]);
  return product;
}

TEST_CASE("RoundToBfloat16 rounds to nearest with ties to even, keeps infinities, and NaN stays NaN") {
  CHECK(Rounded(1.f) == 0x3f80);
  CHECK(Rounded(Bits(0x3f808000)) == 0x3f80);  // a tie: down to the even 0x3f80
  CHECK(Rounded(Bits(0x3f818000)) == 0x3f82);  // a tie: up to the even 0x3f82
  CHECK(Rounded(Bits(0x3f808001)) == 0x3f81);  // above the tie
  CHECK(Rounded(-2.5f) == 0xc020);
  CHECK(Rounded(INFINITY) == 0x7f80);
  CHECK(Rounded(-INFINITY) == 0xff80);
  CHECK(Rounded(Bits(0x7f7fffff)) == 0x7f80);  // the largest float rounds up to infinity
  CHECK(Rounded(Bits(0x00000001)) == 0x0000);  // the smallest denormal rounds to zero
  const uint16_t nan = Rounded(Bits(0x7f800001));  // a NaN whose payload would round away
  CHECK((nan & 0x7f80) == 0x7f80);
  CHECK((nan & 0x007f) != 0);
  // Eigen's conversion rounds the same way.
  std::mt19937 rng(7);
  for (int i = 0; i < 100000; ++i) {
    const float x = Bits(rng());
    if (std::isnan(x)) continue;
    const Eigen::bfloat16 e(x);
    uint16_t eigen;
    std::memcpy(&eigen, &e, sizeof eigen);
    INFO("x = " << x);
    REQUIRE(Rounded(x) == eigen);
  }
}

TEST_CASE("MatMul with _bfloat16_products multiplies the rounded operands and sums in float") {
  if (!NativeBfloat16Products()) WARN("this CPU has no bfloat16 units: the kernels must compute in float");
  const bool native = NativeBfloat16Products();
  // Shapes above OnednnMatMul's minimum of multiply-adds: by blocks of rows (96 rows); by
  // slices of the columns where there are too few rows for a block a thread (8 rows, 520
  // columns in four slices of 130); and for a few rows (a classifier at batch 1 to 3) by its
  // own product over slices of the columns, where a depth of 1027 leaves a remainder of its
  // four weight rows a step.
  const std::vector<std::vector<int64_t>> shapes = {{96, 160, 80}, {8, 1024, 520}, {1, 1100, 1000}, {3, 1024, 520},
                                                    {2, 1027, 520}};
  ForEachMatMul(shapes, "_bfloat16_products", 1,
                [&](const Tensor& a, const Tensor& b, bool ta, bool tb, const AttrMap& attrs) {
    const auto ran = testing::RunOp("MatMul", {a, b}, attrs);
    REQUIRE(ran.status.ok());
    if (native) {
      CheckNear(ran.outputs[0], Product(a, b, ta, tb, RoundedToBfloat16), 1e-6);
    } else {
      CheckNear(ran.outputs[0], Product(a, b, ta, tb, [](float x) { return x; }), 1e-6);
    }
    // Either way within bfloat16's precision of the float product.
    CheckNear(ran.outputs[0], Product(a, b, ta, tb, [](float x) { return x; }), 2e-2);
  });
}

TEST_CASE("_FusedMatMul with _bfloat16_products applies its bias and activation to the rounded product") {
  // By rows, and at batches 8 and 1 by slices of the columns (each slice's bias its own
  // columns'): oneDNN's, then OnednnMatMul's own product.
  for (const auto& shape : std::vector<std::vector<int64_t>>{{128, 128, 64}, {8, 1280, 1000}, {1, 1280, 1000}}) {
    const int64_t m = shape[0], k = shape[1], n = shape[2];
    INFO("m " << m << ", k " << k << ", n " << n);
    const Tensor a = Random({m, k}, 3), b = Random({k, n}, 4), bias = Random({n}, 5);
    const auto ran = testing::RunOp("_FusedMatMul", {a, b, bias}, BiasReluAttrs("_bfloat16_products"));
    REQUIRE(ran.status.ok());
    auto round = [](float x) { return NativeBfloat16Products() ? RoundedToBfloat16(x) : x; };
    CheckNear(ran.outputs[0], BiasRelu(Product(a, b, false, false, round), bias), 1e-6);
  }
}

TEST_CASE("MatMul and _FusedMatMul with _constant_weights compute the float product") {
  // Constant weights (graph/optimizer/constant_weights.h): in AVX-512 builds oneDNN's float
  // matmul by blocks of rows where a is not transposed; at 8 rows (slices of columns), 2
  // rows, a transposed a, and below OnednnMatMul's minimum of multiply-adds, our GEMM. Float
  // sums either way, only their order differs.
  // Also run with bfloat16 products asked for: those win, as where the attr is absent.
  const std::vector<std::vector<int64_t>> shapes = {{96, 160, 80}, {8, 1024, 520}, {2, 1024, 520}, {16, 16, 16}};
  ForEachMatMul(shapes, "_constant_weights", 11, [](const Tensor& a, const Tensor& b, bool ta, bool tb, const AttrMap& attrs) {
    const auto ran = testing::RunOp("MatMul", {a, b}, attrs);
    REQUIRE(ran.status.ok());
    CheckNear(ran.outputs[0], Product(a, b, ta, tb, [](float x) { return x; }), 1e-6);
  });
  const int64_t m = 64, k = 384, n = 192;
  const Tensor a = Random({m, k}, 13), b = Random({k, n}, 14), bias = Random({n}, 15);
  const std::vector<double> want = BiasRelu(Product(a, b, false, false, [](float x) { return x; }), bias);
  AttrMap attrs = BiasReluAttrs("_constant_weights");
  const auto ran = testing::RunOp("_FusedMatMul", {a, b, bias}, attrs);
  REQUIRE(ran.status.ok());
  CheckNear(ran.outputs[0], want, 1e-6);
  attrs["_bfloat16_products"] = BoolA(true);
  const auto rounded = testing::RunOp("_FusedMatMul", {a, b, bias}, attrs);
  REQUIRE(rounded.status.ok());
  CheckNear(rounded.outputs[0], want, 2e-2);
}

TEST_CASE("Conv2D with _bfloat16_products convolves the rounded input and filter, summing in float") {
  // 32 channels in and out: oneDNN's kernel (where built in), bfloat16 where the CPU has it.
  const int64_t batch = 2, rows = 9, cols = 7, in = 32, out = 32;
  const Tensor x = Random({batch, rows, cols, in}, 6), f = Random({3, 3, in, out}, 7);
  AttrMap attrs{{"T", TypeA(tensorflow::DT_FLOAT)}, {"strides", Ints({1, 1, 1, 1})}, {"padding", Str("SAME")},
                {"_bfloat16_products", BoolA(true)}};
  const auto ran = testing::RunOp("Conv2D", {x, f}, attrs);
  REQUIRE(ran.status.ok());
  auto reference = [&](auto round) {
    std::vector<double> xr(x.NumElements()), fr(f.NumElements());
    for (size_t i = 0; i < xr.size(); ++i) xr[i] = round(x.base<float>()[i]);
    for (size_t i = 0; i < fr.size(); ++i) fr[i] = round(f.base<float>()[i]);
    return testing::ReferenceConv3x3Same(xr, fr, batch, rows, cols, in, out);
  };
  const auto exact = [](float v) { return v; };
  if (NativeBfloat16Products()) {
    CheckNear(ran.outputs[0], reference(RoundedToBfloat16), 1e-6);
  } else {
    CheckNear(ran.outputs[0], reference(exact), 1e-6);
  }
  CheckNear(ran.outputs[0], reference(exact), 2e-2);
}

TEST_CASE("exact GELU in float, after products in bfloat16, is within 3e-7 of the true value's scale") {
  // GeluExactFast (kernels/cpu/erfc_float.h): Eigen's float erf, where the ulp-exact
  // ErfcFloat would cost 7x as much for nothing bfloat16's rounding leaves.
  std::vector<float> x;
  for (int i = 0; i <= 160000; ++i) x.push_back(-8.0f + 16.0f * static_cast<float>(i) / 160000.0f);
  x.push_back(std::numeric_limits<float>::quiet_NaN());
  std::vector<float> y = x;
  GeluExactFast(y.data(), static_cast<int64_t>(y.size()));
  double worst = 0;
  for (size_t i = 0; i + 1 < x.size(); ++i) {
    const double v = x[i], exact = 0.5 * v * std::erfc(-v * 0.7071067811865476);
    worst = std::max(worst, std::fabs(y[i] - exact) / std::max(1.0, std::fabs(v)));
  }
  CHECK(worst <= 3e-7);
  CHECK(std::isnan(y.back()));
  CHECK(y[80000] == 0.0f);  // GELU(0)
}

}  // namespace
}  // namespace tensoract
