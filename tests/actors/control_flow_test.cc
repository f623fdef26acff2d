// Control flow (issue 7): Switch/Merge conditionals and Enter/Exit/NextIteration loops run
// through a Session with TensorFlow 1.x's semantics: dead values on untaken branches,
// frames and iterations, loop invariants, parallel_iterations, nesting, and clear errors
// for malformed graphs and loops that never end.
#include <chrono>
#include <set>
#include <thread>

#include <caf/all.hpp>

#include "actors/device_actor.h"
#include "actors/executor.h"
#include "graph/builder/array_ops.h"
#include "graph/builder/control_flow.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/ops.h"
#include "tests/actors/test_util.h"
#include "tests/graph/test_util.h"

namespace tensoract {
namespace {

using testing::Int;

using testing::kScalar;

using testing::NewSessionWith;
using testing::Values;
namespace tf = ::tensorflow;


tf::GraphDef ToGraphDef(const Scope& root) {
  tf::GraphDef def;
  Status s = root.ToGraphDef(&def);
  INFO(s.ToString());
  REQUIRE(s.ok());
  return def;
}

// The names of the nodes a step ran (from its step statistics).
std::set<std::string> NodesRun(Session& session, const std::vector<std::pair<std::string, Tensor>>& feeds,
                               const std::vector<std::string>& fetches, std::vector<Tensor>* out) {
  RunOptions options;
  options.trace_level = RunOptions::FULL_TRACE;
  RunMetadata metadata;
  Status s = session.Run(options, feeds, fetches, {}, out, &metadata);
  INFO(s.ToString());
  REQUIRE(s.ok());
  std::set<std::string> ran;
  for (const auto& dev : metadata.step_stats.dev_stats()) {
    for (const auto& n : dev.node_stats()) ran.insert(n.node_name());
  }
  return ran;
}

float Float(const Tensor& t) { return t.base<float>()[0]; }

// i = 0; while (i < n) i += 1: the number of iterations, counted.
Output CountingLoop(const Scope& root, const Output& n, int64_t parallel_iterations = 10) {
  return testing::Counter(root, n, "while", parallel_iterations);
}

TEST_CASE("a conditional runs only the taken branch and Merge forwards its value") {
  Scope root = Scope::NewRootScope();
  auto p = ops::Placeholder(root.WithOpName("p"), tf::DT_BOOL, kScalar);
  auto x = ops::Const(root.WithOpName("x"), 3.f);
  std::vector<Output> y;
  REQUIRE(ops::Cond(
              root, p,
              [&](const Scope& s, std::vector<Output>* out) {
                out->push_back(ops::Add(s.WithOpName("then_add"), x, 1.f));
                return s.status();
              },
              [&](const Scope& s, std::vector<Output>* out) {
                out->push_back(ops::Mul(s.WithOpName("else_mul"), x, 10.f));
                return s.status();
              },
              &y)
              .ok());
  auto session = NewSessionWith(ToGraphDef(root));
  std::vector<Tensor> out;
  auto ran = NodesRun(*session, {{"p", Tensor::Scalar<bool>(true)}}, {y[0].name()}, &out);
  CHECK(Float(out[0]) == 4.f);
  CHECK(ran.count("cond/then_add") == 1);
  CHECK(ran.count("cond/else_mul") == 0);  // dead: skipped, never run
  ran = NodesRun(*session, {{"p", Tensor::Scalar<bool>(false)}}, {y[0].name()}, &out);
  CHECK(Float(out[0]) == 30.f);
  CHECK(ran.count("cond/then_add") == 0);
  CHECK(ran.count("cond/else_mul") == 1);
}

TEST_CASE("Switch sends data to one port; the other is dead, and so is what it feeds") {
  Scope root = Scope::NewRootScope();
  auto p = ops::Placeholder(root.WithOpName("p"), tf::DT_BOOL, kScalar);
  auto x = ops::Const(root.WithOpName("x"), {1.f, 2.f});
  auto sw = ops::Switch(root.WithOpName("sw"), x, p);
  auto f = ops::Neg(root.WithOpName("f"), sw.output_false);
  auto t = ops::Square(root.WithOpName("t"), sw.output_true);
  auto m = ops::Merge(root.WithOpName("m"), OutputList{f, t});
  auto session = NewSessionWith(ToGraphDef(root));
  std::vector<Tensor> out;
  REQUIRE(session->Run({{"p", Tensor::Scalar<bool>(true)}}, {"m", "m:1", "t"}, {}, &out).ok());
  CHECK(Values(out[0]) == std::vector<float>{1.f, 4.f});
  CHECK(Int(out[1]) == 1);  // value_index: the live input
  // Fetching the dead side is TensorFlow's "does not have value" error.
  Status s = session->Run({{"p", Tensor::Scalar<bool>(true)}}, {"f"}, {}, &out);
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Catch::Contains("does not have value"));
  // A Merge all of whose inputs are dead is dead too.
  auto sw2 = ops::Switch(root.WithOpName("sw2"), x, p);
  auto m2 = ops::Merge(root.WithOpName("m2"), OutputList{sw.output_false, sw2.output_false});
  auto session2 = NewSessionWith(ToGraphDef(root));
  s = session2->Run({{"p", Tensor::Scalar<bool>(true)}}, {"m2"}, {}, &out);
  CHECK(s.code() == error::INVALID_ARGUMENT);
  REQUIRE(session2->Run({{"p", Tensor::Scalar<bool>(false)}}, {"m2"}, {}, &out).ok());
  CHECK(Values(out[0]) == std::vector<float>{1.f, 2.f});
}

TEST_CASE("a Switch whose predicate is not a scalar fails naming the node") {
  Scope root = Scope::NewRootScope();
  auto p = ops::Placeholder(root.WithOpName("p"), tf::DT_BOOL);
  ops::Switch(root.WithOpName("sw"), ops::Const(root, 1.f), p);
  auto session = NewSessionWith(ToGraphDef(root));
  std::vector<Tensor> out;
  Status s = session->Run({{"p", Tensor::FromVector<bool>({true, false})}}, {"sw:1"}, {}, &out);
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Catch::Contains("'sw'") && Catch::Contains("scalar"));
}

TEST_CASE("while loops of 0, 1 and 10,000 iterations end with the right count") {
  Scope root = Scope::NewRootScope();
  auto n = ops::Placeholder(root.WithOpName("n"), tf::DT_INT32, kScalar);
  Output count = CountingLoop(root, n);
  auto session = NewSessionWith(ToGraphDef(root));
  for (int iterations : {0, 1, 2, 10000}) {
    INFO(iterations << " iterations");
    std::vector<Tensor> out;
    Status s = session->Run({{"n", Tensor::Scalar<int32_t>(iterations)}}, {count.name()}, {}, &out);
    INFO(s.ToString());
    REQUIRE(s.ok());
    CHECK(Int(out[0]) == iterations);
  }
}

TEST_CASE("a loop invariant (constant Enter) is seen by every iteration: x^n by repeated multiplication") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), tf::DT_FLOAT, kScalar);
  auto n = ops::Placeholder(root.WithOpName("n"), tf::DT_INT32, kScalar);
  std::vector<Output> r;
  REQUIRE(ops::WhileLoop(
              root, {ops::Const(root, 0), ops::Const(root, 1.f)},
              [&](const Scope& s, const std::vector<Output>& v, Output* pred) {
                *pred = ops::Less(s, v[0], n);
                return s.status();
              },
              [&](const Scope& s, const std::vector<Output>& v, std::vector<Output>* next) {
                *next = {ops::Add(s, v[0], 1), ops::Mul(s, v[1], x)};
                return s.status();
              },
              &r)
              .ok());
  tf::GraphDef def = ToGraphDef(root);
  int constant_enters = 0;
  for (const auto& node : def.node()) {
    if (node.op() == "Enter" && node.attr().at("is_constant").b()) ++constant_enters;
  }
  CHECK(constant_enters == 2);  // n (in the condition) and x (in the body)
  auto session = NewSessionWith(def);
  std::vector<Tensor> out;
  REQUIRE(session->Run({{"x", Tensor::Scalar<float>(1.5f)}, {"n", Tensor::Scalar<int32_t>(5)}}, {r[0].name(), r[1].name()},
                       {}, &out)
              .ok());
  CHECK(Int(out[0]) == 5);
  CHECK(Float(out[1]) == Approx(7.59375f));
}

TEST_CASE("nested loops: an inner loop runs once per outer iteration, in its own frame") {
  Scope root = Scope::NewRootScope();
  auto n = ops::Placeholder(root.WithOpName("n"), tf::DT_INT32, kScalar);
  auto m = ops::Placeholder(root.WithOpName("m"), tf::DT_INT32, kScalar);
  // total = sum over i < n, j < m of (i + j)
  std::vector<Output> r;
  REQUIRE(ops::WhileLoop(
              root, {ops::Const(root, 0), ops::Const(root, 0)},
              [&](const Scope& s, const std::vector<Output>& v, Output* pred) {
                *pred = ops::Less(s, v[0], n);
                return s.status();
              },
              [&](const Scope& s, const std::vector<Output>& v, std::vector<Output>* next) {
                Output i = v[0];
                std::vector<Output> inner;
                TA_RETURN_IF_ERROR(ops::WhileLoop(
                    s, {ops::Const(s, 0), v[1]},
                    [&](const Scope& s2, const std::vector<Output>& w, Output* pred) {
                      *pred = ops::Less(s2, w[0], m);
                      return s2.status();
                    },
                    [&](const Scope& s2, const std::vector<Output>& w, std::vector<Output>* nx) {
                      *nx = {ops::Add(s2, w[0], 1), ops::Add(s2, w[1], ops::Add(s2, i, w[0]))};
                      return s2.status();
                    },
                    &inner, {/*parallel_iterations=*/10, {}, "inner"}));
                *next = {ops::Add(s, i, 1), inner[1]};
                return s.status();
              },
              &r)
              .ok());
  auto session = NewSessionWith(ToGraphDef(root));
  auto run = [&](int nv, int mv) {
    std::vector<Tensor> out;
    Status s = session->Run({{"n", Tensor::Scalar<int32_t>(nv)}, {"m", Tensor::Scalar<int32_t>(mv)}}, {r[1].name()}, {},
                            &out);
    INFO(s.ToString());
    REQUIRE(s.ok());
    return Int(out[0]);
  };
  auto expected = [](int nv, int mv) {
    int t = 0;
    for (int i = 0; i < nv; ++i)
      for (int j = 0; j < mv; ++j) t += i + j;
    return t;
  };
  CHECK(run(3, 4) == expected(3, 4));
  CHECK(run(20, 30) == expected(20, 30));
  CHECK(run(0, 5) == 0);
  CHECK(run(5, 0) == 0);
}

TEST_CASE("parallel_iterations 1 and 32 give the same values") {
  // Each iteration does independent work (a 16x16 MatMul of its own), so iterations overlap
  // when they may; the accumulated result must not depend on it.
  std::vector<std::vector<float>> results;
  for (int64_t parallel : {1, 32}) {
    Scope root = Scope::NewRootScope();
    auto n = ops::Placeholder(root.WithOpName("n"), tf::DT_INT32, kScalar);
    auto w = ops::Fill(root, {16, 16}, 0.01f);
    std::vector<Output> r;
    ops::WhileLoopOptions options;
    options.parallel_iterations = parallel;
    REQUIRE(ops::WhileLoop(
                root, {ops::Const(root, 0), ops::Fill(root, {16, 16}, 0.f)},
                [&](const Scope& s, const std::vector<Output>& v, Output* pred) {
                  *pred = ops::Less(s, v[0], n);
                  return s.status();
                },
                [&](const Scope& s, const std::vector<Output>& v, std::vector<Output>* next) {
                  auto fi = ops::Cast(s, v[0], tf::DT_FLOAT);
                  auto mine = ops::MatMul(s, ops::Fill(s, {16, 16}, fi), w);
                  *next = {ops::Add(s, v[0], 1), ops::Add(s, v[1], mine)};
                  return s.status();
                },
                &r, options)
                .ok());
    auto session = NewSessionWith(ToGraphDef(root));
    std::vector<Tensor> out;
    Status s = session->Run({{"n", Tensor::Scalar<int32_t>(100)}}, {r[1].name()}, {}, &out);
    INFO(s.ToString());
    REQUIRE(s.ok());
    results.push_back(Values(out[0]));
  }
  CHECK(results[0] == results[1]);
  // sum_{i<100} i * 16 * 0.01 = 4950 * 0.16
  CHECK(results[0][0] == Approx(792.f).epsilon(1e-4));
}

TEST_CASE("a loop variable whose shape changes needs a shape invariant, and then grows") {
  auto build = [](bool with_invariant, Output* result, Scope* root_out) {
    Scope root = Scope::NewRootScope();
    auto n = ops::Placeholder(root.WithOpName("n"), tf::DT_INT32, kScalar);
    std::vector<Output> r;
    ops::WhileLoopOptions options;
    if (with_invariant) options.shape_invariants = {kScalar, PartialTensorShape(std::vector<int64_t>{-1})};
    Status s = ops::WhileLoop(
        root, {ops::Const(root, 0), ops::Const(root, {0.f})},
        [&](const Scope& sc, const std::vector<Output>& v, Output* pred) {
          *pred = ops::Less(sc, v[0], n);
          return sc.status();
        },
        [&](const Scope& sc, const std::vector<Output>& v, std::vector<Output>* next) {
          auto fi = ops::Cast(sc, ops::Add(sc, v[0], 1), tf::DT_FLOAT);
          *next = {ops::Add(sc, v[0], 1), ops::Concat(sc, {v[1], ops::Reshape(sc, fi, {1})}, 0)};
          return sc.status();
        },
        &r, options);
    if (s.ok()) *result = r[1];
    *root_out = root;
    return s;
  };
  Output grown;
  Scope root = Scope::NewRootScope();
  Status s = build(false, &grown, &root);
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Catch::Contains("shape invariant") && Catch::Contains("[1]") && Catch::Contains("[2]"));
  REQUIRE(build(true, &grown, &root).ok());
  auto session = NewSessionWith(ToGraphDef(root));
  std::vector<Tensor> out;
  REQUIRE(session->Run({{"n", Tensor::Scalar<int32_t>(4)}}, {grown.name()}, {}, &out).ok());
  CHECK(Values(out[0]) == std::vector<float>{0, 1, 2, 3, 4});
}

TEST_CASE("a loop on the untaken branch of a conditional ends dead and the other branch wins") {
  Scope root = Scope::NewRootScope();
  auto p = ops::Placeholder(root.WithOpName("p"), tf::DT_BOOL, kScalar);
  auto n = ops::Const(root.WithOpName("n"), 7);
  std::vector<Output> y;
  REQUIRE(ops::Cond(
              root, p,
              [&](const Scope& s, std::vector<Output>* out) {
                out->push_back(CountingLoop(s, n));
                return s.status();
              },
              [&](const Scope& s, std::vector<Output>* out) {
                out->push_back(ops::Const(s, -1));
                return s.status();
              },
              &y)
              .ok());
  auto session = NewSessionWith(ToGraphDef(root));
  std::vector<Tensor> out;
  REQUIRE(session->Run({{"p", Tensor::Scalar<bool>(true)}}, {y[0].name()}, {}, &out).ok());
  CHECK(Int(out[0]) == 7);
  REQUIRE(session->Run({{"p", Tensor::Scalar<bool>(false)}}, {y[0].name()}, {}, &out).ok());
  CHECK(Int(out[0]) == -1);
}

TEST_CASE("a conditional inside a loop body takes its branch per iteration") {
  // s = sum over i < n of (i even ? i : -1)
  Scope root = Scope::NewRootScope();
  auto n = ops::Placeholder(root.WithOpName("n"), tf::DT_INT32, kScalar);
  std::vector<Output> r;
  REQUIRE(ops::WhileLoop(
              root, {ops::Const(root, 0), ops::Const(root, 0)},
              [&](const Scope& s, const std::vector<Output>& v, Output* pred) {
                *pred = ops::Less(s, v[0], n);
                return s.status();
              },
              [&](const Scope& s, const std::vector<Output>& v, std::vector<Output>* next) {
                std::vector<Output> term;
                TA_RETURN_IF_ERROR(ops::Cond(
                    s, ops::Equal(s, ops::FloorMod(s, v[0], 2), 0),
                    [&](const Scope& b, std::vector<Output>* out) {
                      out->push_back(ops::Identity(b, v[0]));
                      return b.status();
                    },
                    [&](const Scope& b, std::vector<Output>* out) {
                      out->push_back(ops::Const(b, -1));
                      return b.status();
                    },
                    &term));
                *next = {ops::Add(s, v[0], 1), ops::Add(s, v[1], term[0])};
                return s.status();
              },
              &r)
              .ok());
  auto session = NewSessionWith(ToGraphDef(root));
  std::vector<Tensor> out;
  REQUIRE(session->Run({{"n", Tensor::Scalar<int32_t>(10)}}, {r[1].name()}, {}, &out).ok());
  CHECK(Int(out[0]) == 0 + 2 + 4 + 6 + 8 - 5);
}

TEST_CASE("a loop that never ends is stopped by the step's deadline with DeadlineExceeded naming the step") {
  Scope root = Scope::NewRootScope();
  auto n = ops::Placeholder(root.WithOpName("n"), tf::DT_INT32, kScalar);
  Output count = CountingLoop(root, n);
  // x < x + 1 holds for ever.
  Scope forever = root.NewSubScope("forever");
  std::vector<Output> r;
  REQUIRE(ops::WhileLoop(
              forever, {ops::Const(forever, 0.f)},
              [&](const Scope& s, const std::vector<Output>& v, Output* pred) {
                *pred = ops::Less(s, v[0], ops::Add(s, v[0], 1.f));
                return s.status();
              },
              [&](const Scope& s, const std::vector<Output>& v, std::vector<Output>* next) {
                *next = {ops::Identity(s, v[0])};
                return s.status();
              },
              &r)
              .ok());
  auto session = NewSessionWith(ToGraphDef(root));
  RunOptions options;
  options.timeout_ms = 300;
  std::vector<Tensor> out;
  Status s = session->Run(options, {}, {r[0].name()}, {}, &out);
  CHECK(s.code() == error::DEADLINE_EXCEEDED);
  CHECK_THAT(s.message(), Catch::Contains("step"));
  // The session goes on: the executor of the endless step has stopped.
  Status ok = session->Run({{"n", Tensor::Scalar<int32_t>(3)}}, {count.name()}, {}, &out);
  INFO(ok.ToString());
  REQUIRE(ok.ok());
  CHECK(Int(out[0]) == 3);
}

// A GraphDef of text NodeDefs, for malformed graphs the builder would not make.
tf::GraphDef ParseGraph(const std::string& text) {
  tf::GraphDef def;
  REQUIRE(ParseTextProto(text, &def).ok());
  return def;
}

TEST_CASE("malformed frames are refused when the session is created, naming the node") {
  const std::string consts = R"(
    node { name: "a" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } } } }
  )";
  auto create = [&](const std::string& more) {
    auto session = Session::New();
    REQUIRE(session.ok());
    return (*session)->Create(ParseGraph(consts + more));
  };
  Status s = create(R"(node { name: "x" op: "Exit" input: "a" attr { key: "T" value { type: DT_FLOAT } } })");
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Catch::Contains("'x'") && Catch::Contains("not inside a loop"));
  s = create(R"(node { name: "x" op: "NextIteration" input: "a" attr { key: "T" value { type: DT_FLOAT } } })");
  CHECK_THAT(s.message(), Catch::Contains("'x'") && Catch::Contains("not inside a loop"));
  s = create(R"(
    node { name: "e" op: "Enter" input: "a" attr { key: "T" value { type: DT_FLOAT } }
           attr { key: "frame_name" value { s: "f" } } }
    node { name: "add" op: "Add" input: "e" input: "a" attr { key: "T" value { type: DT_FLOAT } } })");
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Catch::Contains("'add'") && Catch::Contains("different frames"));
  // A cycle not made by a loop.
  s = create(R"(
    node { name: "p" op: "Add" input: "a" input: "q" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "q" op: "Identity" input: "p" attr { key: "T" value { type: DT_FLOAT } } })");
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Catch::Contains("cycle"));
}

TEST_CASE("the whitepaper's Leave is TensorFlow's Exit") {
  // while (i < 3) i += 1, written by hand with Leave for Exit.
  tf::GraphDef def = ParseGraph(R"(
    node { name: "i" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
           attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 0 } } } }
    node { name: "three" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
           attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 3 } } } }
    node { name: "enter" op: "Enter" input: "i" attr { key: "T" value { type: DT_INT32 } }
           attr { key: "frame_name" value { s: "loop" } } }
    node { name: "three_in" op: "Enter" input: "three" attr { key: "T" value { type: DT_INT32 } }
           attr { key: "frame_name" value { s: "loop" } } attr { key: "is_constant" value { b: true } } }
    node { name: "merge" op: "Merge" input: "enter" input: "next"
           attr { key: "T" value { type: DT_INT32 } } attr { key: "N" value { i: 2 } } }
    node { name: "less" op: "Less" input: "merge" input: "three_in" attr { key: "T" value { type: DT_INT32 } } }
    node { name: "cond" op: "LoopCond" input: "less" }
    node { name: "switch" op: "Switch" input: "merge" input: "cond" attr { key: "T" value { type: DT_INT32 } } }
    node { name: "body" op: "Identity" input: "switch:1" attr { key: "T" value { type: DT_INT32 } } }
    node { name: "one" op: "Const" input: "^body" attr { key: "dtype" value { type: DT_INT32 } }
           attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 1 } } } }
    node { name: "add" op: "Add" input: "body" input: "one" attr { key: "T" value { type: DT_INT32 } } }
    node { name: "next" op: "NextIteration" input: "add" attr { key: "T" value { type: DT_INT32 } } }
    node { name: "out" op: "Leave" input: "switch" attr { key: "T" value { type: DT_INT32 } } }
  )");
  auto session = NewSessionWith(def);
  std::vector<Tensor> out;
  REQUIRE(session->Run({}, {"out"}, {}, &out).ok());
  CHECK(Int(out[0]) == 3);
}

TEST_CASE("ControlTrigger runs even when its inputs are dead") {
  Scope root = Scope::NewRootScope();
  auto p = ops::Placeholder(root.WithOpName("p"), tf::DT_BOOL, kScalar);
  auto sw = ops::Switch(root.WithOpName("sw"), ops::Const(root, 1.f), p);
  auto dead = ops::Identity(root.WithOpName("dead"), sw.output_true);  // dead when p is false
  auto trigger = ops::ControlTrigger(root.WithOpName("trigger").WithControlDependencies({dead}));
  auto after = ops::Const(root.WithOpName("after").WithControlDependencies({Output(trigger, 0)}), 5.f);
  auto noop = ops::NoOp(root.WithOpName("noop").WithControlDependencies({dead}));
  auto after_noop = ops::Const(root.WithOpName("after_noop").WithControlDependencies({Output(noop, 0)}), 6.f);
  auto session = NewSessionWith(ToGraphDef(root));
  std::vector<Tensor> out;
  // The trigger runs, and `after` with it; a NoOp would be dead, and what follows it.
  REQUIRE(session->Run({{"p", Tensor::Scalar<bool>(false)}}, {after.name()}, {}, &out).ok());
  CHECK(Float(out[0]) == 5.f);
  Status s = session->Run({{"p", Tensor::Scalar<bool>(false)}}, {after_noop.name()}, {}, &out);
  CHECK(s.code() == error::INVALID_ARGUMENT);
  REQUIRE(session->Run({{"p", Tensor::Scalar<bool>(true)}}, {after_noop.name()}, {}, &out).ok());
  CHECK(Float(out[0]) == 6.f);
}

}  // namespace
}  // namespace tensoract

namespace tensoract {
namespace {

TEST_CASE("an executor in the middle of an endless loop stops at an abort (cancellation) with its status") {
  // The runtime stops a step by sending its executors abort_atom: the worker does so at the
  // step's deadline, and so can anything that cancels a step. The executor hands control
  // back to its mailbox every few thousand nodes, so the abort gets in.
  Scope root = Scope::NewRootScope();
  std::vector<Output> r;
  REQUIRE(ops::WhileLoop(
              root, {ops::Const(root, 0.f)},
              [&](const Scope& s, const std::vector<Output>& v, Output* pred) {
                *pred = ops::Less(s, v[0], ops::Add(s, v[0], 1.f));
                return s.status();
              },
              [&](const Scope& s, const std::vector<Output>& v, std::vector<Output>* next) {
                *next = {ops::Identity(s, v[0])};
                return s.status();
              },
              &r)
              .ok());
  tf::GraphDef def = ToGraphDef(root);
  caf::actor_system_config cfg;
  caf::actor_system system{cfg};
  auto device = std::make_shared<Device>("/job:localhost/replica:0/task:0/device:CPU:0", DEVICE_CPU, 1);
  auto plan = ExecutorPlan::Build(def, device.get());
  INFO(plan.status().ToString());
  REQUIRE(plan.ok());
  caf::actor device_actor = SpawnDeviceActor(system, device);
  ExecutorArgs args;
  args.plan = plan.value();
  args.device = device_actor;
  args.step_id = 7;
  caf::actor executor = SpawnExecutor(system, std::move(args));
  caf::scoped_actor self{system};
  auto started = std::chrono::steady_clock::now();
  std::thread canceller([executor] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    caf::anon_send(executor, abort_atom::value, errors::Cancelled("step 7 was cancelled"));
  });
  Status status;
  self->request(executor, std::chrono::seconds(30), start_atom::value)
      .receive([&](RunGraphResponse& reply) { status = reply.status; },
               [&](caf::error& e) { status = FromCafError(e, "step 7"); });
  canceller.join();
  CHECK(status.code() == error::CANCELLED);
  CHECK_THAT(status.message(), Catch::Contains("step 7"));
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(10));
  self->send_exit(device_actor, caf::exit_reason::user_shutdown);
}

}  // namespace
}  // namespace tensoract

namespace tensoract {
namespace {

TEST_CASE("a reference variable inside a loop: read every iteration, and updated every iteration") {
  Scope root = Scope::NewRootScope();
  auto w = ops::Variable(root.WithOpName("w"), PartialTensorShape(std::vector<int64_t>{}), tf::DT_FLOAT);
  auto init = ops::Assign(root.WithOpName("init"), w, 2.f);
  auto hits = ops::Variable(root.WithOpName("hits"), PartialTensorShape(std::vector<int64_t>{}), tf::DT_FLOAT);
  auto init_hits = ops::Assign(root.WithOpName("init_hits"), hits, 0.f);
  std::vector<Output> r;
  ops::WhileLoopOptions options;
  options.parallel_iterations = 1;  // the updates of hits happen in order
  REQUIRE(ops::WhileLoop(
              root, {ops::Const(root, 0), ops::Const(root, 1.f)},
              [&](const Scope& s, const std::vector<Output>& v, Output* pred) {
                *pred = ops::Less(s, v[0], 5);
                return s.status();
              },
              [&](const Scope& s, const std::vector<Output>& v, std::vector<Output>* next) {
                // w enters as a reference (RefEnter) and is read by Mul; hits += 1 per iteration.
                auto bump = ops::AssignAdd(s, hits, 1.f);
                *next = {ops::Add(s.WithControlDependencies({bump}), v[0], 1), ops::Mul(s, v[1], w)};
                return s.status();
              },
              &r, options)
              .ok());
  tf::GraphDef def = ToGraphDef(root);
  bool ref_enter = false;
  for (const auto& node : def.node()) ref_enter |= node.op() == "RefEnter";
  CHECK(ref_enter);
  auto session = NewSessionWith(def);
  std::vector<Tensor> out;
  REQUIRE(session->Run({}, {}, {"init", "init_hits"}, &out).ok());
  Status s = session->Run({}, {r[1].name(), r[0].name()}, {}, &out);
  INFO(s.ToString());
  REQUIRE(s.ok());
  CHECK(Float(out[0]) == 32.f);  // 2^5
  REQUIRE(session->Run({}, {"hits"}, {}, &out).ok());
  CHECK(Float(out[0]) == 5.f);
}

}  // namespace
}  // namespace tensoract
