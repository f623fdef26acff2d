// Crash-safe checkpoints: a save killed between any two of its steps (the process ends at a
// crash point, base/durable_file.h) leaves a directory whose `checkpoint` file names a
// checkpoint that restores, and the next save leaves nothing half-written behind; a full
// disk is ResourceExhausted naming the file. The crashing save runs in a child process: this
// test binary again, running the hidden test case "[crash_child]".
#include <catch2/catch.hpp>

#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "client/saver.h"
#include "graph/builder/array_ops.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/ops.h"
#include "tests/actors/test_util.h"

namespace tensoract {
namespace {

using testing::Ok;

namespace fs = std::filesystem;


// v: a resource variable of `n` floats, set to `first` by "init" and to 2 x first by "update".
struct CrashModel {
  Scope root = Scope::NewRootScope();
  Output v;
  std::unique_ptr<Saver> saver;
  tensorflow::GraphDef def;
  explicit CrashModel(int64_t n = 4, SaverOptions options = {}) {
    v = ops::VarHandleOp(root.WithOpName("v"), tensorflow::DT_FLOAT, PartialTensorShape({n}));
    auto first = ops::Fill(root, ops::Const(root, {n}), 1.f);
    ops::AssignVariableOp(root.WithOpName("init"), v, first);
    ops::AssignVariableOp(root.WithOpName("update"), v, ops::Mul(root, first, ops::Const(root, 2.f)));
    ops::ReadVariableOp(root.WithOpName("read"), v, tensorflow::DT_FLOAT);
    auto s = Saver::New(root, {v}, options);
    Ok(s.status());
    saver = std::make_unique<Saver>(std::move(s).value());
    Ok(root.ToGraphDef(&def));
  }
};

float Restored(const std::string& dir) {
  CrashModel m;
  auto latest = LatestCheckpoint(dir);
  Ok(latest.status());
  auto session = testing::NewSessionWith(m.def);
  Ok(m.saver->Restore(*session, *latest));
  std::vector<Tensor> out;
  Ok(session->Run({}, {"read"}, {}, &out));
  return out[0].base<float>()[0];
}

std::vector<std::string> Temporaries(const std::string& dir) {
  std::vector<std::string> found;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.find(".tempstate") != std::string::npos) found.push_back(name);
  }
  return found;
}

// Runs this binary's "[crash_child]" case with the crash point set; its exit status.
int RunCrashingChild(const std::string& dir, const std::string& point) {
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    setenv("CRASH_TEST_DIR", dir.c_str(), 1);
    setenv("CRASH_TEST_POINT", point.c_str(), 1);
    execl("/proc/self/exe", "checkpoint_crash_child", "[crash_child]", static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST_CASE("the crashing save (run in a child process)", "[.][crash_child]") {
  const char* dir = std::getenv("CRASH_TEST_DIR");
  const char* point = std::getenv("CRASH_TEST_POINT");
  REQUIRE(dir != nullptr);
  REQUIRE(point != nullptr);
  SaverOptions options;
  options.max_to_keep = 1;  // the second save deletes the first: only after the state file moved on
  CrashModel m(4, options);
  auto session = testing::NewSessionWith(m.def);
  Ok(session->Run({}, {}, {"init"}, nullptr));
  Ok(m.saver->Save(*session, std::string(dir) + "/model.ckpt", 1).status());
  Ok(session->Run({}, {}, {"update"}, nullptr));
  setenv("TENSORACT_CRASH_AT", point, 1);
  (void)m.saver->Save(*session, std::string(dir) + "/model.ckpt", 2);
  _exit(0);  // the crash point was not reached
}

TEST_CASE("a save killed between any two of its steps leaves a checkpoint that restores", "[saver][crash]") {
  // point -> the value the latest checkpoint holds afterwards (1: the first save's, 2: the second's)
  const std::vector<std::pair<std::string, float>> points = {
      {"checkpoint_data_written", 1.f},
      {"checkpoint_data_renamed", 1.f},
      {"checkpoint_index_written", 1.f},  // both checkpoints complete; the state file names the first
      {"checkpoint_state_written", 2.f},  // the state file moved on; the first not yet deleted
  };
  for (const auto& [point, want] : points) {
    INFO("crash at " << point);
    const std::string dir = (fs::temp_directory_path() / ("tensoract_crash_" + std::to_string(getpid()) + point)).string();
    fs::remove_all(dir);
    fs::create_directories(dir);
    REQUIRE(RunCrashingChild(dir, point) == 86);
    CHECK(Restored(dir) == want);
    // The next save (a new process's Saver) succeeds and leaves nothing half-written.
    CrashModel m;
    auto session = testing::NewSessionWith(m.def);
    Ok(session->Run({}, {}, {"init"}, nullptr));
    Ok(m.saver->Save(*session, dir + "/model.ckpt", 3).status());
    CHECK(Temporaries(dir).empty());
    CHECK(Restored(dir) == 1.f);
    fs::remove_all(dir);
  }
}

TEST_CASE("a full disk fails a save with ResourceExhausted naming the file, and the last good checkpoint stays",
          "[saver][crash]") {
  const std::string dir = (fs::temp_directory_path() / ("tensoract_full_" + std::to_string(getpid()))).string();
  fs::create_directories(dir);
  if (mount("tmpfs", dir.c_str(), "tmpfs", 0, "size=256k") != 0) {
    fs::remove_all(dir);
    WARN("skipped: cannot mount a small tmpfs here (needs root)");
    return;
  }
  {
    CrashModel small(4);
    auto session = testing::NewSessionWith(small.def);
    Ok(session->Run({}, {}, {"init"}, nullptr));
    Ok(small.saver->Save(*session, dir + "/model.ckpt", 1).status());

    CrashModel big(1 << 18);  // 1 MiB of floats on a 256 KiB disk
    auto big_session = testing::NewSessionWith(big.def);
    Ok(big_session->Run({}, {}, {"init"}, nullptr));
    auto failed = big.saver->Save(*big_session, dir + "/model.ckpt", 2);
    REQUIRE_FALSE(failed.ok());
    CHECK(failed.status().code() == error::RESOURCE_EXHAUSTED);
    CHECK_THAT(failed.status().message(), Catch::Contains(dir + "/model.ckpt-2"));
    CHECK(Restored(dir) == 1.f);
    CHECK(Temporaries(dir).empty());
  }
  umount(dir.c_str());
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tensoract
