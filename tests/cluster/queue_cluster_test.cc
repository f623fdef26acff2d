// Queues and MonitoredSessions across real tensoract-node processes: the TensorFlow 1
// parameter-server pattern (a queue on the ps, filled and drained by steps that run on the
// workers), a worker killed while its step is blocked on the queue, and a non-chief
// client waiting for its chief to initialise the variables on the ps.
#include <catch2/catch.hpp>

#include <signal.h>

#include <chrono>
#include <future>
#include <thread>

#include "client/monitored_session.h"
#include "client/session.h"
#include "graph/builder/data_flow_ops.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/ops.h"
#include "graph/training/variables.h"
#include "tests/cluster/cluster_test_util.h"

namespace tensoract {
namespace {

using testing::kPs;
using testing::kWorker1;

using testing::Cluster;
using testing::Connect;


// A FIFO queue of floats on the ps. "enqueue_from_w1" enqueues v + 0 computed on worker 1;
// "got_on_w1" is a dequeued element used on worker 1; "enqueue_here" and "got_here" do
// the same without worker 1; "size" is the queue's size.
tensorflow::GraphDef PsQueueGraph() {
  Scope root = Scope::NewRootScope();
  Scope ps = root.WithDevice(kPs);
  Scope w1 = root.WithDevice(kWorker1);
  ops::QueueAttrs attrs;
  attrs.shapes = {PartialTensorShape(std::vector<int64_t>{})};
  attrs.capacity = 10;
  attrs.shared_name = "shared_queue";
  Output q = ops::FIFOQueue(ps.WithOpName("q"), {tensorflow::DT_FLOAT}, attrs);
  auto v = ops::Placeholder(root.WithOpName("v"), tensorflow::DT_FLOAT);
  ops::QueueEnqueue(ps.WithOpName("enqueue_from_w1"), q, {ops::Add(w1, v, 0.f)});
  ops::QueueEnqueue(ps.WithOpName("enqueue_here"), q, {v});
  OutputList on_ps = ops::QueueDequeue(ps.WithOpName("dequeue_for_w1"), q, {tensorflow::DT_FLOAT});
  ops::Identity(w1.WithOpName("got_on_w1"), on_ps[0]);
  OutputList here = ops::QueueDequeue(ps.WithOpName("dequeue_here"), q, {tensorflow::DT_FLOAT});
  ops::Identity(root.WithOpName("got_here"), here[0]);
  ops::QueueSize(ps.WithOpName("size"), q);
  tensorflow::GraphDef def;
  REQUIRE(root.ToGraphDef(&def).ok());
  return def;
}

float RunFloat(Session& s, const std::vector<std::pair<std::string, Tensor>>& feeds, const std::string& fetch) {
  std::vector<Tensor> out;
  Status status = s.Run(feeds, {fetch}, {}, &out);
  INFO(status.ToString());
  REQUIRE(status.ok());
  return out[0].dtype() == tensorflow::DT_INT32 ? static_cast<float>(out[0].base<int32_t>()[0]) : out[0].base<float>()[0];
}

TEST_CASE("a queue on the ps is filled and drained by steps running on the workers", "[cluster][queue]") {
  Cluster cluster;
  auto producer = Connect(cluster.target());
  auto consumer = Connect(cluster.target());
  REQUIRE(producer->Create(PsQueueGraph()).ok());
  REQUIRE(consumer->Create(PsQueueGraph()).ok());
  std::vector<Tensor> none;
  for (float v : {1.f, 2.f, 3.f}) {
    REQUIRE(producer->Run({{"v", Tensor::Scalar<float>(v)}}, {}, {"enqueue_from_w1"}, &none).ok());
  }
  CHECK(RunFloat(*consumer, {}, "size") == 3);
  CHECK(RunFloat(*consumer, {}, "got_on_w1") == 1.f);  // another client's session: the queue is shared
  CHECK(RunFloat(*consumer, {}, "got_here") == 2.f);
  // A consumer waiting on the empty queue is answered by a producer's step.
  CHECK(RunFloat(*consumer, {}, "got_on_w1") == 3.f);
  auto waiting = std::async(std::launch::async, [&] {  // no assertions off the test's thread
    std::vector<Tensor> out;
    Status s = consumer->Run({}, {"got_on_w1"}, {}, &out);
    return s.ok() ? out[0].base<float>()[0] : -1.f;
  });
  CHECK(waiting.wait_for(std::chrono::milliseconds(300)) == std::future_status::timeout);
  REQUIRE(producer->Run({{"v", Tensor::Scalar<float>(4.f)}}, {}, {"enqueue_from_w1"}, &none).ok());
  REQUIRE(waiting.wait_for(std::chrono::seconds(20)) == std::future_status::ready);
  CHECK(waiting.get() == 4.f);
}

TEST_CASE("a worker killed while its step waits on the ps's queue leaves the queue consistent", "[cluster][queue]") {
  Cluster cluster({"--heartbeat-interval-ms", "200", "--heartbeat-timeout-ms", "1000"});
  auto session = Connect(cluster.target());
  REQUIRE(session->Create(PsQueueGraph()).ok());
  // The steps run after the kill, once each before it: a signature the master has not built
  // yet waits for every task to be reachable (as TensorFlow's master places on all of
  // them), and whether it is built before or after the master sees worker 1 gone was up to
  // the machine's load. The queue is empty again after them.
  std::vector<Tensor> warm;
  REQUIRE(session->Run({{"v", Tensor::Scalar<float>(5.f)}}, {}, {"enqueue_here"}, &warm).ok());
  CHECK(RunFloat(*session, {}, "size") == 1);
  CHECK(RunFloat(*session, {}, "got_here") == 5.f);
  auto blocked = std::async(std::launch::async, [&] {
    std::vector<Tensor> out;
    return session->Run({}, {"got_on_w1"}, {}, &out);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  cluster.worker1.Signal(SIGKILL);
  REQUIRE(blocked.wait_for(std::chrono::seconds(20)) == std::future_status::ready);
  Status s = blocked.get();
  INFO(s.ToString());
  CHECK((s.code() == error::UNAVAILABLE || s.code() == error::ABORTED || s.code() == error::CANCELLED));
  // The aborted step's dequeue is gone: the next element goes to the next dequeue.
  std::vector<Tensor> none;
  REQUIRE(session->Run({{"v", Tensor::Scalar<float>(7.f)}}, {}, {"enqueue_here"}, &none).ok());
  CHECK(RunFloat(*session, {}, "size") == 1);
  CHECK(RunFloat(*session, {}, "got_here") == 7.f);
  CHECK(RunFloat(*session, {}, "size") == 0);
}

TEST_CASE("a non-chief client waits for its chief to initialise the ps's variables", "[cluster][monitored]") {
  Cluster cluster;
  Scope root = Scope::NewRootScope();
  Scope ps = root.WithDevice(kPs);
  Variable w = NewVariable(ps, "w", ops::Const(ps, 2.f));
  ops::AssignAddVariableOp(root.WithOpName("train"), w.handle, ops::Const(root, 1.f));  // with w, on the ps
  GroupInitializers(root.WithOpName("init"), {w});
  VariablesInitialized(root.WithOpName("ready"), {w});
  tensorflow::GraphDef def;
  REQUIRE(root.ToGraphDef(&def).ok());
  auto chief_session = Connect(cluster.target());
  auto worker_session = Connect(cluster.target());
  REQUIRE(chief_session->Create(def).ok());
  REQUIRE(worker_session->Create(def).ok());
  MonitoredSessionOptions options;
  options.scaffold.init_op = "init";
  options.scaffold.ready_op = "ready";
  options.recovery_wait_ms = 100;
  MonitoredSessionOptions non_chief = options;
  non_chief.is_chief = false;
  auto waiting = std::async(std::launch::async, [&] { return MonitoredSession::New(worker_session.get(), non_chief); });
  CHECK(waiting.wait_for(std::chrono::milliseconds(500)) == std::future_status::timeout);
  auto chief = MonitoredSession::New(chief_session.get(), options);
  REQUIRE(chief.ok());
  REQUIRE(waiting.wait_for(std::chrono::seconds(20)) == std::future_status::ready);
  auto worker = waiting.get();
  INFO(worker.status().ToString());
  REQUIRE(worker.ok());
  std::vector<Tensor> out;
  Status trained = (*worker)->Run({}, {}, {"train"}, &out);
  INFO(trained.ToString());
  REQUIRE(trained.ok());
  CHECK(RunFloat(*chief_session, {}, "w/Read/ReadVariableOp") == 3.f);
}

}  // namespace
}  // namespace tensoract
