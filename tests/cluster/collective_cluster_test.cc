// Collective ops across tensoract-node processes on loopback: each task's own client runs
// its own graph (as TensorFlow's MultiWorkerMirroredStrategy does) and the members meet in
// their group over the data plane; one client's step spanning every task does too. A
// member killed or frozen while the others wait ends the collective on every member with
// an error naming it, within the heartbeat timeout and a second; a restarted member joins
// the group again.
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <future>
#include <thread>

#include <catch2/catch.hpp>

#include "bootstrap/node_process.h"
#include "client/saver.h"
#include "client/training_loop.h"
#include "graph/builder/collective_ops.h"
#include "graph/builder/ops.h"
#include "tests/actors/test_util.h"
#include "tests/bench/allreduce_graph.h"
#include "tests/cluster/cluster_test_util.h"

namespace tensoract {
namespace {

using local_cluster::Local;
using local_cluster::NodeProcess;

// `n` ports nothing listens on now: the kernel's picks for ephemeral binds, all held until
// all are picked (released one by one, the kernel gave the same port twice: a CI run's
// cluster spec named one address for two tasks), then released.
std::vector<int> FreePorts(int n) {
  std::vector<int> fds, ports;
  for (int i = 0; i < n; ++i) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    socklen_t len = sizeof(addr);
    getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    fds.push_back(fd);
    ports.push_back(ntohs(addr.sin_port));
  }
  for (int fd : fds) close(fd);
  return ports;
}

// `n` worker tasks that all know each other's addresses, with fast heartbeats.
struct Workers {
  std::vector<int> ports;
  std::string spec;
  std::vector<std::unique_ptr<NodeProcess>> nodes;
  const std::vector<std::string> flags = {"--heartbeat-interval-ms", "300", "--heartbeat-timeout-ms", "1000"};

  // A released port can be taken before its node binds it (another test's connection gets
  // it as its source port: "cannot listen on 127.0.0.1:44341" in a CI-like ctest -j2), so a
  // cluster whose node fails to start is started again on fresh ports, three times at most.
  explicit Workers(int n) {
    for (int attempt = 1;; ++attempt) {
      ports = FreePorts(n);
      spec = "worker=";
      for (int i = 0; i < n; ++i) spec += (i ? "," : "") + Local(ports[i]);
      nodes.clear();  // kills and reaps the last attempt's nodes
      bool all = true;
      for (int i = 0; i < n && all; ++i) {
        nodes.push_back(std::make_unique<NodeProcess>());
        all = nodes[i]->Start(spec, "worker", i, flags);
      }
      if (all) return;
      INFO(nodes.back()->error());
      REQUIRE(attempt < 3);
    }
  }
  void Start(int i) {
    const bool started = nodes[i]->Start(spec, "worker", i, flags);
    INFO(nodes[i]->error());
    REQUIRE(started);
  }
  void Restart(int i) {
    nodes[i]->Signal(SIGKILL);
    nodes[i]->Wait(5000);
    Start(i);
  }
  std::string target(int i) const { return "tensoract://" + Local(ports[i]); }
};

std::string Task(int i) { return StrCat("/job:worker/replica:0/task:", i, "/device:CPU:0"); }

tensorflow::TensorProto P(const Tensor& t) {
  tensorflow::TensorProto proto;
  t.AsProtoTensorContent(&proto);
  return proto;
}

std::vector<float> MemberInput(int i, int64_t n) {
  std::vector<float> v(n);
  for (int64_t j = 0; j < n; ++j) v[j] = static_cast<float>(i + 1) * 0.5f + static_cast<float>(j % 32);
  return v;
}

// Task `i`'s part: a small all-reduce ("small", recursive doubling), a 1 MB one ("large",
// the ring) and a gather ("gathered") of group_size `n`.
void AddMember(const Scope& s, int i, int n) {
  Scope on = s.WithDevice(Task(i));
  auto small = ops::Const(on.WithOpName(StrCat("xs", i)), P(Tensor::FromVector<float>(MemberInput(i, 5))));
  auto large = ops::Const(on.WithOpName(StrCat("xl", i)), P(Tensor::FromVector<float>(MemberInput(i, 1 << 18))));
  ops::CollectiveReduceV2(on.WithOpName(StrCat("small", i)), small, n, 1, 1, "Add", "Div");
  ops::CollectiveReduceV2(on.WithOpName(StrCat("large", i)), large, n, 1, 2, "Add", "Div");
  ops::CollectiveGatherV2(on.WithOpName(StrCat("gathered", i)), small, n, 1, 3);
}

tensorflow::GraphDef MemberGraph(int i, int n) {
  return testing::BuildGraph([&](const Scope& s) { AddMember(s, i, n); });
}

void CheckMember(const std::vector<Tensor>& out, int n) {
  REQUIRE(out.size() == 3);
  for (int64_t len : {5, 1 << 18}) {
    const Tensor& got = len == 5 ? out[0] : out[1];
    REQUIRE(got.NumElements() == len);
    for (int64_t j = 0; j < len; j += (len > 5 ? 997 : 1)) {
      float sum = 0;
      for (int m = 0; m < n; ++m) sum += MemberInput(m, len)[j];
      REQUIRE(got.base<float>()[j] == Approx(sum / n));
    }
  }
  REQUIRE(out[2].NumElements() == 5 * n);
  for (int m = 0; m < n; ++m) {
    for (int j = 0; j < 5; ++j) CHECK(out[2].base<float>()[m * 5 + j] == MemberInput(m, 5)[j]);
  }
}

// Runs every listed task's member graph through its own client, all at once.
std::vector<Status> RunMembers(std::vector<std::unique_ptr<Session>>& sessions, const std::vector<int>& tasks,
                               std::vector<std::vector<Tensor>>* outputs) {
  std::vector<std::future<Status>> runs;
  outputs->assign(sessions.size(), {});
  for (int i : tasks) {
    runs.push_back(std::async(std::launch::async, [&, i] {
      return sessions[i]->Run({}, {StrCat("small", i), StrCat("large", i), StrCat("gathered", i)}, {},
                              &(*outputs)[i]);
    }));
  }
  std::vector<Status> statuses;
  for (auto& r : runs) statuses.push_back(r.get());
  return statuses;
}

TEST_CASE("each task's own client runs its member of a collective: all-reduce and gather across 3 processes",
          "[collective][cluster]") {
  Workers workers(3);
  std::vector<std::unique_ptr<Session>> sessions;
  for (int i = 0; i < 3; ++i) {
    sessions.push_back(testing::Connect(workers.target(i)));
    REQUIRE(sessions[i]->Create(MemberGraph(i, 3)).ok());
  }
  for (int step = 0; step < 3; ++step) {
    std::vector<std::vector<Tensor>> out;
    std::vector<Status> statuses = RunMembers(sessions, {0, 1, 2}, &out);
    for (int i = 0; i < 3; ++i) {
      INFO("task " << i << ", step " << step << ": " << statuses[i].ToString());
      REQUIRE(statuses[i].ok());
      CheckMember(out[i], 3);
      // Every member has the same bits.
      CHECK(std::memcmp(out[i][1].data(), out[0][1].data(), out[0][1].TotalBytes()) == 0);
    }
  }
}

TEST_CASE("one client's step whose collective spans 3 processes", "[collective][cluster]") {
  Workers workers(3);
  auto session = testing::Connect(workers.target(0));
  REQUIRE(session->Create(testing::BuildGraph([](const Scope& s) {
            for (int i = 0; i < 3; ++i) AddMember(s, i, 3);
          })).ok());
  for (int step = 0; step < 2; ++step) {
    std::vector<Tensor> out;
    // Task 1's member is a target: pruned away, it would never join.
    Status s = session->Run({}, {"small0", "large0", "gathered0", "small2", "large2", "gathered2"},
                            {"small1", "large1", "gathered1"}, &out);
    INFO(s.ToString());
    REQUIRE(s.ok());
    CheckMember({out[0], out[1], out[2]}, 3);
    CheckMember({out[3], out[4], out[5]}, 3);
  }
}

TEST_CASE("a member that gives up alone makes the others form the group again, not wait for it",
          "[collective][cluster]") {
  Workers workers(3);
  std::vector<std::unique_ptr<Session>> sessions;
  for (int i = 0; i < 3; ++i) {
    // Task 2's client gives a step 1.5 s.
    sessions.push_back(testing::Connect(workers.target(i), local_cluster::kTestToken, i == 2 ? 1500 : 60000));
    REQUIRE(sessions[i]->Create(MemberGraph(i, 3)).ok());
  }
  std::vector<std::vector<Tensor>> out;
  for (const Status& s : RunMembers(sessions, {0, 1, 2}, &out)) REQUIRE(s.ok());
  // Task 2 runs its next step alone: its deadline cancels the step, and it leaves the group.
  std::vector<Status> alone = RunMembers(sessions, {2}, &out);
  REQUIRE(alone.size() == 1);
  CHECK(alone[0].code() == error::DEADLINE_EXCEEDED);

  // Tasks 0 and 1 are still in the old formation: their next step fails at once, saying
  // why, instead of waiting for task 2's pieces until their own deadline.
  sessions[2] = testing::Connect(workers.target(2));
  REQUIRE(sessions[2]->Create(MemberGraph(2, 3)).ok());
  const auto start = std::chrono::steady_clock::now();
  std::vector<Status> stale = RunMembers(sessions, {0, 1}, &out);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (const Status& s : stale) {
    INFO(s.ToString());
    CHECK(s.code() == error::ABORTED);
    CHECK_THAT(s.message(), Catch::Contains("left that formation of collective group 1"));
  }
  CHECK(seconds < 10);
  // Then all three form the group again.
  for (int round = 0; round < 2; ++round) {
    std::vector<Status> again = RunMembers(sessions, {0, 1, 2}, &out);
    for (int i = 0; i < 3; ++i) {
      INFO("round " << round << ", task " << i << ": " << again[i].ToString());
      REQUIRE(again[i].ok());
      CheckMember(out[i], 3);
    }
  }
}

// The members 0 and 1 wait in a formed group for member 2, which `fault` then stops.
void CheckFaultEndsTheCollective(int fault_signal) {
  Workers workers(3);
  std::vector<std::unique_ptr<Session>> sessions;
  for (int i = 0; i < 3; ++i) {
    sessions.push_back(testing::Connect(workers.target(i)));
    REQUIRE(sessions[i]->Create(MemberGraph(i, 3)).ok());
  }
  std::vector<std::vector<Tensor>> out;
  for (const Status& s : RunMembers(sessions, {0, 1, 2}, &out)) REQUIRE(s.ok());  // the group forms

  auto waiting = std::async(std::launch::async, [&] {
    std::vector<std::vector<Tensor>> partial;
    return RunMembers(sessions, {0, 1}, &partial);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const auto faulted = std::chrono::steady_clock::now();
  workers.nodes[2]->Signal(fault_signal);
  std::vector<Status> statuses = waiting.get();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - faulted).count();
  for (const Status& s : statuses) {
    INFO(s.ToString());
    CHECK_FALSE(s.ok());
    CHECK_THAT(s.message(), Catch::Contains("/job:worker/replica:0/task:2"));
  }
  // Within the heartbeat timeout (1 s here) and a second, not a step's deadline.
  CHECK(seconds < 2.0);

  // A new task 2 joins the group again.
  if (fault_signal == SIGSTOP) workers.nodes[2]->Signal(SIGCONT);
  workers.Restart(2);
  sessions[2] = testing::Connect(workers.target(2));
  REQUIRE(sessions[2]->Create(MemberGraph(2, 3)).ok());
  std::vector<Status> again = RunMembers(sessions, {0, 1, 2}, &out);
  for (int i = 0; i < 3; ++i) {
    INFO("task " << i << ": " << again[i].ToString());
    REQUIRE(again[i].ok());
    CheckMember(out[i], 3);
  }
}

TEST_CASE("a member killed mid-collective ends it everywhere, naming it; its replacement joins again",
          "[collective][cluster]") {
  CheckFaultEndsTheCollective(SIGKILL);
}

TEST_CASE("a member frozen mid-collective ends it everywhere within the heartbeat timeout", "[collective][cluster]") {
  CheckFaultEndsTheCollective(SIGSTOP);
}

}  // namespace
}  // namespace tensoract

namespace tensoract {
namespace {

// All-reduce training on three workers: replica i's weights w_i (8 floats, the same start)
// on worker i, its loss sum((w_i - x_i)^2) with x_i fed, the gradient averaged across
// the workers by CollectiveReduceV2 and applied to each replica (gradient descent, 0.1).
// One client drives every replica through worker 0's master.
TEST_CASE("all-reduce training resumes from its checkpoint after a worker is replaced, as if never interrupted",
          "[collective][cluster][faults]") {
  constexpr int kWorkers = 3, kSteps = 8;
  Workers workers(kWorkers);
  // The run without a fault, for the weights it ends with.
  bench::AllReduceTraining plain("plain", kWorkers, /*instance_key=*/1);
  REQUIRE(plain.Finish().ok());
  auto session = testing::Connect(workers.target(0));
  REQUIRE(session->Create(plain.def).ok());
  REQUIRE(session->Run({}, {}, {plain.init}, nullptr).ok());
  for (int64_t step = 0; step < kSteps; ++step) {
    Status s = session->Run(plain.Feeds(step), {}, {plain.train}, nullptr);
    INFO(s.ToString());
    REQUIRE(s.ok());
  }
  std::vector<std::vector<float>> expected, got;
  REQUIRE(plain.Read(*session, &expected).ok());
  // The same training under a TrainingLoop checkpointing every 3 steps; after step 5,
  // worker 2 is killed and a replacement started on its port (its weights are gone). The
  // loop may recover more than once: the first steps after the restart can meet the
  // group's members still holding the old formation (each such step fails, Aborted, naming
  // why, and the group forms again), never wait out a deadline.
  bench::AllReduceTraining model("resumed", kWorkers, /*instance_key=*/2);
  Saver saver = Saver::New(model.root, model.weights).value();
  REQUIRE(model.Finish().ok());
  auto resumed = testing::Connect(workers.target(0), local_cluster::kTestToken, /*step_timeout_ms=*/15000);
  REQUIRE(resumed->Create(model.def).ok());
  char dir_template[] = "/tmp/tensoract_allreduce_loop_XXXXXX";
  const std::string dir = mkdtemp(dir_template);
  TrainingLoop loop(*resumed, saver, model.LoopOptions(dir, 3));
  REQUIRE(loop.Start().ok());
  auto step_fn = [&](Session& s, int64_t step) {
    return s.Run(model.Feeds(step), {}, {model.train}, nullptr);
  };
  while (loop.step() < 5) REQUIRE(loop.Step(step_fn).ok());
  workers.Restart(2);
  while (loop.step() < kSteps) {
    Status s = loop.Step(step_fn);
    if (!s.ok()) {  // what every node holds, for whoever reads the failure
      for (int i = 0; i < kWorkers; ++i) UNSCOPED_INFO("worker " << i << ": " << testing::InspectNode(workers.ports[i]));
    }
    INFO(s.ToString());
    REQUIRE(s.ok());
  }
  CHECK(loop.recoveries() >= 1);
  // Steps 4 and 5 were replayed from the step-3 checkpoint, every replica (the replacement
  // too) restored: the weights are the uninterrupted run's, bit for bit.
  REQUIRE(model.Read(*resumed, &got).ok());
  CHECK(got == expected);
  std::system(("rm -rf " + dir).c_str());
}

}  // namespace
}  // namespace tensoract
