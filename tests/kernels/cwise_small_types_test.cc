// The element-wise kernels (and Range and ArgMax) of the narrow and unsigned integers, half
// and bfloat16 (issue 32: TensorFlow's CPU kernels claim them), with the values TensorFlow
// 2.21 gives where its
// arithmetic differs from the obvious one: integers wrap, unsigned division by the largest
// value is not a negation, and half and bfloat16 round each intermediate to their type.
#include <cmath>
#include <cstring>
#include <limits>

#include <Eigen/Core>

#include "tests/kernels/kernel_test_util.h"

namespace tensoract {
namespace {

using testing::RunOp;
using testing::Run;
using testing::TypeA;
using testing::Values;

template <class T>
Run SmallBinary(const std::string& op, const std::vector<T>& x, const std::vector<T>& y, DataType dtype) {
  return RunOp(op, {Tensor::FromVector<T>(x), Tensor::FromVector<T>(y)}, {{"T", TypeA(dtype)}});
}

template <class T>
std::vector<float> AsFloats(const Tensor& t) {
  std::vector<float> out;
  for (T v : Values<T>(t)) out.push_back(static_cast<float>(v));
  return out;
}

bool SignBit(float f) { return std::signbit(f); }

TEST_CASE("narrow and unsigned integer arithmetic wraps, as TensorFlow's", "[cwise][small-types]") {
  Run r = SmallBinary<int8_t>("AddV2", {127, -128, 5}, {1, -1, 6}, tensorflow::DT_INT8);
  REQUIRE(r.status.ok());
  CHECK(Values<int8_t>(r.outputs[0]) == std::vector<int8_t>{-128, 127, 11});
  r = SmallBinary<uint8_t>("Sub", {0, 10}, {1, 3}, tensorflow::DT_UINT8);
  REQUIRE(r.status.ok());
  CHECK(Values<uint8_t>(r.outputs[0]) == std::vector<uint8_t>{255, 7});
  r = SmallBinary<int16_t>("Mul", {300, -7}, {300, 3}, tensorflow::DT_INT16);
  REQUIRE(r.status.ok());
  CHECK(Values<int16_t>(r.outputs[0]) == std::vector<int16_t>{static_cast<int16_t>(90000), -21});
  r = RunOp("Abs", {Tensor::FromVector<int8_t>({-128, -3, 4})}, {{"T", TypeA(tensorflow::DT_INT8)}});
  REQUIRE(r.status.ok());
  CHECK(Values<int8_t>(r.outputs[0]) == std::vector<int8_t>{-128, 3, 4});
}

TEST_CASE("unsigned division by the largest value is a division, not a negation", "[cwise][small-types]") {
  const uint32_t max = std::numeric_limits<uint32_t>::max();
  for (const char* op : {"Div", "FloorDiv"}) {
    INFO(op);
    Run r = SmallBinary<uint32_t>(op, {7, max, 9}, {max, max, 2}, tensorflow::DT_UINT32);
    REQUIRE(r.status.ok());
    CHECK(Values<uint32_t>(r.outputs[0]) == std::vector<uint32_t>{0, 1, 4});
  }
  Run r = SmallBinary<uint8_t>("FloorMod", {200, 255, 9}, {255, 255, 4}, tensorflow::DT_UINT8);
  REQUIRE(r.status.ok());
  CHECK(Values<uint8_t>(r.outputs[0]) == std::vector<uint8_t>{200, 0, 1});
  r = SmallBinary<uint16_t>("Div", {1, 2}, {0, 1}, tensorflow::DT_UINT16);
  CHECK(r.status.code() == error::INVALID_ARGUMENT);  // integer division by zero
}

TEST_CASE("half and bfloat16 compute in float and round once per TensorFlow step", "[cwise][small-types]") {
  using half = Eigen::half;
  using bf16 = Eigen::bfloat16;
  // FloorDiv floors the rounded quotient: 25.75 / 1.984375 is 12.98, 13 in bfloat16.
  Run r = SmallBinary<bf16>("FloorDiv", {bf16(25.75f)}, {bf16(1.984375f)}, tensorflow::DT_BFLOAT16);
  REQUIRE(r.status.ok());
  CHECK(AsFloats<bf16>(r.outputs[0]) == std::vector<float>{13.0f});
  // A tiny negative quotient rounds to -0, whose floor is -0.
  r = SmallBinary<half>("FloorDiv", {half(1.1920929e-07f)}, {half(-20.0f)}, tensorflow::DT_HALF);
  REQUIRE(r.status.ok());
  CHECK(AsFloats<half>(r.outputs[0])[0] == 0.0f);
  CHECK(SignBit(AsFloats<half>(r.outputs[0])[0]));
  // SquaredDifference rounds the difference first.
  r = SmallBinary<half>("SquaredDifference", {half(-100.0f)}, {half(3.140625f)}, tensorflow::DT_HALF);
  REQUIRE(r.status.ok());
  CHECK(AsFloats<half>(r.outputs[0]) == std::vector<float>{10632.0f});
  r = SmallBinary<bf16>("SquaredDifference", {bf16(-1.0f)}, {bf16(3.140625f)}, tensorflow::DT_BFLOAT16);
  REQUIRE(r.status.ok());
  CHECK(AsFloats<bf16>(r.outputs[0]) == std::vector<float>{17.0f});
  // One rounding: 1 + 2^-11 is a tie in half, kept even.
  r = SmallBinary<half>("AddV2", {half(1.0f), half(2048.0f)}, {half(0.00048828125f), half(1.0f)}, tensorflow::DT_HALF);
  REQUIRE(r.status.ok());
  CHECK(AsFloats<half>(r.outputs[0]) == std::vector<float>{1.0f, 2048.0f});
}

// bfloat16 values over the whole range, NaNs and infinities, zeros of both signs and the
// smallest normals among them, and ties of the rounding after a product or a sum.
// (Denormals are left out: the kernels' threads treat them as zero, as TensorFlow's do.)
std::vector<Eigen::bfloat16> Bfloat16Sample(int64_t n, uint32_t seed) {
  std::vector<Eigen::bfloat16> out(n);
  const uint16_t specials[] = {0x7FC0, 0xFFC1, 0x7F80, 0xFF80, 0x0000, 0x8000, 0x0080, 0x80FF, 0x3F80, 0x3F81};
  for (int64_t i = 0; i < n; ++i) {
    seed = seed * 1664525u + 1013904223u;
    uint16_t bits = static_cast<uint16_t>(seed >> 16);
    if (i % 7 == 3) bits = specials[(seed >> 8) % 10];
    else if ((bits & 0x7F80) == 0) bits |= 0x0080;  // a denormal made normal
    else if (i % 2 == 0) bits = static_cast<uint16_t>(0x3E00 + (seed >> 20) % 0x400);  // 0.125 to 4, many ties
    std::memcpy(static_cast<void*>(&out[i]), &bits, sizeof bits);
  }
  return out;
}

uint16_t Bits(Eigen::bfloat16 v) {
  uint16_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

// A NaN's payload is not promised (the quiet NaN of its sign), and a denormal result may be
// flushed to the zero of its sign (whichever thread computed it); every other result bit
// for bit.
bool SameBfloat16(Eigen::bfloat16 a, Eigen::bfloat16 b) {
  const bool nan_a = (Bits(a) & 0x7FFF) > 0x7F80, nan_b = (Bits(b) & 0x7FFF) > 0x7F80;
  if (nan_a || nan_b) return nan_a == nan_b;
  auto flushed = [](uint16_t bits) { return (bits & 0x7F80) == 0 ? static_cast<uint16_t>(bits & 0x8000) : bits; };
  return flushed(Bits(a)) == flushed(Bits(b));
}

TEST_CASE("bfloat16 Add and Mul are one float step rounded once, in every broadcast", "[cwise][small-types]") {
  using bf16 = Eigen::bfloat16;
  struct Shapes {
    std::vector<int64_t> x, y;
  };
  // Equal; a scalar; squeeze-and-excitation's per-image channels; one channel row repeated;
  // an outer broadcast; long enough to cross the 256-element blocks and the threads.
  const std::vector<Shapes> cases = {{{1000}, {1000}},          {{3, 700}, {}},          {{}, {5, 300}},
                                     {{2, 5, 6, 40}, {2, 1, 1, 40}}, {{1, 1, 1, 40}, {1, 7, 9, 40}},
                                     {{4, 1, 300}, {1, 3, 1}},  {{64, 56, 56}, {64, 1, 56}},
                                     {{2, 1, 1, 300}, {2, 9, 7, 300}}, {{3, 40, 20, 96}, {3, 1, 1, 96}}};
  uint32_t seed = 11;
  for (const char* op : {"AddV2", "Mul"}) {
    for (const Shapes& c : cases) {
      TensorShape xs(c.x), ys(c.y);
      const auto xv = Bfloat16Sample(xs.num_elements(), seed++), yv = Bfloat16Sample(ys.num_elements(), seed++);
      Run r = RunOp(op, {Tensor::FromVector<bf16>(xv, xs), Tensor::FromVector<bf16>(yv, ys)},
                    {{"T", TypeA(tensorflow::DT_BFLOAT16)}});
      REQUIRE(r.status.ok());
      const std::vector<bf16> got = Values<bf16>(r.outputs[0]);
      // The reference: NumPy's broadcast by hand (shapes padded to 4 dimensions), each
      // element computed in float and rounded by Eigen::bfloat16's scalar conversion.
      std::vector<int64_t> xd(4, 1), yd(4, 1), od(4);
      std::copy(c.x.begin(), c.x.end(), xd.end() - c.x.size());
      std::copy(c.y.begin(), c.y.end(), yd.end() - c.y.size());
      for (int d = 0; d < 4; ++d) od[d] = std::max(xd[d], yd[d]);
      REQUIRE(static_cast<int64_t>(got.size()) == od[0] * od[1] * od[2] * od[3]);
      int64_t o = 0, mismatches = 0;
      for (int64_t a = 0; a < od[0]; ++a)
        for (int64_t b = 0; b < od[1]; ++b)
          for (int64_t e = 0; e < od[2]; ++e)
            for (int64_t f = 0; f < od[3]; ++f, ++o) {
              auto at = [&](const std::vector<int64_t>& d) {
                return (((a % d[0]) * d[1] + b % d[1]) * d[2] + e % d[2]) * d[3] + f % d[3];
              };
              const float xf = static_cast<float>(xv[at(xd)]), yf = static_cast<float>(yv[at(yd)]);
              const float exact = std::string(op) == "Mul" ? xf * yf : xf + yf;
              const bf16 want(exact);
              // A denormal float result may be flushed before it is rounded.
              const bool flushed = std::fpclassify(exact) == FP_SUBNORMAL && SameBfloat16(got[o], bf16(exact * 0.f));
              if (!SameBfloat16(got[o], want) && !flushed && ++mismatches < 5) {
                UNSCOPED_INFO(op << " element " << o << ": " << xf << ", " << yf << " gave bits " << Bits(got[o])
                                 << ", want " << Bits(want));
              }
            }
      INFO(op << " " << xs.DebugString() << " and " << ys.DebugString());
      CHECK(mismatches == 0);
    }
  }
}

TEST_CASE("bfloat16 unary ops are their float kernels' results rounded once", "[cwise][small-types]") {
  using bf16 = Eigen::bfloat16;
  const auto xv = Bfloat16Sample(5000, 3);
  std::vector<float> widened;
  for (bf16 v : xv) widened.push_back(static_cast<float>(v));
  for (const char* op : {"Neg", "Square", "Abs", "Sign", "Round", "Sqrt", "Rsqrt", "Exp", "Log", "Tanh", "Sigmoid",
                         "Reciprocal", "Log1p", "Floor", "Ceil"}) {
    Run r = Unary(op, Tensor::FromVector<bf16>(xv));
    Run f = Unary(op, Tensor::FromVector<float>(widened));
    REQUIRE(r.status.ok());
    REQUIRE(f.status.ok());
    const std::vector<bf16> got = Values<bf16>(r.outputs[0]);
    const std::vector<float> in_float = Values<float>(f.outputs[0]);
    int64_t mismatches = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      if (!SameBfloat16(got[i], bf16(in_float[i])) && ++mismatches < 5) {
        UNSCOPED_INFO(op << "(" << widened[i] << ") gave bits " << Bits(got[i]) << ", want " << Bits(bf16(in_float[i])));
      }
    }
    INFO(op);
    CHECK(mismatches == 0);
  }
}

TEST_CASE("half Maximum and Minimum keep the first of two equal values", "[cwise][small-types]") {
  using half = Eigen::half;
  for (const char* op : {"Maximum", "Minimum"}) {
    INFO(op);
    Run r = SmallBinary<half>(op, {half(0.0f), half(-0.0f), half(1.0f)},
                         {half(-0.0f), half(0.0f), half(std::numeric_limits<float>::quiet_NaN())},
                         tensorflow::DT_HALF);
    REQUIRE(r.status.ok());
    const std::vector<float> v = AsFloats<half>(r.outputs[0]);
    CHECK(!SignBit(v[0]));
    CHECK(SignBit(v[1]));
    CHECK(std::isnan(v[2]));
  }
}

TEST_CASE("half and bfloat16 compare as the floats they are", "[cwise][small-types]") {
  using bf16 = Eigen::bfloat16;
  Run r = SmallBinary<bf16>("Less", {bf16(1.0f), bf16(2.0f), bf16(-0.0f)}, {bf16(1.5f), bf16(2.0f), bf16(0.0f)},
                       tensorflow::DT_BFLOAT16);
  REQUIRE(r.status.ok());
  CHECK(Values<bool>(r.outputs[0]) == std::vector<bool>{true, false, false});
  r = SmallBinary<bf16>("Equal", {bf16(-0.0f)}, {bf16(0.0f)}, tensorflow::DT_BFLOAT16);
  REQUIRE(r.status.ok());
  CHECK(Values<bool>(r.outputs[0]) == std::vector<bool>{true});
}

TEST_CASE("Range of half and bfloat16 steps in the type itself", "[range][small-types]") {
  using half = Eigen::half;
  Run r = RunOp("Range", {Tensor::Scalar<half>(half(0.0f)), Tensor::Scalar<half>(half(1.0f)),
                          Tensor::Scalar<half>(half(0.1f))},
                {{"Tidx", TypeA(tensorflow::DT_HALF)}});
  REQUIRE(r.status.ok());
  const std::vector<float> v = AsFloats<half>(r.outputs[0]);
  REQUIRE(v.size() == 10);  // 1 / 0.0999755859 is 10.002, whose ceiling is 11 in float; 10 in half
  CHECK(v[3] == static_cast<float>(half(3.0f) * half(0.1f)));
  r = RunOp("Range", {Tensor::Scalar<Eigen::bfloat16>(Eigen::bfloat16(0.0f)),
                      Tensor::Scalar<Eigen::bfloat16>(Eigen::bfloat16(std::numeric_limits<float>::infinity())),
                      Tensor::Scalar<Eigen::bfloat16>(Eigen::bfloat16(1.0f))},
            {{"Tidx", TypeA(tensorflow::DT_BFLOAT16)}});
  CHECK(r.status.code() == error::INVALID_ARGUMENT);
}

TEST_CASE("ArgMax and ArgMin of the narrow types, half and bool", "[argmax][small-types]") {
  auto arg = [](const char* op, const Tensor& x, DataType t) {
    Run r = RunOp(op, {x, Tensor::Scalar<int32_t>(1)},
                  {{"T", TypeA(t)}, {"Tidx", TypeA(tensorflow::DT_INT32)}, {"output_type", TypeA(tensorflow::DT_INT64)}});
    REQUIRE(r.status.ok());
    return Values<int64_t>(r.outputs[0]);
  };
  const Tensor u8 = Tensor::FromVector<uint8_t>({3, 250, 7, 9, 0, 255}, TensorShape({2, 3}));
  CHECK(arg("ArgMax", u8, tensorflow::DT_UINT8) == std::vector<int64_t>{1, 2});
  CHECK(arg("ArgMin", u8, tensorflow::DT_UINT8) == std::vector<int64_t>{0, 1});
  const Tensor h = Tensor::FromVector<Eigen::half>(
      {Eigen::half(1.5f), Eigen::half(-2.0f), Eigen::half(1.5f), Eigen::half(0.0f)}, TensorShape({2, 2}));
  CHECK(arg("ArgMax", h, tensorflow::DT_HALF) == std::vector<int64_t>{0, 0});  // the first of equal maxima
  CHECK(arg("ArgMin", h, tensorflow::DT_HALF) == std::vector<int64_t>{1, 1});
  const Tensor b = Tensor::FromVector<bool>({false, true, true, false}, TensorShape({2, 2}));
  CHECK(arg("ArgMax", b, tensorflow::DT_BOOL) == std::vector<int64_t>{1, 0});
}

TEST_CASE("AddN of half rounds each partial sum; Select of int8 selects", "[cwise][small-types]") {
  using half = Eigen::half;
  std::vector<Tensor> ins = {Tensor::FromVector<half>({half(2048.0f)}), Tensor::FromVector<half>({half(1.0f)}),
                             Tensor::FromVector<half>({half(1.0f)})};
  tensorflow::AttrValue n;
  n.set_i(3);
  Run r = RunOp("AddN", ins, {{"T", TypeA(tensorflow::DT_HALF)}, {"N", n}});
  REQUIRE(r.status.ok());
  CHECK(AsFloats<half>(r.outputs[0]) == std::vector<float>{2048.0f});  // 2049 ties to 2048, twice
  r = RunOp("Select",
            {Tensor::FromVector<bool>({true, false}), Tensor::FromVector<int8_t>({1, 2}),
             Tensor::FromVector<int8_t>({-1, -2})},
            {{"T", TypeA(tensorflow::DT_INT8)}});
  REQUIRE(r.status.ok());
  CHECK(Values<int8_t>(r.outputs[0]) == std::vector<int8_t>{1, -2});
}

TEST_CASE("reductions of the narrow types: Sum wraps, Mean sums wide, half in float", "[reduction][small-types]") {
  auto reduce = [](const char* op, const Tensor& x, DataType t) {
    Run r = RunOp(op, {x, Tensor::Scalar<int32_t>(0)}, {{"T", TypeA(t)}, {"Tidx", TypeA(tensorflow::DT_INT32)}});
    REQUIRE(r.status.ok());
    return r.outputs[0];
  };
  const Tensor i8 = Tensor::FromVector<int8_t>({100, 100, 100});
  CHECK(Values<int8_t>(reduce("Sum", i8, tensorflow::DT_INT8)) == std::vector<int8_t>{44});   // 300 wraps
  CHECK(Values<int8_t>(reduce("Mean", i8, tensorflow::DT_INT8)) == std::vector<int8_t>{100});  // summed in int64
  const Tensor u8 = Tensor::FromVector<uint8_t>({255, 254, 9});
  CHECK(Values<uint8_t>(reduce("Max", u8, tensorflow::DT_UINT8)) == std::vector<uint8_t>{255});
  CHECK(Values<uint8_t>(reduce("Mean", u8, tensorflow::DT_UINT8)) == std::vector<uint8_t>{172});
  using half = Eigen::half;
  // 2048 + 1 + 1: 2050 in float, rounded once. TensorFlow accumulates in half, in Eigen's
  // packet order, and gives 2048; both are within the harness's bound for a sum.
  const Tensor h = Tensor::FromVector<half>({half(2048.0f), half(1.0f), half(1.0f)});
  CHECK(AsFloats<half>(reduce("Sum", h, tensorflow::DT_HALF)) == std::vector<float>{2050.0f});
  const Tensor hn = Tensor::FromVector<half>({half(1.0f), half(std::numeric_limits<float>::quiet_NaN())});
  CHECK(std::isnan(AsFloats<half>(reduce("Max", hn, tensorflow::DT_HALF))[0]));
}

TEST_CASE("IsNan, IsInf and IsFinite classify half and bfloat16 by value", "[cwise][small-types]") {
  using bf16 = Eigen::bfloat16;
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const Tensor x = Tensor::FromVector<bf16>(
      {bf16(1.0f), bf16(-inf), bf16(nan), Eigen::numext::bit_cast<bf16>(uint16_t{0x0001})});  // last: a denormal
  auto classify = [&](const char* op) {
    Run r = RunOp(op, {x}, {{"T", TypeA(tensorflow::DT_BFLOAT16)}});
    REQUIRE(r.status.ok());
    return Values<bool>(r.outputs[0]);
  };
  CHECK(classify("IsNan") == std::vector<bool>{false, false, true, false});
  CHECK(classify("IsInf") == std::vector<bool>{false, true, false, false});
  CHECK(classify("IsFinite") == std::vector<bool>{true, false, false, true});
}

TEST_CASE("a denormal bfloat16 casts to true, as TensorFlow's", "[cwise][cast][small-types]") {
  const uint16_t bits[] = {0x0001, 0x8001, 0x0060, 0x0000, 0x8000};
  std::vector<Eigen::bfloat16> x;
  for (uint16_t b : bits) x.push_back(Eigen::numext::bit_cast<Eigen::bfloat16>(b));
  Run r = RunOp("Cast", {Tensor::FromVector<Eigen::bfloat16>(x)},
                {{"SrcT", TypeA(tensorflow::DT_BFLOAT16)}, {"DstT", TypeA(tensorflow::DT_BOOL)}});
  REQUIRE(r.status.ok());
  CHECK(Values<bool>(r.outputs[0]) == std::vector<bool>{true, true, true, false, false});
}

}  // namespace
}  // namespace tensoract
