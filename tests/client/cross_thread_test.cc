// What an application may do across its own threads: make or call a Session, a SavedModel
// bundle or an eager context on one thread and destroy it on another (a model server
// swapping versions does exactly that). CAF 0.17 keeps per-thread logger references that
// its actor system's destructor waits for (client/caf_thread_state.h); before the client
// calls released them, these destructions never returned.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdlib>
#include <future>
#include <thread>

#include "client/eager_context.h"
#include "client/session.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/ops.h"

namespace tensoract {
namespace {

// Runs `destroy` on a new thread; a destruction that hangs ends the test process (a
// hung destructor cannot be joined) after printing what hung.
void DestroyOnAnotherThread(std::function<void()> destroy, const char* what) {
  std::promise<void> done;
  std::future<void> finished = done.get_future();
  std::thread([&destroy, &done] {
    destroy();
    done.set_value();
  }).detach();
  if (finished.wait_for(std::chrono::seconds(60)) != std::future_status::ready) {
    FAIL_CHECK(what << " did not return within 60 s when destroyed on another thread");
    std::fprintf(stderr, "%s hangs when destroyed on another thread\n", what);
    std::_Exit(1);
  }
}

TEST_CASE("a session made and run on one thread can be destroyed on another", "[session][threads]") {
  Scope root = Scope::NewRootScope();
  ops::Const(root.WithOpName("c"), Input(2.f));
  tensorflow::GraphDef graph;
  REQUIRE(root.ToGraphDef(&graph).ok());
  auto session = Session::New().value();
  REQUIRE(session->Create(graph).ok());
  std::vector<Tensor> out;
  REQUIRE(session->Run({}, {"c"}, {}, &out).ok());
  DestroyOnAnotherThread([&] { session.reset(); }, "a Session");
  CHECK(session == nullptr);
}

TEST_CASE("an eager context used on one thread can be destroyed on another", "[eager][threads]") {
  auto ctx = EagerContext::New().value();
  Scope s = ctx->scope();
  auto y = ops::Add(s, Input(1.f), Input(2.f));
  REQUIRE(ValueOf(y).ok());
  DestroyOnAnotherThread([&] { ctx.reset(); }, "an EagerContext");
  CHECK(ctx == nullptr);
}

}  // namespace
}  // namespace tensoract
