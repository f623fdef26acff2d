// Saver (client/saver.h): checkpoints of reference and resource variables written through a
// Session, kept up to max_to_keep, listed in the `checkpoint` file, and restored into a
// fresh server; the checkpoint ops run directly; LatestCheckpoint.
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>
#include <unistd.h>

#include "client/saver.h"
#include "graph/builder/io_ops.h"
#include "graph/builder/ops.h"
#include "kernels/checkpoint/tensor_bundle.h"
#include "messages/checkpoint_state.pb.h"
#include "tests/actors/test_util.h"
#include "tests/temp_dir.h"

namespace tensoract {
namespace {

using testing::RunTarget;

using testing::Ok;

namespace fs = std::filesystem;
using testing::Values;

using testing::TempDir;


// w: a reference variable [2] float; v: a resource variable [3] int64; each with an
// initialiser and an update, and a Saver of both.
struct SaverModel {
  Scope root = Scope::NewRootScope();
  Output w, v;
  std::unique_ptr<Saver> saver;
  tensorflow::GraphDef def;

  explicit SaverModel(SaverOptions options = {}) {
    w = ops::Variable(root.WithOpName("w"), PartialTensorShape({2}), tensorflow::DT_FLOAT);
    ops::Assign(root.WithOpName("w_init"), w, {1.f, 2.f});
    ops::AssignAdd(root.WithOpName("w_inc"), w, {10.f, 10.f});
    ops::Identity(root.WithOpName("w_read"), w);
    v = ops::VarHandleOp(root.WithOpName("v"), tensorflow::DT_INT64, PartialTensorShape({3}));
    ops::AssignVariableOp(root.WithOpName("v_init"), v, Input({int64_t{7}, int64_t{8}, int64_t{9}}));
    ops::AssignAddVariableOp(root.WithOpName("v_inc"), v, Input({int64_t{1}, int64_t{1}, int64_t{1}}));
    ops::ReadVariableOp(root.WithOpName("v_read"), v, tensorflow::DT_INT64);
    auto s = Saver::New(root, {w, v}, options);
    Ok(s.status());
    saver = std::make_unique<Saver>(std::move(s).value());
    Ok(root.ToGraphDef(&def));
  }
};

std::vector<int64_t> Int64s(const Tensor& t) { return std::vector<int64_t>(t.base<int64_t>(), t.base<int64_t>() + t.NumElements()); }


std::vector<Tensor> FetchAll(Session& s, const std::vector<std::string>& names) {
  std::vector<Tensor> out;
  Ok(s.Run({}, names, {}, &out));
  return out;
}

TEST_CASE("a Saver saves ref and resource variables and restores them into a fresh server") {
  TempDir dir;
  SaverModel m;
  auto session = testing::NewSessionWith(m.def);
  RunTarget(*session, "w_init");
  RunTarget(*session, "v_init");
  RunTarget(*session, "w_inc");
  RunTarget(*session, "v_inc");
  auto path = m.saver->Save(*session, dir / "model.ckpt", 3);
  Ok(path.status());
  CHECK(*path == dir / "model.ckpt-3");
  CHECK(fs::exists(dir / "model.ckpt-3.index"));
  CHECK(fs::exists(dir / "model.ckpt-3.data-00000-of-00001"));

  // The checkpoint holds the variables under their node names.
  auto reader = BundleReader::Open(*path);
  Ok(reader.status());
  CHECK((*reader)->keys() == std::vector<std::string>{"v", "w"});

  // A fresh server has no variables; restoring gives them the saved values.
  auto server = LocalServer::New();
  Ok(server.status());
  auto fresh = Session::New(**server);
  Ok(fresh.status());
  Ok((*fresh)->Create(m.def));
  Ok(m.saver->Restore(**fresh, *path));
  auto out = FetchAll(**fresh, {"w_read", "v_read"});
  CHECK(Values(out[0]) == std::vector<float>{11, 12});
  CHECK(Int64s(out[1]) == std::vector<int64_t>{8, 9, 10});

  // Restoring an older checkpoint over changed values puts them back.
  RunTarget(**fresh, "w_inc");
  Ok(m.saver->Restore(**fresh, *path));
  CHECK(Values(FetchAll(**fresh, {"w_read"})[0]) == std::vector<float>{11, 12});

  Status missing = m.saver->Restore(**fresh, dir / "nothing-here");
  CHECK(missing.code() == error::NOT_FOUND);
  CHECK_THAT(missing.message(), Catch::Contains("nothing-here"));
}

TEST_CASE("Save keeps max_to_keep checkpoints, lists them in the checkpoint file, LatestCheckpoint finds the newest") {
  TempDir dir;
  CHECK(LatestCheckpoint(dir.path.string()).status().code() == error::NOT_FOUND);
  SaverOptions options;
  options.max_to_keep = 2;
  SaverModel m(options);
  auto session = testing::NewSessionWith(m.def);
  RunTarget(*session, "w_init");
  RunTarget(*session, "v_init");
  const std::string prefix = dir / "model.ckpt";
  for (int step = 1; step <= 4; ++step) {
    RunTarget(*session, "w_inc");
    Ok(m.saver->Save(*session, prefix, step * 100).status());
  }
  CHECK(m.saver->last_checkpoints() == std::vector<std::string>{prefix + "-300", prefix + "-400"});
  CHECK_FALSE(fs::exists(prefix + "-100.index"));
  CHECK_FALSE(fs::exists(prefix + "-200.index"));
  CHECK_FALSE(fs::exists(prefix + "-200.data-00000-of-00001"));
  CHECK(fs::exists(prefix + "-300.index"));
  CHECK(fs::exists(prefix + "-400.data-00000-of-00001"));
  std::set<std::string> files;
  for (const auto& e : fs::directory_iterator(dir.path)) files.insert(e.path().filename().string());
  // Each checkpoint has its MetaGraphDef beside it, deleted with it.
  CHECK(files == std::set<std::string>{"checkpoint", "model.ckpt-300.index", "model.ckpt-300.data-00000-of-00001",
                                       "model.ckpt-300.meta", "model.ckpt-400.index",
                                       "model.ckpt-400.data-00000-of-00001", "model.ckpt-400.meta"});

  // The state file, in TensorFlow's text format, relative to the directory.
  tensorflow::CheckpointState state;
  Ok(ReadTextProto(dir / "checkpoint", &state));
  CHECK(state.model_checkpoint_path() == "model.ckpt-400");
  CHECK(std::vector<std::string>(state.all_model_checkpoint_paths().begin(), state.all_model_checkpoint_paths().end()) ==
        std::vector<std::string>{"model.ckpt-300", "model.ckpt-400"});
  CHECK(state.all_model_checkpoint_timestamps_size() == 2);
  std::string text;
  Ok(ReadFileToString(dir / "checkpoint", &text));
  CHECK_THAT(text, Catch::Contains("model_checkpoint_path: \"model.ckpt-400\""));

  auto latest = LatestCheckpoint(dir.path.string());
  Ok(latest.status());
  CHECK(*latest == prefix + "-400");

  // The newest holds the last values: w was incremented four times.
  auto fresh = testing::NewSessionWith(m.def);
  Ok(m.saver->Restore(*fresh, *latest));
  CHECK(Values(FetchAll(*fresh, {"w_read"})[0]) == std::vector<float>{41, 42});

  // A Saver of a restarted program adopts the kept checkpoints, so max_to_keep still holds.
  SaverModel restarted(options);
  Ok(restarted.saver->RecoverLastCheckpoints(dir.path.string()));
  CHECK(restarted.saver->last_checkpoints() == std::vector<std::string>{prefix + "-300", prefix + "-400"});
  auto again = testing::NewSessionWith(restarted.def);
  Ok(restarted.saver->Restore(*again, *latest));
  Ok(restarted.saver->Save(*again, prefix, 500).status());
  CHECK_FALSE(fs::exists(prefix + "-300.index"));
  CHECK(restarted.saver->last_checkpoints() == std::vector<std::string>{prefix + "-400", prefix + "-500"});

  // A state file naming a checkpoint that is gone.
  fs::remove(prefix + "-500.index");
  CHECK(LatestCheckpoint(dir.path.string()).status().code() == error::NOT_FOUND);
}

TEST_CASE("a Saver added after Create works once the session is extended with its nodes") {
  TempDir dir;
  Scope root = Scope::NewRootScope();
  auto w = ops::Variable(root.WithOpName("w"), PartialTensorShape({2}), tensorflow::DT_FLOAT);
  ops::Assign(root.WithOpName("w_init"), w, {3.f, 4.f});
  ops::AssignAdd(root.WithOpName("w_inc"), w, {1.f, 1.f});
  ops::Identity(root.WithOpName("w_read"), w);
  tensorflow::GraphDef first;
  Ok(root.ToGraphDef(&first));
  auto session = testing::NewSessionWith(first);
  RunTarget(*session, "w_init");

  auto saver = Saver::New(root, {w});
  Ok(saver.status());
  tensorflow::GraphDef all, more;
  Ok(root.ToGraphDef(&all));
  std::set<std::string> existing;
  for (const auto& n : first.node()) existing.insert(n.name());
  for (const auto& n : all.node()) {
    if (!existing.count(n.name())) *more.add_node() = n;
  }
  CHECK(more.node_size() > 0);
  Ok(session->Extend(more));
  auto path = saver->Save(*session, dir / "late");
  Ok(path.status());
  CHECK(*path == dir / "late");
  RunTarget(*session, "w_inc");
  CHECK(Values(FetchAll(*session, {"w_read"})[0]) == std::vector<float>{4, 5});
  Ok(saver->Restore(*session, *path));
  CHECK(Values(FetchAll(*session, {"w_read"})[0]) == std::vector<float>{3, 4});
}

TEST_CASE("Saver::New refuses what is not a variable, and repeats") {
  Scope root = Scope::NewRootScope();
  auto w = ops::Variable(root.WithOpName("w"), PartialTensorShape({2}), tensorflow::DT_FLOAT);
  auto c = ops::Const(root.WithOpName("c"), {1.f});
  CHECK(Saver::New(root, {c}).status().code() == error::INVALID_ARGUMENT);
  CHECK(Saver::New(root, {w, w}).status().code() == error::INVALID_ARGUMENT);
  CHECK(Saver::New(root, {}).status().code() == error::INVALID_ARGUMENT);
}

TEST_CASE("SaveV2, RestoreV2 and MergeV2Checkpoints run as graph ops") {
  TempDir dir;
  Scope root = Scope::NewRootScope();
  auto prefix = ops::Placeholder(root.WithOpName("prefix"), tensorflow::DT_STRING);
  ops::SaveV2(root.WithOpName("save"), prefix, ops::StringVector({"a", "b"}), ops::StringVector({"", ""}),
              {ops::Const(root, {1.f, 2.f}), ops::Const(root, {int64_t{5}})});
  auto restored = ops::RestoreV2(root.WithOpName("restore"), prefix, ops::StringVector({"b", "a"}),
                                 ops::StringVector({"", ""}), {tensorflow::DT_INT64, tensorflow::DT_FLOAT});
  REQUIRE(restored.size() == 2);
  ops::RestoreV2(root.WithOpName("restore_wrong_type"), prefix, ops::StringVector({"a"}), ops::StringVector({""}),
                 {tensorflow::DT_INT32});
  ops::RestoreV2(root.WithOpName("restore_missing"), prefix, ops::StringVector({"zzz"}), ops::StringVector({""}),
                 {tensorflow::DT_FLOAT});
  ops::SaveV2(root.WithOpName("save_slice"), prefix, ops::StringVector({"a"}), ops::StringVector({"2 0,1"}),
              {ops::Const(root, {1.f})});
  auto sources = ops::Placeholder(root.WithOpName("sources"), tensorflow::DT_STRING);
  ops::MergeV2Checkpoints(root.WithOpName("merge"), sources, prefix);
  tensorflow::GraphDef def;
  Ok(root.ToGraphDef(&def));
  auto session = testing::NewSessionWith(def);

  const std::string ckpt = dir / "ops/ckpt";
  auto feed = [](const std::string& s) { return Tensor::Scalar<std::string>(s); };
  Ok(session->Run({{"prefix", feed(ckpt)}}, {}, {"save"}, nullptr));
  std::vector<Tensor> out;
  Ok(session->Run({{"prefix", feed(ckpt)}}, {"restore:0", "restore:1"}, {}, &out));
  CHECK(Int64s(out[0]) == std::vector<int64_t>{5});
  CHECK(Values(out[1]) == std::vector<float>{1, 2});

  Status st = session->Run({{"prefix", feed(ckpt)}}, {"restore_wrong_type"}, {}, &out);
  CHECK(st.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(st.message(), Catch::Contains("expected dtype int32 does not equal original dtype float"));
  st = session->Run({{"prefix", feed(ckpt)}}, {"restore_missing"}, {}, &out);
  CHECK(st.code() == error::NOT_FOUND);
  CHECK_THAT(st.message(), Catch::Contains("zzz"));
  st = session->Run({{"prefix", feed(dir / "absent")}}, {"restore:0"}, {}, &out);
  CHECK(st.code() == error::NOT_FOUND);
  st = session->Run({{"prefix", feed(ckpt)}}, {}, {"save_slice"}, nullptr);
  CHECK(st.code() == error::UNIMPLEMENTED);

  const std::string merged = dir / "merged";
  Ok(session->Run({{"prefix", feed(merged)}, {"sources", Tensor::FromVector<std::string>({ckpt})}}, {}, {"merge"},
                  nullptr));
  CHECK_FALSE(fs::exists(ckpt + ".index"));
  Ok(session->Run({{"prefix", feed(merged)}}, {"restore:1"}, {}, &out));
  CHECK(Values(out[0]) == std::vector<float>{1, 2});
}

}  // namespace
}  // namespace tensoract
