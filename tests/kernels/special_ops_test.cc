// Erf, Erfc, Sin, Cos, Atan2, TruncateDiv, LeakyRelu(Grad), Selu(Grad) and L2Loss against values
// TensorFlow 2.21 printed (tensorflow-cpu, x86-64). Exact where TensorFlow's arithmetic is
// exact (selects, products, integer division); within 2 ulp for the transcendental functions,
// whose TensorFlow results come from its Eigen's own approximations (its float atan2(1, 1)
// is one ulp below pi/4), and exactly for their special values (signed zeros, inf, NaN).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include <Eigen/Core>

#include "tests/kernels/kernel_test_util.h"

namespace tensoract {
namespace {

using testing::Unary;
using testing::Binary;

namespace tf = ::tensorflow;
using testing::RunOp;
using testing::Run;
using testing::TypeA;
using testing::Values;

const float kSpecialInf = std::numeric_limits<float>::infinity();
const float kSpecialNan = std::numeric_limits<float>::quiet_NaN();

float FromBits(uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}
std::vector<float> FromBits(const std::vector<uint32_t>& bits) {
  std::vector<float> out;
  for (uint32_t b : bits) out.push_back(FromBits(b));
  return out;
}
int64_t OrderedBits(float f) {
  int32_t i;
  std::memcpy(&i, &f, sizeof i);
  return i < 0 ? -static_cast<int64_t>(i & 0x7FFFFFFF) : i;
}

// Each element equals TensorFlow's within `ulps` (NaN where it is NaN, the same infinity,
// and a zero of the same sign when ulps is 0).
void CheckUlps(const std::vector<float>& got, const std::vector<float>& want, int ulps) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i << ": " << got[i] << " vs TensorFlow's " << want[i]);
    if (std::isnan(want[i])) {
      CHECK(std::isnan(got[i]));
    } else if (std::isinf(want[i]) || want[i] == 0) {
      CHECK(std::memcmp(&got[i], &want[i], sizeof(float)) == 0);
    } else {
      CHECK(std::llabs(OrderedBits(got[i]) - OrderedBits(want[i])) <= ulps);
    }
  }
}

tf::AttrValue Alpha(float a) {
  tf::AttrValue v;
  v.set_f(a);
  return v;
}

TEST_CASE("Erf, Sin and Cos of float give TensorFlow's values", "[special]") {
  Tensor x = Tensor::FromVector<float>({-3.5f, -1.0f, -0.0f, 0.0f, 0.5f, 2.0f, kSpecialInf, -kSpecialInf, kSpecialNan, 1e-20f, 4.0f});
  Run r = Unary("Erf", x);
  REQUIRE(r.status.ok());
  CheckUlps(Values<float>(r.outputs[0]),
            FromBits({0xbf7ffff6, 0xbf57bb3e, 0x80000000, 0x0, 0x3f053f7b, 0x3f7ecd72, 0x3f800000, 0xbf800000,
                      0x7fc00000, 0x1e552510, 0x3f800000}),
            2);
  Tensor t = Tensor::FromVector<float>({-3.5f, -1.0f, -0.0f, 0.0f, 0.5f, 2.0f, kSpecialInf, -kSpecialInf, kSpecialNan, 1e4f, 1e30f});
  r = Unary("Sin", t);
  REQUIRE(r.status.ok());
  CheckUlps(Values<float>(r.outputs[0]),
            FromBits({0x3eb399dc, 0xbf576aa4, 0x80000000, 0x0, 0x3ef57744, 0x3f68c7b7, 0xffc00000, 0x7fc00000,
                      0x7fc00000, 0xbe9c797d, 0xbf4a89b0}),
            1);
  r = Unary("Cos", t);
  REQUIRE(r.status.ok());
  CheckUlps(Values<float>(r.outputs[0]),
            FromBits({0xbf6fbba0, 0x3f0a5140, 0x3f800000, 0x3f800000, 0x3f60a940, 0xbed51132, 0xffc00000, 0xffc00000,
                      0x7fc00000, 0xbf73c074, 0xbf1c9222}),
            1);
}

TEST_CASE("Erfc of float and double gives TensorFlow's values, tails included", "[special]") {
  // erfc(4) and erfc(9) are 1.5e-8 and 4.1e-37: 1 - erf(x) would give 0 there.
  Tensor x = Tensor::FromVector<float>({-3.5f, -1.0f, -0.0f, 0.0f, 0.5f, 2.0f, kSpecialInf, -kSpecialInf, kSpecialNan, 1e-20f, 4.0f, 9.0f});
  Run r = Unary("Erfc", x);
  REQUIRE(r.status.ok());
  CheckUlps(Values<float>(r.outputs[0]),
            FromBits({0x3ffffffa, 0x3febdd9e, 0x3f800000, 0x3f800000, 0x3ef5810a, 0x3b9947b0, 0x0, 0x40000000,
                      0x7fc00000, 0x3f800000, 0x32846ee8, 0x030cc6a1}),
            2);
  r = Unary("Erfc", Tensor::FromVector<double>({-3.5, -1.0, 0.5, 2.0, 6.0, 20.0}));
  REQUIRE(r.status.ok());
  const std::vector<double> want = {0x1.fffff3886ab2fp+0, 0x1.d7bb3d3a08445p+0, 0x1.eb02147ce245ap-2,
                                    0x1.328f5ec350e67p-8, 0x1.8cf81557d20b5p-56, 0x1.b54f244df93e1p-583};
  std::vector<double> got = Values<double>(r.outputs[0]);
  // In the tail TensorFlow's erfc (Eigen's) is 2-3 ulp from the C library's correctly
  // rounded one (erfc(20): ...93e1 against ...93de).
  for (size_t i = 0; i < got.size(); ++i) CHECK(std::abs(got[i] - want[i]) <= 1e-15 * std::abs(want[i]));
  // half and bfloat16: with Erf, Sin and Cos below.
}

TEST_CASE("Erf, Sin, Cos and Atan2 of double are TensorFlow's to the last bit or one", "[special]") {
  Tensor x = Tensor::FromVector<double>({-3.5, -1.0, 0.5, 2.0});
  struct Case {
    const char* op;
    std::vector<double> want;
  };
  for (const Case& c : {Case{"Erf", {-0x1.ffffe710d565ep-1, -0x1.af767a741088ap-1, 0x1.0a7ef5c18edd3p-1,
                                     0x1.fd9ae142795e3p-1}},
                        Case{"Sin", {0x1.6733b7eba621fp-2, -0x1.aed548f090ceep-1, 0x1.eaee8744b05f0p-2,
                                     0x1.d18f6ead1b446p-1}},
                        Case{"Cos", {-0x1.df77403c11a5fp-1, 0x1.14a280fb5068cp-1, 0x1.c1528065b7d50p-1,
                                     -0x1.aa22657537205p-2}}}) {
    INFO(c.op);
    Run r = Unary(c.op, x);
    REQUIRE(r.status.ok());
    std::vector<double> got = Values<double>(r.outputs[0]);
    for (size_t i = 0; i < got.size(); ++i) CHECK(std::abs(got[i] - c.want[i]) <= 3e-16 * std::abs(c.want[i]));
  }
  Run r = Binary("Atan2", x, Tensor::FromVector<double>({1., -1., -2., 0.5}));
  REQUIRE(r.status.ok());
  const std::vector<double> want = {-0x1.4ae10fc6589a4p+0, -0x1.2d97c7f3321d2p+1, 0x1.72c43f4b1650ap+1,
                                    0x1.5368c951e9cfcp+0};
  std::vector<double> got = Values<double>(r.outputs[0]);
  for (size_t i = 0; i < got.size(); ++i) CHECK(std::abs(got[i] - want[i]) <= 3e-16 * std::abs(want[i]));
}

TEST_CASE("Tan, Asin, Acos, Atan, Sinh, Cosh, Asinh, Acosh and Atanh of double are TensorFlow's",
          "[special]") {
  // TensorFlow 2.21's values (tf.raw_ops on the CPU, printed as hex floats), each op on
  // inputs inside its domain.
  const Tensor wide = Tensor::FromVector<double>({-3.5, -1.0, 0.5, 2.0});
  const Tensor unit = Tensor::FromVector<double>({-0.9, -0.25, 0.5, 0.75});
  const Tensor above_one = Tensor::FromVector<double>({1.05, 1.5, 3.0, 20.0});
  struct Case {
    const char* op;
    const Tensor* x;
    std::vector<double> want;
  };
  for (const Case& c :
       {Case{"Tan", &wide, {-0x1.7f9360c8212a7p-2, -0x1.8eb245cbee3a6p+0, 0x1.17b4f5bf3474ap-1, -0x1.17af62e0950f8p+1}},
        Case{"Asin", &unit,
             {-0x1.1ea93705fa172p+0, -0x1.02be9ce0b87cdp-2, 0x1.0c152382d7366p-1, 0x1.b235315c680dcp-1}},
        Case{"Acos", &unit, {0x1.586476251e745p+1, 0x1.d2cf5c7c70f0cp+0, 0x1.0c152382d7366p+0, 0x1.720a392c1d955p-1}},
        Case{"Atan", &wide, {-0x1.4ae10fc6589a4p+0, -0x1.921fb54442d19p-1, 0x1.dac670561bb4fp-2, 0x1.1b6e192ebbe44p+0}},
        Case{"Sinh", &wide, {-0x1.08ae99f364f3bp+4, -0x1.2cd9fc44eb982p+0, 0x1.0acd00fe63b97p-1, 0x1.d03cf63b6e1a0p+1}},
        Case{"Cosh", &wide, {0x1.092a4a33c887bp+4, 0x1.8b07551d9f550p+0, 0x1.20ac1862ae8d0p+0, 0x1.e18fa0df2d9bcp+1}},
        Case{"Asinh", &wide,
             {-0x1.f73974f2d01d6p+0, -0x1.c34366179d427p-1, 0x1.ecc2caec5160ap-2, 0x1.719218313d087p+0}},
        Case{"Acosh", &above_one,
             {0x1.427ba2a941d48p-2, 0x1.ecc2caec5160ap-1, 0x1.c34366179d427p+0, 0x1.d818b3e5d4c5fp+1}},
        Case{"Atanh", &unit,
             {-0x1.78e360604b32dp+0, -0x1.058aefa811452p-2, 0x1.193ea7aad030ap-1, 0x1.f2272ae325a56p-1}}}) {
    INFO(c.op);
    Run r = Unary(c.op, *c.x);
    REQUIRE(r.status.ok());
    std::vector<double> got = Values<double>(r.outputs[0]);
    for (size_t i = 0; i < got.size(); ++i) CHECK(std::abs(got[i] - c.want[i]) <= 3e-16 * std::abs(c.want[i]));
  }
  // Outside the domains, NaN as in TensorFlow; half, bfloat16 and complex64 run too.
  CHECK(std::isnan(Values<double>(Unary("Asin", Tensor::FromVector<double>({1.5})).outputs[0])[0]));
  CHECK(std::isnan(Values<double>(Unary("Acosh", Tensor::FromVector<double>({0.5})).outputs[0])[0]));
  CHECK(Unary("Tan", Tensor::FromVector<Eigen::half>({Eigen::half(0.5f)})).status.ok());
  CHECK(Unary("Atanh", Tensor::FromVector<Eigen::bfloat16>({Eigen::bfloat16(0.5f)})).status.ok());
  CHECK(Unary("Cosh", Tensor::FromVector<complex64>({complex64(0.5f, -1.f)})).status.ok());
}

TEST_CASE("Inv and InvGrad, TensorFlow 1's names, compute Reciprocal and ReciprocalGrad", "[special]") {
  const Tensor x = Tensor::FromVector<float>({-4.f, 0.5f, 3.f, 0.f});
  Run inv = Unary("Inv", x), reciprocal = Unary("Reciprocal", x);
  REQUIRE(inv.status.ok());
  REQUIRE(reciprocal.status.ok());
  CHECK(Values<float>(inv.outputs[0]) == Values<float>(reciprocal.outputs[0]));
  const Tensor dy = Tensor::FromVector<float>({1.f, 2.f, -1.f, 0.5f});
  Run inv_grad = Binary("InvGrad", inv.outputs[0], dy), reciprocal_grad = Binary("ReciprocalGrad", inv.outputs[0], dy);
  REQUIRE(inv_grad.status.ok());
  REQUIRE(reciprocal_grad.status.ok());
  CHECK(Values<float>(inv_grad.outputs[0]) == Values<float>(reciprocal_grad.outputs[0]));
}

TEST_CASE("float Erfc is within an ulp of the true value over its whole range", "[special]") {
  // The vectorised float erfc against the C library's double erfc rounded once: 200,000
  // values from -6 (erfc 2) to 10.5 (past the smallest normal float, 0 once flushed).
  std::vector<float> x;
  for (int i = 0; i < 200000; ++i) x.push_back(-6.0f + 16.5f * static_cast<float>(i) / 200000.0f);
  Run r = Unary("Erfc", Tensor::FromVector<float>(x));
  REQUIRE(r.status.ok());
  const std::vector<float> got = Values<float>(r.outputs[0]);
  std::vector<float> want;
  for (float v : x) {
    const float e = static_cast<float>(std::erfc(static_cast<double>(v)));
    want.push_back(std::fpclassify(e) == FP_SUBNORMAL ? 0.0f : e);
  }
  CheckUlps(got, want, 1);
}

TEST_CASE("half and bfloat16 Erf, Erfc, Sin and Cos round TensorFlow's way", "[special]") {
  auto half_bits = [](const Tensor& t) {
    std::vector<uint16_t> b(static_cast<size_t>(t.NumElements()));
    std::memcpy(b.data(), t.data(), b.size() * 2);
    return b;
  };
  Tensor h(tf::DT_HALF, TensorShape({4}));
  Tensor b(tf::DT_BFLOAT16, TensorShape({4}));
  const float in[] = {-3.5f, -1.0f, 0.5f, 2.0f};
  for (int i = 0; i < 4; ++i) {
    h.base<Eigen::half>()[i] = Eigen::half(in[i]);
    b.base<Eigen::bfloat16>()[i] = Eigen::bfloat16(in[i]);
  }
  struct Case {
    const char* op;
    std::vector<uint16_t> half, bfloat16;
  };
  for (const Case& c : {Case{"Erf", {0xbc00, 0xbabe, 0x382a, 0x3bf6}, {0xbf80, 0xbf58, 0x3f05, 0x3f7f}},
                        Case{"Erfc", {0x4000, 0x3f5f, 0x37ac, 0x1cca}, {0x4000, 0x3fec, 0x3ef6, 0x3b99}},
                        Case{"Sin", {0x359d, 0xbabb, 0x37ac, 0x3b46}, {0x3eb4, 0xbf57, 0x3ef5, 0x3f69}},
                        Case{"Cos", {0xbb7e, 0x3853, 0x3b05, 0xb6a9}, {0xbf70, 0x3f0a, 0x3f61, 0xbed5}}}) {
    INFO(c.op);
    Run r = Unary(c.op, h);
    REQUIRE(r.status.ok());
    CHECK(half_bits(r.outputs[0]) == c.half);
    r = Unary(c.op, b);
    REQUIRE(r.status.ok());
    CHECK(half_bits(r.outputs[0]) == c.bfloat16);
  }
}

TEST_CASE("Sin and Cos of complex numbers", "[special]") {
  Run r = Unary("Sin", Tensor::FromVector<complex64>({{1, 2}, {-0.5f, 0}}));
  REQUIRE(r.status.ok());
  std::vector<complex64> s = Values<complex64>(r.outputs[0]);
  CHECK(s[0].real() == Approx(3.165778636932373).epsilon(1e-6));
  CHECK(s[0].imag() == Approx(1.9596009254455566).epsilon(1e-6));
  CHECK(s[1] == complex64(-0.4794255495071411f, 0));
  r = Unary("Cos", Tensor::FromVector<complex128>({{1, 2}, {-0.5, 0}}));
  REQUIRE(r.status.ok());
  std::vector<complex128> c = Values<complex128>(r.outputs[0]);
  CHECK(c[0].real() == Approx(2.0327230070196656).epsilon(1e-14));
  CHECK(c[0].imag() == Approx(-3.0518977991518).epsilon(1e-13));
  CHECK(c[1].real() == Approx(0.8775825618903728).epsilon(1e-15));
}

TEST_CASE("Atan2 takes y first, keeps signed zeros and broadcasts", "[special]") {
  Run r = Binary("Atan2", Tensor::FromVector<float>({1, -1, 0, -0.0f, 0, -0.0f, kSpecialInf, 1, kSpecialNan}),
                 Tensor::FromVector<float>({1, -1, 0, 0, -0.0f, -0.0f, kSpecialInf, 0, 1}));
  REQUIRE(r.status.ok());
  CheckUlps(Values<float>(r.outputs[0]),
            FromBits({0x3f490fda, 0xc016cbe4, 0x0, 0x80000000, 0x40490fdb, 0xc0490fdb, 0x3f490fda, 0x3fc90fdb,
                      0x7fc00000}),
            1);
  r = Binary("Atan2", Tensor::FromVector<double>({1., -2.}, TensorShape({2, 1})),
             Tensor::FromVector<double>({1., -1., 3.}));
  REQUIRE(r.status.ok());
  REQUIRE(r.outputs[0].shape() == TensorShape({2, 3}));
  const std::vector<double> want = {0.7853981633974484,  2.356194490192345,   0.3217505543966422,
                                    -1.1071487177940904, -2.0344439357957027, -0.5880026035475675};
  std::vector<double> got = Values<double>(r.outputs[0]);
  for (size_t i = 0; i < want.size(); ++i) CHECK(got[i] == Approx(want[i]).epsilon(1e-15));
}

TEST_CASE("TruncateDiv rounds toward zero, wraps the minimum over -1 and refuses integer zeros", "[special]") {
  Run r = Binary("TruncateDiv", Tensor::FromVector<int32_t>({7, -7, 7, -7, std::numeric_limits<int32_t>::min()}),
                 Tensor::FromVector<int32_t>({2, 2, -2, -2, -1}));
  REQUIRE(r.status.ok());
  CHECK(Values<int32_t>(r.outputs[0]) == std::vector<int32_t>{3, -3, -3, 3, std::numeric_limits<int32_t>::min()});
  r = Binary("TruncateDiv", Tensor::FromVector<int8_t>({-128, 127, -7}), Tensor::FromVector<int8_t>({-1, -1, 2}));
  REQUIRE(r.status.ok());
  CHECK(Values<int8_t>(r.outputs[0]) == std::vector<int8_t>{-128, -127, -3});
  r = Binary("TruncateDiv", Tensor::FromVector<uint8_t>({255, 7}), Tensor::FromVector<uint8_t>({2, 3}));
  REQUIRE(r.status.ok());
  CHECK(Values<uint8_t>(r.outputs[0]) == std::vector<uint8_t>{127, 2});
  r = Binary("TruncateDiv", Tensor::FromVector<uint64_t>({~uint64_t{0}, 7}), Tensor::FromVector<uint64_t>({2, 3}));
  REQUIRE(r.status.ok());
  CHECK(Values<uint64_t>(r.outputs[0]) == std::vector<uint64_t>{9223372036854775807ull, 2});
  r = Binary("TruncateDiv", Tensor::FromVector<int64_t>({7, -9}, TensorShape({2, 1})),
             Tensor::FromVector<int64_t>({2, -4, 5}));
  REQUIRE(r.status.ok());
  CHECK(Values<int64_t>(r.outputs[0]) == std::vector<int64_t>{3, -1, 1, -4, 2, -1});
  r = Binary("TruncateDiv", Tensor::FromVector<float>({7, -7, 7, -7, 1, 0, -1}),
             Tensor::FromVector<float>({2, 2, -2, -2, 0, 0, 0}));
  REQUIRE(r.status.ok());
  CheckUlps(Values<float>(r.outputs[0]), {3, -3, -3, 3, kSpecialInf, kSpecialNan, -kSpecialInf}, 0);

  // TensorFlow's words and class (Internal: its kernel does not expect TruncateDiv to fail).
  r = Binary("TruncateDiv", Tensor::FromVector<int32_t>({3, 4}), Tensor::Scalar<int32_t>(0));
  CHECK(r.status.code() == error::INTERNAL);
  CHECK(r.status.message().find("Unexpected error in binary operator (only integer div and mod should have errors)") !=
        std::string::npos);
  r = Binary("TruncateDiv", Tensor::FromVector<int32_t>({}), Tensor::FromVector<int32_t>({0}));
  CHECK(r.status.ok());  // nothing is divided
}

TEST_CASE("LeakyRelu and LeakyReluGrad select on the sign, with any alpha", "[special]") {
  Tensor x = Tensor::FromVector<float>({-3.5f, -1.0f, -0.0f, 0.0f, 0.5f, 2.0f, kSpecialInf, -kSpecialInf, kSpecialNan});
  Run r = RunOp("LeakyRelu", {x}, {{"T", TypeA(tf::DT_FLOAT)}});  // alpha's default, 0.2
  REQUIRE(r.status.ok());
  CheckUlps(Values<float>(r.outputs[0]),
            FromBits({0xbf333333, 0xbe4ccccd, 0x80000000, 0x0, 0x3f000000, 0x40000000, 0x7f800000, 0xff800000,
                      0x7fc00000}),
            0);
  r = RunOp("LeakyRelu", {x}, {{"T", TypeA(tf::DT_FLOAT)}, {"alpha", Alpha(-1.5f)}});
  REQUIRE(r.status.ok());
  CheckUlps(Values<float>(r.outputs[0]),
            FromBits({0x40a80000, 0x3fc00000, 0x0, 0x80000000, 0x3f000000, 0x40000000, 0x7f800000, 0x7f800000,
                      0x7fc00000}),
            0);
  r = RunOp("LeakyReluGrad", {Tensor::FromVector<float>({1, 2, 3, 4, 5, 6, 7, 8, 9}), x},
            {{"T", TypeA(tf::DT_FLOAT)}, {"alpha", Alpha(0.3f)}});
  REQUIRE(r.status.ok());
  CheckUlps(Values<float>(r.outputs[0]),
            FromBits({0x3e99999a, 0x3f19999a, 0x3f666667, 0x3f99999a, 0x40a00000, 0x40c00000, 0x40e00000, 0x4019999a,
                      0x402ccccd}),
            0);
  r = RunOp("LeakyReluGrad", {Tensor::FromVector<float>({1, 2}), x}, {{"T", TypeA(tf::DT_FLOAT)}});
  CHECK(r.status.code() == error::INVALID_ARGUMENT);
  CHECK(r.status.message().find("must have the same size and shape") != std::string::npos);
}

TEST_CASE("Selu and SeluGrad give TensorFlow's values", "[special]") {
  Tensor x = Tensor::FromVector<float>({-3.5f, -1.0f, -1e-3f, -1e-6f, 0.5f, 2.0f, -20.f, -88.f, kSpecialInf, kSpecialNan, -0.0f});
  Run r = Unary("Selu", x);
  REQUIRE(r.status.ok());
  // TensorFlow's values, except at -1e-3 and -1e-6: its exp(x) - 1 cancels there (0xbae65323
  // and 0xb5ef19fc, 153 and 205,358 ulps off); ours is expm1's, the correctly rounded
  // scale * alpha * expm1(x) (tests/compat/accuracy_sweep.py).
  const std::vector<float> selu = FromBits({0xbfda3dbf, 0xbf8e4016, 0xbae6528b, 0xb5ebf7ce, 0x3f067d5f, 0x40067d5f,
                                            0xbfe10966, 0xbfe10966, 0x7f800000, 0x7fc00000, 0x80000000});
  CheckUlps(Values<float>(r.outputs[0]), selu, 2);
  r = RunOp("SeluGrad", {Tensor::FromVector<float>({1, 2, 3, 4, 5, 6, 7, 8, 9}),
                         Tensor::FromVector<float>(FromBits({0xbfda3dbf, 0xbf8e4016, 0x80000000, 0x0, 0x3f067d5f,
                                                             0x40067d5f, 0x7f800000, 0xbfe10966, 0x7fc00000}))},
            {{"T", TypeA(tf::DT_FLOAT)}});
  REQUIRE(r.status.ok());
  CheckUlps(Values<float>(r.outputs[0]),
            FromBits({0x3d5974e0, 0x3fa592a0, 0x4049bc0e, 0x40867d5f, 0x40a81cb7, 0x40c9bc0e, 0x40eb5b66, 0x0,
                      0x41174d0b}),
            0);
  r = Unary("Selu", Tensor::FromVector<double>({-3.5, -1.0, 0.5, 2.0}));
  REQUIRE(r.status.ok());
  const std::vector<double> want = {-0x1.b47b7dfec93a4p+0, -0x1.1c802bd5f1cb4p+0, 0x1.0cfabd6a91132p-1,
                                    0x1.0cfabd6a91132p+1};
  std::vector<double> got = Values<double>(r.outputs[0]);
  for (size_t i = 0; i < want.size(); ++i) CHECK(got[i] == Approx(want[i]).epsilon(4e-16));
}

TEST_CASE("L2Loss is half the sum of squares, summed as TensorFlow sums it", "[special]") {
  Run r = Unary("L2Loss", Tensor::FromVector<float>({1, 2, 3, -4}, TensorShape({2, 2})));
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].dims() == 0);
  CHECK(r.outputs[0].base<float>()[0] == 15.0f);
  r = Unary("L2Loss", Tensor(tf::DT_FLOAT, TensorShape({0, 3})));
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].base<float>()[0] == 0.0f);
  // Large enough for Eigen's blocked, threaded full reduction. Its order of additions
  // follows the vector width the kernels are built for (TensorFlow's wheel: AVX), so the
  // last bits may differ from TensorFlow's on another machine.
  std::vector<float> big(100003);
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<float>(static_cast<int>(i % 1000) - 500) / 7.0f;
  r = Unary("L2Loss", Tensor::FromVector<float>(big));
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].base<float>()[0] == Approx(FromBits(0x4ca23452)).epsilon(1e-6));
  std::vector<double> big_d(big.begin(), big.end());
  r = Unary("L2Loss", Tensor::FromVector<double>(big_d));
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].base<double>()[0] == Approx(0x1.4468a38e54ea4p+26).epsilon(1e-14));
  Tensor h(tf::DT_HALF, TensorShape({2}));
  h.base<Eigen::half>()[0] = h.base<Eigen::half>()[1] = Eigen::half(300.0f);
  r = Unary("L2Loss", h);  // 300^2 overflows half, as in TensorFlow
  REQUIRE(r.status.ok());
  CHECK(std::isinf(static_cast<float>(r.outputs[0].base<Eigen::half>()[0])));
}

}  // namespace
}  // namespace tensoract
