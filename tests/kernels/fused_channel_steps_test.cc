// _FusedChannelSteps (kernels/cpu/fused_channel_steps_op.cc): ChannelMul, BiasAdd and Relu
// applied per channel to a tensor of its own, as the unfused Mul, AddV2 and Relu; an arg that
// is not one value per channel refused with the node named.
#include <vector>

#include <catch2/catch.hpp>

#include "tests/kernels/kernel_test_util.h"

namespace tensoract {
namespace {

using testing::AttrMap;
using testing::TypeA;
using testing::Values;

AttrMap StepsAttrs() {
  tensorflow::AttrValue ops, args;
  for (const char* op : {"ChannelMul", "BiasAdd", "Relu"}) ops.mutable_list()->add_s(op);
  args.set_i(2);
  return {{"T", TypeA(tensorflow::DT_FLOAT)}, {"fused_ops", ops}, {"num_args", args}};
}

TEST_CASE("_FusedChannelSteps multiplies, shifts and rectifies each channel") {
  const Tensor x = Tensor::FromVector<float>({1, -2, 3, -4, 5, -6}, TensorShape({2, 3}));
  auto r = testing::RunOp("_FusedChannelSteps",
                          {x, Tensor::FromVector<float>({2, 3, -1}), Tensor::FromVector<float>({0.5f, 1, 1})}, StepsAttrs());
  REQUIRE(r.status.ok());
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{2.5f, 0, 0, 0, 16, 7});
}

TEST_CASE("_FusedChannelSteps refuses an arg that is not one value per channel") {
  auto r = testing::RunMaybe("_FusedChannelSteps",
                             {Tensor::FromVector<float>({1, 2, 3, 4}, TensorShape({2, 2})),
                              Tensor::FromVector<float>({1, 2, 3}), Tensor::FromVector<float>({0, 0})},
                             StepsAttrs());
  REQUIRE(r.status.code() == error::INVALID_ARGUMENT);
  CHECK(r.status.message().find("node 'n'") != std::string::npos);
  CHECK(r.status.message().find("must hold one value per output channel (2), got shape [3]") != std::string::npos);
}

}  // namespace
}  // namespace tensoract
