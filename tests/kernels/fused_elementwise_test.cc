// _FusedElementwise (kernels/cpu/fused_elementwise_op.cc): a program over full tensors,
// per-channel vectors and constants gives each element the unfused ops' value to the bit;
// a per-channel Sum or Mean ends it; full operands of a smaller shape broadcast, a target
// shape alone gives the output's shape; a program or vector that does not fit is refused
// with the node named.
#include <cmath>
#include <vector>

#include <catch2/catch.hpp>

#include "tests/kernels/kernel_test_util.h"

namespace tensoract {
namespace {

using testing::AttrMap;
using testing::IntA;
using testing::Str;
using testing::Strs;
using testing::TypeA;
using testing::Values;

AttrMap Program(int64_t full, int64_t vectors, int64_t shapes, const std::vector<std::string>& program,
                const std::vector<float>& constants = {}, const std::string& reduce = "none", bool keep_dims = false) {
  tensorflow::AttrValue c;
  for (float v : constants) c.mutable_list()->add_f(v);
  tensorflow::AttrValue keep;
  keep.set_b(keep_dims);
  return {{"T", TypeA(tensorflow::DT_FLOAT)}, {"num_full", IntA(full)}, {"num_vectors", IntA(vectors)},
          {"num_shapes", IntA(shapes)},       {"program", Strs(program)}, {"constants", c},
          {"reduce", Str(reduce)},            {"keep_dims", keep}};
}

// Many blocks and shards: 70 * 33 rows of 40 channels.
const std::vector<int64_t> kDims = {70, 33, 40};

TEST_CASE("_FusedElementwise computes a batch norm's input gradient element by element as the unfused ops") {
  const Tensor dy = testing::SinePattern(kDims, 0.37f);
  const Tensor x = testing::SinePattern(kDims, 0.11f, 3.f);
  const Tensor scale = testing::SinePattern({40}, 0.7f);
  const Tensor a = testing::SinePattern({1, 1, 40}, 0.3f);
  const Tensor mean = testing::SinePattern({1, 1, 40}, 0.9f);
  // AddN(dy * scale, a, (2 * a) * (x - mean)), as the remapper writes it.
  auto r = testing::RunOp("_FusedElementwise", {dy, x, scale, a, mean},
                          Program(2, 3, 0,
                                  {"mul f0 v0", "add r0 v1", "mul c0 v1", "sub f1 v2", "mul r2 r3", "add r1 r4"},
                                  {2.f}));
  REQUIRE(r.status.ok());
  REQUIRE(r.outputs[0].shape() == x.shape());
  const std::vector<float> dyv = Values<float>(dy), xv = Values<float>(x), sv = Values<float>(scale),
                           av = Values<float>(a), mv = Values<float>(mean), got = Values<float>(r.outputs[0]);
  int differ = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const size_t c = i % 40;
    // volatile: one rounding per op, as the kernel's separate passes (no fused multiply-add)
    const volatile float first = dyv[i] * sv[c];
    const volatile float sum = first + av[c];
    const volatile float doubled = 2.f * av[c];
    const volatile float centred = xv[i] - mv[c];
    const volatile float product = doubled * centred;
    const float want = sum + product;
    differ += got[i] != want;
  }
  CHECK(differ == 0);
}

TEST_CASE("_FusedElementwise sums or averages its result per channel, keeping the dimensions if asked") {
  const Tensor x = testing::SinePattern(kDims, 0.11f, 3.f);
  const Tensor mean = testing::SinePattern({1, 1, 40}, 0.9f);
  const std::vector<float> xv = Values<float>(x), mv = Values<float>(mean);
  std::vector<double> sums(40, 0.0);
  for (size_t i = 0; i < xv.size(); ++i) {
    const float d = xv[i] - mv[i % 40];
    sums[i % 40] += d * d;
  }
  const double rows = 70.0 * 33.0;

  auto sum = testing::RunOp("_FusedElementwise", {x, mean},
                            Program(1, 1, 0, {"squared_difference f0 v0"}, {}, "sum"));
  REQUIRE(sum.status.ok());
  CHECK(sum.outputs[0].shape() == TensorShape({40}));
  auto average = testing::RunOp("_FusedElementwise", {x, mean},
                                Program(1, 1, 0, {"squared_difference f0 v0"}, {}, "mean", true));
  REQUIRE(average.status.ok());
  CHECK(average.outputs[0].shape() == TensorShape({1, 1, 40}));
  const std::vector<float> s = Values<float>(sum.outputs[0]), m = Values<float>(average.outputs[0]);
  for (int c = 0; c < 40; ++c) {
    INFO("channel " << c);
    CHECK(s[c] == Approx(sums[c]).epsilon(1e-6));
    CHECK(m[c] == Approx(sums[c] / rows).epsilon(1e-6));
  }
}

TEST_CASE("_FusedElementwise broadcasts a smaller full operand, and takes its shape from a target shape") {
  // x of one row broadcast against y of three: as Mul would.
  const Tensor x = Tensor::FromVector<float>({1, 2}, TensorShape({1, 2}));
  const Tensor y = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, TensorShape({3, 2}));
  auto r = testing::RunOp("_FusedElementwise", {x, y}, Program(2, 0, 0, {"mul f0 f1", "neg r0"}));
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({3, 2}));
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{-1, -4, -3, -8, -5, -12});

  // Only vectors and a BroadcastTo's shape: AddN(BroadcastTo(a, [2, 3]), b).
  auto spread = testing::RunOp("_FusedElementwise",
                               {Tensor::FromVector<float>({1, 2, 3}), Tensor::FromVector<float>({10, 20, 30}),
                                Tensor::FromVector<int32_t>({2, 3})},
                               Program(0, 2, 1, {"add v0 v1"}));
  REQUIRE(spread.status.ok());
  CHECK(spread.outputs[0].shape() == TensorShape({2, 3}));
  CHECK(Values<float>(spread.outputs[0]) == std::vector<float>{11, 22, 33, 11, 22, 33});
}

TEST_CASE("_FusedElementwise refuses a program naming what it lacks, and a vector of the wrong size") {
  auto bad = testing::RunMaybe("_FusedElementwise", {Tensor::FromVector<float>({1, 2})},
                               Program(1, 0, 0, {"mul f0 r0"}));
  REQUIRE(bad.status.code() == error::INVALID_ARGUMENT);
  CHECK(bad.status.message().find("node 'n'") != std::string::npos);
  CHECK(bad.status.message().find("operand 'r0' names no input") != std::string::npos);

  auto unknown = testing::RunMaybe("_FusedElementwise", {Tensor::FromVector<float>({1, 2})},
                                   Program(1, 0, 0, {"pow f0 f0"}));
  REQUIRE(unknown.status.code() == error::INVALID_ARGUMENT);
  CHECK(unknown.status.message().find("instruction 'pow f0 f0'") != std::string::npos);

  auto wide = testing::RunMaybe("_FusedElementwise",
                                {Tensor::FromVector<float>({1, 2, 3, 4}, TensorShape({2, 2})),
                                 Tensor::FromVector<float>({1, 2, 3})},
                                Program(1, 1, 0, {"add f0 v0"}));
  REQUIRE(wide.status.code() == error::INVALID_ARGUMENT);
  CHECK(wide.status.message().find("node 'n'") != std::string::npos);
  CHECK(wide.status.message().find("vector input 0 of shape [3]") != std::string::npos);
}

}  // namespace
}  // namespace tensoract
