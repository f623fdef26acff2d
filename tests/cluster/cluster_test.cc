// The distributed runtime with real processes on loopback: tensoract-node tasks started
// and killed by the tests, a client Session with a tensoract:// target. Every wait has a
// deadline (the node helper's 20 s for startup, the session's step timeouts).
#include <catch2/catch.hpp>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <future>
#include <thread>

#include "actors/messages.h"
#include "client/eager_context.h"
#include "client/eager_variable.h"
#include "client/function.h"
#include "client/gradient_tape.h"
#include "client/session.h"
#include "client/training_loop.h"
#include "bootstrap/node_auth.h"
#include "bootstrap/node_process.h"
#include "tests/actors/test_util.h"
#include "tests/cluster/cluster_test_util.h"
#include "graph/builder/array_ops.h"
#include "graph/builder/control_flow.h"
#include "graph/builder/io_ops.h"
#include "graph/builder/list_ops.h"
#include "graph/gradients/gradients.h"
#include "kernels/tensor_list.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/nn_ops.h"
#include "graph/builder/ops.h"
#include "graph/training/optimizers.h"

#include <caf/all.hpp>
#include <caf/io/all.hpp>

namespace tensoract {
namespace {

using testing::kPs;
using testing::kWorker1;

using local_cluster::kTestToken;
using local_cluster::Local;
using local_cluster::NodeProcess;
using testing::Cluster;
using testing::Connect;
using testing::InspectNode;


tensorflow::TensorProto Proto(const Tensor& t) {
  tensorflow::TensorProto p;
  t.AsProtoTensorContent(&p);
  return p;
}

// A two-layer regression: weights on the ps, the hidden layer on worker 1, the output
// and the loss on the master's task; devices empty -> the local runtime places it all.
struct Model {
  Scope root = Scope::NewRootScope();
  Variable w1, w2;
  Output x, loss;
  Node* train = nullptr;
  Node* init = nullptr;
  explicit Model(bool spread) {
    Scope ps = root.WithDevice(spread ? kPs : "");
    Scope w = root.WithDevice(spread ? kWorker1 : "");
    std::vector<float> a(16 * 32), b(32);
    for (size_t i = 0; i < a.size(); ++i) a[i] = 0.01f * static_cast<float>((i * 7) % 23) - 0.1f;
    for (size_t i = 0; i < b.size(); ++i) b[i] = 0.02f * static_cast<float>((i * 5) % 11) - 0.1f;
    w1 = NewVariable(ps, "w1", ops::Const(ps.WithOpName("w1_init"), Proto(Tensor::FromVector<float>(a, TensorShape({16, 32})))));
    w2 = NewVariable(ps, "w2", ops::Const(ps.WithOpName("w2_init"), Proto(Tensor::FromVector<float>(b, TensorShape({32, 1})))));
    x = ops::Placeholder(root.WithOpName("x"), tensorflow::DT_FLOAT, PartialTensorShape({-1, 16}));
    Output h = ops::Relu(w.WithOpName("h"), ops::MatMul(w, x, w1.value));
    Output y = ops::MatMul(root.WithOpName("y"), h, w2.value);
    loss = ops::Mean(root.WithOpName("loss"), ops::Square(root, ops::Sub(root, y, 1.f)), {0, 1});
    GradientDescentOptimizer sgd(0.05);
    train = sgd.Minimize(root, loss, {w1, w2}, nullptr);
    init = GroupInitializers(root.WithOpName("init"), {w1, w2});
  }
  tensorflow::GraphDef Def() {
    tensorflow::GraphDef def;
    REQUIRE(root.ToGraphDef(&def).ok());
    return def;
  }
};

Tensor Batch(int step) {
  std::vector<float> v(8 * 16);
  for (size_t i = 0; i < v.size(); ++i) v[i] = 0.1f * static_cast<float>((i + 3 * step) % 17) - 0.5f;
  return Tensor::FromVector<float>(v, TensorShape({8, 16}));
}

// Losses of `steps` training steps.
std::vector<float> Train(Session& session, Model& m, int steps) {
  REQUIRE(session.Create(m.Def()).ok());
  Status s = session.Run({}, {}, {m.init->name()}, nullptr);
  INFO(s.ToString());
  REQUIRE(s.ok());
  std::vector<float> losses;
  for (int i = 0; i < steps; ++i) {
    std::vector<Tensor> out;
    s = session.Run({{"x", Batch(i)}}, {"loss"}, {m.train->name()}, &out);
    INFO(s.ToString());
    REQUIRE(s.ok());
    losses.push_back(out[0].base<float>()[0]);
  }
  return losses;
}


TEST_CASE("a graph spread over three processes trains exactly as the local runtime", "[cluster]") {
  Model local_model(false);
  auto local = Session::New().value();
  std::vector<float> expected = Train(*local, local_model, 6);

  Cluster cluster;
  Model spread(true);
  auto remote = Connect(cluster.target());
  std::vector<float> got = Train(*remote, spread, 6);
  CHECK(got == expected);

  // The pieces ran where the graph put them: the ps holds the variables, worker 1 ran steps.
  std::string ps = InspectNode(cluster.ps.port());
  CHECK_THAT(ps, Catch::Contains("w1") && Catch::Contains("steps running: []"));
  std::string master = remote->Inspect();
  CHECK_THAT(master, Catch::Contains(std::string("task ") + kWorker1 + ": healthy"));
}

TEST_CASE("callables, partial runs and ListDevices through a tensoract:// session, over three processes",
          "[cluster]") {
  Model local_model(false);
  auto local = Session::New().value();
  std::vector<float> expected = Train(*local, local_model, 3);

  Cluster cluster;
  Model spread(true);
  auto remote = Connect(cluster.target());
  REQUIRE(remote->Create(spread.Def()).ok());
  REQUIRE(remote->Run({}, {}, {spread.init->name()}, nullptr).ok());
  std::vector<tensorflow::DeviceAttributes> devices;
  REQUIRE(remote->ListDevices(&devices).ok());
  std::vector<std::string> names;
  for (const auto& d : devices) names.push_back(d.name());
  CHECK_THAT(names, Catch::VectorContains(std::string(kPs) + "/device:CPU:0"));
  CHECK_THAT(names, Catch::VectorContains(std::string(kWorker1) + "/device:CPU:0"));

  // Step 0 as a callable, step 1 as a partial run (the loss fetched before the train op runs
  // with the same step's values), step 2 as a plain Run: TensorFlow's losses all the same.
  tensorflow::CallableOptions options;
  options.add_feed("x");
  options.add_fetch("loss");
  options.add_target(spread.train->name());
  Session::CallableHandle step = -1;
  REQUIRE(remote->MakeCallable(options, &step).ok());
  std::vector<Tensor> out;
  REQUIRE(remote->RunCallable(step, {Batch(0)}, &out).ok());
  CHECK(out[0].base<float>()[0] == expected[0]);
  std::string run;
  Status setup = remote->PRunSetup({"x"}, {"loss"}, {spread.train->name()}, &run);
  INFO(setup.ToString());
  REQUIRE(setup.ok());
  REQUIRE(remote->PRun(run, {{"x", Batch(1)}}, {"loss"}, &out).ok());
  CHECK(out[0].base<float>()[0] == expected[1]);
  REQUIRE(remote->Run({{"x", Batch(2)}}, {"loss"}, {spread.train->name()}, &out).ok());
  CHECK(out[0].base<float>()[0] == expected[2]);
  REQUIRE(remote->ReleaseCallable(step).ok());
  Status gone = remote->PRun(run, {}, {"loss"}, &out);
  CHECK(gone.code() == error::INVALID_ARGUMENT);
}

TEST_CASE("a client with the wrong token is refused", "[cluster]") {
  Cluster cluster;
  auto session = Connect(cluster.target(), "not-the-token");
  Model m(true);
  Status s = session->Create(m.Def());
  CHECK(s.code() == error::PERMISSION_DENIED);
  CHECK_THAT(s.message(), Catch::Contains("wrong cluster token"));
}

// A step that keeps worker 1 busy for seconds: a chain of 2048x2048 MatMuls there, on a
// fed matrix (a constant one would be folded away by the master).
struct SlowStep {
  Scope root = Scope::NewRootScope();
  std::string fetch;
  Tensor input = Tensor::FromVector<float>(std::vector<float>(2048 * 2048, 0.0001f), TensorShape({2048, 2048}));
  SlowStep() {
    Scope w = root.WithDevice(kWorker1);
    Output a = ops::Placeholder(root.WithOpName("a"), tensorflow::DT_FLOAT, PartialTensorShape({2048, 2048}));
    Output m = a;
    for (int i = 0; i < 30; ++i) m = ops::MatMul(w, m, a);
    fetch = ops::Sum(root.WithOpName("total"), m, {0, 1}).name();
  }
};

// Runs the slow step, does `to_worker1` to worker 1 half a second in, and checks that Run
// fails naming worker 1 within the heartbeat timeout (1 s here) plus a second, plus slack
// for a loaded machine.
void ExpectFailureNamingWorker1(Cluster& cluster, int sig, const std::function<void()>& while_stuck = {}) {
  SlowStep slow;
  tensorflow::GraphDef def;
  REQUIRE(slow.root.ToGraphDef(&def).ok());
  auto session = Connect(cluster.target());
  REQUIRE(session->Create(def).ok());
  auto started = std::chrono::steady_clock::now();
  auto run = std::async(std::launch::async, [&] {
    std::vector<Tensor> out;
    return session->Run({{"a", slow.input}}, {slow.fetch}, {}, &out);
  });
  // Half a second in, and not before both workers run their shares: on a loaded machine the
  // first step can still be registering its graphs then (the master's step table says when).
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const auto running_by = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (InspectNode(cluster.worker0.port()).find("waiting for 2 of 2 tasks") == std::string::npos &&
         std::chrono::steady_clock::now() < running_by) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  cluster.worker1.Signal(sig);
  auto signalled = std::chrono::steady_clock::now();
  if (while_stuck) while_stuck();
  REQUIRE(run.wait_for(std::chrono::seconds(20)) == std::future_status::ready);
  Status s = run.get();
  double after_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - signalled).count();
  INFO(s.ToString() << " after " << after_s << " s");
  CHECK((s.code() == error::UNAVAILABLE || s.code() == error::ABORTED));
  CHECK_THAT(s.message(), Catch::Contains(kWorker1));
  // The figure, for the record (the bound is the heartbeat timeout plus a second);
  // the check is only a hang guard.
  WARN("signal " << sig << ": Run failed " << after_s << " s after it, "
                 << std::chrono::duration<double>(signalled - started).count() << " s into the step: "
                 << s.ToString());
  CHECK(after_s < 10.0);
}

TEST_CASE("a worker killed in the middle of a step fails the step naming it; a restarted one works again",
          "[cluster]") {
  Cluster cluster({"--heartbeat-interval-ms", "200", "--heartbeat-timeout-ms", "1000"});
  ExpectFailureNamingWorker1(cluster, SIGKILL);
  // The ps dropped the failed step's state.
  CHECK_THAT(InspectNode(cluster.ps.port()), Catch::Contains("steps running: []"));

  cluster.RestartWorker1();
  // The master notices the new incarnation at its next heartbeat and registers again. A
  // step on worker 1 that runs before that heartbeat fails ("restarted during the step"):
  // the training step (init does not touch worker 1) is retried until one has run there.
  Model m(true);
  auto session = Connect(cluster.target());
  REQUIRE(session->Create(m.Def()).ok());
  Status s;
  std::vector<Tensor> out;
  for (int attempt = 0; attempt < 50; ++attempt) {
    s = session->Run({}, {}, {m.init->name()}, nullptr);
    if (s.ok()) s = session->Run({{"x", Batch(0)}}, {"loss"}, {m.train->name()}, &out);
    if (s.ok()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  INFO(s.ToString());
  CHECK(s.ok());
}

TEST_CASE("a frozen worker fails the step within the heartbeat timeout; it is used again once it thaws",
          "[cluster]") {
  Cluster cluster({"--heartbeat-interval-ms", "200", "--heartbeat-timeout-ms", "1000"});
  std::string stuck;
  ExpectFailureNamingWorker1(cluster, SIGSTOP, [&] { stuck = InspectNode(cluster.worker0.port()); });
  // While worker 1 was frozen, the master's node showed the step waiting for it: the
  // master's step table names the task, the executor its Recv in flight.
  INFO(stuck);
  CHECK_THAT(stuck, Catch::Contains("waiting for 2 of 2 tasks") && Catch::Contains(kWorker1) &&
                        Catch::Contains("executor of step") && Catch::Contains("in flight"));
  cluster.worker1.Signal(SIGCONT);
  int exited = cluster.worker0.Wait(200);
  INFO("worker 0 exit status (-1: still running): " << exited);
  REQUIRE(exited == -1);
  Model m(true);
  auto session = Connect(cluster.target());
  Status created = session->Create(m.Def());
  INFO(created.ToString());
  REQUIRE(created.ok());
  Status s;
  for (int attempt = 0; attempt < 50; ++attempt) {
    s = session->Run({}, {}, {m.init->name()}, nullptr);
    if (s.ok()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  INFO(s.ToString());
  CHECK(s.ok());
}

// A signature's first step registers its graphs on every task before it runs: a task frozen
// then must fail the step within the heartbeat timeout too, not after the registration's
// own 60 s deadline (seen once: a loaded machine took over 0.5 s to register the slow step
// above, so worker 1 froze in the middle of it and Run hung past 20 s).
TEST_CASE("a worker frozen while a first step registers its graphs fails that step within the heartbeat timeout",
          "[cluster]") {
  Cluster cluster({"--heartbeat-interval-ms", "200", "--heartbeat-timeout-ms", "1000"});
  Model m(true);
  auto session = Connect(cluster.target());
  REQUIRE(session->Create(m.Def()).ok());
  // One step connects every task; the training step is a new signature, registered anew.
  Status s = session->Run({}, {}, {m.init->name()}, nullptr);
  INFO(s.ToString());
  REQUIRE(s.ok());
  cluster.worker1.Signal(SIGSTOP);
  auto started = std::chrono::steady_clock::now();
  auto train = [&] {
    std::vector<Tensor> out;
    return session->Run({{"x", Batch(0)}}, {"loss"}, {m.train->name()}, &out);
  };
  auto run = std::async(std::launch::async, train);
  REQUIRE(run.wait_for(std::chrono::seconds(20)) == std::future_status::ready);
  s = run.get();
  double after_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  INFO(s.ToString() << " after " << after_s << " s");
  CHECK(s.code() == error::UNAVAILABLE);
  CHECK_THAT(s.message(), Catch::Contains(kWorker1));
  CHECK(after_s < 10.0);  // a hang guard: the bound is the heartbeat timeout plus an interval
  // The graphs the other tasks registered for the failed start are dropped, and a thawed
  // worker 1 serves the same signature again.
  cluster.worker1.Signal(SIGCONT);
  for (int attempt = 0; attempt < 50; ++attempt) {
    s = train();
    if (s.ok()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  INFO(s.ToString());
  CHECK(s.ok());
  CHECK_THAT(session->Inspect(), !Catch::Contains("registering its graphs"));
}

TEST_CASE("with --bfloat16-sendrecv, floats cross processes as bfloat16", "[cluster]") {
  Model local_model(false);
  auto local = Session::New().value();
  REQUIRE(local->Create(local_model.Def()).ok());
  REQUIRE(local->Run({}, {}, {local_model.init->name()}, nullptr).ok());
  std::vector<Tensor> expected;
  REQUIRE(local->Run({{"x", Batch(0)}}, {"loss"}, {}, &expected).ok());

  Cluster cluster({"--bfloat16-sendrecv", "true"});
  Model m(true);
  auto session = Connect(cluster.target());
  REQUIRE(session->Create(m.Def()).ok());
  REQUIRE(session->Run({}, {}, {m.init->name()}, nullptr).ok());
  RunOptions options;
  options.output_partition_graphs = true;
  RunMetadata metadata;
  std::vector<Tensor> got;
  Status s = session->Run(options, {{"x", Batch(0)}}, {"loss"}, {}, &got, &metadata);
  INFO(s.ToString());
  REQUIRE(s.ok());
  // 8 significant bits on the wire: close to the local loss, not necessarily equal.
  CHECK(got[0].base<float>()[0] == Approx(expected[0].base<float>()[0]).epsilon(0.02));
  int casts = 0;
  for (const auto& g : metadata.partition_graphs) {
    for (const auto& n : g.node()) {
      auto dst = n.attr().find("DstT");
      if (n.op() == "Cast" && dst != n.attr().end() && dst->second.type() == tensorflow::DT_BFLOAT16) ++casts;
    }
  }
  CHECK(casts > 0);
}

// The spread loop (testing::SpreadLoopGraph) run to `n` in `session`: its count and state.
std::pair<int, float> SpreadLoop(Session& session, bool spread, int n) {
  REQUIRE(session.Create(testing::SpreadLoopGraph(spread, n)).ok());
  std::vector<Tensor> got;
  Status run = session.Run({}, {"count", "state"}, {}, &got);
  INFO(run.ToString());
  REQUIRE(run.ok());
  return {got[0].base<int32_t>()[0], got[1].base<float>()[0]};
}

TEST_CASE("the master killed mid-step: the client's Run fails with Unavailable naming it, promptly",
          "[cluster][faults]") {
  Cluster cluster;
  SlowStep slow;
  tensorflow::GraphDef def;
  REQUIRE(slow.root.ToGraphDef(&def).ok());
  auto session = Connect(cluster.target());
  REQUIRE(session->Create(def).ok());
  auto run = std::async(std::launch::async, [&] {
    std::vector<Tensor> out;
    return session->Run({{"a", slow.input}}, {slow.fetch}, {}, &out);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  cluster.worker0.Signal(SIGKILL);  // worker 0 runs the master the client talks to
  auto killed = std::chrono::steady_clock::now();
  REQUIRE(run.wait_for(std::chrono::seconds(20)) == std::future_status::ready);
  Status s = run.get();
  double after_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - killed).count();
  INFO(s.ToString() << " after " << after_s << " s");
  CHECK(s.code() == error::UNAVAILABLE);
  CHECK_THAT(s.message(), Catch::Contains(cluster.target()));
  // It used to wait for the step's deadline (60 s here) plus 10 s: CAF never answered the
  // request sent to the dead master. The bound: the heartbeat timeout (3 s) plus a second.
  CHECK(after_s < 4.0);
  WARN("master killed: Run failed " << after_s << " s after it");
  // Worker 1 was running its share: it notices its master went away, aborts the step and
  // drops the graphs and rendezvous entries that master left (they used to stay forever).
  std::string w1;
  for (int i = 0; i < 40; ++i) {
    w1 = InspectNode(cluster.worker1.port());
    if (w1.find("0 graphs registered, steps running: []") != std::string::npos &&
        w1.find("0 steps with entries") != std::string::npos) {
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  CHECK_THAT(w1, Catch::Contains("0 graphs registered, steps running: []") && Catch::Contains("0 steps with entries"));
  WARN("worker 1 clean " << std::chrono::duration<double>(std::chrono::steady_clock::now() - killed).count()
                         << " s after the master was killed");
}

// An endless loop ("count") whose body runs on worker 1: worker 1 keeps waiting for the
// master's task, iteration after iteration.
tensorflow::GraphDef EndlessLoopOnWorker1() { return testing::CountingLoopGraph(1000000000, kWorker1); }

TEST_CASE("a StepCanceller cancels a step running across processes; the session goes on", "[cluster][faults]") {
  Cluster cluster;
  auto session = Connect(cluster.target());
  tensorflow::GraphDef def = EndlessLoopOnWorker1();
  Scope more = Scope::NewRootScope().NewSubScope("extra");  // names apart from the loop's
  ops::Identity(more.WithOpName("y"), ops::Add(more.WithDevice(kWorker1), ops::Const(more, 1.f), 2.f));
  tensorflow::GraphDef small;
  REQUIRE(more.ToGraphDef(&small).ok());
  for (const auto& node : small.node()) *def.add_node() = node;
  REQUIRE(session->Create(def).ok());
  auto canceller = std::make_shared<StepCanceller>();
  RunOptions options;
  options.canceller = canceller;
  auto run = std::async(std::launch::async, [&] {
    std::vector<Tensor> got;
    return session->Run(options, {}, {"count"}, {}, &got);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  const auto cancelled = std::chrono::steady_clock::now();
  canceller->Cancel();
  REQUIRE(run.wait_for(std::chrono::seconds(20)) == std::future_status::ready);
  Status s = run.get();
  const double after_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - cancelled).count();
  INFO(s.ToString() << " after " << after_s << " s");
  CHECK(s.code() == error::CANCELLED);
  CHECK(after_s < 2.0);
  // Worker 1 dropped its share, and the session runs another step across both workers.
  std::string w1;
  for (int i = 0; i < 50; ++i) {
    w1 = InspectNode(cluster.worker1.port());
    if (w1.find("steps running: []") != std::string::npos && w1.find("0 steps with entries") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  CHECK_THAT(w1, Catch::Contains("steps running: []") && Catch::Contains("0 steps with entries"));
  std::vector<Tensor> y;
  REQUIRE(session->Run({}, {"extra/y"}, {}, &y).ok());
  CHECK(y[0].base<float>()[0] == 3.f);
  WARN("cancelled across processes: Run returned " << after_s << " s after Cancel()");
}

TEST_CASE("the master frozen mid-step: the client's Run fails naming it; worker 1 ends its share of the step",
          "[cluster][faults]") {
  Cluster cluster;
  auto session = Connect(cluster.target());
  REQUIRE(session->Create(EndlessLoopOnWorker1()).ok());
  auto run = std::async(std::launch::async, [&] {
    std::vector<Tensor> got;
    return session->Run({}, {"count"}, {}, &got);
  });
  std::string w1;
  for (int i = 0; i < 100 && w1.find("steps running: [") == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    w1 = InspectNode(cluster.worker1.port());
    if (w1.find("steps running: []") != std::string::npos) w1.clear();
  }
  INFO(w1);
  REQUIRE_THAT(w1, Catch::Contains("steps running: ["));
  cluster.worker0.Signal(SIGSTOP);  // worker 0 runs the master the client talks to
  const auto frozen = std::chrono::steady_clock::now();
  auto since_frozen = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - frozen).count();
  };
  REQUIRE(run.wait_for(std::chrono::seconds(20)) == std::future_status::ready);
  Status s = run.get();
  const double failed_s = since_frozen();
  INFO(s.ToString() << " after " << failed_s << " s");
  CHECK(s.code() == error::UNAVAILABLE);
  CHECK_THAT(s.message(), Catch::Contains(cluster.target()) && Catch::Contains("heartbeat"));
  // The client's heartbeat timeout (3 s) plus its interval (1 s), plus slack.
  CHECK(failed_s < 5.0);
  // Worker 1 holds the master's lease (its heartbeat interval plus twice its timeout, 7.1 s:
  // HeartbeatLeaseMs): once it lapses, worker 1 aborts the step and drops its rendezvous
  // entries.
  for (int i = 0; i < 100; ++i) {
    w1 = InspectNode(cluster.worker1.port());
    if (w1.find("steps running: []") != std::string::npos && w1.find("0 steps with entries") != std::string::npos) {
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  const double w1_clean_s = since_frozen();
  CHECK_THAT(w1, Catch::Contains("steps running: []") && Catch::Contains("0 steps with entries"));
  CHECK(w1_clean_s < 9.0);
  WARN("master frozen: Run failed " << failed_s << " s after, worker 1 clean " << w1_clean_s << " s after");
  // Thawed, the master serves again: a new session's step that spans both workers runs.
  cluster.worker0.Signal(SIGCONT);
  Scope again = Scope::NewRootScope();
  ops::Identity(again.WithOpName("y"), ops::Add(again.WithDevice(kWorker1), ops::Const(again, 1.f), 2.f));
  tensorflow::GraphDef small;
  REQUIRE(again.ToGraphDef(&small).ok());
  auto next = Connect(cluster.target());
  REQUIRE(next->Create(small).ok());
  std::vector<Tensor> y;
  Status thawed = next->Run({}, {"y"}, {}, &y);
  INFO(thawed.ToString());
  REQUIRE(thawed.ok());
  CHECK(y[0].base<float>()[0] == 3.f);
}

// Strings and TensorLists made on the ps and used on worker 1: a list of xs's rows read and
// pushed to there, its gradient (a list) sent back to the ps; strings joined across both.
struct ListsAcross {
  Scope root = Scope::NewRootScope();
  Output xs, stacked, grad, names, fetched_list;
  explicit ListsAcross(bool spread) {
    Scope ps = root.WithDevice(spread ? kPs : "");
    Scope w = root.WithDevice(spread ? kWorker1 : "");
    xs = ops::Placeholder(root.WithOpName("xs"), tensorflow::DT_FLOAT, PartialTensorShape({3, 2}));
    Output rows = ops::TensorListFromTensor(ps.WithOpName("rows"), ops::Tanh(ps, xs), {2});
    Output second = ops::TensorListGetItem(w, rows, 1, {2}, tensorflow::DT_FLOAT);
    Output pushed = ops::TensorListPushBack(w.WithOpName("pushed"), rows, ops::Mul(w, second, second));
    stacked = ops::TensorListStack(root.WithOpName("stacked"), pushed, {2}, tensorflow::DT_FLOAT);
    std::vector<Output> grads;
    REQUIRE(AddSymbolicGradients(root, {ops::Sum(root, stacked, {0, 1})}, {xs}, &grads).ok());
    grad = ops::Identity(root.WithOpName("grad"), grads[0]);
    Output task = ops::Const(ps.WithOpName("task"), Proto(Tensor::FromVector<std::string>({"ps"})));
    names = ops::Identity(w.WithOpName("names"), ops::Const(w, Proto(Tensor::FromVector<std::string>({"a", ""}))));
    names = ops::Identity(root.WithOpName("joined"), ops::Concat(w, {names, task}, 0));
    fetched_list = ops::Identity(root.WithOpName("list"), pushed);
  }
  std::vector<Tensor> Run(Session& session) {
    tensorflow::GraphDef def;
    REQUIRE(root.ToGraphDef(&def).ok());
    REQUIRE(session.Create(def).ok());
    std::vector<Tensor> out;
    Status s = session.Run({{"xs", Tensor::FromVector<float>({0.5f, -1, 0.2f, 0.3f, -0.7f, 0.9f}, TensorShape({3, 2}))}},
                           {"stacked", "grad", "joined", "list"}, {}, &out);
    INFO(s.ToString());
    REQUIRE(s.ok());
    return out;
  }
};

TEST_CASE("strings and TensorLists cross processes, a list's gradient back to where it was made", "[cluster]") {
  auto local = Session::New().value();
  std::vector<Tensor> expected = ListsAcross(false).Run(*local);
  Cluster cluster;
  auto remote = Connect(cluster.target());
  std::vector<Tensor> got = ListsAcross(true).Run(*remote);
  auto floats = [](const Tensor& t) { return std::vector<float>(t.base<float>(), t.base<float>() + t.NumElements()); };
  CHECK(got[0].shape() == TensorShape({4, 2}));
  CHECK(floats(got[0]) == floats(expected[0]));
  CHECK(floats(got[1]) == floats(expected[1]));
  REQUIRE(got[2].NumElements() == 3);
  CHECK(got[2].base<std::string>()[0] == "a");
  CHECK(got[2].base<std::string>()[1] == "");
  CHECK(got[2].base<std::string>()[2] == "ps");
  // The list itself, fetched by the client from the master's process.
  auto list = TensorListFrom(got[3], "the fetched list");
  INFO(list.status());
  REQUIRE(list.ok());
  CHECK(list.value()->tensors.size() == 4);
  CHECK(floats(*list.value()->tensors[3]) == floats(*TensorListFrom(expected[3], "local").value()->tensors[3]));
}

TEST_CASE("a while loop whose body spans three processes ends with the local result", "[cluster]") {
  Cluster cluster;
  for (int n : {0, 1, 25}) {
    auto local = Session::New().value();
    auto expected = SpreadLoop(*local, false, n);
    auto remote = Connect(cluster.target());
    auto got = SpreadLoop(*remote, true, n);
    CHECK(got.first == n);
    CHECK(got == expected);
  }
}

std::vector<float> ReadW1(Session& session) {
  std::vector<Tensor> out;
  Status s = session.Run({}, {"w1/Read/ReadVariableOp"}, {}, &out);
  INFO(s.ToString());
  REQUIRE(s.ok());
  return std::vector<float>(out[0].base<float>(), out[0].base<float>() + out[0].NumElements());
}

// Trains the two-layer model on the cluster under a TrainingLoop checkpointing every 3
// steps: 5 steps, then `fault` (with the cluster's flags), then on to step 10. The loop must
// recover once and end with the weights of an uninterrupted 10-step run. The session's
// handle before and after the fault.
std::pair<std::string, std::string> TrainThroughFault(
    const std::function<void(Cluster&, const std::vector<std::string>& flags)>& fault) {
  Model local_model(false);
  auto local = Session::New().value();
  Train(*local, local_model, 10);
  std::vector<float> expected = ReadW1(*local);

  const std::vector<std::string> flags = {"--heartbeat-interval-ms", "200", "--heartbeat-timeout-ms", "1000"};
  Cluster cluster(flags);
  Model m(true);
  Saver saver = Saver::New(m.root, {m.w1.handle, m.w2.handle}).value();
  auto session = Connect(cluster.target());
  REQUIRE(session->Create(m.Def()).ok());
  char dir_template[] = "/tmp/tensoract_loop_XXXXXX";
  std::string dir = mkdtemp(dir_template);
  TrainingLoopOptions options;
  options.checkpoint_dir = dir;
  options.save_every_steps = 3;
  options.init_op = m.init->name();
  TrainingLoop loop(*session, saver, options);
  REQUIRE(loop.Start().ok());
  auto step_fn = [&](Session& s, int64_t step) {
    return s.Run({{"x", Batch(static_cast<int>(step))}}, {}, {m.train->name()}, nullptr);
  };
  while (loop.step() < 5) REQUIRE(loop.Step(step_fn).ok());
  CHECK(loop.last_saved_step() == 3);
  const std::string before = session->handle();
  fault(cluster, flags);
  while (loop.step() < 10) {
    Status s = loop.Step(step_fn);
    INFO(s.ToString());
    REQUIRE(s.ok());
  }
  CHECK(loop.recoveries() == 1);
  // Steps 4 and 5 were replayed from the step-3 checkpoint with the same batches: the
  // weights are those of an uninterrupted run.
  CHECK(ReadW1(*session) == expected);
  std::system(("rm -rf " + dir).c_str());
  return {before, session->handle()};
}

TEST_CASE("a restarted ps: the training loop restores the latest checkpoint and replays the lost steps",
          "[cluster]") {
  TrainThroughFault([](Cluster& cluster, const std::vector<std::string>&) { cluster.RestartPs(); });
}

TEST_CASE("a restarted master: the training loop makes a new session, restores the latest checkpoint, goes on",
          "[cluster][faults]") {
  auto [before, after] = TrainThroughFault(
      [](Cluster& cluster, const std::vector<std::string>& flags) { cluster.RestartWorker0(flags); });
  CHECK(after != before);
}

std::vector<float> EagerFloats(const Output& out) {
  auto t = ValueOf(out);
  INFO(t.status().ToString());
  REQUIRE(t.ok());
  return std::vector<float>(t.value().base<float>(), t.value().base<float>() + t.value().NumElements());
}

TEST_CASE("eager ops, a tape, variables and a Function against a cluster", "[cluster][eager]") {
  Cluster cluster;
  SessionOptions options;
  options.target = cluster.target();
  options.cluster_token = kTestToken;
  options.step_timeout_ms = 60000;
  auto made = EagerContext::New(options);
  INFO(made.status().ToString());
  REQUIRE(made.ok());
  EagerContext& ctx = *made.value();
  Scope s = ctx.scope();
  Scope on_ps = s.WithDevice(std::string(kPs) + "/device:CPU:0");
  Scope on_worker1 = s.WithDevice(std::string(kWorker1) + "/device:CPU:0");
  Output x = ops::Const(s, {1.f, 2.f});
  Output y = ops::Mul(on_worker1, x, 3.f);  // runs on worker 1, its value comes back
  REQUIRE(s.status().ok());
  CHECK(EagerFloats(y) == std::vector<float>{3, 6});

  // A variable on the ps, trained by a tape's gradient.
  auto v = MakeVariable(on_ps, "v", {1.f, 1.f});
  INFO(v.status().ToString());
  REQUIRE(v.ok());
  GradientTape tape(ctx);
  Output loss = ops::Sum(on_worker1, ops::Mul(on_worker1, v.value().Read(on_ps), y), 0);
  auto grads = tape.Gradient(loss, {v.value()});
  INFO(grads.status().ToString());
  REQUIRE(grads.ok());
  CHECK(EagerFloats(grads.value()[0]) == std::vector<float>{3, 6});
  ops::AssignSubVariableOp(on_ps, v.value().handle, grads.value()[0]);
  REQUIRE(s.status().ok());
  CHECK(EagerFloats(v.value().Read(on_ps)) == std::vector<float>{-2, -5});

  // A Function's graph runs on the cluster and reads the same variable.
  Function f(ctx, "f", [&](const Scope& g, const std::vector<FunctionArg>& args) {
    return std::vector<Output>{ops::Mul(g.WithDevice(kWorker1), std::get<Output>(args[0]), v.value().Read(g))};
  });
  auto out = f(s, {x});
  INFO(out.status().ToString());
  REQUIRE(out.ok());
  CHECK(EagerFloats(out.value()[0]) == std::vector<float>{-2, -10});

  // What an op costs there (printed, not asserted: a round trip to the master per op).
  Output z = x;
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 200; ++i) z = ops::Add(on_worker1, z, 1.f);
  const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() / 200;
  CHECK(EagerFloats(z) == std::vector<float>{201, 202});
  WARN("eager Add on worker 1 from the client: " << us << " us per op");

  // An op on a task the cluster does not have: an error naming the device.
  ops::Add(s.WithDevice("/job:worker/replica:0/task:7/device:CPU:0"), x, x);
  REQUIRE(!s.status().ok());
  CHECK_THAT(s.status().message(), Catch::Contains("task:7"));
}

}  // namespace
}  // namespace tensoract
