// MonitoredSession (client/monitored_session.h) and its hooks, as a training program uses
// them: preparation (init, restore, local init, readiness), the hooks' calls in
// TensorFlow's order, checkpoints and stopping, a NaN loss, the end of the input, and a
// non-chief waiting for its chief.
#include <catch2/catch.hpp>

#include <filesystem>
#include <future>
#include <thread>

#include <unistd.h>

#include "client/local_server.h"
#include "client/monitored_session.h"
#include "graph/builder/array_ops.h"
#include "graph/builder/data_flow_ops.h"
#include "graph/training/variables.h"
#include "tests/actors/test_util.h"

namespace tensoract {
namespace {

namespace fs = std::filesystem;

// global_step and w (starts at 1); "train" adds 1 to both; "loss" is w / divisor (fed,
// default 1: feed 0 for NaN... 0/0 needs w = 0, so "loss" is (w - w) / divisor).
struct CounterModel {
  tensorflow::GraphDef graph;
  std::vector<Variable> vars;
  std::unique_ptr<Saver> saver;
};

CounterModel MakeModel() {
  CounterModel m;
  Scope root = Scope::NewRootScope();
  Variable step = NewVariable(root, "global_step", ops::Const(root, int64_t{0}));
  Variable w = NewVariable(root, "w", ops::Const(root, 1.f));
  m.vars = {step, w};
  Node* inc_step = ops::AssignAddVariableOp(root, step.handle, ops::Const(root, int64_t{1}));
  Node* inc_w = ops::AssignAddVariableOp(root, w.handle, ops::Const(root, 1.f));
  ops::NoOp(root.WithOpName("train").WithControlDependencies({Output(inc_step, 0), Output(inc_w, 0)}));
  auto divisor = ops::PlaceholderWithDefault(root.WithOpName("divisor"), ops::Const(root, 1.f), PartialTensorShape());
  ops::Div(root.WithOpName("loss"), ops::Sub(root, w.Read(root), w.Read(root)), divisor);
  GroupInitializers(root.WithOpName("init"), m.vars);
  VariablesInitialized(root.WithOpName("ready"), m.vars);
  auto saver = Saver::New(root, {step.handle, w.handle});
  REQUIRE(saver.ok());
  m.saver = std::make_unique<Saver>(std::move(saver).value());
  Status s = root.ToGraphDef(&m.graph);
  INFO(s.ToString());
  REQUIRE(s.ok());
  return m;
}

MonitoredSessionOptions MonitoredOptions(CounterModel& m, const std::string& dir = "") {
  MonitoredSessionOptions o;
  o.checkpoint_dir = dir;
  o.scaffold.init_op = "init";
  o.scaffold.ready_op = "ready";
  o.scaffold.saver = m.saver.get();
  return o;
}

int64_t FetchCount(Session& session, const std::string& name) {
  std::vector<Tensor> out;
  REQUIRE(session.Run({}, {name}, {}, &out).ok());
  return out[0].dtype() == tensorflow::DT_INT64 ? out[0].base<int64_t>()[0]
                                                : static_cast<int64_t>(out[0].base<float>()[0]);
}

// Records every call, and asks for global_step with each Run.
struct RecordingHook : SessionRunHook {
  std::vector<std::string> calls;
  std::vector<int64_t> steps_seen;
  Status Begin() override { return calls.push_back("begin"), Status::OK(); }
  Status AfterCreateSession(Session&) override { return calls.push_back("after_create"), Status::OK(); }
  SessionRunArgs BeforeRun(SessionRunContext& c) override {
    calls.push_back("before_run(" + c.original_fetches()[0] + ")");
    return {{"global_step/Read/ReadVariableOp"}, {}};
  }
  Status AfterRun(SessionRunContext&, const SessionRunValues& v) override {
    calls.push_back("after_run");
    steps_seen.push_back(v.results[0].base<int64_t>()[0]);
    return Status::OK();
  }
  Status End(Session&) override { return calls.push_back("end"), Status::OK(); }
};

TEST_CASE("a chief initialises, runs its hooks in TensorFlow's order and stops at the last step", "[monitored]") {
  CounterModel m = MakeModel();
  auto session = testing::NewSessionWith(m.graph);
  MonitoredSessionOptions o = MonitoredOptions(m);
  auto recorder = std::make_shared<RecordingHook>();
  o.hooks = {recorder, std::make_shared<StopAtStepHook>(StopAtStepHook::LastStep("global_step/Read/ReadVariableOp", 3))};
  auto monitored = MonitoredSession::New(session.get(), o);
  INFO(monitored.status().ToString());
  REQUIRE(monitored.ok());
  int runs = 0;
  std::vector<Tensor> out;
  while (!(*monitored)->ShouldStop()) {
    REQUIRE((*monitored)->Run({}, {"loss"}, {"train"}, &out).ok());
    REQUIRE(out.size() == 1);  // the caller's fetches only
    ++runs;
  }
  CHECK(runs == 3);
  REQUIRE((*monitored)->Close().ok());
  CHECK(recorder->calls == std::vector<std::string>{"begin", "after_create", "before_run(loss)", "after_run",
                                                    "before_run(loss)", "after_run", "before_run(loss)", "after_run",
                                                    "end"});
  CHECK(recorder->steps_seen == std::vector<int64_t>{0, 1, 2});
  CHECK(FetchCount(*session, "global_step/Read/ReadVariableOp") == 3);
}

TEST_CASE("CheckpointSaverHook saves at creation, every N steps and at the end; the next chief restores",
          "[monitored]") {
  const std::string dir = (fs::temp_directory_path() / ("tensoract_monitored_" + std::to_string(::getpid()))).string();
  fs::remove_all(dir);
  {
    CounterModel m = MakeModel();
    auto session = testing::NewSessionWith(m.graph);
    MonitoredSessionOptions o = MonitoredOptions(m, dir);
    auto saver_hook = std::make_shared<CheckpointSaverHook>(dir, m.saver.get(), "global_step/Read/ReadVariableOp", 2);
    o.hooks = {saver_hook, std::make_shared<StopAtStepHook>(StopAtStepHook::NumSteps("global_step/Read/ReadVariableOp", 5))};
    auto monitored = MonitoredSession::New(session.get(), o).value();
    std::vector<Tensor> out;
    while (!monitored->ShouldStop()) REQUIRE(monitored->Run({}, {}, {"train"}, &out).ok());
    REQUIRE(monitored->Close().ok());
    CHECK(saver_hook->saved() == std::vector<std::string>{dir + "/model.ckpt-0", dir + "/model.ckpt-2",
                                                          dir + "/model.ckpt-4", dir + "/model.ckpt-5"});
  }
  CounterModel m = MakeModel();
  auto session = testing::NewSessionWith(m.graph);
  auto monitored = MonitoredSession::New(session.get(), MonitoredOptions(m, dir)).value();
  CHECK(FetchCount(*session, "global_step/Read/ReadVariableOp") == 5);  // restored, not initialised
  CHECK(FetchCount(*session, "w/Read/ReadVariableOp") == 6);
  fs::remove_all(dir);
}

TEST_CASE("NanTensorHook fails the step that made a NaN loss", "[monitored]") {
  CounterModel m = MakeModel();
  auto session = testing::NewSessionWith(m.graph);
  MonitoredSessionOptions o = MonitoredOptions(m);
  o.hooks = {std::make_shared<NanTensorHook>("loss")};
  auto monitored = MonitoredSession::New(session.get(), o).value();
  std::vector<Tensor> out;
  REQUIRE(monitored->Run({}, {}, {"train"}, &out).ok());
  Status nan = monitored->Run({{"divisor", Tensor::Scalar<float>(0.f)}}, {}, {"train"}, &out);
  CHECK(nan.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(nan.message(), Catch::Contains("NaN loss during training"));
}

TEST_CASE("LoggingTensorHook logs every N runs; an interval of 0 fails the Run, as TensorFlow refuses it",
          "[monitored]") {
  CounterModel m = MakeModel();
  auto session = testing::NewSessionWith(m.graph);
  std::vector<std::string> lines;
  MonitoredSessionOptions o = MonitoredOptions(m);
  o.hooks = {std::make_shared<LoggingTensorHook>(std::vector<std::string>{"loss"}, 2,
                                                 [&](const std::string& line) { lines.push_back(line); })};
  auto monitored = MonitoredSession::New(session.get(), o).value();
  std::vector<Tensor> out;
  for (int i = 0; i < 5; ++i) REQUIRE(monitored->Run({}, {}, {"train"}, &out).ok());
  REQUIRE(lines.size() == 3);  // runs 0, 2 and 4
  CHECK_THAT(lines[0], Catch::StartsWith("loss = "));
  REQUIRE(monitored->coordinator() != nullptr);
  REQUIRE(monitored->Close().ok());
  CHECK(monitored->coordinator() == nullptr);

  auto session2 = testing::NewSessionWith(m.graph);
  o.hooks = {std::make_shared<LoggingTensorHook>(std::vector<std::string>{"loss"}, 0)};
  auto zero = MonitoredSession::New(session2.get(), o).value();
  Status st = zero->Run({}, {}, {"train"}, &out);
  CHECK(st.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(st.message(), Catch::Contains("every_n_iter must be positive"));
}

TEST_CASE("the end of the input (OutOfRange) stops a MonitoredSession, which closes cleanly", "[monitored]") {
  Scope root = Scope::NewRootScope();
  ops::QueueAttrs attrs;
  attrs.shapes = {PartialTensorShape(std::vector<int64_t>{})};
  Output q = ops::FIFOQueue(root.WithOpName("q"), {tensorflow::DT_FLOAT}, attrs);
  Node* fill = ops::QueueEnqueueMany(root.WithOpName("fill"), q, {ops::Const(root, {1.f, 2.f, 3.f})});
  ops::QueueClose(root.WithOpName("fill_and_close").WithControlDependencies({Output(fill, 0)}), q);
  ops::QueueDequeue(root.WithOpName("next"), q, {tensorflow::DT_FLOAT});
  tensorflow::GraphDef def;
  REQUIRE(root.ToGraphDef(&def).ok());
  auto session = testing::NewSessionWith(def);
  MonitoredSessionOptions o;
  o.scaffold.init_op = "fill_and_close";
  auto monitored = MonitoredSession::New(session.get(), o).value();
  std::vector<float> seen;
  std::vector<Tensor> out;
  Status last;
  while (!monitored->ShouldStop()) {
    last = monitored->Run({}, {"next:0"}, {}, &out);
    if (last.ok()) seen.push_back(out[0].base<float>()[0]);
  }
  CHECK(last.code() == error::OUT_OF_RANGE);
  CHECK(seen == std::vector<float>{1, 2, 3});
  CHECK(monitored->Close().ok());
}

TEST_CASE("a non-chief waits until its chief has initialised the variables, or gives up at its deadline",
          "[monitored]") {
  CounterModel m = MakeModel();
  auto server = LocalServer::New();
  REQUIRE(server.ok());
  auto chief_session = Session::New(**server).value();
  auto worker_session = Session::New(**server).value();
  REQUIRE(chief_session->Create(m.graph).ok());
  REQUIRE(worker_session->Create(m.graph).ok());
  {
    MonitoredSessionOptions o = MonitoredOptions(m);
    o.is_chief = false;
    o.max_wait_ms = 300;
    auto alone = MonitoredSession::New(worker_session.get(), o);
    CHECK(alone.status().code() == error::DEADLINE_EXCEEDED);
    CHECK_THAT(alone.status().message(), Catch::Contains("not ready"));
  }
  MonitoredSessionOptions o = MonitoredOptions(m);
  o.is_chief = false;
  o.recovery_wait_ms = 50;
  auto waiting = std::async(std::launch::async, [&] { return MonitoredSession::New(worker_session.get(), o); });
  CHECK(waiting.wait_for(std::chrono::milliseconds(300)) == std::future_status::timeout);
  auto chief = MonitoredSession::New(chief_session.get(), MonitoredOptions(m));
  REQUIRE(chief.ok());
  REQUIRE(waiting.wait_for(std::chrono::seconds(10)) == std::future_status::ready);
  auto worker = waiting.get();
  INFO(worker.status().ToString());
  REQUIRE(worker.ok());
  std::vector<Tensor> out;
  REQUIRE((*worker)->Run({}, {}, {"train"}, &out).ok());
  CHECK(FetchCount(*chief_session, "global_step/Read/ReadVariableOp") == 1);  // the variables are shared
}

TEST_CASE("a non-chief runs its local init once the globals are ready (ready_for_local_init_op)", "[monitored]") {
  // The global step and w (the chief's), and a local variable every session initialises
  // itself; ready_op covers all three, ready_for_local_init_op only the globals.
  Scope root = Scope::NewRootScope();
  Variable step = NewVariable(root, "global_step", ops::Const(root, int64_t{0}));
  Variable w = NewVariable(root, "w", ops::Const(root, 1.f));
  Variable local = NewVariable(root, "local_count", ops::Const(root, int64_t{7}));
  GroupInitializers(root.WithOpName("init"), {step, w});
  GroupInitializers(root.WithOpName("local_init"), {local});
  VariablesInitialized(root.WithOpName("ready"), {step, w, local});
  VariablesInitialized(root.WithOpName("ready_for_local_init"), {step, w});
  tensorflow::GraphDef graph;
  REQUIRE(root.ToGraphDef(&graph).ok());
  auto server = LocalServer::New();
  REQUIRE(server.ok());
  auto chief_session = Session::New(**server).value();
  auto worker_session = Session::New(**server).value();
  REQUIRE(chief_session->Create(graph).ok());
  REQUIRE(worker_session->Create(graph).ok());
  auto options = [](bool chief, bool with_local_condition) {
    MonitoredSessionOptions o;
    o.is_chief = chief;
    o.scaffold.init_op = "init";
    o.scaffold.local_init_op = "local_init";
    o.scaffold.ready_op = "ready";
    if (with_local_condition) o.scaffold.ready_for_local_init_op = "ready_for_local_init";
    o.recovery_wait_ms = 50;
    o.max_wait_ms = 5000;
    return o;
  };
  // The globals initialised (as a chief would), the local variable not yet: without the
  // condition, a non-chief waits for a ready_op only its own local init could satisfy.
  std::vector<Tensor> none;
  REQUIRE(chief_session->Run({}, {}, {"init"}, &none).ok());
  {
    // VariablesInitialized's result carries the scope's name ("ready"), every flag in it.
    std::vector<Tensor> r;
    REQUIRE(worker_session->Run({}, {"ready"}, {}, &r).ok());
    REQUIRE(r[0].NumElements() == 3);
    CHECK((r[0].base<bool>()[0] && r[0].base<bool>()[1] && !r[0].base<bool>()[2]));
  }
  MonitoredSessionOptions blind = options(false, false);
  blind.max_wait_ms = 300;
  auto stuck = MonitoredSession::New(worker_session.get(), blind);
  CHECK(stuck.status().code() == error::DEADLINE_EXCEEDED);
  // With it, the non-chief sees the globals ready, runs its local init, and is ready.
  auto worker = MonitoredSession::New(worker_session.get(), options(false, true));
  INFO(worker.status().ToString());
  REQUIRE(worker.ok());
  CHECK(FetchCount(*worker_session, "local_count/Read/ReadVariableOp") == 7);
}

TEST_CASE("ReportUninitializedVariables names the variables not initialised yet, as TensorFlow's does",
          "[monitored]") {
  Scope root = Scope::NewRootScope();
  Variable step = NewVariable(root, "global_step", ops::Const(root, int64_t{0}));
  Variable w = NewVariable(root, "dense/kernel", ops::Const(root, 1.f));
  Variable b = NewVariable(root, "dense/bias", ops::Const(root, 0.f));
  GroupInitializers(root.WithOpName("init_w"), {w});
  GroupInitializers(root.WithOpName("init"), {step, w, b});
  Output report = ReportUninitializedVariables(root.WithOpName("uninitialized"), {step, w, b});
  Output none = ReportUninitializedVariables(root.WithOpName("no_variables"), {});
  REQUIRE(root.ok());
  CHECK(report.name() == "uninitialized");
  CHECK(report.type() == tensorflow::DT_STRING);
  CHECK(report.shape().DebugString() == "[?]");
  CHECK(root.graph()->FindNode("report_uninitialized_variables/boolean_mask/Where") != nullptr);
  tensorflow::GraphDef graph;
  REQUIRE(root.ToGraphDef(&graph).ok());
  auto session = testing::NewSessionWith(graph);
  auto names = [&](const std::string& fetch) {
    std::vector<Tensor> out;
    Status s = session->Run({}, {fetch}, {}, &out);
    INFO(s.ToString());
    REQUIRE(s.ok());
    REQUIRE(out[0].dims() == 1);
    return std::vector<std::string>(out[0].base<std::string>(), out[0].base<std::string>() + out[0].NumElements());
  };
  // tf.compat.v1.report_uninitialized_variables(): [b'global_step', b'dense/kernel', b'dense/bias'],
  // then [b'global_step', b'dense/bias'] once the kernel is initialised, then [].
  CHECK(names("uninitialized") == std::vector<std::string>{"global_step", "dense/kernel", "dense/bias"});
  CHECK(names("no_variables").empty());
  std::vector<Tensor> unused;
  REQUIRE(session->Run({}, {}, {"init_w"}, &unused).ok());
  CHECK(names("uninitialized") == std::vector<std::string>{"global_step", "dense/bias"});
  REQUIRE(session->Run({}, {}, {"init"}, &unused).ok());
  CHECK(names("uninitialized").empty());
}

TEST_CASE("a Scaffold's ready_op may be ReportUninitializedVariables: a non-chief's wait names what is missing",
          "[monitored]") {
  Scope root = Scope::NewRootScope();
  Variable step = NewVariable(root, "global_step", ops::Const(root, int64_t{0}));
  Variable w = NewVariable(root, "w", ops::Const(root, 1.f));
  GroupInitializers(root.WithOpName("init"), {step, w});
  ReportUninitializedVariables(root.WithOpName("ready"), {step, w});
  tensorflow::GraphDef graph;
  REQUIRE(root.ToGraphDef(&graph).ok());
  auto server = LocalServer::New();
  REQUIRE(server.ok());
  auto chief_session = Session::New(**server).value();
  auto worker_session = Session::New(**server).value();
  REQUIRE(chief_session->Create(graph).ok());
  REQUIRE(worker_session->Create(graph).ok());
  MonitoredSessionOptions o;
  o.scaffold.init_op = "init";
  o.scaffold.ready_op = "ready";
  o.is_chief = false;
  o.recovery_wait_ms = 50;
  o.max_wait_ms = 300;
  auto alone = MonitoredSession::New(worker_session.get(), o);
  CHECK(alone.status().code() == error::DEADLINE_EXCEEDED);
  CHECK_THAT(alone.status().message(), Catch::Contains("uninitialized variables: global_step, w"));
  o.is_chief = true;
  auto chief = MonitoredSession::New(chief_session.get(), o);
  INFO(chief.status().ToString());
  REQUIRE(chief.ok());
  o.is_chief = false;
  auto worker = MonitoredSession::New(worker_session.get(), o);
  INFO(worker.status().ToString());
  REQUIRE(worker.ok());
}

}  // namespace
}  // namespace tensoract
