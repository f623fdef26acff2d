// The bitwise kernels against values TensorFlow 2.21 printed (tensorflow-cpu, x86-64): shift
// amounts clamped to [0, bits - 1] (negative ones shift by nothing, too large ones by bits - 1),
// arithmetic right shifts of signed values, left shifts that wrap, and population counts of
// the two's complement bits, as uint8.
#include <cstdint>
#include <limits>
#include <vector>

#include "tests/kernels/kernel_test_util.h"

namespace tensoract {
namespace {

using testing::Unary;
using testing::Binary;

using testing::Run;
using testing::RunOp;
using testing::TypeA;
using testing::Values;


template <class T>
std::vector<T> Computed(const Run& r) {
  INFO(r.status.ToString());
  REQUIRE(r.status.ok());
  return Values<T>(r.outputs[0]);
}

TEST_CASE("shift amounts are clamped to [0, bits - 1]", "[bitwise]") {
  // Amounts -1, 0, 7, 8, 13, 127 on 1; then max << 1, min << 1, max << 8, min << 11.
  const Tensor x = Tensor::FromVector<int8_t>({1, 1, 1, 1, 1, 1, 127, -128, 127, -128});
  const Tensor y = Tensor::FromVector<int8_t>({-1, 0, 7, 8, 13, 127, 1, 1, 8, 11});
  CHECK(Computed<int8_t>(Binary("LeftShift", x, y)) == std::vector<int8_t>{1, 1, -128, -128, -128, -128, -2, 0, -128, 0});
  CHECK(Computed<int8_t>(Binary("RightShift", x, y)) == std::vector<int8_t>{1, 1, 0, 0, 0, 0, 63, -64, 0, -1});

  const Tensor ux = Tensor::FromVector<uint8_t>({1, 1, 1, 1, 1, 1, 255, 0, 255, 0});
  const Tensor uy = Tensor::FromVector<uint8_t>({255, 0, 7, 8, 13, 127, 1, 1, 8, 11});
  CHECK(Computed<uint8_t>(Binary("LeftShift", ux, uy)) ==
        std::vector<uint8_t>{128, 1, 128, 128, 128, 128, 254, 0, 128, 0});
  CHECK(Computed<uint8_t>(Binary("RightShift", ux, uy)) == std::vector<uint8_t>{0, 1, 0, 0, 0, 0, 127, 0, 1, 0});

  const uint64_t top = uint64_t{1} << 63;
  CHECK(Computed<uint64_t>(Binary("LeftShift", Tensor::FromVector<uint64_t>({1, 1, 1, ~uint64_t{0}}),
                                  Tensor::FromVector<uint64_t>({63, 64, 1000, 1}))) ==
        std::vector<uint64_t>{top, top, top, ~uint64_t{1}});
}

TEST_CASE("a right shift of a signed value copies its sign bit", "[bitwise]") {
  const int32_t min = std::numeric_limits<int32_t>::min();
  CHECK(Computed<int32_t>(Binary("RightShift", Tensor::FromVector<int32_t>({min, min, min, min, -7}),
                                 Tensor::FromVector<int32_t>({0, 1, 31, 32, 1}))) ==
        std::vector<int32_t>{min, -1073741824, -1, -1, -4});
  CHECK(Computed<int64_t>(Binary("RightShift", Tensor::FromVector<int64_t>({-1, -256}), Tensor::Scalar<int64_t>(4))) ==
        std::vector<int64_t>{-1, -16});
}

TEST_CASE("and, or and xor broadcast; invert flips every bit", "[bitwise]") {
  const Tensor x = Tensor::FromVector<int16_t>({0x0f0f, -1}, TensorShape({2, 1}));
  const Tensor y = Tensor::FromVector<int16_t>({0x00ff, 0, std::numeric_limits<int16_t>::min()});
  CHECK(Computed<int16_t>(Binary("BitwiseAnd", x, y)) == std::vector<int16_t>{0x000f, 0, 0, 0x00ff, 0, -32768});
  CHECK(Computed<int16_t>(Binary("BitwiseOr", x, y)) == std::vector<int16_t>{0x0fff, 0x0f0f, -28913, -1, -1, -1});
  CHECK(Computed<int16_t>(Binary("BitwiseXor", x, y)) == std::vector<int16_t>{0x0ff0, 0x0f0f, -28913, -256, -1, 32767});
  CHECK(Computed<int8_t>(Unary("Invert", Tensor::FromVector<int8_t>({0, 1, 127, -128}))) ==
        std::vector<int8_t>{-1, -2, -128, 127});
  CHECK(Computed<uint8_t>(Unary("Invert", Tensor::FromVector<uint8_t>({0, 1, 255}))) == std::vector<uint8_t>{255, 254, 0});
}

TEST_CASE("PopulationCount counts the two's complement bits, as uint8", "[bitwise]") {
  Run r = Unary("PopulationCount", Tensor::FromVector<int8_t>({0, 1, 127, -128, -1}));
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].dtype() == tensorflow::DT_UINT8);
  CHECK(Values<uint8_t>(r.outputs[0]) == std::vector<uint8_t>{0, 1, 7, 1, 8});
  CHECK(Computed<uint8_t>(Unary("PopulationCount", Tensor::FromVector<int32_t>({std::numeric_limits<int32_t>::max(),
                                                                                 std::numeric_limits<int32_t>::min()}))) ==
        std::vector<uint8_t>{31, 1});
  CHECK(Computed<uint8_t>(Unary("PopulationCount", Tensor::FromVector<uint64_t>({~uint64_t{0}, 0}))) ==
        std::vector<uint8_t>{64, 0});
}

TEST_CASE("incompatible shapes are refused", "[bitwise]") {
  Run r = Binary("BitwiseAnd", Tensor::FromVector<int32_t>({1, 2, 3}), Tensor::FromVector<int32_t>({1, 2}));
  CHECK(r.status.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(r.status.message(), Catch::Contains("incompatible shapes: [3] vs. [2]", Catch::CaseSensitive::No));
}

}  // namespace
}  // namespace tensoract
