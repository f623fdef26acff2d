// Cast between every pair of TensorFlow's real, integer, bool and complex types, against the
// values TensorFlow 2.21 printed (tensorflow-cpu on x86-64): floating point to integer out of
// range and NaN as its scalar code gives them, the same wherever the element sits; rounding
// into half and bfloat16; Truncate for the pairs TensorFlow honours it on.
#include <Eigen/Core>
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "kernels/tensor.h"
#include "tests/kernels/kernel_test_util.h"

namespace tensoract {
namespace {

namespace tf = ::tensorflow;
using testing::BoolA;
using testing::RunOp;
using testing::TypeA;

const double kInf = std::numeric_limits<double>::infinity();
const double kNan = std::numeric_limits<double>::quiet_NaN();

template <class T>
T FromDouble(double v) {
  if constexpr (std::is_same_v<T, Eigen::half> || std::is_same_v<T, Eigen::bfloat16>) return T(static_cast<float>(v));
  else if constexpr (std::is_same_v<T, bool>) return v != 0;
  else if constexpr (std::is_same_v<T, complex64> || std::is_same_v<T, complex128>) return T(v, 0);
  else return static_cast<T>(v);
}
template <class T>
double ToDouble(T v) {
  if constexpr (std::is_same_v<T, Eigen::half> || std::is_same_v<T, Eigen::bfloat16>) return static_cast<float>(v);
  else if constexpr (std::is_same_v<T, complex64> || std::is_same_v<T, complex128>) return v.real();
  else return static_cast<double>(v);
}

// The types Cast converts between: runs fn(T{}) with T the element type of `dtype`.
template <class Fn>
void ForType(DataType dtype, Fn fn) {
  switch (dtype) {
    case tf::DT_BOOL: return fn(bool{});
    case tf::DT_UINT8: return fn(uint8_t{});
    case tf::DT_UINT16: return fn(uint16_t{});
    case tf::DT_UINT32: return fn(uint32_t{});
    case tf::DT_UINT64: return fn(uint64_t{});
    case tf::DT_INT8: return fn(int8_t{});
    case tf::DT_INT16: return fn(int16_t{});
    case tf::DT_INT32: return fn(int32_t{});
    case tf::DT_INT64: return fn(int64_t{});
    case tf::DT_HALF: return fn(Eigen::half{});
    case tf::DT_BFLOAT16: return fn(Eigen::bfloat16{});
    case tf::DT_FLOAT: return fn(float{});
    case tf::DT_DOUBLE: return fn(double{});
    case tf::DT_COMPLEX64: return fn(complex64{});
    case tf::DT_COMPLEX128: return fn(complex128{});
    default: FAIL("not a Cast type");
  }
}

Tensor Make(DataType dtype, const std::vector<double>& values) {
  Tensor t(dtype, TensorShape({static_cast<int64_t>(values.size())}));
  ForType(dtype, [&](auto zero) {
    using T = decltype(zero);
    for (size_t i = 0; i < values.size(); ++i) t.base<T>()[i] = FromDouble<T>(values[i]);
  });
  return t;
}
std::vector<double> AsDoubles(const Tensor& t) {
  std::vector<double> out;
  ForType(t.dtype(), [&](auto zero) {
    using T = decltype(zero);
    for (int64_t i = 0; i < t.NumElements(); ++i) out.push_back(ToDouble(t.base<T>()[i]));
  });
  return out;
}
// An integer tensor's elements as 64-bit patterns (signed ones sign-extended).
std::vector<uint64_t> AsBits(const Tensor& t) {
  std::vector<uint64_t> out;
  ForType(t.dtype(), [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_integral_v<T>) {
      for (int64_t i = 0; i < t.NumElements(); ++i) {
        const T v = t.base<T>()[i];
        if constexpr (std::is_signed_v<T>) out.push_back(static_cast<uint64_t>(static_cast<int64_t>(v)));
        else out.push_back(static_cast<uint64_t>(v));
      }
    } else {
      FAIL("not an integer tensor");
    }
  });
  return out;
}

Tensor Cast(const Tensor& x, DataType to, bool truncate = false) {
  testing::Run r = RunOp("Cast", {x}, {{"SrcT", TypeA(x.dtype())}, {"DstT", TypeA(to)}, {"Truncate", BoolA(truncate)}});
  INFO(tf::DataType_Name(x.dtype()) << " -> " << tf::DataType_Name(to) << ": " << r.status);
  REQUIRE(r.status.ok());
  REQUIRE(r.outputs[0].dtype() == to);
  return r.outputs[0];
}

const std::vector<DataType> kAllTypes = {
    tf::DT_BOOL,  tf::DT_UINT8, tf::DT_UINT16, tf::DT_UINT32,   tf::DT_UINT64, tf::DT_INT8,
    tf::DT_INT16, tf::DT_INT32, tf::DT_INT64,  tf::DT_HALF,     tf::DT_BFLOAT16, tf::DT_FLOAT,
    tf::DT_DOUBLE, tf::DT_COMPLEX64, tf::DT_COMPLEX128};

TEST_CASE("Cast has a kernel for every pair of TensorFlow's CPU cast types", "[cast]") {
  for (DataType from : kAllTypes) {
    for (DataType to : kAllTypes) {
      const bool boolean = from == tf::DT_BOOL || to == tf::DT_BOOL;
      Tensor y = Cast(Make(from, {0, 1, 3, 100}), to);
      INFO(tf::DataType_Name(from) << " -> " << tf::DataType_Name(to));
      CHECK(AsDoubles(y) == (boolean ? std::vector<double>{0, 1, 1, 1} : std::vector<double>{0, 1, 3, 100}));
    }
  }
}

struct OutOfRange {
  DataType from, to;
  std::vector<uint64_t> want;  // as 64-bit patterns, signed results sign-extended
};

TEST_CASE("floating point to integer truncates; out of range and NaN give TensorFlow's x86 results", "[cast]") {
  const std::vector<double> in = {-1e10,  -129.7, -1.9, -0.5, 255.9, 256.5, 300.0, 65535.9, 65536.,
                                  2.2e9, 4.3e9,  1e19, 2e19, 1e30,  kInf,  -kInf, kNan};
  const std::vector<OutOfRange> table = {
    {tf::DT_FLOAT, tf::DT_UINT8, {0ull, 127ull, 255ull, 0ull, 255ull, 0ull, 44ull, 255ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull}},
    {tf::DT_FLOAT, tf::DT_UINT16, {0ull, 65407ull, 65535ull, 0ull, 255ull, 256ull, 300ull, 65535ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull}},
    {tf::DT_FLOAT, tf::DT_UINT32, {2884901888ull, 4294967167ull, 4294967295ull, 0ull, 255ull, 256ull, 300ull, 65535ull, 65536ull, 2200000000ull, 5032960ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull}},
    {tf::DT_FLOAT, tf::DT_UINT64, {18446744063709551616ull, 18446744073709551487ull, 18446744073709551615ull, 0ull, 255ull, 256ull, 300ull, 65535ull, 65536ull, 2200000000ull, 4300000256ull, 9999999980506447872ull, 9223372036854775808ull, 9223372036854775808ull, 9223372036854775808ull, 9223372036854775808ull, 9223372036854775808ull}},
    {tf::DT_FLOAT, tf::DT_INT8, {0ull, 127ull, 18446744073709551615ull, 0ull, 18446744073709551615ull, 0ull, 44ull, 18446744073709551615ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull}},
    {tf::DT_FLOAT, tf::DT_INT16, {0ull, 18446744073709551487ull, 18446744073709551615ull, 0ull, 255ull, 256ull, 300ull, 18446744073709551615ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull}},
    {tf::DT_FLOAT, tf::DT_INT32, {18446744071562067968ull, 18446744073709551487ull, 18446744073709551615ull, 0ull, 255ull, 256ull, 300ull, 65535ull, 65536ull, 18446744071562067968ull, 18446744071562067968ull, 18446744071562067968ull, 18446744071562067968ull, 18446744071562067968ull, 18446744071562067968ull, 18446744071562067968ull, 18446744071562067968ull}},
    {tf::DT_FLOAT, tf::DT_INT64, {18446744063709551616ull, 18446744073709551487ull, 18446744073709551615ull, 0ull, 255ull, 256ull, 300ull, 65535ull, 65536ull, 2200000000ull, 4300000256ull, 9223372036854775808ull, 9223372036854775808ull, 9223372036854775808ull, 9223372036854775808ull, 9223372036854775808ull, 9223372036854775808ull}},
    {tf::DT_DOUBLE, tf::DT_UINT8, {0ull, 127ull, 255ull, 0ull, 255ull, 0ull, 44ull, 255ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull}},
    {tf::DT_DOUBLE, tf::DT_UINT16, {0ull, 65407ull, 65535ull, 0ull, 255ull, 256ull, 300ull, 65535ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull}},
    {tf::DT_DOUBLE, tf::DT_UINT32, {2884901888ull, 4294967167ull, 4294967295ull, 0ull, 255ull, 256ull, 300ull, 65535ull, 65536ull, 2200000000ull, 5032704ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull}},
    {tf::DT_DOUBLE, tf::DT_UINT64, {18446744063709551616ull, 18446744073709551487ull, 18446744073709551615ull, 0ull, 255ull, 256ull, 300ull, 65535ull, 65536ull, 2200000000ull, 4300000000ull, 10000000000000000000ull, 9223372036854775808ull, 9223372036854775808ull, 9223372036854775808ull, 9223372036854775808ull, 9223372036854775808ull}},
    {tf::DT_DOUBLE, tf::DT_INT8, {0ull, 127ull, 18446744073709551615ull, 0ull, 18446744073709551615ull, 0ull, 44ull, 18446744073709551615ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull}},
    {tf::DT_DOUBLE, tf::DT_INT16, {0ull, 18446744073709551487ull, 18446744073709551615ull, 0ull, 255ull, 256ull, 300ull, 18446744073709551615ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull}},
    {tf::DT_DOUBLE, tf::DT_INT32, {18446744071562067968ull, 18446744073709551487ull, 18446744073709551615ull, 0ull, 255ull, 256ull, 300ull, 65535ull, 65536ull, 18446744071562067968ull, 18446744071562067968ull, 18446744071562067968ull, 18446744071562067968ull, 18446744071562067968ull, 18446744071562067968ull, 18446744071562067968ull, 18446744071562067968ull}},
    {tf::DT_DOUBLE, tf::DT_INT64, {18446744063709551616ull, 18446744073709551487ull, 18446744073709551615ull, 0ull, 255ull, 256ull, 300ull, 65535ull, 65536ull, 2200000000ull, 4300000000ull, 9223372036854775808ull, 9223372036854775808ull, 9223372036854775808ull, 9223372036854775808ull, 9223372036854775808ull, 9223372036854775808ull}},
    {tf::DT_HALF, tf::DT_UINT8, {0ull, 127ull, 255ull, 0ull, 255ull, 0ull, 44ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull}},
    {tf::DT_HALF, tf::DT_UINT16, {0ull, 65407ull, 65535ull, 0ull, 255ull, 256ull, 300ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull}},
    {tf::DT_HALF, tf::DT_UINT32, {0ull, 4294967167ull, 4294967295ull, 0ull, 255ull, 256ull, 300ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull}},
    {tf::DT_HALF, tf::DT_UINT64, {9223372036854775808ull, 18446744073709551487ull, 18446744073709551615ull, 0ull, 255ull, 256ull, 300ull, 9223372036854775808ull, 9223372036854775808ull, 9223372036854775808ull, 9223372036854775808ull, 9223372036854775808ull, 9223372036854775808ull, 9223372036854775808ull, 9223372036854775808ull, 9223372036854775808ull, 9223372036854775808ull}},
    {tf::DT_HALF, tf::DT_INT8, {0ull, 127ull, 18446744073709551615ull, 0ull, 18446744073709551615ull, 0ull, 44ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull}},
    {tf::DT_HALF, tf::DT_INT16, {0ull, 18446744073709551487ull, 18446744073709551615ull, 0ull, 255ull, 256ull, 300ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull}},
    {tf::DT_HALF, tf::DT_INT32, {18446744071562067968ull, 18446744073709551487ull, 18446744073709551615ull, 0ull, 255ull, 256ull, 300ull, 18446744071562067968ull, 18446744071562067968ull, 18446744071562067968ull, 18446744071562067968ull, 18446744071562067968ull, 18446744071562067968ull, 18446744071562067968ull, 18446744071562067968ull, 18446744071562067968ull, 18446744071562067968ull}},
    {tf::DT_HALF, tf::DT_INT64, {9223372036854775808ull, 18446744073709551487ull, 18446744073709551615ull, 0ull, 255ull, 256ull, 300ull, 9223372036854775808ull, 9223372036854775808ull, 9223372036854775808ull, 9223372036854775808ull, 9223372036854775808ull, 9223372036854775808ull, 9223372036854775808ull, 9223372036854775808ull, 9223372036854775808ull, 9223372036854775808ull}},
    {tf::DT_BFLOAT16, tf::DT_UINT8, {0ull, 126ull, 255ull, 0ull, 0ull, 0ull, 44ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull}},
    {tf::DT_BFLOAT16, tf::DT_UINT16, {0ull, 65406ull, 65535ull, 0ull, 256ull, 256ull, 300ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull}},
    {tf::DT_BFLOAT16, tf::DT_UINT32, {2885681152ull, 4294967166ull, 4294967295ull, 0ull, 256ull, 256ull, 300ull, 65536ull, 65536ull, 2197815296ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull}},
    {tf::DT_BFLOAT16, tf::DT_UINT64, {18446744063710330880ull, 18446744073709551486ull, 18446744073709551615ull, 0ull, 256ull, 256ull, 300ull, 65536ull, 65536ull, 2197815296ull, 4294967296ull, 10016005571271983104ull, 9223372036854775808ull, 9223372036854775808ull, 9223372036854775808ull, 9223372036854775808ull, 9223372036854775808ull}},
    {tf::DT_BFLOAT16, tf::DT_INT8, {0ull, 126ull, 18446744073709551615ull, 0ull, 0ull, 0ull, 44ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull}},
    {tf::DT_BFLOAT16, tf::DT_INT16, {0ull, 18446744073709551486ull, 18446744073709551615ull, 0ull, 256ull, 256ull, 300ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull}},
    {tf::DT_BFLOAT16, tf::DT_INT32, {18446744071562067968ull, 18446744073709551486ull, 18446744073709551615ull, 0ull, 256ull, 256ull, 300ull, 65536ull, 65536ull, 18446744071562067968ull, 18446744071562067968ull, 18446744071562067968ull, 18446744071562067968ull, 18446744071562067968ull, 18446744071562067968ull, 18446744071562067968ull, 18446744071562067968ull}},
    {tf::DT_BFLOAT16, tf::DT_INT64, {18446744063710330880ull, 18446744073709551486ull, 18446744073709551615ull, 0ull, 256ull, 256ull, 300ull, 65536ull, 65536ull, 2197815296ull, 4294967296ull, 9223372036854775808ull, 9223372036854775808ull, 9223372036854775808ull, 9223372036854775808ull, 9223372036854775808ull, 9223372036854775808ull}},
  };
  for (const OutOfRange& c : table) {
    INFO(tf::DataType_Name(c.from) << " -> " << tf::DataType_Name(c.to));
    CHECK(AsBits(Cast(Make(c.from, in), c.to)) == c.want);
    // TensorFlow's vectorised loop converts out-of-range values differently from its scalar
    // tail (300.0 to uint8 is 255 there); here an element gives the same wherever it sits.
    for (size_t i = 0; i < in.size(); ++i) {
      std::vector<uint64_t> got = AsBits(Cast(Make(c.from, std::vector<double>(67, in[i])), c.to));
      INFO("value " << in[i]);
      CHECK(got == std::vector<uint64_t>(67, c.want[i]));
    }
  }
}

TEST_CASE("to bool is x != 0, NaN included; from bool is 0 or 1", "[cast]") {
  CHECK(AsDoubles(Cast(Make(tf::DT_FLOAT, {0, -0.0, kNan, 1e-45}), tf::DT_BOOL)) ==
        std::vector<double>{0, 0, 1, 1});
  CHECK(AsDoubles(Cast(Make(tf::DT_HALF, {0, -0.0, kNan, 1e-7}), tf::DT_BOOL)) == std::vector<double>{0, 0, 1, 1});
  CHECK(AsDoubles(Cast(Make(tf::DT_INT32, {0, -1, 256}), tf::DT_BOOL)) == std::vector<double>{0, 1, 1});
  CHECK(AsDoubles(Cast(Make(tf::DT_BOOL, {1, 0}), tf::DT_HALF)) == std::vector<double>{1, 0});
  CHECK(AsBits(Cast(Make(tf::DT_INT8, {-1, -128, 127}), tf::DT_UINT8)) == std::vector<uint64_t>{255, 128, 127});
}

TEST_CASE("into half and bfloat16: nearest even through float, inf beyond the range", "[cast]") {
  const std::vector<double> ints = {-9223372036854775808.0, -2147483649.0, -70000, -129, -1, 0, 1, 127, 128,
                                    255, 256, 65535, 65536, 2147483648.0, 4294967301.0, 9223372036854775807.0};
  Tensor i64(tf::DT_INT64, TensorShape({16}));
  const std::vector<int64_t> exact = {std::numeric_limits<int64_t>::min(), -2147483649LL, -70000, -129, -1, 0, 1, 127,
                                      128, 255, 256, 65535, 65536, 2147483648LL, 4294967301LL,
                                      std::numeric_limits<int64_t>::max()};
  std::memcpy(i64.data(), exact.data(), 16 * sizeof(int64_t));
  CHECK(AsDoubles(Cast(i64, tf::DT_HALF)) == std::vector<double>{-kInf, -kInf, -kInf, -129, -1, 0, 1, 127, 128, 255,
                                                                256, kInf, kInf, kInf, kInf, kInf});
  CHECK(AsDoubles(Cast(i64, tf::DT_BFLOAT16)) ==
        std::vector<double>{-9.223372036854776e+18, -2147483648.0, -70144.0, -129, -1, 0, 1, 127, 128, 255, 256, 65536,
                            65536, 2147483648.0, 4294967296.0, 9.223372036854776e+18});
  Tensor u64(tf::DT_UINT64, TensorShape({4}));
  const std::vector<uint64_t> big = {~uint64_t{0}, uint64_t{1} << 63, 65520, 65519};
  std::memcpy(u64.data(), big.data(), 4 * sizeof(uint64_t));
  CHECK(AsDoubles(Cast(u64, tf::DT_HALF)) == std::vector<double>{kInf, kInf, kInf, 65504});
  CHECK(AsDoubles(Cast(u64, tf::DT_FLOAT)) == std::vector<double>{1.8446744073709552e+19, 9.223372036854776e+18, 65520, 65519});
  CHECK(AsDoubles(Cast(Make(tf::DT_INT32, {2049, 2051}), tf::DT_HALF)) == std::vector<double>{2048, 2052});

  CHECK(AsDoubles(Cast(Make(tf::DT_FLOAT, {0.1, 65519., 65520., 1e-8, 6e-8, 3e-5, -0.0}), tf::DT_HALF)) ==
        std::vector<double>{0.0999755859375, 65504.0, kInf, 0.0, 5.960464477539063e-08, 2.9981136322021484e-05, 0});
  // Straight from double (not through TensorFlow's float rounding of the input).
  Tensor d(tf::DT_DOUBLE, TensorShape({6}));
  const std::vector<double> dv = {0.1, 65519.99, 65520., 1e-8, 2.98023223876953125e-08, 2.9802322387695313e-08};
  std::memcpy(d.data(), dv.data(), 6 * sizeof(double));
  CHECK(AsDoubles(Cast(d, tf::DT_HALF)) == std::vector<double>{0.0999755859375, 65504.0, kInf, 0, 0, 0});
  Tensor h = Make(tf::DT_HALF, {0.1, 65504, -2.5, 1e-7});
  CHECK(AsDoubles(Cast(h, tf::DT_BFLOAT16)) == std::vector<double>{0.10009765625, 65536.0, -2.5, 1.1920928955078125e-07});
  CHECK(AsDoubles(Cast(h, tf::DT_DOUBLE)) == std::vector<double>{0.0999755859375, 65504.0, -2.5, 1.1920928955078125e-07});
  Tensor b = Make(tf::DT_BFLOAT16, {0.1, 3e38, -2.5, 1e-7, 70000., 65519.});
  CHECK(AsDoubles(b) == std::vector<double>{0.10009765625, 3.00405527047391e+38, -2.5, 1.0011717677116394e-07, 70144.0, 65536.0});
  CHECK(AsDoubles(Cast(b, tf::DT_HALF)) == std::vector<double>{0.10009765625, kInf, -2.5, 1.1920928955078125e-07, kInf, kInf});
  CHECK(AsBits(Cast(b, tf::DT_INT32)) ==
        std::vector<uint64_t>{0, static_cast<uint64_t>(int64_t{-2147483648LL}), static_cast<uint64_t>(int64_t{-2}), 0,
                              70144, 65536});
}

TEST_CASE("Truncate drops mantissa bits for float to half and bfloat16 and double to float and half only", "[cast]") {
  Tensor d(tf::DT_DOUBLE, TensorShape({3}));
  const std::vector<double> dv = {1.0 + 0x1p-23 * 0.9, 1.0018765, 3.4e38};
  std::memcpy(d.data(), dv.data(), 3 * sizeof(double));
  CHECK(AsDoubles(Cast(d, tf::DT_FLOAT)) == std::vector<double>{1.0000001192092896, 1.0018764734268188, 3.3999999521443642e+38});
  CHECK(AsDoubles(Cast(d, tf::DT_FLOAT, true)) == std::vector<double>{1.0, 1.0018764734268188, 3.3999999521443642e+38});
  CHECK(AsDoubles(Cast(d, tf::DT_HALF)) == std::vector<double>{1.0, 1.001953125, kInf});
  CHECK(AsDoubles(Cast(d, tf::DT_HALF, true)) == std::vector<double>{1.0, 1.0009765625, kInf});
  // double to bfloat16 rounds even when asked to truncate (3.4e38 becomes inf), as in TensorFlow.
  CHECK(AsDoubles(Cast(d, tf::DT_BFLOAT16, true)) == std::vector<double>{1.0, 1.0, kInf});
  Tensor f = Make(tf::DT_FLOAT, {1.0018765, kNan, kInf, 65519., 70000.});
  std::vector<double> got = AsDoubles(Cast(f, tf::DT_HALF, true));
  CHECK(got[0] == 1.0009765625);
  CHECK(std::isnan(got[1]));
  CHECK(got[2] == kInf);
  CHECK(got[3] == 65504);
  CHECK(got[4] == kInf);
  CHECK(AsDoubles(Cast(Make(tf::DT_HALF, {1.0009765625, 65504}), tf::DT_BFLOAT16, true)) == std::vector<double>{1.0, 65536.0});
  CHECK(AsDoubles(Cast(Make(tf::DT_INT32, {16777217}), tf::DT_FLOAT, true)) == std::vector<double>{16777216.0});
}

TEST_CASE("complex to real keeps the real part; real to complex has no imaginary part", "[cast]") {
  Tensor c = Tensor::FromVector<complex64>({{1.7f, 2}, {0, 0}, {0, 1}});
  CHECK(AsBits(Cast(c, tf::DT_INT32)) == std::vector<uint64_t>{1, 0, 0});
  // To bool as well: Cast(x=[1.7+2j, 0j, 1j], DstT=bool) is [True, False, False] in TensorFlow.
  CHECK(AsDoubles(Cast(c, tf::DT_BOOL)) == std::vector<double>{1, 0, 0});
  Tensor z = Cast(Make(tf::DT_FLOAT, {1.7}), tf::DT_COMPLEX128);
  CHECK(z.base<complex128>()[0] == complex128(static_cast<float>(1.7), 0));
}

}  // namespace
}  // namespace tensoract
