// MaxPoolV2, MaxPoolGradV2 and MaxPoolGradGradV2 (TensorFlow 2's max pools, ksize and strides
// as int32 inputs) share the V1 kernels: on the same window they give V1's values exactly,
// refuse the windows V1 refuses, and their shape functions use a constant window.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "graph/builder/attr_util.h"
#include "graph/builder/ops.h"
#include "tests/kernels/kernel_test_util.h"

namespace tensoract {
namespace {

using testing::AttrMap;
using testing::Ints;
using testing::RunMaybe;
using testing::RunOp;
using testing::Str;
using testing::Values;

Tensor Int32s(const std::vector<int32_t>& v) { return Tensor::FromVector(v, TensorShape({static_cast<int64_t>(v.size())})); }

// Distinct values, and (with `ties`) small integers with many equal taps.
template <class T>
Tensor PoolPattern(const TensorShape& shape, bool ties) {
  std::vector<T> v(shape.num_elements());
  for (size_t i = 0; i < v.size(); ++i) {
    v[i] = ties ? static_cast<T>(static_cast<int>(i * 7 % 5) - 2) : static_cast<T>(std::sin(0.7 * i) * 100);
  }
  return Tensor::FromVector(v, shape);
}

struct Window {
  std::vector<int32_t> ksize, strides;
  std::string padding;
};

template <class T>
void CheckV2EqualsV1(DataType dtype) {
  const std::vector<Window> windows = {{{1, 2, 2, 1}, {1, 2, 2, 1}, "VALID"},
                                       {{1, 3, 3, 1}, {1, 2, 2, 1}, "SAME"},   // overlapping, past the edges
                                       {{1, 3, 2, 1}, {1, 1, 2, 1}, "SAME"},
                                       {{1, 2, 3, 1}, {1, 2, 1, 1}, "VALID"}};
  for (bool ties : {false, true}) {
    for (const Window& w : windows) {
      INFO("ksize " << w.ksize[1] << "x" << w.ksize[2] << " strides " << w.strides[1] << "x" << w.strides[2] << " "
                    << w.padding << (ties ? " ties" : ""));
      const AttrMap v2 = {{"T", testing::TypeA(dtype)}, {"padding", Str(w.padding)}};
      AttrMap v1 = v2;
      v1["ksize"] = Ints(std::vector<int64_t>(w.ksize.begin(), w.ksize.end()));
      v1["strides"] = Ints(std::vector<int64_t>(w.strides.begin(), w.strides.end()));
      const Tensor ksize = Int32s(w.ksize), strides = Int32s(w.strides);
      const Tensor x = PoolPattern<T>(TensorShape({2, 7, 6, 3}), ties);

      auto y1 = RunOp("MaxPool", {x}, v1);
      auto y2 = RunOp("MaxPoolV2", {x, ksize, strides}, v2);
      REQUIRE(y1.status.ok());
      REQUIRE(y2.status.ok());
      REQUIRE(y2.outputs[0].shape() == y1.outputs[0].shape());
      CHECK(Values<T>(y2.outputs[0]) == Values<T>(y1.outputs[0]));

      const Tensor& y = y1.outputs[0];
      const Tensor dy = PoolPattern<T>(y.shape(), false);
      auto g1 = RunOp("MaxPoolGrad", {x, y, dy}, v1);
      auto g2 = RunOp("MaxPoolGradV2", {x, y, dy, ksize, strides}, v2);
      REQUIRE(g1.status.ok());
      REQUIRE(g2.status.ok());
      CHECK(Values<T>(g2.outputs[0]) == Values<T>(g1.outputs[0]));

      const Tensor ddx = PoolPattern<T>(x.shape(), false);
      auto gg1 = RunOp("MaxPoolGradGrad", {x, y, ddx}, v1);
      auto gg2 = RunOp("MaxPoolGradGradV2", {x, y, ddx, ksize, strides}, v2);
      REQUIRE(gg1.status.ok());
      REQUIRE(gg2.status.ok());
      CHECK(Values<T>(gg2.outputs[0]) == Values<T>(gg1.outputs[0]));
    }
  }
}

TEST_CASE("MaxPoolV2 and its gradients equal the V1 ops on the same window", "[conv][max_pool_v2]") {
  SECTION("float") { CheckV2EqualsV1<float>(tensorflow::DT_FLOAT); }
  SECTION("int32") { CheckV2EqualsV1<int32_t>(tensorflow::DT_INT32); }
}

// TensorFlow 2.21's kernels: "Sliding window ksize field must specify 4 dimensions"
// (InvalidArgument), "Pooling is not yet supported on the batch dimension." (Unimplemented).
TEST_CASE("the V2 max pools refuse windows as TensorFlow and V1 do", "[conv][max_pool_v2]") {
  const Tensor x = PoolPattern<float>(TensorShape({2, 4, 4, 2}), false);
  const AttrMap attrs = {{"T", testing::TypeA(tensorflow::DT_FLOAT)}, {"padding", Str("VALID")}};
  const Tensor two = Int32s({1, 2, 2, 1});
  SECTION("ksize of 3 elements") {
    auto r = RunMaybe("MaxPoolV2", {x, Int32s({1, 2, 2}), two}, attrs);
    REQUIRE(r.status.code() == error::INVALID_ARGUMENT);
    CHECK_THAT(r.status.message(), Catch::Contains("node 'n'") && Catch::Contains("ksize field must specify 4"));
  }
  SECTION("strides of 5 elements") {
    auto r = RunMaybe("MaxPoolV2", {x, two, Int32s({1, 2, 2, 1, 1})}, attrs);
    REQUIRE(r.status.code() == error::INVALID_ARGUMENT);
    CHECK_THAT(r.status.message(), Catch::Contains("stride field must specify 4"));
  }
  SECTION("a window over the batch") {
    auto r = RunMaybe("MaxPoolV2", {x, Int32s({2, 2, 2, 1}), two}, attrs);
    REQUIRE(r.status.code() == error::UNIMPLEMENTED);
    CHECK_THAT(r.status.message(), Catch::Contains("batch"));
  }
  SECTION("a window over the depth") {
    const Tensor y = PoolPattern<float>(TensorShape({2, 2, 2, 2}), false);
    auto r = RunMaybe("MaxPoolGradV2", {x, y, y, Int32s({1, 2, 2, 2}), two}, attrs);
    REQUIRE(r.status.code() == error::UNIMPLEMENTED);
    CHECK_THAT(r.status.message(), Catch::Contains("depth"));
  }
  SECTION("a zero stride") {
    auto r = RunMaybe("MaxPoolGradGradV2", {x, x, x, two, Int32s({1, 0, 2, 1})}, attrs);
    REQUIRE(r.status.code() == error::INVALID_ARGUMENT);
    CHECK_THAT(r.status.message(), Catch::Contains("stride must be positive"));
  }
}

TEST_CASE("MaxPoolV2's shape uses a constant window and is unknown otherwise, as TensorFlow's", "[conv][max_pool_v2]") {
  Scope root = Scope::NewRootScope();
  const DataType f32 = tensorflow::DT_FLOAT;
  auto x = ops::Placeholder(root, f32, PartialTensorShape({8, 28, 27, 4}));
  ops::Attrs same;
  same["padding"] = Str("SAME");
  auto known = ops::TypedOp(root, "MaxPoolV2", {x, ops::Const(root, {1, 3, 3, 1}), ops::Const(root, {1, 2, 2, 1})}, same);
  auto fed = ops::TypedOp(root, "MaxPoolV2", {x, ops::Placeholder(root, tensorflow::DT_INT32),
                                              ops::Const(root, {1, 2, 2, 1})}, same);
  auto gg = ops::TypedOp(root, "MaxPoolGradGradV2",
                         {x, ops::Placeholder(root, f32), x, ops::Const(root, {1, 2, 2, 1}), ops::Const(root, {1, 2, 2, 1})},
                         same);
  REQUIRE(root.status().ok());
  auto shape = [](const Output& o) { return o.node->output_shape(o.index).DebugString(); };
  CHECK(shape(known) == "[8,14,14,4]");
  CHECK(shape(fed) == "<unknown>");
  CHECK(shape(gg) == "[8,14,14,4]");

  Scope bad = Scope::NewRootScope();
  ops::TypedOp(bad, "MaxPoolV2", {ops::Placeholder(bad, f32, PartialTensorShape({1, 4, 4, 1})),
                                  ops::Const(bad, {1, 2, 2}), ops::Const(bad, {1, 2, 2, 1})}, same);
  CHECK_FALSE(bad.status().ok());
}

}  // namespace
}  // namespace tensoract
