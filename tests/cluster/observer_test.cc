// tensoract-observe against real tensoract-node processes: the cluster seen from one node
// (every task, its actors, a step in flight), the explanation of a stuck step followed
// across processes, a frozen task named as the root with the key and the blocked node, a
// restarted task followed, and the live view in a terminal (tmux).
#include <catch2/catch.hpp>

#include <signal.h>

#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <future>
#include <regex>
#include <thread>

#include "client/session.h"
#include "graph/builder/array_ops.h"
#include "graph/builder/data_flow_ops.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/ops.h"
#include "tests/cluster/cluster_test_util.h"

namespace tensoract {
namespace {

using testing::kPs;
using testing::kWorker1;
using testing::BuildDir;

using testing::Cluster;
using testing::Connect;



// Runs a command; its stdout and stderr.
std::string Capture(const std::string& command) {
  std::string out;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return "popen failed";
  std::array<char, 4096> buf;
  for (size_t n; (n = fread(buf.data(), 1, buf.size(), pipe)) > 0;) out.append(buf.data(), n);
  pclose(pipe);
  return out;
}

std::string Observe(int port, const std::string& mode) {
  return Capture("TENSORACT_CLUSTER_TOKEN='" + std::string(local_cluster::kTestToken) + "' timeout 30 " + BuildDir() +
                 "/bootstrap/tensoract-observe 127.0.0.1:" + std::to_string(port) + " " + mode);
}

// A step that blocks: worker 1 dequeues from an empty queue of its own, and the ps adds one
// to what it dequeued ("sum"); "fill" enqueues the fed "v" to let it go.
tensorflow::GraphDef BlockedGraph() {
  Scope root = Scope::NewRootScope();
  Scope ps = root.WithDevice(kPs);
  Scope w1 = root.WithDevice(kWorker1);
  ops::QueueAttrs attrs;
  attrs.shapes = {PartialTensorShape(std::vector<int64_t>{})};
  attrs.shared_name = "w1_queue";
  Output q = ops::FIFOQueue(w1.WithOpName("w1_queue"), {tensorflow::DT_FLOAT}, attrs);
  OutputList got = ops::QueueDequeue(w1.WithOpName("dequeue"), q, {tensorflow::DT_FLOAT});
  Output value = ops::Identity(w1.WithOpName("w1_value"), got[0]);
  ops::Add(ps.WithOpName("sum"), value, 1.f);
  auto v = ops::Placeholder(root.WithOpName("v"), tensorflow::DT_FLOAT);
  ops::QueueEnqueue(w1.WithOpName("fill"), q, {v});
  tensorflow::GraphDef def;
  REQUIRE(root.ToGraphDef(&def).ok());
  return def;
}

TEST_CASE("tensoract-observe shows the cluster and explains a stuck step, a frozen task as its root",
          "[cluster][observe]") {
  // A long heartbeat timeout: the frozen task stays in the step, as a slow one would.
  Cluster cluster({"--heartbeat-timeout-ms", "30000", "--heartbeat-interval-ms", "200"});
  auto session = Connect(cluster.target());
  REQUIRE(session->Create(BlockedGraph()).ok());
  auto blocked = std::async(std::launch::async, [&] {
    std::vector<Tensor> out;
    Status s = session->Run({}, {"sum"}, {}, &out);
    return s.ok() ? StrCat("sum ", out[0].base<float>()[0]) : s.ToString();
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));

  const std::string frame = Observe(cluster.worker0.port(), "--once");
  INFO(frame);
  CHECK_THAT(frame, Catch::Contains("3 nodes answered, 0 silent"));
  for (const char* task : {"/job:ps/replica:0/task:0", "/job:worker/replica:0/task:0", kWorker1}) {
    CHECK_THAT(frame, Catch::Contains(StrCat("NODE ", task)));
  }
  CHECK_THAT(frame, Catch::Contains("master") && Catch::Contains("rendezvous") && Catch::Contains("executor of step"));
  CHECK_THAT(frame, Catch::Contains("STEPS IN FLIGHT (1)"));
  CHECK_THAT(frame, Catch::Contains("running  dequeue (QueueDequeueV2)"));
  CHECK_THAT(frame, Catch::Contains("queue      FIFOQueue 'w1_queue'") && Catch::Contains("1 dequeues waiting"));

  // Nothing frozen: the root is the empty queue on worker 1.
  const std::string why = Observe(cluster.worker0.port(), "--why");
  INFO(why);
  // The chain from the master's task: the fetch waits for `sum` from the ps, which waits
  // for `w1_value` from worker 1, which waits on its queue.
  CHECK_THAT(why, Catch::Contains("pending on Recv of `sum` from /job:ps/replica:0/task:0, whose Send there has not "
                                  "run because its input `sum` waits for `w1_value`, which has not arrived from "
                                  "/job:worker/replica:0/task:1, "
                                  "whose Send there has not run because its input `w1_value` waits for `dequeue` "
                                  "(QueueDequeueV2), which is still running"));

  // Worker 1 frozen: it is named as the root, with the key and the blocked node.
  cluster.worker1.Signal(SIGSTOP);
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));
  const std::string frozen = Observe(cluster.worker0.port(), "--why --timeout-ms 800");
  cluster.worker1.Signal(SIGCONT);
  INFO(frozen);
  const std::regex sentence(
      "its input `sum` waits for `w1_value`, which has not arrived from /job:worker/replica:0/task:1, which does not "
      "answer "
      "\\(no heartbeat for [0-9.]+ s\\)");
  CHECK(std::regex_search(frozen, sentence));
  // The evidence: the key the ps's Recv waits on, and the node that waits for it.
  const std::regex key("_Recv `w1_value/_Recv_[0-9]+` waits for key /job:worker/replica:0/task:1/device:CPU:0;"
                       "[0-9a-f]+;/job:ps/replica:0/task:0/device:CPU:0;edge_[0-9]+_w1_value;0:0");
  CHECK(std::regex_search(frozen, key));
  CHECK_THAT(frozen, Catch::Contains("`sum` waits for `w1_value/_Recv_"));

  // TENSORACT_OBSERVE_CAPTURE=FILE keeps what the observer showed (README's example).
  if (const char* capture = std::getenv("TENSORACT_OBSERVE_CAPTURE")) {
    if (FILE* f = std::fopen(capture, "w")) {
      std::fprintf(f, "$ tensoract-observe 127.0.0.1:PORT --once\n%s\n$ tensoract-observe 127.0.0.1:PORT --why\n%s\n"
                      "(worker 1 frozen with SIGSTOP)\n$ tensoract-observe 127.0.0.1:PORT --why\n%s",
                   frame.c_str(), why.c_str(), frozen.c_str());
      std::fclose(f);
    }
  }
  // Let the step go: it ends normally.
  auto feeder = Connect(cluster.target());
  REQUIRE(feeder->Create(BlockedGraph()).ok());
  std::vector<Tensor> none;
  REQUIRE(feeder->Run({{"v", Tensor::Scalar<float>(41.f)}}, {}, {"fill"}, &none).ok());
  CHECK(blocked.get() == "sum 42");
  const std::string after = Observe(cluster.worker0.port(), "--why");
  CHECK_THAT(after, Catch::Contains("no step in flight"));
}

TEST_CASE("tensoract-observe follows a task's restart", "[cluster][observe]") {
  Cluster cluster({"--heartbeat-interval-ms", "200"});
  auto session = Connect(cluster.target());
  REQUIRE(session->Create(BlockedGraph()).ok());
  std::vector<Tensor> none;
  REQUIRE(session->Run({{"v", Tensor::Scalar<float>(1.f)}}, {}, {"fill"}, &none).ok());  // heartbeats start
  auto incarnation_of_worker1 = [&](const std::string& frame) {
    std::smatch m;
    std::regex line("NODE /job:worker/replica:0/task:1 \\(incarnation ([0-9a-f]+)\\)");
    return std::regex_search(frame, m, line) ? m[1].str() : std::string();
  };
  const std::string before = Observe(cluster.worker0.port(), "--once");
  const std::string first = incarnation_of_worker1(before);
  INFO(before);
  REQUIRE(!first.empty());

  cluster.worker1.Signal(SIGKILL);
  cluster.worker1.Wait(5000);
  const std::string gone = Observe(cluster.worker0.port(), "--once --timeout-ms 1000");
  INFO(gone);
  CHECK_THAT(gone, Catch::Contains("NODE /job:worker/replica:0/task:1: NOT ANSWERING"));

  cluster.RestartWorker1();
  std::string back, second;
  for (int i = 0; i < 20 && (second.empty() || second == first); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    back = Observe(cluster.worker0.port(), "--once");
    second = incarnation_of_worker1(back);
  }
  INFO(back);
  CHECK(!second.empty());
  CHECK(second != first);
  CHECK_THAT(back, Catch::Contains("3 nodes answered, 0 silent"));
}

// On worker 1: "scaled" = 3a; "ratio" = (a - a) / (a * 0), NaN for any finite a; on the
// ps: "out" = 2 ratio.
tensorflow::GraphDef NanGraph() {
  Scope root = Scope::NewRootScope();
  Scope ps = root.WithDevice(kPs);
  Scope w1 = root.WithDevice(kWorker1);
  auto a = ops::Placeholder(root.WithOpName("a"), tensorflow::DT_FLOAT);
  ops::Mul(w1.WithOpName("scaled"), a, 3.f);
  Output num = ops::Sub(w1.WithOpName("num"), a, a);
  Output den = ops::Mul(w1.WithOpName("den"), a, 0.f);
  Output ratio = ops::RealDiv(w1.WithOpName("ratio"), num, den);
  ops::Mul(ps.WithOpName("out"), ratio, 2.f);
  tensorflow::GraphDef def;
  REQUIRE(root.ToGraphDef(&def).ok());
  return def;
}

TEST_CASE("tensoract-observe watches tensors of the next steps, and finds the first NaN", "[cluster][observe]") {
  Cluster cluster;
  auto session = Connect(cluster.target());
  REQUIRE(session->Create(NanGraph()).ok());
  std::vector<Tensor> out;
  REQUIRE(session->Run({{"a", Tensor::Scalar<float>(1.f)}}, {"scaled"}, {}, &out).ok());  // registered, warm

  // Watch "scaled" in the next two steps (the tool waits for them).
  auto watching = std::async(std::launch::async, [&] {
    return Observe(cluster.worker0.port(), "--watch scaled --steps 2 --wait-ms 20000");
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(2000));
  for (float a : {2.f, 5.f}) REQUIRE(session->Run({{"a", Tensor::Scalar<float>(a)}}, {"scaled"}, {}, &out).ok());
  const std::string watched = watching.get();
  INFO(watched);
  CHECK(std::regex_search(watched, std::regex("step [0-9]+  scaled:0 on /job:worker/replica:0/task:1/device:CPU:0  "
                                              "float \\[\\]  min 6 max 6 mean 6  NaN 0 inf 0")));
  CHECK_THAT(watched, Catch::Contains("scaled:0") && Catch::Contains("min 15 max 15 mean 15"));
  CHECK_THAT(watched, !Catch::Contains("saw 1 of 2"));

  // The NaN search stops the next step at `ratio`, the division, and shows its inputs.
  auto searching = std::async(std::launch::async, [&] {
    return Observe(cluster.worker0.port(), "--find-nan --wait-ms 20000");
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(2000));
  Status stopped = session->Run({{"a", Tensor::Scalar<float>(4.f)}}, {"out"}, {}, &out);
  const std::string found = searching.get();
  INFO(found);
  INFO(stopped.ToString());
  CHECK(stopped.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(stopped.message(), Catch::Contains("NaN search: node 'ratio' (RealDiv)"));
  CHECK_THAT(found, Catch::Contains("node `ratio` (RealDiv) on /job:worker/replica:0/task:1/device:CPU:0"));
  CHECK(std::regex_search(found, std::regex("output step [0-9]+  ratio:0 .* NaN 1 inf 0")));
  CHECK(std::regex_search(found, std::regex("input  step [0-9]+  num:0 .* min 0 max 0 mean 0  NaN 0 inf 0")));
  CHECK(std::regex_search(found, std::regex("input  step [0-9]+  den:0 .* min 0 max 0 mean 0  NaN 0 inf 0")));
  // Searched once: the next step runs, and its NaN comes out as TensorFlow's does.
  REQUIRE(session->Run({{"a", Tensor::Scalar<float>(4.f)}}, {"out"}, {}, &out).ok());
  CHECK(std::isnan(out[0].base<float>()[0]));
}

TEST_CASE("tensoract-observe --slow walks a traced step's critical path across tasks", "[cluster][observe]") {
  Cluster cluster;
  auto session = Connect(cluster.target());
  // The ps makes the weights; worker 1 multiplies a large batch by them (the slow part);
  // the master's task sums the product.
  Scope root = Scope::NewRootScope();
  Scope ps = root.WithDevice(kPs);
  Scope w1 = root.WithDevice(kWorker1);
  auto fill = ops::Placeholder(root.WithOpName("fill_value"), tensorflow::DT_FLOAT);  // fed: nothing folds
  Output w = ops::Identity(ps.WithOpName("w"), ops::Fill(ps, ops::Const(ps, {1024, 1024}), fill));
  Output x = ops::Fill(w1, ops::Const(w1, {1024, 1024}), fill);
  Output h = ops::MatMul(w1.WithOpName("big_matmul"), x, w);
  ops::Sum(root.WithOpName("total"), h, {0, 1});
  tensorflow::GraphDef def;
  REQUIRE(root.ToGraphDef(&def).ok());
  REQUIRE(session->Create(def).ok());
  CHECK_THAT(Observe(cluster.worker0.port(), "--slow"), Catch::Contains("no step was traced yet"));
  RunOptions options;
  options.trace_level = RunOptions::FULL_TRACE;
  RunMetadata metadata;
  std::vector<Tensor> out;
  REQUIRE(session->Run(options, {{"fill_value", Tensor::Scalar<float>(0.5f)}}, {"total"}, {}, &out, &metadata).ok());
  const std::string slow = Observe(cluster.worker0.port(), "--slow");
  INFO(slow);
  CHECK_THAT(slow, Catch::Contains("(traced) took") && Catch::Contains("critical path"));
  // The path ends at the fetch on the master's task, and reaches back through the big
  // product on worker 1 and its transfer (which of x or the ps's w came last before the
  // product depends on the machine's load; both start from the fed value).
  const std::string path = slow.substr(0, slow.find("busiest nodes"));
  const size_t product = path.find("big_matmul  "), sent = path.find("big_matmul/_Send"),
               received = path.find("big_matmul/_Recv"), sum = path.find("total  ");
  CHECK(product != std::string::npos);
  CHECK(sent != std::string::npos);
  CHECK(received != std::string::npos);
  CHECK(sum != std::string::npos);
  CHECK((product < sent && sent < received && received < sum));
  CHECK(std::regex_search(path, std::regex("/job:worker/replica:0/task:1 +big_matmul +MatMul")));
  CHECK(std::regex_search(path, std::regex("/job:worker/replica:0/task:0 +total +Sum")));
}

TEST_CASE("the live view refreshes in a terminal and quits on q", "[cluster][observe]") {
  if (system("command -v tmux > /dev/null") != 0) {
    WARN("tmux is not installed (bootstrap/install-deps.sh installs it): the live view is not tested");
    return;
  }
  Cluster cluster;
  const std::string session = "tensoract_observe_" + std::to_string(getpid());
  const std::string command = "TENSORACT_CLUSTER_TOKEN='" + std::string(local_cluster::kTestToken) + "' " + BuildDir() +
                              "/bootstrap/tensoract-observe 127.0.0.1:" + std::to_string(cluster.worker0.port()) +
                              " --interval-ms 300";
  REQUIRE(system(("tmux new-session -d -s " + session + " -x 200 -y 60 \"" + command + "\"").c_str()) == 0);
  auto screen = [&] { return Capture("tmux capture-pane -p -t " + session); };
  std::string shown;
  for (int i = 0; i < 40 && shown.find("refreshing every 300 ms") == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    shown = screen();
  }
  INFO(shown);
  CHECK_THAT(shown, Catch::Contains("tensoract-observe: cluster seen from 127.0.0.1:"));
  CHECK_THAT(shown, Catch::Contains("TASKS") && Catch::Contains("/job:ps/replica:0/task:0"));
  // A later frame: the view is redrawn, not appended.
  std::this_thread::sleep_for(std::chrono::milliseconds(700));
  const std::string later = screen();
  size_t headers = 0;
  for (size_t at = 0; (at = later.find("cluster seen from", at)) != std::string::npos; ++at) ++headers;
  CHECK(headers == 1);
  CHECK_THAT(later, Catch::Contains("TASKS"));
  system(("tmux send-keys -t " + session + " q").c_str());
  bool ended = false;
  for (int i = 0; i < 20 && !ended; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    ended = system(("tmux has-session -t " + session + " 2> /dev/null").c_str()) != 0;
  }
  if (!ended) system(("tmux kill-session -t " + session).c_str());
  CHECK(ended);
}

}  // namespace
}  // namespace tensoract
