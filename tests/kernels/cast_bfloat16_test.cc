// Cast between float and bfloat16: the kernels lossy cross-device transfers run
// (whitepaper section 5.5; graph/partition.h inserts them).
//
// Checked bit for bit: Truncate=true keeps the high 16 bits of the float32, the default
// rounds to nearest even as TensorFlow does, a NaN stays a NaN, and widening back is exact.
// And a small model whose activations and gradients cross "devices" as truncated bfloat16
// still trains to the right answer.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/tensor.h"
#include "tests/kernels/kernel_test_util.h"

namespace tensoract {
namespace {

namespace tf = ::tensorflow;
using testing::BoolA;
using testing::RunOp;
using testing::TypeA;

Tensor FloatsFromBits(const std::vector<uint32_t>& bits) {
  Tensor t(tf::DT_FLOAT, TensorShape({static_cast<int64_t>(bits.size())}));
  std::memcpy(t.data(), bits.data(), bits.size() * sizeof(uint32_t));
  return t;
}

Tensor Bfloat16sFromBits(const std::vector<uint16_t>& bits) {
  Tensor t(tf::DT_BFLOAT16, TensorShape({static_cast<int64_t>(bits.size())}));
  std::memcpy(t.data(), bits.data(), bits.size() * sizeof(uint16_t));
  return t;
}

template <class Bits>
std::vector<Bits> BitsOf(const Tensor& t) {
  std::vector<Bits> out(static_cast<size_t>(t.NumElements()));
  std::memcpy(out.data(), t.data(), out.size() * sizeof(Bits));
  return out;
}

Tensor CastToBfloat16(const Tensor& x, bool truncate) {
  testing::Run r = RunOp("Cast", {x}, {{"SrcT", TypeA(tf::DT_FLOAT)}, {"DstT", TypeA(tf::DT_BFLOAT16)},
                                       {"Truncate", BoolA(truncate)}});
  INFO(r.status);
  REQUIRE(r.status.ok());
  REQUIRE(r.outputs[0].dtype() == tf::DT_BFLOAT16);
  REQUIRE(r.outputs[0].shape() == x.shape());
  return r.outputs[0];
}

Tensor ToFloat(const Tensor& x) {
  testing::Run r = RunOp("Cast", {x}, {{"SrcT", TypeA(tf::DT_BFLOAT16)}, {"DstT", TypeA(tf::DT_FLOAT)}});
  INFO(r.status);
  REQUIRE(r.status.ok());
  REQUIRE(r.outputs[0].dtype() == tf::DT_FLOAT);
  return r.outputs[0];
}

struct CastCase {
  const char* what;
  uint32_t in;
  uint16_t truncated, rounded;
};

TEST_CASE("Cast float to bfloat16 truncates or rounds to nearest even, bit for bit", "[cast][bfloat16]") {
  const std::vector<CastCase> cases = {
      {"1.0", 0x3F800000u, 0x3F80, 0x3F80},
      {"low half above a half", 0x3F8FFFFFu, 0x3F8F, 0x3F90},
      {"tie, kept half even", 0x3F808000u, 0x3F80, 0x3F80},
      {"tie, kept half odd", 0x3F818000u, 0x3F81, 0x3F82},
      {"just above a tie", 0x3F808001u, 0x3F80, 0x3F81},
      {"just below a tie", 0x3F807FFFu, 0x3F80, 0x3F80},
      {"negative", 0xBF8FFFFFu, 0xBF8F, 0xBF90},
      {"+0", 0x00000000u, 0x0000, 0x0000},
      {"-0", 0x80000000u, 0x8000, 0x8000},
      {"+inf", 0x7F800000u, 0x7F80, 0x7F80},
      {"-inf", 0xFF800000u, 0xFF80, 0xFF80},
      {"largest float rounds to inf", 0x7F7FFFFFu, 0x7F7F, 0x7F80},
      {"quiet NaN", 0x7FC00000u, 0x7FC0, 0x7FC0},
      {"NaN whose payload is in the low half stays NaN", 0x7F800001u, 0x7FC0, 0x7FC0},
      {"negative NaN", 0xFFC12345u, 0xFFC0, 0xFFC0},
      {"denormal", 0x00012345u, 0x0001, 0x0001},
      {"denormal rounding up to the next", 0x0000FFFFu, 0x0000, 0x0001},
      {"negative denormal tie", 0x80008000u, 0x8000, 0x8000},
  };
  std::vector<uint32_t> in;
  for (const CastCase& c : cases) in.push_back(c.in);
  const Tensor x = FloatsFromBits(in);
  const std::vector<uint16_t> truncated = BitsOf<uint16_t>(CastToBfloat16(x, true));
  const std::vector<uint16_t> rounded = BitsOf<uint16_t>(CastToBfloat16(x, false));
  for (size_t i = 0; i < cases.size(); ++i) {
    INFO(cases[i].what << ": 0x" << std::hex << cases[i].in);
    CHECK(truncated[i] == cases[i].truncated);
    CHECK(rounded[i] == cases[i].rounded);
  }
}

TEST_CASE("Truncate defaults to false: rounding, as TensorFlow's Cast", "[cast][bfloat16]") {
  testing::Run r = RunOp("Cast", {FloatsFromBits({0x3F8FFFFFu})},
                         {{"SrcT", TypeA(tf::DT_FLOAT)}, {"DstT", TypeA(tf::DT_BFLOAT16)}});
  REQUIRE(r.status.ok());
  CHECK(BitsOf<uint16_t>(r.outputs[0]) == std::vector<uint16_t>{0x3F90});
}

TEST_CASE("Cast bfloat16 to float puts zeros in the low 16 bits", "[cast][bfloat16]") {
  const Tensor y = ToFloat(Bfloat16sFromBits({0x3F80, 0x3F8F, 0xBF90, 0xFF80, 0x7F80, 0x7FC1, 0x0001, 0x8000}));
  CHECK(BitsOf<uint32_t>(y) == std::vector<uint32_t>{0x3F800000u, 0x3F8F0000u, 0xBF900000u, 0xFF800000u,
                                                      0x7F800000u, 0x7FC10000u, 0x00010000u, 0x80000000u});
  CHECK(std::isnan(y.base<float>()[5]));
}

TEST_CASE("a float through truncation and back loses only its low mantissa half", "[cast][bfloat16]") {
  std::vector<uint32_t> in;
  for (uint32_t i = 0; i < 4096; ++i) in.push_back((0x3F800000u + i * 0x1357u) | (i % 2 ? 0x80000000u : 0u));
  const std::vector<uint32_t> back = BitsOf<uint32_t>(ToFloat(CastToBfloat16(FloatsFromBits(in), true)));
  for (size_t i = 0; i < in.size(); ++i) {
    INFO(i);
    CHECK(back[i] == (in[i] & 0xFFFF0000u));
  }
  // A large tensor takes the parallel path and gives the same bits.
  Tensor big(tf::DT_FLOAT, TensorShape({1 << 20}));
  for (int i = 0; i < (1 << 20); ++i) big.base<float>()[i] = static_cast<float>(i) * 1.001f;
  const std::vector<uint32_t> big_back = BitsOf<uint32_t>(ToFloat(CastToBfloat16(big, true)));
  const std::vector<uint32_t> big_in = BitsOf<uint32_t>(big);
  bool all_truncated = true;
  for (size_t i = 0; i < big_in.size(); ++i) all_truncated = all_truncated && big_back[i] == (big_in[i] & 0xFFFF0000u);
  CHECK(all_truncated);
}

// Through the lossy link: what a cross-device edge with lossy_float_transfers delivers.
std::vector<float> Lossy(const std::vector<float>& v) {
  const Tensor back = ToFloat(CastToBfloat16(Tensor::FromVector(v), true));
  return std::vector<float>(back.base<float>(), back.base<float>() + back.NumElements());
}

TEST_CASE("training still converges when activations and gradients cross as truncated bfloat16",
          "[cast][bfloat16]") {
  // Device A holds the model y = w x + b and sends its predictions; device B holds the
  // targets of y = 3x + 2 and sends back dLoss/dprediction for the mean squared error. Both
  // crossings are lossy. Plain gradient descent must still find w = 3, b = 2.
  const int n = 64;
  std::vector<float> x(n), target(n);
  for (int i = 0; i < n; ++i) {
    x[i] = -1.0f + 2.0f * i / (n - 1);
    target[i] = 3.0f * x[i] + 2.0f;
  }
  float w = 0, b = 0;
  const float learning_rate = 0.3f;
  for (int step = 0; step < 300; ++step) {
    std::vector<float> prediction(n);
    for (int i = 0; i < n; ++i) prediction[i] = w * x[i] + b;
    const std::vector<float> received = Lossy(prediction);  // A -> B
    std::vector<float> grad(n);
    for (int i = 0; i < n; ++i) grad[i] = 2.0f * (received[i] - target[i]) / n;
    const std::vector<float> grad_back = Lossy(grad);  // B -> A
    float dw = 0, db = 0;
    for (int i = 0; i < n; ++i) {
      dw += grad_back[i] * x[i];
      db += grad_back[i];
    }
    w -= learning_rate * dw;
    b -= learning_rate * db;
  }
  double loss = 0;
  for (int i = 0; i < n; ++i) loss += std::pow(w * x[i] + b - target[i], 2) / n;
  INFO("w " << w << " b " << b << " loss " << loss);
  CHECK(std::abs(w - 3.0f) < 0.05f);
  CHECK(std::abs(b - 2.0f) < 0.05f);
  CHECK(loss < 1e-3);
}

}  // namespace
}  // namespace tensoract
