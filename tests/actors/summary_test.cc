// Summaries and event files (graph/builder/summary_ops.h, client/file_writer.h,
// kernels/io/event_file.h): summary ops run through a session as TensorFlow computes them,
// a FileWriter's file read back, flushed on its period (a process killed afterwards keeps
// it), and the SummarySaverHook under a MonitoredSession. tests/compat/
// tensorboard_compat.py compares with TensorFlow and TensorBoard themselves.
#include <catch2/catch.hpp>

#include <cfloat>
#include <filesystem>
#include <thread>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "client/file_writer.h"
#include "client/monitored_session.h"
#include "graph/builder/array_ops.h"
#include "graph/builder/summary_ops.h"
#include "graph/training/variables.h"
#include "kernels/io/event_file.h"
#include "kernels/io/png.h"
#include "tests/actors/test_util.h"
#include "tests/temp_dir.h"

namespace tensoract {
namespace {

namespace fs = std::filesystem;

using testing::TempDir;

tensorflow::Summary RunSummary(const Scope& root, const Output& summary, Status* status = nullptr) {
  tensorflow::GraphDef graph;
  REQUIRE(root.ToGraphDef(&graph).ok());
  auto session = testing::NewSessionWith(graph);
  std::vector<Tensor> out;
  Status s = session->Run({}, {summary.name()}, {}, &out);
  if (status != nullptr) *status = s;
  tensorflow::Summary parsed;
  if (s.ok()) REQUIRE(parsed.ParseFromString(out[0].base<std::string>()[0]));
  return parsed;
}

std::vector<tensorflow::Event> ReadEvents(const std::string& path) {
  std::vector<tensorflow::Event> events;
  Status s = ReadEventFile(path, &events);
  INFO(s.ToString());
  REQUIRE(s.ok());
  return events;
}

TEST_CASE("HistogramSummary has TensorFlow's buckets, sums and collapsed empty runs", "[summary]") {
  Scope root = Scope::NewRootScope();
  Output h = ops::HistogramSummary(root, std::string("h"), ops::Const(root, {0.f, 1.f, -2.5f, 3.f, 1e-13f, 100.f}));
  tensorflow::Summary s = RunSummary(root, h);
  REQUIRE(s.value_size() == 1);
  const tensorflow::HistogramProto& histo = s.value(0).histo();
  CHECK(s.value(0).tag() == "h");
  CHECK(histo.min() == -2.5);
  CHECK(histo.max() == 100);
  CHECK(histo.num() == 6);
  CHECK(histo.sum_squares() == Approx(10016.25));
  // TensorFlow 2.21's output for the same values (1e-13 as a float is not 1e-13 exactly).
  const std::vector<double> limits = {-2.6170109961884593, -2.3791009056258718, 0, 1e-12, 0.917246389039776,
                                      1.0089710279437536, 2.8787120958073054, 3.1665833053880363,
                                      97.88757810018231, 107.67633591020055, DBL_MAX};
  const std::vector<double> counts = {0, 1, 0, 2, 0, 1, 0, 1, 0, 1, 0};
  REQUIRE(histo.bucket_limit_size() == static_cast<int>(limits.size()));
  for (size_t i = 0; i < limits.size(); ++i) {
    CHECK(histo.bucket_limit(static_cast<int>(i)) == Approx(limits[i]).epsilon(1e-15));
    CHECK(histo.bucket(static_cast<int>(i)) == counts[i]);
  }

  Scope bad = Scope::NewRootScope();
  Output nan = ops::HistogramSummary(bad.WithOpName("weights"), std::string("w"), ops::Const(bad, {1.f, NAN}));
  Status st;
  RunSummary(bad, nan, &st);
  CHECK(st.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(st.message(), Catch::Contains("Nan in summary histogram for: weights"));
}

TEST_CASE("ImageSummary encodes PNGs scaled as TensorFlow scales them; MergeSummary refuses a tag twice",
          "[summary]") {
  Scope root = Scope::NewRootScope();
  // TensorFlow 2.21: [-1, 0.5, NaN, 2] -> 64, 159, bad colour, 255; [0.1, 0.5, 0.25, 2] -> 12, 63, 31, 255.
  Tensor images(tensorflow::DT_FLOAT, TensorShape({2, 2, 2, 1}));
  const float values[] = {-1.f, 0.5f, NAN, 2.f, 0.1f, 0.5f, 0.25f, 2.f};
  std::copy(std::begin(values), std::end(values), images.base<float>());
  tensorflow::TensorProto proto;
  images.AsProtoTensorContent(&proto);
  Output image = ops::ImageSummary(root, std::string("im"), ops::Const(root, proto), 3);
  Output scalar = ops::ScalarSummary(root, std::string("loss"), ops::Const(root, 0.25f));
  Output merged = ops::MergeSummary(root.WithOpName("merged"), {image, scalar});
  tensorflow::Summary s = RunSummary(root, merged);
  REQUIRE(s.value_size() == 3);
  CHECK(s.value(0).tag() == "im/image/0");
  CHECK(s.value(1).tag() == "im/image/1");
  CHECK(s.value(2).simple_value() == 0.25f);
  const std::vector<std::vector<uint8_t>> expected = {{64, 159, 255, 255}, {12, 63, 31, 255}};
  for (int i = 0; i < 2; ++i) {
    const tensorflow::Summary::Image& im = s.value(i).image();
    CHECK((im.height() == 2 && im.width() == 2 && im.colorspace() == 1));
    auto png = DecodePng(im.encoded_image_string());
    REQUIRE(png.ok());
    CHECK(png->pixels == expected[i]);
  }

  Scope twice = Scope::NewRootScope();
  Output a = ops::ScalarSummary(twice, std::string("same"), ops::Const(twice, 1.f));
  Output dup = ops::MergeSummary(twice.WithOpName("dup"), {a, a});
  Status st;
  RunSummary(twice, dup, &st);
  CHECK(st.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(st.message(), Catch::Contains("Duplicate tag same found in summary inputs"));
}

TEST_CASE("a FileWriter's event file starts with the format and holds summaries, the graph, run metadata",
          "[summary]") {
  TempDir dir;
  auto writer = FileWriter::Open((dir.path / "run").string());
  REQUIRE(writer.ok());
  const std::string path = (*writer)->path();
  CHECK(fs::path(path).filename().string().rfind("events.out.tfevents.", 0) == 0);
  tensorflow::Summary summary;
  summary.add_value()->set_tag("loss");
  summary.mutable_value(0)->set_simple_value(0.5f);
  REQUIRE((*writer)->AddSummary(summary.SerializeAsString(), 7).ok());
  tensorflow::GraphDef graph;
  graph.add_node()->set_name("x");
  REQUIRE((*writer)->AddGraph(graph).ok());
  RunMetadata metadata;
  metadata.step_stats.add_dev_stats()->set_device("/cpu:0");
  REQUIRE((*writer)->AddRunMetadata(metadata, "step_7", 7).ok());
  CHECK((*writer)->AddSummary(std::string("\xff\xff not a summary"), 8).code() == error::INVALID_ARGUMENT);
  REQUIRE((*writer)->Close().ok());
  CHECK((*writer)->AddSummary(summary, 9).code() == error::FAILED_PRECONDITION);

  std::vector<tensorflow::Event> events = ReadEvents(path);
  REQUIRE(events.size() == 4);
  CHECK(events[0].file_version() == kEventFileVersion);
  CHECK(events[0].wall_time() > 1.7e9);
  CHECK((events[1].step() == 7 && events[1].summary().value(0).simple_value() == 0.5f));
  tensorflow::GraphDef back;
  CHECK((back.ParseFromString(events[2].graph_def()) && back.node(0).name() == "x"));
  CHECK(events[3].tagged_run_metadata().tag() == "step_7");

  // A second writer of the same second gets a file of its own.
  auto a = FileWriter::Open(dir.path.string());
  auto b = FileWriter::Open(dir.path.string());
  REQUIRE((a.ok() && b.ok()));
  CHECK((*a)->path() != (*b)->path());
}

// The child of the next test, a fresh process (this binary again, exec'd: no threads
// inherited from the test's): three summaries, no Flush, no Close, then SIGKILL once the
// writer's own period has passed.
TEST_CASE("a FileWriter killed between flushes (run in a child process)", "[.][summary_child]") {
  const char* logdir = std::getenv("SUMMARY_TEST_DIR");
  REQUIRE(logdir != nullptr);
  FileWriterOptions options;
  options.flush_secs = 0.05;
  auto writer = FileWriter::Open(logdir, options);
  REQUIRE(writer.ok());
  tensorflow::Summary summary;
  summary.add_value()->set_tag("x");
  for (int step = 0; step < 3; ++step) REQUIRE((*writer)->AddSummary(summary, step).ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  raise(SIGKILL);
}

TEST_CASE("a FileWriter flushes on its period: a process killed after it keeps its events", "[summary]") {
  TempDir dir;
  const std::string logdir = (dir.path / "killed").string();
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    setenv("SUMMARY_TEST_DIR", logdir.c_str(), 1);
    execl("/proc/self/exe", "summary_child", "[summary_child]", static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  CHECK((WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL));
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(logdir)) files.push_back(entry.path().string());
  REQUIRE(files.size() == 1);
  std::vector<tensorflow::Event> events = ReadEvents(files[0]);
  CHECK(events.size() == 4);  // the format and the three summaries
}

TEST_CASE("SummarySaverHook writes the summary every N steps at the Run's global step, after a START",
          "[summary]") {
  TempDir dir;
  Scope root = Scope::NewRootScope();
  Variable step = NewVariable(root, "global_step", ops::Const(root, int64_t{0}));
  Node* inc = ops::AssignAddVariableOp(root, step.handle, ops::Const(root, int64_t{1}));
  ops::NoOp(root.WithOpName("train").WithControlDependencies({Output(inc, 0)}));
  Output summary = ops::ScalarSummary(root, std::string("step"), step.Read(root));
  GroupInitializers(root.WithOpName("init"), {step});
  tensorflow::GraphDef graph;
  REQUIRE(root.ToGraphDef(&graph).ok());
  auto session = testing::NewSessionWith(graph);
  auto writer = FileWriter::Open(dir.path.string());
  REQUIRE(writer.ok());
  MonitoredSessionOptions options;
  options.scaffold.init_op = "init";
  options.hooks.push_back(
      std::make_shared<SummarySaverHook>(writer->get(), summary.name(), step.value.name(), /*every_steps=*/2));
  auto monitored = MonitoredSession::New(session.get(), options);
  REQUIRE(monitored.ok());
  std::vector<Tensor> out;
  for (int i = 0; i < 5; ++i) REQUIRE((*monitored)->Run({}, {}, {"train"}, &out).ok());
  REQUIRE((*monitored)->Close().ok());
  REQUIRE((*writer)->Close().ok());
  std::vector<tensorflow::Event> events = ReadEvents((*writer)->path());
  REQUIRE(events.size() == 5);  // the format, START, steps 0, 2 and 4
  CHECK((events[1].session_log().status() == tensorflow::SessionLog::START && events[1].step() == 0));
  std::vector<int64_t> steps;
  for (size_t i = 2; i < events.size(); ++i) steps.push_back(events[i].step());
  CHECK(steps == std::vector<int64_t>{0, 2, 4});
}

}  // namespace
}  // namespace tensoract
