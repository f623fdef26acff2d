// The shape functions of Slice, OneHot, StridedSlice, Range and ArgMax as TensorFlow 2.21's
// (issue 32's harness): a graph TensorFlow loads loads here and its kernels refuse the step;
// what TensorFlow refuses when the graph is built (it evaluates constant begin/end/strides
// and Range's arguments) is refused here then too; int16 constants are read.
#include <catch2/catch.hpp>

#include <cstring>
#include <limits>

#include "graph/builder/array_ops.h"
#include "graph/builder/ops.h"
#include "tests/graph/test_util.h"

namespace tensoract {
namespace {

using testing::kFloat;

using testing::ShapeOf;
using testing::ShapeText;




tensorflow::TensorProto Int16s(const std::vector<int>& values) {
  tensorflow::TensorProto p;
  p.set_dtype(tensorflow::DT_INT16);
  p.mutable_tensor_shape()->add_dim()->set_size(static_cast<int64_t>(values.size()));
  for (int v : values) p.add_int_val(v);
  return p;
}

TEST_CASE("Slice beyond a known input is left to its kernel, as TensorFlow's shape function does",
          "[shape][fidelity]") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, kFloat, PartialTensorShape({5}));
  // begin + size past the end, and begin -1: TensorFlow's kernel refuses them when it runs.
  CHECK(ShapeOf(root, ops::Slice(root, x, {3}, {3})) == ShapeText({3}));
  CHECK(ShapeOf(root, ops::Slice(root, x, {-1}, {1})) == ShapeText({1}));
  CHECK(ShapeOf(root, ops::Slice(root, x, {-1}, {-1})) == ShapeText({-1}));
  CHECK(ShapeOf(root, ops::Slice(root, x, {2}, {-1})) == ShapeText({3}));
}

TEST_CASE("Slice refuses when built what makes its shape impossible", "[shape][fidelity]") {
  auto refused = [](std::initializer_list<int32_t> begin, std::initializer_list<int32_t> size) {
    Scope root = Scope::NewRootScope();
    ops::Slice(root, ops::Placeholder(root, kFloat, PartialTensorShape({5})), begin, size);
    return root.status();
  };
  CHECK(refused({6}, {-1}).code() == error::INVALID_ARGUMENT);  // 5 - 6 elements
  CHECK(refused({-2}, {1}).code() == error::INVALID_ARGUMENT);  // below -1, as a shape
  CHECK(refused({2}, {-2}).code() == error::INVALID_ARGUMENT);
}

TEST_CASE("OneHot's axis past the indices' rank wraps when built; its kernel refuses it", "[shape][fidelity]") {
  Scope root = Scope::NewRootScope();
  auto indices = ops::Placeholder(root, tensorflow::DT_INT32, PartialTensorShape({4}));
  // (axis + rank + 1) % (rank + 1), as TensorFlow's shape function computes it.
  CHECK(ShapeOf(root, ops::OneHot(root, indices, 3, 1.0f, 0.0f, /*axis=*/3)) == ShapeText({4, 3}));
  CHECK(ShapeOf(root, ops::OneHot(root, indices, 3, 1.0f, 0.0f, /*axis=*/2)) == ShapeText({3, 4}));
  CHECK(ShapeOf(root, ops::OneHot(root, indices, 3, 1.0f, 0.0f, /*axis=*/0)) == ShapeText({3, 4}));
  CHECK(ShapeOf(root, ops::OneHot(root, indices, 3, 1.0f, 0.0f)) == ShapeText({4, 3}));
  Scope bad = Scope::NewRootScope();
  ops::OneHot(bad, ops::Placeholder(bad, tensorflow::DT_INT32, PartialTensorShape({4})), -3, 1.0f, 0.0f);
  CHECK(bad.status().code() == error::INVALID_ARGUMENT);  // a negative depth is refused when built
}

TEST_CASE("StridedSlice evaluates constant begin, end and strides when built", "[shape][fidelity]") {
  auto slice = [](Scope& root, PartialTensorShape shape, std::initializer_list<int32_t> b,
                  std::initializer_list<int32_t> e, std::initializer_list<int32_t> s, ops::StridedSliceAttrs a) {
    return ops::StridedSlice(root, ops::Placeholder(root, kFloat, shape), b, e, s, a);
  };
  Scope root = Scope::NewRootScope();
  ops::StridedSliceAttrs none, shrink0, masked;
  shrink0.shrink_axis_mask = 1;
  masked.begin_mask = 2;
  masked.end_mask = 2;
  masked.new_axis_mask = 4;
  CHECK(ShapeOf(root, slice(root, PartialTensorShape({10}), {1}, {8}, {2}, none)) == ShapeText({4}));
  CHECK(ShapeOf(root, slice(root, PartialTensorShape({10, 3}), {-1}, {0}, {1}, shrink0)) == ShapeText({3}));
  // Masked and new axes: x[1:3, :, tf.newaxis] on an unknown middle dimension.
  CHECK(ShapeOf(root, slice(root, PartialTensorShape({4, -1, 2}), {1, 0, 0}, {3, 0, 0}, {1, 1, 1}, masked)) ==
        ShapeText({2, -1, 1, 2}));
  // An index into an unknown dimension is not checked, as in TensorFlow.
  CHECK(ShapeOf(root, slice(root, PartialTensorShape({-1}), {20}, {21}, {1}, shrink0)) == ShapeText({}));

  auto refused = [&](PartialTensorShape shape, std::initializer_list<int32_t> b, std::initializer_list<int32_t> e,
                     std::initializer_list<int32_t> s, ops::StridedSliceAttrs a) {
    Scope r = Scope::NewRootScope();
    slice(r, std::move(shape), b, e, s, a);
    return r.status();
  };
  Status st = refused(PartialTensorShape({10}), {20}, {21}, {1}, shrink0);
  CHECK(st.code() == error::INVALID_ARGUMENT);
  CHECK(st.message().find("slice index 20 of dimension 0 out of bounds") != std::string::npos);
  ops::StridedSliceAttrs two_ellipses;
  two_ellipses.ellipsis_mask = 3;
  st = refused(PartialTensorShape({4, 5}), {1, 1}, {3, 4}, {1, 1}, two_ellipses);
  CHECK(st.message().find("Multiple ellipses in slice spec not allowed") != std::string::npos);
  CHECK(refused(PartialTensorShape({4}), {0}, {4}, {0}, none).code() == error::INVALID_ARGUMENT);
}

TEST_CASE("int16 constant indices and axes are read when a graph is built", "[shape][fidelity]") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, kFloat, PartialTensorShape({10}));
  CHECK(ShapeOf(root, ops::StridedSlice(root, x, Int16s({1}), Int16s({8}), Int16s({2}))) == ShapeText({4}));
  auto m = ops::Placeholder(root, kFloat, PartialTensorShape({17, 33}));
  tensorflow::TensorProto axis;
  axis.set_dtype(tensorflow::DT_INT16);
  axis.add_int_val(1);
  CHECK(ShapeOf(root, ops::ArgMax(root, m, axis)) == ShapeText({17}));
}

TEST_CASE("Range with constant arguments has a known length, and refuses what its kernel would when built",
          "[shape][fidelity]") {
  Scope root = Scope::NewRootScope();
  CHECK(ShapeOf(root, ops::Range(root, 0, 10, 3)) == ShapeText({4}));
  CHECK(ShapeOf(root, ops::Range(root, 10, 0, -2)) == ShapeText({5}));
  // In float, as TensorFlow divides: 3 elements (in double there would be 4).
  CHECK(ShapeOf(root, ops::Range(root, 0.0f, 0.3f, 0.1f)) == ShapeText({3}));
  // A NaN delta passes (TensorFlow's kernel refuses it when it runs).
  CHECK(ShapeOf(root, ops::Range(root, 0.0f, 1.0f, std::numeric_limits<float>::quiet_NaN())) == ShapeText({-1}));
  auto refused = [](auto start, auto limit, auto delta) {
    Scope r = Scope::NewRootScope();
    ops::Range(r, start, limit, delta);
    return r.status();
  };
  CHECK(refused(0, 10, 0).message().find("Requires delta != 0") != std::string::npos);
  CHECK(refused(5, 1, 1).message().find("Requires start <= limit when delta > 0") != std::string::npos);
  CHECK(refused(1.0, 5.0, -1.0).message().find("Requires start >= limit when delta < 0") != std::string::npos);
  CHECK(refused(0.0f, std::numeric_limits<float>::infinity(), 1.0f).code() == error::INVALID_ARGUMENT);
  CHECK(refused(int64_t{0}, std::numeric_limits<int64_t>::max(), int64_t{1}).code() == error::OK);
  // bfloat16: the quotient rounded to bfloat16 (1e30 / 1e-30 is far past int64).
  auto bf16 = [](float v) {
    tensorflow::TensorProto p;
    p.set_dtype(tensorflow::DT_BFLOAT16);
    uint32_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    p.add_half_val(static_cast<int>(bits >> 16));  // truncated to bfloat16: near enough here
    return p;
  };
  CHECK(refused(bf16(0), bf16(1e30f), bf16(1e-30f)).code() == error::INVALID_ARGUMENT);
  Scope b = Scope::NewRootScope();
  CHECK(ShapeOf(b, ops::Range(b, bf16(0), bf16(10), bf16(3))) == ShapeText({4}));
  CHECK(refused(std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(), int64_t{1}).code() ==
        error::INVALID_ARGUMENT);
}

}  // namespace
}  // namespace tensoract

namespace tensoract {
namespace {

TEST_CASE("SplitV refuses constant sizes that cannot split a known dimension when built, as TensorFlow",
          "[shape][fidelity]") {
  auto split = [](std::initializer_list<int32_t> sizes) {
    Scope root = Scope::NewRootScope();
    ops::SplitV(root, ops::Placeholder(root, kFloat, PartialTensorShape({4, 6})), sizes, 0,
                static_cast<int64_t>(sizes.size()));
    return root.status();
  };
  CHECK(split({1, 3}).ok());
  CHECK(split({-1, 3}).ok());
  Status short_sum = split({1, 1});
  CHECK(short_sum.code() == error::INVALID_ARGUMENT);
  CHECK(short_sum.message().find("can't split axis of size 4 into pieces of size [1,1]") != std::string::npos);
  CHECK(split({-1, 5}).code() == error::INVALID_ARGUMENT);  // more than the dimension
  CHECK(split({-1, -1}).code() == error::INVALID_ARGUMENT);  // "size_splits can only have one -1"
}

TEST_CASE("PadV2's constant_values is left to its kernel, as TensorFlow's shape function does", "[shape][fidelity]") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, kFloat, PartialTensorShape({2, 3}));
  // Not a scalar: TensorFlow loads the graph and its kernel refuses the step.
  CHECK(ShapeOf(root, ops::PadV2(root, x, {{1, 1}, {0, 2}}, {1.f, 2.f})) == ShapeText({4, 5}));
}

}  // namespace
}  // namespace tensoract
