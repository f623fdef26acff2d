// Cancellation: Session::Close cancels the session's running steps, as TensorFlow's
// StartCancel does; the blocked Run returns Cancelled and the server keeps serving.
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

}  // namespace
}  // namespace tensoract
