// The first slice through the actors: a graph goes client -> master -> worker -> executor
// (-> device) and its fetches come back, with TensorFlow's results.
#include <atomic>
#include <thread>

#include <caf/all.hpp>

#include "graph/builder/ops.h"
#include "tests/actors/test_util.h"

namespace tensoract {
namespace {

using testing::DataPath;
using testing::NewSessionWith;
using testing::Values;

tensorflow::GraphDef HandWrittenGraph() {
  tensorflow::GraphDef graph;
  Status s = ReadTextProto(DataPath("matmul_add.pbtxt"), &graph);
  INFO(s.ToString());
  REQUIRE(s.ok());
  return graph;
}

TEST_CASE("a GraphDef written in TensorFlow's text format runs with TensorFlow's numbers") {
  auto session = NewSessionWith(HandWrittenGraph());
  Tensor x = Tensor::FromVector<float>({1, 1, 2, 0}, TensorShape({2, 2}));
  std::vector<Tensor> out;
  Status s = session->Run({{"x", x}}, {"y", "MatMul:0"}, {}, &out);
  INFO(s.ToString());
  REQUIRE(s.ok());
  REQUIRE(out.size() == 2);
  CHECK(out[0].shape() == TensorShape({2, 2}));
  // x·W = [[4,6],[2,4]]; + b [10,20] broadcast over rows.
  CHECK(Values(out[0]) == std::vector<float>{14, 26, 12, 24});
  CHECK(Values(out[1]) == std::vector<float>{4, 6, 2, 4});
}

TEST_CASE("the builder's y = W·x + b runs through the actors") {
  Scope root = Scope::NewRootScope();
  auto W = ops::Const(root, {{1.f, 2.f}, {3.f, 4.f}});
  auto b = ops::Const(root, {{0.5f}, {-0.5f}});
  auto x = ops::Placeholder(root.WithOpName("x"), tensorflow::DT_FLOAT);
  auto y = ops::Add(root, ops::MatMul(root, W, x), b);
  auto z = ops::Mul(root, ops::Identity(root, y), 2.0f);
  tensorflow::GraphDef graph;
  REQUIRE(root.ToGraphDef(&graph).ok());
  auto session = NewSessionWith(graph);
  std::vector<Tensor> out;
  REQUIRE(session->Run({{"x", Tensor::FromVector<float>({1, 1}, TensorShape({2, 1}))}}, {y.name(), z.name()}, {}, &out).ok());
  CHECK(Values(out[0]) == std::vector<float>{3.5f, 6.5f});
  CHECK(Values(out[1]) == std::vector<float>{7.f, 13.f});
}

TEST_CASE("any tensor can be fed, not only placeholders, and its producer is not run") {
  auto session = NewSessionWith(HandWrittenGraph());
  // MatMul is fed, so the unfed placeholder x is pruned away instead of failing.
  Tensor m = Tensor::FromVector<float>({1, 2, 3, 4}, TensorShape({2, 2}));
  std::vector<Tensor> out;
  Status s = session->Run({{"MatMul", m}}, {"y", "MatMul"}, {}, &out);
  INFO(s.ToString());
  REQUIRE(s.ok());
  CHECK(Values(out[0]) == std::vector<float>{11, 22, 13, 24});
  CHECK(out[1].SharesBufferWith(m));  // a fetched feed is the fed tensor itself
}

TEST_CASE("an unfed placeholder that a fetch needs is an error naming it") {
  auto session = NewSessionWith(HandWrittenGraph());
  std::vector<Tensor> out;
  Status s = session->Run({}, {"y"}, {}, &out);
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Catch::Contains("placeholder tensor 'x'") && Catch::Contains("[2,2]"));
}

TEST_CASE("targets run nodes for their effect and return nothing") {
  auto session = NewSessionWith(HandWrittenGraph());
  std::vector<Tensor> out;
  Status s = session->Run({}, {}, {"unused"}, &out);
  INFO(s.ToString());
  CHECK(s.ok());
  CHECK(out.empty());
}

TEST_CASE("a Const computed once, when its graph is registered, feeds every step the same value") {
  // Its consumers get the value the plan holds (actors/executor_plan.h, constant_inputs):
  // an Add that may write its output over an input it alone holds, a Neg, the fetch of the
  // Const itself, and a NoOp that waits for it by a control edge.
  Scope root = Scope::NewRootScope();
  auto c = ops::Const(root.WithOpName("c"), {1.f, 2.f, 3.f});
  auto x = ops::Placeholder(root.WithOpName("x"), tensorflow::DT_FLOAT);
  ops::Add(root.WithOpName("y"), c, x);
  ops::Neg(root.WithOpName("z"), c);
  ops::NoOp(root.WithOpName("after").WithControlDependencies({c}));
  tensorflow::GraphDef graph;
  REQUIRE(root.ToGraphDef(&graph).ok());
  auto session = NewSessionWith(graph);
  for (float step = 1; step <= 3; ++step) {
    std::vector<Tensor> out;
    Status s = session->Run({{"x", Tensor::FromVector<float>({10 * step, 20 * step, 30 * step}, TensorShape({3}))}},
                            {"y", "z", "c"}, {"after"}, &out);
    INFO(s.ToString());
    REQUIRE(s.ok());
    CHECK(Values(out[0]) == std::vector<float>{1 + 10 * step, 2 + 20 * step, 3 + 30 * step});
    CHECK(Values(out[1]) == std::vector<float>{-1, -2, -3});
    CHECK(Values(out[2]) == std::vector<float>{1, 2, 3});
  }
}

TEST_CASE("large operands take the device's thread pool and give the same result") {
  const int n = 256;
  std::vector<float> a(n * n), b(n * n);
  for (int i = 0; i < n * n; ++i) {
    a[i] = static_cast<float>(i % 7) - 3.f;
    b[i] = static_cast<float>(i % 5) * 0.5f;
  }
  Scope root = Scope::NewRootScope();
  auto pa = ops::Placeholder(root.WithOpName("a"), tensorflow::DT_FLOAT);
  auto pb = ops::Placeholder(root.WithOpName("b"), tensorflow::DT_FLOAT);
  auto c = ops::MatMul(root.WithOpName("c"), pa, pb, {false, true});
  tensorflow::GraphDef graph;
  REQUIRE(root.ToGraphDef(&graph).ok());
  auto session = NewSessionWith(graph);
  std::vector<Tensor> out;
  REQUIRE(session->Run({{"a", Tensor::FromVector(a, TensorShape({n, n}))}, {"b", Tensor::FromVector(b, TensorShape({n, n}))}},
                       {"c"}, {}, &out).ok());
  const float* got = out[0].base<float>();
  for (int i : {0, 1, 77, n - 1}) {
    for (int j : {0, 3, n - 1}) {
      double want = 0;
      for (int k = 0; k < n; ++k) want += double(a[i * n + k]) * b[j * n + k];  // b transposed
      CHECK(got[i * n + j] == Approx(want).margin(1e-3));
    }
  }
}

TEST_CASE("concurrent Run calls on one session are independent steps") {
  auto session = NewSessionWith(HandWrittenGraph());
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        float v = static_cast<float>(t * 100 + i);
        std::vector<Tensor> out;
        // x = v * I, so y = v·W + b.
        Status s = session->Run({{"x", Tensor::FromVector<float>({v, 0, 0, v}, TensorShape({2, 2}))}}, {"y"}, {}, &out);
        if (!s.ok() || Values(out[0]) != std::vector<float>{v + 10, 2 * v + 20, 3 * v + 10, 4 * v + 20}) ++wrong;
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(wrong == 0);
}

TEST_CASE("a session can live in the application's own actor system") {
  caf::actor_system_config cfg;
  caf::actor_system system{cfg};
  {
    auto session = Session::New(system);
    REQUIRE(session.ok());
    REQUIRE((*session)->Create(HandWrittenGraph()).ok());
    std::vector<Tensor> out;
    REQUIRE((*session)->Run({{"x", Tensor::FromVector<float>({0, 0, 0, 0}, TensorShape({2, 2}))}}, {"y"}, {}, &out).ok());
    CHECK(Values(out[0]) == std::vector<float>{10, 20, 10, 20});
    std::string state = (*session)->Inspect();
    CHECK_THAT(state, Catch::Contains("master: 1 sessions") && Catch::Contains("worker /job:localhost"));
  }
}

TEST_CASE("a step past its deadline fails with DeadlineExceeded and the session goes on") {
  const int n = 1200;  // ~3.5 GFLOP: far longer than the 1 ms deadline
  Scope root = Scope::NewRootScope();
  auto a = ops::Placeholder(root.WithOpName("a"), tensorflow::DT_FLOAT);
  auto c = ops::MatMul(root.WithOpName("c"), ops::MatMul(root, a, a), a);
  tensorflow::GraphDef graph;
  REQUIRE(root.ToGraphDef(&graph).ok());
  auto session = NewSessionWith(graph);
  Tensor big(tensorflow::DT_FLOAT, TensorShape({n, n}));
  for (int64_t i = 0; i < big.NumElements(); ++i) big.base<float>()[i] = 0.001f;
  RunOptions options;
  options.timeout_ms = 1;
  std::vector<Tensor> out;
  Status s = session->Run(options, {{"a", big}}, {"c"}, {}, &out);
  CHECK(s.code() == error::DEADLINE_EXCEEDED);
  Tensor small = Tensor::FromVector<float>({2}, TensorShape({1, 1}));
  s = session->Run({{"a", small}}, {"c"}, {}, &out);
  INFO(s.ToString());
  REQUIRE(s.ok());
  CHECK(Values(out[0]) == std::vector<float>{8});
}

}  // namespace
}  // namespace tensoract
