// Kernels of Roll, ReverseSequence, TensorFlow 1's Reverse and Concat, and BroadcastArgs.
// Expected values and messages were printed by TensorFlow 2.21 (python3, the tf.raw_ops call
// named in each comment, eagerly on the CPU) and pasted here.
#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "tests/kernels/kernel_test_util.h"

namespace tensoract {
namespace {

using Catch::Contains;
using testing::Run;
using testing::RunOp;
using testing::TypeA;
using testing::Values;

template <class T>
Tensor RrIota(std::vector<int64_t> dims) {
  TensorShape shape(dims);
  std::vector<T> v(shape.num_elements());
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<T>(i);
  return Tensor::FromVector<T>(v, shape);
}

Run RunRoll(const Tensor& x, const Tensor& shift, const Tensor& axis) {
  return RunOp("Roll", {x, shift, axis},
               {{"T", TypeA(x.dtype())}, {"Tshift", TypeA(shift.dtype())}, {"Taxis", TypeA(axis.dtype())}});
}
Run RunReverseSequence(const Tensor& x, const Tensor& lengths, int64_t seq_dim, int64_t batch_dim) {
  return RunOp("ReverseSequence", {x, lengths},
               {{"T", TypeA(x.dtype())}, {"Tlen", TypeA(lengths.dtype())}, {"seq_dim", testing::IntA(seq_dim)},
                {"batch_dim", testing::IntA(batch_dim)}});
}
Run RunReverseV1(const Tensor& x, std::vector<bool> dims) {
  Tensor d(tensorflow::DT_BOOL, TensorShape({static_cast<int64_t>(dims.size())}));
  for (size_t i = 0; i < dims.size(); ++i) d.base<bool>()[i] = dims[i];
  return RunOp("Reverse", {x, d}, {{"T", TypeA(x.dtype())}});
}
Run RunBroadcastArgs(std::vector<int32_t> a, std::vector<int32_t> b) {
  return RunOp("BroadcastArgs", {Tensor::FromVector<int32_t>(a), Tensor::FromVector<int32_t>(b)},
               {{"T", TypeA(tensorflow::DT_INT32)}});
}

TEST_CASE("Roll rotates along each axis, shifts of one axis adding up", "[roll_reverse]") {
  const Tensor x = RrIota<float>({2, 3});
  // Roll(input=x, shift=[1,-1], axis=[0,1])
  Run r = RunRoll(x, Tensor::FromVector<int32_t>({1, -1}), Tensor::FromVector<int32_t>({0, 1}));
  REQUIRE(r.status.ok());
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{4, 5, 3, 1, 2, 0});
  // Roll(input=x, shift=[1,1], axis=[1,-1])
  r = RunRoll(x, Tensor::FromVector<int32_t>({1, 1}), Tensor::FromVector<int64_t>({1, -1}));
  REQUIRE(r.status.ok());
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{1, 2, 0, 4, 5, 3});
  // Roll(input=x, shift=np.int64([2**33+1]), axis=[1]): TensorFlow reads the shift as 32 bits.
  r = RunRoll(x, Tensor::FromVector<int64_t>({(int64_t{1} << 33) + 1}), Tensor::FromVector<int32_t>({1}));
  REQUIRE(r.status.ok());
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{2, 0, 1, 5, 3, 4});
  // Strings move as values; a scalar shift and axis.
  r = RunRoll(Tensor::FromVector<std::string>({"a", "b", "c"}), Tensor::Scalar<int32_t>(-4), Tensor::Scalar<int32_t>(0));
  REQUIRE(r.status.ok());
  CHECK(Values<std::string>(r.outputs[0]) == std::vector<std::string>{"b", "c", "a"});
}

TEST_CASE("Roll refuses bad shapes and axes in TensorFlow's words", "[roll_reverse]") {
  const Tensor x = RrIota<float>({2, 3});
  CHECK_THAT(RunRoll(Tensor::Scalar<float>(3), Tensor::Scalar<int32_t>(2), Tensor::Scalar<int32_t>(0)).status.message(),
             Contains("input must be 1-D or higher"));
  CHECK_THAT(RunRoll(x, Tensor::FromVector<int32_t>({1}), Tensor::FromVector<int32_t>({2})).status.message(),
             Contains("axis 2 is out of range"));
  CHECK_THAT(RunRoll(x, Tensor::FromVector<int32_t>({1, 2}), Tensor::FromVector<int32_t>({0})).status.message(),
             Contains("shift and axis must have the same size"));
}

TEST_CASE("ReverseSequence reverses each batch entry's prefix", "[roll_reverse]") {
  const Tensor y = RrIota<int32_t>({2, 3, 4});
  // ReverseSequence(input=y, seq_lengths=[2,3], seq_dim=2, batch_dim=0)
  Run r = RunReverseSequence(y, Tensor::FromVector<int32_t>({2, 3}), 2, 0);
  REQUIRE(r.status.ok());
  CHECK(Values<int32_t>(r.outputs[0]) == std::vector<int32_t>{1,  0,  2,  3,  5,  4,  6,  7,  9,  8,  10, 11,
                                                              14, 13, 12, 15, 18, 17, 16, 19, 22, 21, 20, 23});
  // ReverseSequence(input=y, seq_lengths=[1,4,0], seq_dim=2, batch_dim=1)
  r = RunReverseSequence(y, Tensor::FromVector<int64_t>({1, 4, 0}), 2, 1);
  REQUIRE(r.status.ok());
  CHECK(Values<int32_t>(r.outputs[0]) == std::vector<int32_t>{0,  1,  2,  3,  7,  6,  5,  4,  8,  9,  10, 11,
                                                              12, 13, 14, 15, 19, 18, 17, 16, 20, 21, 22, 23});
}

TEST_CASE("ReverseSequence refuses bad dimensions and lengths in TensorFlow's words", "[roll_reverse]") {
  const Tensor y = RrIota<int32_t>({2, 3, 4});
  CHECK_THAT(RunReverseSequence(y, Tensor::FromVector<int32_t>({2, 3}), -1, 0).status.message(),
             Contains("Invalid seq_dim -1"));
  CHECK_THAT(RunReverseSequence(y, Tensor::FromVector<int32_t>({2, 3}), 0, 0).status.message(),
             Contains("batch_dim == seq_dim == 0"));
  CHECK_THAT(RunReverseSequence(y, Tensor::FromVector<int32_t>({2, 5}), 2, 0).status.message(),
             Contains("seq_lens(1) > input.dims(2)"));
  CHECK_THAT(RunReverseSequence(y, Tensor::FromVector<int32_t>({2, -1}), 2, 0).status.message(),
             Contains("seq_lens(1) < 0"));
  CHECK_THAT(RunReverseSequence(y, Tensor::FromVector<int32_t>({2, 3, 1}), 2, 0).status.message(),
             Contains("Length of seq_lengths != input.dims(0), (3 vs. 2)"));
  CHECK_THAT(RunReverseSequence(RrIota<float>({2, 1, 1, 1, 1, 1}), Tensor::FromVector<int32_t>({1, 1}), 1, 0)
                 .status.message(),
             Contains("ReverseSequenceOp : Unhandled input dimensions: 6"));
}

TEST_CASE("Reverse (v1) reverses the dimensions marked true", "[roll_reverse]") {
  // Reverse(tensor=np.arange(24).reshape(2,3,4), dims=[True,False,True])
  Run r = RunReverseV1(RrIota<int32_t>({2, 3, 4}), {true, false, true});
  REQUIRE(r.status.ok());
  CHECK(Values<int32_t>(r.outputs[0]) ==
        std::vector<int32_t>{15, 14, 13, 12, 19, 18, 17, 16, 23, 22, 21, 20, 3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8});
  CHECK_THAT(RunReverseV1(RrIota<int32_t>({2, 3, 4}), {true, false}).status.message(),
             Contains("'dims' must have the same number of values as 'input' has dimensions. 'input' has 3'dims' "
                      "has 2 values"));
  // TensorFlow refuses an empty first dimension, not an empty second one.
  CHECK_THAT(RunReverseV1(RrIota<float>({0, 3}), {true, false}).status.message(),
             Contains("Invalid input first dimension. Found 0."));
  r = RunReverseV1(RrIota<float>({3, 0}), {true, true});
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({3, 0}));
}

TEST_CASE("Concat (v1) takes its axis first", "[roll_reverse]") {
  const Tensor x = RrIota<float>({2, 3});
  // Concat(concat_dim=-1, values=[x, x])
  Run r = RunOp("Concat", {Tensor::Scalar<int32_t>(-1), x, x}, {{"T", TypeA(x.dtype())}, {"N", testing::IntA(2)}});
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({2, 6}));
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5});
  r = RunOp("Concat", {Tensor::Scalar<int32_t>(2), x, x}, {{"T", TypeA(x.dtype())}, {"N", testing::IntA(2)}});
  CHECK_THAT(r.status.message(), Contains("ConcatOp : Expected concatenating dimensions in the range [-2, 2), but got 2"));
}

TEST_CASE("BroadcastArgs gives the broadcast shape by TensorFlow's BCast rule", "[roll_reverse]") {
  Run r = RunBroadcastArgs({2, 1, 3}, {4, 1});
  REQUIRE(r.status.ok());
  CHECK(Values<int32_t>(r.outputs[0]) == std::vector<int32_t>{2, 4, 3});
  r = RunBroadcastArgs({}, {4, 1});
  REQUIRE(r.status.ok());
  CHECK(Values<int32_t>(r.outputs[0]) == std::vector<int32_t>{4, 1});
  // BroadcastArgs(s0=[0,3], s1=[1,3]) and (s0=[-1,3], s1=[1,3]): sizes taken as given.
  r = RunBroadcastArgs({0, 3}, {1, 3});
  REQUIRE(r.status.ok());
  CHECK(Values<int32_t>(r.outputs[0]) == std::vector<int32_t>{0, 3});
  r = RunBroadcastArgs({-1, 3}, {1, 3});
  REQUIRE(r.status.ok());
  CHECK(Values<int32_t>(r.outputs[0]) == std::vector<int32_t>{-1, 3});
  CHECK_THAT(RunBroadcastArgs({2, 3}, {4}).status.message(), Contains("Incompatible shapes: [2,3] vs. [4]"));
  CHECK_THAT(RunBroadcastArgs({-1, 3}, {2, 3}).status.message(), Contains("Incompatible shapes: [-1,3] vs. [2,3]"));
}

}  // namespace
}  // namespace tensoract
