// Cancellation: Session::Close cancels the session's running steps, as TensorFlow's
// StartCancel does, and a StepCanceller cancels one Run; the blocked Run returns Cancelled
// and the server keeps serving.
#include <catch2/catch.hpp>

#include <chrono>
#include <future>
#include <thread>

#include "graph/builder/math_ops.h"
#include "graph/builder/ops.h"
#include "tests/actors/test_util.h"

namespace tensoract {
namespace {

TEST_CASE("Session::Close cancels the session's running step; the blocked Run returns Cancelled",
          "[cancellation]") {
  auto server = LocalServer::New();
  REQUIRE(server.ok());
  auto session = Session::New(**server).value();
  std::string fetch;
  REQUIRE(session->Create(testing::EndlessLoopGraph(&fetch)).ok());
  auto run = std::async(std::launch::async, [&] {
    std::vector<Tensor> out;
    return session->Run({}, {fetch}, {}, &out);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const auto closed = std::chrono::steady_clock::now();
  REQUIRE(session->Close().ok());
  REQUIRE(run.wait_for(std::chrono::seconds(10)) == std::future_status::ready);
  Status s = run.get();
  double after_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - closed).count();
  INFO(s.ToString() << " after " << after_s << " s");
  CHECK(s.code() == error::CANCELLED);
  CHECK_THAT(s.message(), Catch::Contains("was closed"));
  CHECK(after_s < 2.0);
  // The server goes on: another session runs a step.
  auto other = Session::New(**server).value();
  Scope root = Scope::NewRootScope();
  ops::Add(root.WithOpName("sum"), ops::Const(root, 2.f), ops::Const(root, 3.f));
  tensorflow::GraphDef def;
  REQUIRE(root.ToGraphDef(&def).ok());
  REQUIRE(other->Create(def).ok());
  std::vector<Tensor> out;
  REQUIRE(other->Run({}, {"sum"}, {}, &out).ok());
  CHECK(out[0].base<float>()[0] == 5.f);
}

// Runs `fetch` of `session` with `canceller`, cancels it `after` later, and says how long
// the Run took to return after the cancel.
Status RunAndCancel(Session& session, const std::string& fetch, const std::shared_ptr<StepCanceller>& canceller,
                    std::chrono::milliseconds after, double* returned_s) {
  RunOptions options;
  options.canceller = canceller;
  auto run = std::async(std::launch::async, [&] {
    std::vector<Tensor> out;
    return session.Run(options, {}, {fetch}, {}, &out);
  });
  std::this_thread::sleep_for(after);
  const auto cancelled = std::chrono::steady_clock::now();
  canceller->Cancel();
  REQUIRE(run.wait_for(std::chrono::seconds(10)) == std::future_status::ready);
  Status s = run.get();
  *returned_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - cancelled).count();
  return s;
}

TEST_CASE("a StepCanceller cancels one Run; the session runs the next step", "[cancellation]") {
  auto session = Session::New().value();
  std::string fetch;
  tensorflow::GraphDef def = testing::EndlessLoopGraph(&fetch);
  Scope extra = Scope::NewRootScope().NewSubScope("extra");  // names apart from the loop's
  ops::Add(extra.WithOpName("sum"), ops::Const(extra, 2.f), ops::Const(extra, 3.f));
  tensorflow::GraphDef more;
  REQUIRE(extra.ToGraphDef(&more).ok());
  for (const auto& node : more.node()) *def.add_node() = node;
  REQUIRE(session->Create(def).ok());
  double after_s = 0;
  Status s = RunAndCancel(*session, fetch, std::make_shared<StepCanceller>(), std::chrono::milliseconds(300), &after_s);
  INFO(s.ToString() << " after " << after_s << " s");
  CHECK(s.code() == error::CANCELLED);
  CHECK_THAT(s.message(), Catch::Contains("cancelled"));
  CHECK(after_s < 2.0);
  // A cancel at once (it may overtake the step's start): still cancelled.
  s = RunAndCancel(*session, fetch, std::make_shared<StepCanceller>(), std::chrono::milliseconds(0), &after_s);
  CHECK(s.code() == error::CANCELLED);
  // A canceller already cancelled: Run returns at once.
  auto spent = std::make_shared<StepCanceller>();
  spent->Cancel();
  RunOptions options;
  options.canceller = spent;
  std::vector<Tensor> out;
  CHECK(session->Run(options, {}, {fetch}, {}, &out).code() == error::CANCELLED);
  // The session is fine: another step runs.
  REQUIRE(session->Run({}, {"extra/sum"}, {}, &out).ok());
  CHECK(out[0].base<float>()[0] == 5.f);
}

}  // namespace
}  // namespace tensoract
