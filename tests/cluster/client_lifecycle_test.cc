// A client's life as the master sees it, with real processes on loopback: a client process
// killed mid-step (a Session, or raw actors whose session's creator exited first) has its
// session closed and its step stopped; a session nobody uses is collected; a closed or dead
// session's queues and readers leave the worker, queues shared by name stay. The clients run
// in child processes: this binary again, running a hidden test case.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <future>
#include <regex>
#include <thread>

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include "actors/cluster_credentials.h"
#include "actors/cluster_transport.h"
#include "actors/messages.h"
#include "actors/rpc.h"
#include "bootstrap/node_auth.h"
#include "bootstrap/node_process.h"
#include "client/session.h"
#include "graph/builder/data_flow_ops.h"
#include "graph/builder/io_ops.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/ops.h"
#include "messages/master.pb.h"
#include "tests/actors/test_util.h"
#include "tests/cluster/cluster_test_util.h"

namespace tensoract {
namespace {

using local_cluster::kTestToken;
using local_cluster::Local;
using local_cluster::NodeProcess;
using testing::Connect;
using testing::InspectNode;

// The client of the next test, in a process of its own (this binary again): a session on
// $CLIENT_TARGET running a step that does not end.
TEST_CASE("a client that runs an endless step (run in a child process)", "[.][client_child]") {
  const char* target = std::getenv("CLIENT_TARGET");
  REQUIRE(target != nullptr);
  std::string fetch;
  tensorflow::GraphDef def = testing::EndlessLoopGraph(&fetch);
  auto session = Connect(target);
  REQUIRE(session->Create(def).ok());
  std::vector<Tensor> out;
  (void)session->Run({}, {fetch}, {}, &out);
  _exit(0);
}

// The same from raw actors of one actor system, as an application with several actors
// sends requests: actor A creates the session; actor B sends the endless step; then A exits
// (normally) while B's step runs. The node must still notice the process's death.
TEST_CASE("a client whose session's creator exits before its step's sender (run in a child process)",
          "[.][client_child_actors]") {
  const char* port = std::getenv("CLIENT_PORT");
  REQUIRE(port != nullptr);
  caf::actor_system_config cfg;
  REQUIRE(ConfigureClusterTransport(cfg, ClusterCredentials::FromToken(kTestToken), "client child").ok());
  caf::actor_system system{cfg};
  auto node = ConnectToNode(system, "127.0.0.1", static_cast<uint16_t>(std::atoi(port)), std::chrono::seconds(10));
  REQUIRE(node.ok());
  std::string fetch;
  tensorflow::CreateSessionRequest create;
  *create.mutable_graph_def() = testing::EndlessLoopGraph(&fetch);
  // A: an actor that creates the session, then quits normally half a second later.
  std::promise<std::string> created;
  const caf::actor service = *node;
  const std::string create_bytes = create.SerializeAsString();
  system.spawn([&created, service, create_bytes](caf::event_based_actor* self) -> caf::behavior {
    self->request(service, std::chrono::seconds(30), rpc_atom::value, std::string("CreateSession"), create_bytes)
        .then(
            [&created](int32_t code, std::string&, std::string& bytes) {
              tensorflow::CreateSessionResponse response;
              created.set_value(code == 0 && response.ParseFromString(bytes) ? response.session_handle() : "");
            },
            [&created](caf::error&) { created.set_value(""); });
    self->delayed_send(self, std::chrono::milliseconds(500), caf::close_atom::value);
    return {[self](caf::close_atom) { self->quit(); }};
  });
  const std::string handle = created.get_future().get();
  REQUIRE(!handle.empty());
  // B: sends the endless step while A still lives.
  tensorflow::RunStepRequest step;
  step.set_session_handle(handle);
  step.add_fetch(fetch);
  caf::scoped_actor b{system};
  b->send(service, rpc_atom::value, std::string("RunStep"), step.SerializeAsString());
  std::this_thread::sleep_for(std::chrono::minutes(5));  // until the test kills this process
  _exit(0);
}

// A queue private to its session, one shared by name (shared_name "shared_q") and a reader;
// the targets "fill_private", "fill_shared" and "lines" make them.
tensorflow::GraphDef QueuesGraph() {
  Scope root = Scope::NewRootScope();
  ops::QueueAttrs attrs;
  attrs.shapes = {PartialTensorShape(std::vector<int64_t>{})};
  Output mine = ops::FIFOQueue(root.WithOpName("private_q"), {tensorflow::DT_FLOAT}, attrs);
  attrs.shared_name = "shared_q";
  Output shared = ops::FIFOQueue(root.WithOpName("shared_q"), {tensorflow::DT_FLOAT}, attrs);
  Output one = ops::Const(root, 1.f);
  ops::QueueEnqueue(root.WithOpName("fill_private"), mine, {one});
  ops::QueueEnqueue(root.WithOpName("fill_shared"), shared, {one});
  ops::TextLineReader(root.WithOpName("lines"));
  tensorflow::GraphDef def;
  REQUIRE(root.ToGraphDef(&def).ok());
  return def;
}

// Makes QueuesGraph's resources in a session on `target`.
std::unique_ptr<Session> SessionWithQueues(const std::string& target) {
  auto session = Connect(target);
  REQUIRE(session->Create(QueuesGraph()).ok());
  std::vector<Tensor> out;
  Status filled = session->Run({}, {}, {"fill_private", "fill_shared", "lines"}, &out);
  INFO(filled.ToString());
  REQUIRE(filled.ok());
  return session;
}

// A client that makes QueuesGraph's resources, then waits to be killed (run in a child process).
TEST_CASE("a client holding queues (run in a child process)", "[.][client_child_queues]") {
  const char* target = std::getenv("CLIENT_TARGET");
  REQUIRE(target != nullptr);
  auto session = SessionWithQueues(target);
  std::this_thread::sleep_for(std::chrono::minutes(5));  // until the test kills this process
  _exit(0);
}

// Polls the node's Inspect until `done` holds for it (10 s at most); the last text.
std::string InspectUntil(int port, const std::function<bool(const std::string&)>& done) {
  std::string seen;
  for (int i = 0; i < 100; ++i) {
    seen = InspectNode(port);
    if (done(seen)) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return seen;
}

bool Has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// Starts this binary again as the client of `test` (a hidden test case above), with `env`.
pid_t StartClientChild(const char* test, const std::string& env_name, const std::string& env_value) {
  pid_t child = fork();
  if (child == 0) {
    setenv(env_name.c_str(), env_value.c_str(), 1);
    execl("/proc/self/exe", "client_child", test, static_cast<char*>(nullptr));
    _exit(127);
  }
  return child;
}

TEST_CASE("a client killed mid-step: the master cancels its step and closes its session", "[cluster][faults]") {
  NodeProcess node;
  REQUIRE(node.Start("worker=127.0.0.1:0", "worker", 0));
  const std::string target = "tensoract://" + Local(node.port());
  const bool raw_actors = GENERATE(false, true);
  INFO((raw_actors ? "the session's creator exited before its process was killed" : "a Session"));
  pid_t child = raw_actors ? StartClientChild("[client_child_actors]", "CLIENT_PORT", std::to_string(node.port()))
                           : StartClientChild("[client_child]", "CLIENT_TARGET", target);
  REQUIRE(child >= 0);
  std::string seen;
  for (int i = 0; i < 100 && seen.find("1 steps running") == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    seen = InspectNode(node.port());
  }
  INFO(seen);
  REQUIRE_THAT(seen, Catch::Contains("1 sessions, 1 steps running"));
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  const auto killed = std::chrono::steady_clock::now();
  for (int i = 0; i < 50; ++i) {
    seen = InspectNode(node.port());
    if (seen.find("0 sessions, 0 steps running") != std::string::npos &&
        seen.find("steps running: []") != std::string::npos) {
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  CHECK_THAT(seen, Catch::Contains("0 sessions, 0 steps running") && Catch::Contains("steps running: []"));
  WARN("client killed: its session closed and its step stopped "
       << std::chrono::duration<double>(std::chrono::steady_clock::now() - killed).count() << " s later");
}

TEST_CASE("with --session-gc-seconds, a session nobody uses is closed; one in use stays", "[cluster][faults]") {
  NodeProcess node;
  REQUIRE(node.Start("worker=127.0.0.1:0", "worker", 0, {"--session-gc-seconds", "1"}));
  const std::string target = "tensoract://" + Local(node.port());
  Scope root = Scope::NewRootScope();
  auto y = ops::Add(root.WithOpName("y"), ops::Const(root, 1.f), 2.f);
  tensorflow::GraphDef def;
  REQUIRE(root.ToGraphDef(&def).ok());
  auto abandoned = Connect(target);
  auto used = Connect(target);
  REQUIRE(abandoned->Create(def).ok());
  REQUIRE(used->Create(def).ok());
  std::vector<Tensor> out;
  // `used` runs a step every 200 ms for 3 s; `abandoned` does nothing after its first.
  REQUIRE(abandoned->Run({}, {"y"}, {}, &out).ok());
  for (int i = 0; i < 15; ++i) {
    Status s = used->Run({}, {"y"}, {}, &out);
    INFO(s.ToString());
    REQUIRE(s.ok());
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  CHECK_THAT(InspectNode(node.port()), Catch::Contains("master: 1 sessions"));
  Status gone = abandoned->Run({}, {"y"}, {}, &out);
  CHECK(gone.code() == error::ABORTED);  // TensorFlow's "Session ... is not found."
  CHECK_THAT(gone.message(), Catch::Contains("is not found"));
  CHECK(used->Run({}, {"y"}, {}, &out).ok());
}

TEST_CASE("a closed or dead session's queues and readers leave the worker; a queue shared by name stays",
          "[cluster][faults]") {
  NodeProcess node;
  REQUIRE(node.Start("worker=127.0.0.1:0", "worker", 0));
  const std::string target = "tensoract://" + Local(node.port());
  const bool killed = GENERATE(false, true);
  INFO((killed ? "the client process was killed" : "the session was closed"));
  std::unique_ptr<Session> session;
  pid_t child = -1;
  if (killed) {
    child = StartClientChild("[client_child_queues]", "CLIENT_TARGET", target);
    REQUIRE(child >= 0);
  } else {
    session = SessionWithQueues(target);
  }
  // All three: the step that makes them may still be running when the first shows.
  std::string seen = InspectUntil(node.port(), [](const std::string& t) {
    return Has(t, "_private_q: FIFOQueue") && Has(t, "/shared_q: FIFOQueue") && Has(t, "_lines: ");
  });
  INFO(seen);
  // TensorFlow's names: a private resource is "_<id>_<node>", a shared one its shared_name.
  REQUIRE(std::regex_search(seen, std::regex("/_[0-9]+_private_q: FIFOQueue")));
  REQUIRE_THAT(seen, Catch::Contains("/shared_q: FIFOQueue") && Catch::Contains("_lines: "));
  if (killed) {
    kill(child, SIGKILL);
    waitpid(child, nullptr, 0);
  } else {
    REQUIRE(session->Close().ok());
  }
  seen = InspectUntil(node.port(), [](const std::string& t) { return !Has(t, "private_q") && !Has(t, "_lines"); });
  CHECK_THAT(seen, !Catch::Contains("private_q") && !Catch::Contains("_lines: "));
  CHECK_THAT(seen, Catch::Contains("/shared_q: FIFOQueue") && Catch::Contains("1 elements"));
  CHECK_THAT(seen, Catch::Contains("0 graphs registered"));
}

TEST_CASE("a client frozen mid-step (SIGSTOP) loses its session when its heartbeat lease lapses; a live one keeps it",
          "[cluster][faults]") {
  NodeProcess node;
  REQUIRE(node.Start("worker=127.0.0.1:0", "worker", 0));
  pid_t child = StartClientChild("[client_child]", "CLIENT_TARGET", "tensoract://" + Local(node.port()));
  REQUIRE(child >= 0);
  std::string seen = InspectUntil(node.port(), [](const std::string& t) { return Has(t, "1 sessions, 1 steps running"); });
  REQUIRE_THAT(seen, Catch::Contains("1 sessions, 1 steps running"));
  // Alive, its Run waiting: it heartbeats every second and its lease (1 s + 2 x 3 s) holds.
  std::this_thread::sleep_for(std::chrono::seconds(6));
  CHECK_THAT(InspectNode(node.port()), Catch::Contains("1 sessions, 1 steps running"));
  kill(child, SIGSTOP);
  const auto frozen = std::chrono::steady_clock::now();
  // Until the master has closed the session and the worker has stopped the step too.
  seen = InspectUntil(node.port(), [](const std::string& t) {
    return Has(t, "0 sessions, 0 steps running") && Has(t, "steps running: []");
  });
  const double after_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - frozen).count();
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  CHECK_THAT(seen, Catch::Contains("0 sessions, 0 steps running") && Catch::Contains("steps running: []"));
  // Not the session GC (an hour) nor the step's deadline (10 minutes): the 7.1 s lease.
  CHECK(after_s < 10);
  WARN("client frozen: its session closed and its step stopped " << after_s << " s later");
}

}  // namespace
}  // namespace tensoract
