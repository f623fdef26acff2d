// Frozen variables (actors/frozen_variables.h) through the Session: a graph that only reads
// a variable takes it as a constant from its second step, folds what it computes from it,
// and reads it again once anything writes, deletes or resets it; a graph that writes the
// variable itself never freezes it.
#include <catch2/catch.hpp>

#include <cmath>
#include <set>

#include "actors/frozen_variables.h"
#include "graph/builder/ops.h"
#include "tests/actors/test_util.h"

namespace tensoract {
namespace {

using testing::Values;

// v = VarHandleOp [3] float; init: v = [1, 4, 9]; y = x * Rsqrt(ReadVariableOp(v)) (a batch
// norm's scale, in small); set: v = new_value; bump: v += [15, 12, 7], and after_bump reads
// v after it in the same step; destroy deletes v.
tensorflow::GraphDef ScaleGraph() {
  Scope root = Scope::NewRootScope();
  auto v = ops::VarHandleOp(root.WithOpName("v"), tensorflow::DT_FLOAT, PartialTensorShape({3}));
  ops::AssignVariableOp(root.WithOpName("init"), v, {1.f, 4.f, 9.f});
  auto read = ops::ReadVariableOp(root.WithOpName("read"), v, tensorflow::DT_FLOAT);
  auto scale = ops::Rsqrt(root.WithOpName("scale"), read);
  auto x = ops::Placeholder(root.WithOpName("x"), tensorflow::DT_FLOAT);
  ops::Mul(root.WithOpName("y"), x, scale);
  auto new_value = ops::Placeholder(root.WithOpName("new_value"), tensorflow::DT_FLOAT);
  ops::AssignVariableOp(root.WithOpName("set"), v, new_value);
  auto bump = ops::AssignAddVariableOp(root.WithOpName("bump"), v, {15.f, 12.f, 7.f});
  auto read_after = ops::ReadVariableOp(root.WithOpName("read_after").WithControlDependencies({bump}), v,
                                        tensorflow::DT_FLOAT);
  ops::Rsqrt(root.WithOpName("after_bump"), read_after);
  ops::DestroyResourceOp(root.WithOpName("destroy"), v);
  tensorflow::GraphDef def;
  REQUIRE(root.ToGraphDef(&def).ok());
  return def;
}

void RunTargetFed(Session& s, const std::string& target, const std::vector<std::pair<std::string, Tensor>>& feeds = {}) {
  Status st = s.Run(feeds, {}, {target}, nullptr);
  INFO(st.ToString());
  REQUIRE(st.ok());
}

struct TracedStep {
  std::vector<float> value;
  std::set<std::string> nodes_run;  // the step's nodes, from its statistics
};

TracedStep FetchTraced(Session& s, const std::string& fetch, const std::vector<std::pair<std::string, Tensor>>& feeds) {
  RunOptions options;
  options.trace_level = RunOptions::FULL_TRACE;
  RunMetadata metadata;
  std::vector<Tensor> out;
  Status st = s.Run(options, feeds, {fetch}, {}, &out, &metadata);
  INFO(st.ToString());
  REQUIRE(st.ok());
  TracedStep step;
  step.value = Values(out[0]);
  for (const auto& dev : metadata.step_stats.dev_stats()) {
    for (const auto& node : dev.node_stats()) step.nodes_run.insert(node.node_name());
  }
  return step;
}

TracedStep FetchY(Session& s) {
  return FetchTraced(s, "y", {{"x", Tensor::FromVector<float>({1.f, 1.f, 1.f}, TensorShape({3}))}});
}

void CheckNearFloats(const std::vector<float>& got, const std::vector<float>& want) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) CHECK(got[i] == Approx(want[i]).epsilon(1e-6));
}

TEST_CASE("a graph that only reads a variable takes it as a constant, and reads it again after a write") {
  auto session = testing::NewSessionWith(ScaleGraph());
  RunTargetFed(*session, "init");

  const TracedStep first = FetchY(*session);
  CheckNearFloats(first.value, {1.f, 0.5f, 1.f / 3});
  CHECK(first.nodes_run.count("read") == 1);  // registered: it reads, and watches the variable

  const TracedStep second = FetchY(*session);  // unchanged since: frozen, the scale folded
  CheckNearFloats(second.value, {1.f, 0.5f, 1.f / 3});
  CHECK(second.nodes_run.count("read") == 0);
  CHECK(second.nodes_run.count("scale") == 0);
  CHECK(second.nodes_run.count("y") == 1);
  // Still frozen while nothing changes (FrozenVariables::Current's shortcut, once it has
  // found them current).
  const TracedStep third = FetchY(*session);
  CheckNearFloats(third.value, {1.f, 0.5f, 1.f / 3});
  CHECK(third.nodes_run.count("read") == 0);

  // Another graph writes the variable: the frozen graph sees it at once, and reads again.
  RunTargetFed(*session, "set", {{"new_value", Tensor::FromVector<float>({4.f, 16.f, 64.f}, TensorShape({3}))}});
  const TracedStep after_set = FetchY(*session);
  CheckNearFloats(after_set.value, {0.5f, 0.25f, 0.125f});
  CHECK(after_set.nodes_run.count("read") == 1);
  // ... for good: a graph whose variables changed once does not freeze again.
  const TracedStep later = FetchY(*session);
  CheckNearFloats(later.value, {0.5f, 0.25f, 0.125f});
  CHECK(later.nodes_run.count("read") == 1);
}

TEST_CASE("an in-place update of a frozen variable's buffer is seen") {
  auto session = testing::NewSessionWith(ScaleGraph());
  RunTargetFed(*session, "init");
  FetchY(*session);
  REQUIRE(FetchY(*session).nodes_run.count("read") == 0);
  // AssignAdd writes in place when no step holds the buffer (the frozen graph's Const holds
  // a copy of the value, not the buffer).
  RunTargetFed(*session, "bump");
  CheckNearFloats(FetchY(*session).value, {0.25f, 0.25f, 0.25f});
}

TEST_CASE("a deleted variable is not read from a frozen graph") {
  auto session = testing::NewSessionWith(ScaleGraph());
  RunTargetFed(*session, "init");
  FetchY(*session);
  REQUIRE(FetchY(*session).nodes_run.count("read") == 0);
  RunTargetFed(*session, "destroy");
  Status st = session->Run({{"x", Tensor::FromVector<float>({1.f, 1.f, 1.f}, TensorShape({3}))}}, {"y"}, {}, nullptr);
  CHECK(st.code() == error::FAILED_PRECONDITION);
  CHECK_THAT(st.message(), Catch::Contains("Could not find variable v"));
  RunTargetFed(*session, "init");  // a new variable of the same name
  CheckNearFloats(FetchY(*session).value, {1.f, 0.5f, 1.f / 3});
}

TEST_CASE("a graph that writes a variable never takes it as a constant") {
  auto session = testing::NewSessionWith(ScaleGraph());
  RunTargetFed(*session, "init");
  // Each step adds [15, 12, 7] and then reads: 16, 16, 16 -> 1/4; 31, 28, 23 next.
  CheckNearFloats(FetchTraced(*session, "after_bump", {}).value, {0.25f, 0.25f, 0.25f});
  const TracedStep second = FetchTraced(*session, "after_bump", {});
  CheckNearFloats(second.value, {1 / std::sqrt(31.f), 1 / std::sqrt(28.f), 1 / std::sqrt(23.f)});
  CHECK(second.nodes_run.count("read_after") == 1);
}

// A convolution, then a batch norm's per-channel scale and shift read from variables: the
// remapper fuses them into one convolution (steps ChannelMul, BiasAdd, Relu). Frozen, its
// filter and scale are constants and the scale goes into the filter
// (graph/optimizer/filter_scale_folding.h): the same values, one step fewer.
TEST_CASE("a frozen convolution's per-channel scale is folded into its filter, with the same values") {
  const std::vector<int64_t> filter_dims = {3, 3, 2, 4};
  std::vector<float> filter(3 * 3 * 2 * 4), input(4 * 4 * 2);
  for (size_t i = 0; i < filter.size(); ++i) filter[i] = std::sin(0.7f * static_cast<float>(i) + 0.3f);
  for (size_t i = 0; i < input.size(); ++i) input[i] = std::cos(0.9f * static_cast<float>(i));
  const std::vector<float> scale = {0.5f, -2.f, 3.f, 0.25f}, shift = {0.1f, -0.2f, 0.3f, -0.4f};
  Scope root = Scope::NewRootScope();
  auto as_input = [](const std::vector<float>& v, const std::vector<int64_t>& dims) {
    tensorflow::TensorProto proto;
    Tensor::FromVector<float>(v, TensorShape(dims)).AsProtoTensorContent(&proto);
    return Input(std::move(proto));
  };
  auto w = ops::VarHandleOp(root.WithOpName("w"), tensorflow::DT_FLOAT, PartialTensorShape(filter_dims));
  auto m = ops::VarHandleOp(root.WithOpName("m"), tensorflow::DT_FLOAT, PartialTensorShape({4}));
  auto b = ops::VarHandleOp(root.WithOpName("b"), tensorflow::DT_FLOAT, PartialTensorShape({4}));
  auto init_w = ops::AssignVariableOp(root, w, as_input(filter, filter_dims));
  auto init_m = ops::AssignVariableOp(root, m, as_input(scale, {4}));
  auto init_b = ops::AssignVariableOp(root, b, as_input(shift, {4}));
  ops::NoOp(root.WithOpName("init").WithControlDependencies({init_w, init_m, init_b}));
  auto x = ops::Placeholder(root.WithOpName("x"), tensorflow::DT_FLOAT, PartialTensorShape({1, 4, 4, 2}));
  auto conv = ops::Conv2D(root.WithOpName("conv"), x, ops::ReadVariableOp(root, w, tensorflow::DT_FLOAT),
                          {1, 1, 1, 1}, "SAME");
  auto scaled = ops::Mul(root.WithOpName("scaled"), conv, ops::ReadVariableOp(root.WithOpName("read_m"), m,
                                                                           tensorflow::DT_FLOAT));
  ops::Relu(root.WithOpName("y"), ops::Add(root, scaled, ops::ReadVariableOp(root, b, tensorflow::DT_FLOAT)));
  tensorflow::GraphDef def;
  REQUIRE(root.ToGraphDef(&def).ok());
  auto session = testing::NewSessionWith(def);
  RunTargetFed(*session, "init");
  // relu(conv(x, w) * m + b), in double; SAME padding of a 3x3 window is one pixel each side.
  std::vector<double> want(4 * 4 * 4);
  for (int r = 0; r < 4; ++r) {
    for (int c = 0; c < 4; ++c) {
      for (int o = 0; o < 4; ++o) {
        double sum = 0;
        for (int dr = 0; dr < 3; ++dr) {
          for (int dc = 0; dc < 3; ++dc) {
            const int ir = r + dr - 1, ic = c + dc - 1;
            if (ir < 0 || ir >= 4 || ic < 0 || ic >= 4) continue;
            for (int i = 0; i < 2; ++i) sum += double(input[(ir * 4 + ic) * 2 + i]) * filter[((dr * 3 + dc) * 2 + i) * 4 + o];
          }
        }
        want[(r * 4 + c) * 4 + o] = std::max(0.0, sum * scale[o] + shift[o]);
      }
    }
  }
  const Tensor feed = Tensor::FromVector<float>(input, TensorShape({1, 4, 4, 2}));
  for (int step = 0; step < 3; ++step) {  // read, frozen (and folded), frozen
    INFO("step " << step);
    const TracedStep traced = FetchTraced(*session, "y", {{"x", feed}});
    REQUIRE(traced.value.size() == want.size());
    for (size_t i = 0; i < want.size(); ++i) CHECK(traced.value[i] == Approx(want[i]).margin(1e-5));
    // Frozen, the scale's read would be a Const the step shows (bound, actors/executor_plan.h);
    // folded into the filter, it is gone.
    if (step == 2) CHECK(traced.nodes_run.count("read_m") == 0);
  }
}

// Keras' mixed precision reads its float32 weights through a Cast to bfloat16 every step. A
// variable over kMaxFrozenVariableBytes read only so is frozen too (the Cast folds into a
// bfloat16 Const); one also read as float stays read at run time.
TEST_CASE("a large variable read only through a Cast to bfloat16 is frozen, the cast folded") {
  constexpr int64_t kElements = 2 * kMaxFrozenVariableBytes / sizeof(float);
  Scope root = Scope::NewRootScope();
  auto w = ops::VarHandleOp(root.WithOpName("w"), tensorflow::DT_FLOAT, PartialTensorShape({kElements}));
  auto u = ops::VarHandleOp(root.WithOpName("u"), tensorflow::DT_FLOAT, PartialTensorShape({kElements}));
  auto init_w = ops::AssignVariableOp(root.WithOpName("init_w"), w,
                                      ops::Fill(root, {static_cast<int32_t>(kElements)}, 1.5f));
  auto init_u = ops::AssignVariableOp(root.WithOpName("init_u"), u,
                                      ops::Fill(root, {static_cast<int32_t>(kElements)}, 0.25f));
  ops::NoOp(root.WithOpName("init").WithControlDependencies({init_w, init_u}));
  auto read_w = ops::ReadVariableOp(root.WithOpName("read_w"), w, tensorflow::DT_FLOAT);
  auto narrow_w = ops::Cast(root.WithOpName("narrow_w"), read_w, tensorflow::DT_BFLOAT16);
  auto read_u = ops::ReadVariableOp(root.WithOpName("read_u"), u, tensorflow::DT_FLOAT);
  auto narrow_u = ops::Cast(root.WithOpName("narrow_u"), read_u, tensorflow::DT_BFLOAT16);
  auto wide = ops::Cast(root, ops::Add(root, narrow_w, narrow_u), tensorflow::DT_FLOAT);
  auto total = ops::Add(root, ops::Sum(root, wide, {0}), ops::Sum(root, read_u, {0}));
  ops::Identity(root.WithOpName("y"), total);
  tensorflow::GraphDef def;
  REQUIRE(root.ToGraphDef(&def).ok());
  auto session = testing::NewSessionWith(def);
  RunTargetFed(*session, "init");
  const float want = kElements * (1.75f + 0.25f);
  const TracedStep first = FetchTraced(*session, "y", {});
  REQUIRE(first.value.size() == 1);
  CHECK(first.value[0] == Approx(want).epsilon(1e-5));
  const TracedStep second = FetchTraced(*session, "y", {});
  CHECK(second.value[0] == Approx(want).epsilon(1e-5));
  CHECK(second.nodes_run.count("read_w") == 0);
  CHECK(second.nodes_run.count("narrow_w") == 0);
  CHECK(second.nodes_run.count("read_u") == 1);  // also read as float: too large to hold twice
}

TEST_CASE("freeze_variables off: a graph reads its variables every step") {
  SessionOptions options;
  options.optimizer.freeze_variables = false;
  auto session = testing::NewSessionWith(ScaleGraph(), options);
  RunTargetFed(*session, "init");
  FetchY(*session);
  const TracedStep second = FetchY(*session);
  CheckNearFloats(second.value, {1.f, 0.5f, 1.f / 3});
  CHECK(second.nodes_run.count("read") == 1);
}

}  // namespace
}  // namespace tensoract
