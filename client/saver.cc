#include "client/saver.h"

#include <chrono>
#include <filesystem>
#include <set>

#include "base/durable_file.h"
#include "base/proto_io.h"
#include "client/meta_graph.h"
#include "graph/builder/attr_util.h"
#include "graph/builder/io_ops.h"
#include "graph/builder/ops.h"
#include "graph/graph.h"
#include "graph/node_def_util.h"
#include "kernels/checkpoint/tensor_bundle.h"
#include "messages/checkpoint_state.pb.h"

namespace tensoract {
namespace {

namespace fs = std::filesystem;

double NowSeconds() {
  using namespace std::chrono;
  return duration_cast<duration<double>>(system_clock::now().time_since_epoch()).count();
}

// Removes a checkpoint's index and data shards; what is already gone is no error.
void DeleteCheckpoint(const std::string& prefix) {
  std::error_code ec;
  fs::remove(BundleIndexFilename(prefix), ec);
  fs::remove(prefix + ".meta", ec);
  const fs::path p(prefix);
  const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  const std::string data_stem = p.filename().string() + ".data-";
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.compare(0, data_stem.size(), data_stem) == 0) fs::remove(it->path(), ec);
  }
}

// `path` relative to `dir` when it lies in it (so the directory can move), else as given.
std::string RelativeTo(const std::string& dir, const std::string& path) {
  const fs::path p(path);
  if (p.parent_path() == fs::path(dir)) return p.filename().string();
  return path;
}

// Removes what crashed saves of `prefix` left in its directory: temporary files older than
// `before` (a save running now, in another saver, started after it).
void RemoveStaleTemporaries(const std::string& prefix, fs::file_time_type before) {
  const fs::path p(prefix);
  const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  const std::string stem = p.filename().string();
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.compare(0, stem.size(), stem) != 0 || name.find(".tempstate") == std::string::npos) continue;
    std::error_code time_ec;
    if (fs::last_write_time(it->path(), time_ec) < before && !time_ec) fs::remove(it->path(), time_ec);
  }
}

}  // namespace

StatusOr<Saver> Saver::New(const Scope& scope, const std::vector<Output>& vars, SaverOptions options) {
  if (!scope.ok()) return scope.status();
  if (vars.empty()) return errors::InvalidArgument("Saver: no variables to save");
  std::vector<std::string> names;
  std::vector<Input> values;
  DataTypeVector dtypes;
  std::set<std::string> seen;
  const Scope s = scope.NewSubScope(options.name);
  for (const Output& v : vars) {
    if (v.node == nullptr) return errors::InvalidArgument("Saver: a variable is an empty Output");
    const std::string& name = v.node->name();
    if (!seen.insert(name).second) return errors::InvalidArgument("Saver: variable '", name, "' is listed twice");
    const DataType type = v.type();
    if (IsRefType(type)) {
      dtypes.push_back(BaseType(type));
      values.push_back(v);  // a value input reads the reference
    } else if (type == tensorflow::DT_RESOURCE) {
      DataType dtype;
      Status st = GetNodeAttr(v.node->def(), "dtype", &dtype);
      if (!st.ok()) {
        return errors::InvalidArgument("Saver: resource '", name, "' is not a VarHandleOp's output (",
                                       v.node->type_string(), "), so its dtype is unknown");
      }
      dtypes.push_back(dtype);
      values.push_back(ops::ReadVariableOp(s.WithOpName("Read_" + name), v, dtype));
    } else {
      return errors::InvalidArgument("Saver: '", name, "' (", v.node->type_string(),
                                     ") is neither a reference variable nor a resource variable handle");
    }
    names.push_back(name);
  }
  const std::vector<std::string> slices(names.size(), "");

  Saver saver;
  saver.options_ = options;
  auto prefix = ops::Placeholder(s.WithOpName("filename"), tensorflow::DT_STRING, PartialTensorShape(std::vector<int64_t>{}));
  Node* save = ops::SaveV2(s.WithOpName("SaveV2"), prefix, ops::StringVector(names), ops::StringVector(slices), values);
  OutputList restored = ops::RestoreV2(s.WithOpName("RestoreV2"), prefix, ops::StringVector(names),
                                       ops::StringVector(slices), dtypes);
  if (!s.ok()) return s.status();
  std::vector<Output> assigns;
  for (size_t i = 0; i < vars.size(); ++i) {
    const Scope a = s.WithOpName("Assign_" + names[i]);
    if (IsRefType(vars[i].type())) {
      assigns.push_back(ops::Assign(a, vars[i], restored[i]));
    } else {
      assigns.push_back(Output(ops::AssignVariableOp(a, vars[i], restored[i]), 0));
    }
  }
  Node* restore_all = ops::NoOp(s.WithOpName("restore_all").WithControlDependencies(assigns));
  // TensorFlow's SaverDef names a tensor to fetch for saving: the prefix, once saved.
  Output saved = ops::Identity(s.WithOpName("control_dependency").WithControlDependencies({Output(save, 0)}), prefix);
  if (!s.ok()) return s.status();
  saver.prefix_tensor_ = prefix.node->name() + ":0";
  saver.save_op_ = save->name();
  saver.save_tensor_ = saved.node->name() + ":0";
  saver.restore_op_ = restore_all->name();
  return saver;
}

StatusOr<Saver> Saver::FromSaverDef(const tensorflow::SaverDef& def, SaverOptions options) {
  if (def.filename_tensor_name().empty() || def.save_tensor_name().empty() || def.restore_op_name().empty()) {
    return errors::InvalidArgument("SaverDef: filename_tensor_name, save_tensor_name and restore_op_name must all be set");
  }
  if (def.version() != tensorflow::SaverDef::V2) {
    return errors::InvalidArgument("SaverDef: only V2 checkpoints are supported, not version ", static_cast<int>(def.version()));
  }
  Saver saver;
  if (def.max_to_keep() != 0) options.max_to_keep = def.max_to_keep();
  saver.options_ = std::move(options);
  saver.prefix_tensor_ = def.filename_tensor_name();
  saver.save_tensor_ = def.save_tensor_name();
  const std::string& t = def.save_tensor_name();
  saver.save_op_ = t.substr(0, t.rfind(':'));
  saver.restore_op_ = def.restore_op_name();
  saver.sharded_ = def.sharded();
  return saver;
}

tensorflow::SaverDef Saver::saver_def() const {
  tensorflow::SaverDef def;
  def.set_filename_tensor_name(prefix_tensor_);
  def.set_save_tensor_name(save_tensor_);
  def.set_restore_op_name(restore_op_);
  def.set_max_to_keep(options_.max_to_keep);
  def.set_sharded(sharded_);
  def.set_keep_checkpoint_every_n_hours(10000.0f);  // TensorFlow's default: never
  def.set_version(tensorflow::SaverDef::V2);
  return def;
}

StatusOr<std::string> Saver::Save(Session& session, const std::string& prefix, int64_t global_step) {
  const std::string path = global_step < 0 ? prefix : StrCat(prefix, "-", global_step);
  const auto started = fs::file_time_type::clock::now();
  Status st = session.Run({{prefix_tensor_, Tensor::Scalar<std::string>(path)}}, {}, {save_op_}, nullptr);
  if (!st.ok()) return st.WithContext(StrCat("Saver: saving ", path));
  if (options_.write_meta_graph) {
    const tensorflow::SaverDef def = saver_def();
    TA_RETURN_IF_ERROR(WriteMetaGraph(path + ".meta", MakeMetaGraph(session.graph_def(), &def, options_.collections)));
  }
  TA_RETURN_IF_ERROR(UpdateCheckpointState(path));
  RemoveStaleTemporaries(prefix, started);
  return path;
}

Status Saver::UpdateCheckpointState(const std::string& path) {
  for (size_t i = 0; i < last_checkpoints_.size(); ++i) {
    if (last_checkpoints_[i] == path) {  // saved again: it becomes the newest
      last_checkpoints_.erase(last_checkpoints_.begin() + static_cast<long>(i));
      last_timestamps_.erase(last_timestamps_.begin() + static_cast<long>(i));
      break;
    }
  }
  last_checkpoints_.push_back(path);
  last_timestamps_.push_back(NowSeconds());
  std::vector<std::string> expired;
  while (options_.max_to_keep > 0 && static_cast<int>(last_checkpoints_.size()) > options_.max_to_keep) {
    expired.push_back(last_checkpoints_.front());
    last_checkpoints_.erase(last_checkpoints_.begin());
    last_timestamps_.erase(last_timestamps_.begin());
  }
  const fs::path p(path);
  const std::string dir = p.parent_path().string();
  tensorflow::CheckpointState state;
  state.set_model_checkpoint_path(RelativeTo(dir, path));
  for (size_t i = 0; i < last_checkpoints_.size(); ++i) {
    state.add_all_model_checkpoint_paths(RelativeTo(dir, last_checkpoints_[i]));
    state.add_all_model_checkpoint_timestamps(last_timestamps_[i]);
  }
  const std::string file = (fs::path(dir.empty() ? "." : dir) / options_.latest_filename).string();
  // The state file first, then the deletions: a crash in between leaves files no state file
  // names, never a state file naming files that are gone.
  TA_RETURN_IF_ERROR(WriteFileDurably(file, ToTextProto(state)));
  CrashPoint("checkpoint_state_written");
  for (const std::string& old : expired) DeleteCheckpoint(old);
  return Status::OK();
}

Status Saver::Restore(Session& session, const std::string& prefix) {
  std::error_code ec;
  if (!fs::exists(BundleIndexFilename(prefix), ec)) {
    return errors::NotFound("Saver: no checkpoint at ", prefix, " (", BundleIndexFilename(prefix), " is missing)");
  }
  Status st = session.Run({{prefix_tensor_, Tensor::Scalar<std::string>(prefix)}}, {}, {restore_op_}, nullptr);
  if (!st.ok()) return st.WithContext(StrCat("Saver: restoring ", prefix));
  return Status::OK();
}

namespace {

// The directory's state file, parsed; NotFound when there is none.
StatusOr<tensorflow::CheckpointState> ReadCheckpointState(const std::string& dir, const std::string& latest_filename) {
  const std::string file = (fs::path(dir) / latest_filename).string();
  std::error_code ec;
  if (!fs::exists(file, ec)) return errors::NotFound("no checkpoint state file ", file);
  tensorflow::CheckpointState state;
  std::string text;
  TA_RETURN_IF_ERROR(ReadFileToString(file, &text));
  Status st = ParseTextProto(text, &state);
  if (!st.ok()) return errors::DataLoss("checkpoint state file ", file, " does not parse: ", st.message());
  return state;
}

std::string InDir(const std::string& dir, const std::string& path) {
  fs::path p(path);
  return p.is_relative() ? (fs::path(dir) / p).string() : p.string();
}

}  // namespace

Status Saver::RecoverLastCheckpoints(const std::string& dir) {
  StatusOr<tensorflow::CheckpointState> state = ReadCheckpointState(dir, options_.latest_filename);
  if (!state.ok()) return state.status().code() == error::NOT_FOUND ? Status::OK() : state.status();
  last_checkpoints_.clear();
  last_timestamps_.clear();
  std::error_code ec;
  for (int i = 0; i < state->all_model_checkpoint_paths_size(); ++i) {
    const std::string path = InDir(dir, state->all_model_checkpoint_paths(i));
    if (!fs::exists(BundleIndexFilename(path), ec)) continue;  // deleted by hand: nothing to keep
    last_checkpoints_.push_back(path);
    last_timestamps_.push_back(i < state->all_model_checkpoint_timestamps_size() ? state->all_model_checkpoint_timestamps(i)
                                                                              : NowSeconds());
  }
  return Status::OK();
}

StatusOr<std::string> LatestCheckpoint(const std::string& dir, const std::string& latest_filename) {
  TA_ASSIGN_OR_RETURN(tensorflow::CheckpointState state, ReadCheckpointState(dir, latest_filename));
  const std::string file = (fs::path(dir) / latest_filename).string();
  if (state.model_checkpoint_path().empty()) return errors::NotFound("checkpoint state file ", file, " names no checkpoint");
  const std::string path = InDir(dir, state.model_checkpoint_path());
  std::error_code ec;
  if (!fs::exists(BundleIndexFilename(path), ec)) {
    return errors::NotFound("the latest checkpoint in ", file, ", ", path, ", does not exist");
  }
  return path;
}

}  // namespace tensoract
