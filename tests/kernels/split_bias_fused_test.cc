// Graphs TensorFlow 2.21 runs that were refused here (issue 32): SplitV with one output,
// BiasAdd and BiasAddGrad in NCHW on a matrix, and _FusedMatMul with activations after its
// BiasAdd other than Relu. Values and messages are TensorFlow's (tensorflow-cpu, x86-64;
// the Gelu ones from its default oneDNN build, whose Eigen-only kernel refuses Gelu).
#include <catch2/catch.hpp>

#include <cmath>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "tests/kernels/kernel_test_util.h"

namespace tensoract {
namespace {

using testing::IntA;
using testing::Str;

namespace tf = ::tensorflow;
using testing::RunOp;
using testing::Run;
using testing::TypeA;
using testing::Values;


TEST_CASE("SplitV with one output is its input, whose size it must name exactly", "[split]") {
  Tensor x = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3}));
  auto split = [&](std::vector<int64_t> sizes, int32_t axis) {
    return RunOp("SplitV", {x, Tensor::FromVector<int64_t>(sizes), Tensor::Scalar<int32_t>(axis)},
                 {{"T", TypeA(tf::DT_FLOAT)}, {"Tlen", TypeA(tf::DT_INT64)}, {"num_split", IntA(1)}});
  };
  for (auto [sizes, axis] : {std::pair<std::vector<int64_t>, int32_t>{{3}, 1}, {{2}, 0}, {{3}, -1}}) {
    Run r = split(sizes, axis);
    REQUIRE(r.status.ok());
    CHECK(r.outputs[0].shape() == x.shape());
    CHECK(Values<float>(r.outputs[0]) == Values<float>(x));
  }
  // TensorFlow refuses -1 here, though it would mean the whole dimension.
  for (auto [sizes, axis, message] :
       {std::tuple<std::vector<int64_t>, int32_t, const char*>{{-1}, 1, "Input size: 3 output size: -1"},
        {{2}, 1, "Input size: 3 output size: 2"},
        {{0}, 1, "Input size: 3 output size: 0"},
        {{-1}, -2, "Input size: 2 output size: -1"}}) {
    Run r = split(sizes, axis);
    CHECK(r.status.code() == error::INVALID_ARGUMENT);
    CHECK(r.status.message().find(std::string("If there is only one output, it must have the same size as the "
                                              "input. ") + message) != std::string::npos);
  }
  Run r = RunOp("SplitV", {Tensor::Scalar<float>(3), Tensor::FromVector<int64_t>({1}), Tensor::Scalar<int32_t>(0)},
                {{"T", TypeA(tf::DT_FLOAT)}, {"Tlen", TypeA(tf::DT_INT64)}, {"num_split", IntA(1)}});
  CHECK(r.status.code() == error::INVALID_ARGUMENT);
  CHECK(r.status.message().find("-input rank(-0) <= split_dim < input rank (0), but got 0") != std::string::npos);
}

TEST_CASE("BiasAdd and BiasAddGrad in NCHW take a matrix's last dimension as its channels", "[bias]") {
  Tensor x = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3}));
  tf::AttrValue nchw = Str("NCHW");
  Run r = RunOp("BiasAdd", {x, Tensor::FromVector<float>({10, 20, 30})},
                {{"T", TypeA(tf::DT_FLOAT)}, {"data_format", nchw}});
  REQUIRE(r.status.ok());
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{11, 22, 33, 14, 25, 36});
  r = RunOp("BiasAddGrad", {x}, {{"T", TypeA(tf::DT_FLOAT)}, {"data_format", nchw}});
  REQUIRE(r.status.ok());
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{5, 7, 9});
  r = RunOp("BiasAdd", {x, Tensor::FromVector<float>({10, 20})}, {{"T", TypeA(tf::DT_FLOAT)}, {"data_format", nchw}});
  CHECK(r.status.code() == error::INVALID_ARGUMENT);
  CHECK(r.status.message().find("Must provide as many biases as the last dimension of the input tensor: [2] vs. [2,3]") !=
        std::string::npos);
  r = RunOp("BiasAdd", {Tensor::FromVector<float>({1, 2}), Tensor::FromVector<float>({10, 20})},
            {{"T", TypeA(tf::DT_FLOAT)}, {"data_format", nchw}});
  CHECK(r.status.code() == error::INVALID_ARGUMENT);
  CHECK(r.status.message().find("Input tensor must be at least 2D: [2]") != std::string::npos);
}

Run FusedMatMul(const std::vector<std::string>& fused_ops, float alpha = 0.2f, int64_t num_args = 1) {
  Tensor a = Tensor::FromVector<float>({1, -2, 0.5f, -3, 0.25f, 2}, TensorShape({2, 3}));
  Tensor b = Tensor::FromVector<float>({0.5f, -1, 2, 0.3f, -1.5f, 1.2f}, TensorShape({3, 2}));
  Tensor bias = Tensor::FromVector<float>({0.1f, -0.7f});
  tf::AttrValue ops;
  for (const std::string& op : fused_ops) ops.mutable_list()->add_s(op);
  tf::AttrValue leaky;
  leaky.set_f(alpha);
  return RunOp("_FusedMatMul", {a, b, bias},
               {{"T", TypeA(tf::DT_FLOAT)}, {"num_args", IntA(num_args)}, {"fused_ops", ops},
                {"leakyrelu_alpha", leaky}});
}

TEST_CASE("_FusedMatMul applies each activation TensorFlow fuses after its BiasAdd", "[fused]") {
  struct Case {
    std::string activation;
    std::vector<float> want;
  };
  const std::vector<Case> cases = {
      {"", {-4.150000095367432f, -1.7000000476837158f, -3.9000000953674316f, 4.77500057220459f}},
      {"Relu", {0, 0, 0, 4.77500057220459f}},
      {"Relu6", {0, 0, 0, 4.77500057220459f}},
      {"Elu", {-0.9842355847358704f, -0.817316472530365f, -0.979758083820343f, 4.77500057220459f}},
      {"LeakyRelu", {-1.2450001239776611f, -0.5100000500679016f, -1.1700000762939453f, 4.77500057220459f}},
      {"Tanh", {-0.9995030760765076f, -0.9354090690612793f, -0.9991808533668518f, 0.9998575448989868f}},
      {"Sigmoid", {0.015519754029810429f, 0.15446527302265167f, 0.019840305671095848f, 0.9916325211524963f}},
      {"GeluApproximate",
       {-3.3517182600917295e-05f, -0.07589408755302429f, -0.00011216104030609131f, 4.774999618530273f}},
      {"GeluExact", {-6.888955977046862e-05f, -0.0757613480091095f, -0.00018770992755889893f, 4.774996757507324f}},
  };
  for (const Case& c : cases) {
    INFO(c.activation);
    Run r = c.activation.empty() ? FusedMatMul({"BiasAdd"}) : FusedMatMul({"BiasAdd", c.activation}, 0.3f);
    INFO(r.status);
    REQUIRE(r.status.ok());
    std::vector<float> got = Values<float>(r.outputs[0]);
    // TensorFlow's oneDNN Gelu loses ~0.3% in the negative tail (x near -4: the true values
    // are -6.8989e-05 exact and -3.3656e-05 approximate); elsewhere within 2e-5.
    const bool gelu = c.activation.rfind("Gelu", 0) == 0;
    for (size_t i = 0; i < got.size(); ++i) {
      CHECK(got[i] == Approx(c.want[i]).epsilon(gelu && std::abs(c.want[i]) < 1e-3f ? 5e-3 : 2e-5));
    }
  }
  // Relu6 clips above 6 too: a product of 7.4 with that bias.
  Run r = RunOp("_FusedMatMul",
                {Tensor::FromVector<float>({2, 3}, TensorShape({1, 2})), Tensor::FromVector<float>({1, 2}, TensorShape({2, 1})),
                 Tensor::FromVector<float>({-0.6f})},
                {{"T", TypeA(tf::DT_FLOAT)}, {"num_args", IntA(1)}, {"fused_ops", [] {
                   tf::AttrValue v;
                   v.mutable_list()->add_s("BiasAdd");
                   v.mutable_list()->add_s("Relu6");
                   return v;
                 }()}});
  REQUIRE(r.status.ok());
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{6});
}

// The status of making _FusedMatMul's kernel (a refusal comes from its constructor).
Status MakeFusedMatMul(const std::vector<std::string>& fused_ops, int64_t num_args) {
  NodeDef def;
  def.set_name("n");
  def.set_op("_FusedMatMul");
  (*def.mutable_attr())["T"] = TypeA(tf::DT_FLOAT);
  (*def.mutable_attr())["num_args"] = IntA(num_args);
  for (const std::string& op : fused_ops) (*def.mutable_attr())["fused_ops"].mutable_list()->add_s(op);
  auto op_def = OpRegistry::Global()->LookUp("_FusedMatMul");
  REQUIRE(op_def.ok());
  AddDefaultsToNodeDef(**op_def, &def);
  std::unique_ptr<OpKernel> kernel;
  return CreateOpKernel(testing::TestDevice(), def, **op_def, &kernel);
}

TEST_CASE("_FusedMatMul still refuses what it cannot fuse", "[fused]") {
  // TensorFlow refuses a lone activation; BiasAdd then Add with one arg ends its process.
  for (const std::vector<std::string>& ops :
       {std::vector<std::string>{"Relu"}, {"BiasAdd", "Add"}, {"BiasAdd", "Softplus"}, {"BiasAdd", "Relu", "Tanh"}}) {
    Status s = MakeFusedMatMul(ops, 1);
    INFO(s);
    CHECK(s.code() == error::UNIMPLEMENTED);
  }
  CHECK(MakeFusedMatMul({"BiasAdd", "Relu"}, 2).code() == error::UNIMPLEMENTED);
  CHECK(MakeFusedMatMul({"BiasAdd", "GeluExact"}, 1).ok());
}

}  // namespace
}  // namespace tensoract
