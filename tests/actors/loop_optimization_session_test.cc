// Loop-invariant motion in a session (graph/optimizer/loop_invariant_motion.h): a loop
// computes the same values with the pass as without it (GraphOptimizerOptions::
// do_loop_optimization off), for no iterations, one and many, with a body that reads a
// variable it also writes (the read must stay in the loop) and with one that only reads it
// (the read moves out).
#include <catch2/catch.hpp>

#include "graph/builder/array_ops.h"
#include "graph/builder/control_flow.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/ops.h"
#include "tests/actors/test_util.h"
#include "tests/graph/test_util.h"

namespace tensoract {
namespace {

using testing::kScalar;

using testing::Values;
namespace tf = ::tensorflow;


// while (i < n) { i += 1; acc = acc * 0.5 + x * 3 + w [+ v after v += 1] } with w and v
// variables (w = 0.25 and v = 0 after target "init"); fetched as "result".
tf::GraphDef Loop(bool writes_variable) {
  return testing::BuildGraph([&](const Scope& root) {
    const testing::LoopInputs inputs = testing::MakeLoopInputs(root);
    const Output n = inputs.n, x = inputs.x, w = inputs.w, v = inputs.v;
    const std::vector<Output> out = testing::CountedLoop(
        root, n, {ops::Const(root, 0), ops::ZerosLike(root, x)}, [&](const Scope& sc, const std::vector<Output>& in) {
          Output acc = ops::Add(sc, ops::Mul(sc, in[1], 0.5f), ops::Mul(sc, x, 3.f));
          acc = ops::Add(sc, acc, ops::ReadVariableOp(sc, w, tf::DT_FLOAT));
          if (writes_variable) {
            Node* bump = ops::AssignAddVariableOp(sc, v, 1.f);
            acc = ops::Add(sc, acc, ops::ReadVariableOp(sc.WithControlDependencies({bump}), v, tf::DT_FLOAT));
          }
          return std::vector<Output>{ops::Add(sc, in[0], 1), acc};
        }, "loop");
    ops::Identity(root.WithOpName("result"), out[1]);
  });
}

std::vector<float> RunLoop(Session* session, int n) {
  std::vector<Tensor> out;
  Status s = session->Run({}, {}, {"init"}, &out);
  INFO(s.ToString());
  REQUIRE(s.ok());
  s = session->Run({{"x", Tensor::FromVector<float>({1.f, -2.f})}, {"n", Tensor::Scalar<int32_t>(n)}}, {"result"}, {},
                   &out);
  INFO(s.ToString());
  REQUIRE(s.ok());
  return Values(out[0]);
}

SessionOptions Motion(bool on) {
  SessionOptions options;
  options.optimizer.do_loop_optimization = on;
  return options;
}

TEST_CASE("a loop computes the same values with its invariants moved out and Identities skipped", "[optimizer][loops][control_flow]") {
  for (bool writes : {false, true}) {
    auto plain = testing::NewSessionWith(Loop(writes), Motion(false));
    auto moved = testing::NewSessionWith(Loop(writes), Motion(true));
    for (int n : {0, 1, 7, 7}) {
      INFO("writes a variable: " << writes << ", n = " << n);
      std::vector<float> want = RunLoop(plain.get(), n);
      CHECK(RunLoop(moved.get(), n) == want);
    }
  }
  // The values themselves, once: acc_k = acc_{k-1} / 2 + 3x + 0.25 + k for the writing loop.
  auto session = testing::NewSessionWith(Loop(true), Motion(true));
  float a = 0.f, b = 0.f;
  for (int k = 1; k <= 3; ++k) {
    a = a * 0.5f + 3.f + 0.25f + k;
    b = b * 0.5f - 6.f + 0.25f + k;
  }
  CHECK(RunLoop(session.get(), 3) == std::vector<float>{a, b});
}

}  // namespace
}  // namespace tensoract
