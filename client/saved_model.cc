#include "client/saved_model.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include "base/durable_file.h"
#include "base/proto_io.h"
#include "base/tensor_shape.h"
#include "client/saved_object_graph.h"
#include "graph/node_def_util.h"
#include "kernels/checkpoint/tensor_bundle.h"

namespace tensoract {
namespace {

namespace fs = std::filesystem;

constexpr char kSavedModelFilenamePb[] = "saved_model.pb";
constexpr char kSavedModelFilenamePbTxt[] = "saved_model.pbtxt";
constexpr char kVariablesDirectory[] = "variables";
constexpr char kVariablesFilename[] = "variables";
constexpr char kAssetsDirectory[] = "assets";
// TensorFlow 2 names its init op through a signature of this key; TensorFlow 1 through
// one of these collections.
constexpr char kInitOpSignatureKey[] = "__saved_model_init_op";
constexpr char kMainOpCollection[] = "saved_model_main_op";
constexpr char kLegacyInitOpCollection[] = "legacy_init_op";
constexpr char kAssetsCollection[] = "saved_model_assets";  // TensorFlow 1's

std::string VariablesPrefix(const std::string& export_dir) {
  return (fs::path(export_dir) / kVariablesDirectory / kVariablesFilename).string();
}

std::string JoinTags(const std::set<std::string>& tags) {
  std::string out = "{";
  for (const std::string& t : tags) out += " " + t;
  return out + " }";
}

bool HasVariableOps(const tensorflow::GraphDef& graph) {
  for (const auto& node : graph.node()) {
    if (node.op() == "VarHandleOp" || node.op() == "VariableV2" || node.op() == "Variable") return true;
  }
  return false;
}

// The init op TensorFlow 2 (a signature) or TensorFlow 1 (a collection) names; empty: none.
std::string InitOpName(const tensorflow::MetaGraphDef& meta_graph) {
  auto sig = meta_graph.signature_def().find(kInitOpSignatureKey);
  if (sig != meta_graph.signature_def().end()) {
    auto out = sig->second.outputs().find(kInitOpSignatureKey);
    if (out != sig->second.outputs().end()) return NodeNameOf(out->second.name());
  }
  for (const char* key : {kMainOpCollection, kLegacyInitOpCollection}) {
    auto c = meta_graph.collection_def().find(key);
    if (c != meta_graph.collection_def().end() && c->second.node_list().value_size() > 0) {
      return NodeNameOf(c->second.node_list().value(0));
    }
  }
  return "";
}

// Each asset's tensor fed the asset file's path in export_dir/assets. TensorFlow 2 lists
// the assets in asset_file_def; TensorFlow 1's builder in a collection of Any-wrapped
// AssetFileDefs. A collection entry that is not one is DataLoss.
StatusOr<std::vector<std::pair<std::string, Tensor>>> AssetFeeds(const std::string& export_dir,
                                                                 const tensorflow::MetaGraphDef& meta_graph) {
  std::vector<tensorflow::AssetFileDef> assets(meta_graph.asset_file_def().begin(), meta_graph.asset_file_def().end());
  auto c = meta_graph.collection_def().find(kAssetsCollection);
  if (c != meta_graph.collection_def().end()) {
    for (const auto& any : c->second.any_list().value()) {
      if (!any.UnpackTo(&assets.emplace_back())) {
        return errors::DataLoss("the SavedModel at ", export_dir, ": collection '", kAssetsCollection,
                                "' holds a ", any.type_url(), ", not an AssetFileDef");
      }
    }
  }
  std::vector<std::pair<std::string, Tensor>> feeds;
  for (const auto& asset : assets) {
    const std::string path = (fs::path(export_dir) / kAssetsDirectory / asset.filename()).string();
    feeds.emplace_back(asset.tensor_info().name(), Tensor::Scalar<std::string>(path));
  }
  return feeds;
}

std::string Keys(const google::protobuf::Map<std::string, tensorflow::TensorInfo>& map) {
  std::vector<std::string> keys;
  for (const auto& [k, v] : map) keys.push_back(k);
  std::sort(keys.begin(), keys.end());
  std::string out;
  for (const std::string& k : keys) out += (out.empty() ? "" : ", ") + k;
  return out;
}

// Checks one signature input against its TensorInfo.
Status CheckInput(const std::string& signature, const std::string& key, const tensorflow::TensorInfo& info,
                  const Tensor& value) {
  if (info.encoding_case() != tensorflow::TensorInfo::kName) {
    return errors::Unimplemented("signature '", signature, "': input '", key,
                                 "' is a sparse or composite tensor, which is not supported");
  }
  if (info.dtype() != value.dtype()) {
    return errors::InvalidArgument("signature '", signature, "': input '", key, "' must be ",
                                   DataTypeString(info.dtype()), ", not ", DataTypeString(value.dtype()));
  }
  if (info.has_tensor_shape()) {
    TA_ASSIGN_OR_RETURN(PartialTensorShape want, PartialTensorShape::FromProto(info.tensor_shape()));
    if (!want.IsCompatibleWith(value.shape())) {
      return errors::InvalidArgument("signature '", signature, "': input '", key, "' has shape ",
                                     value.shape().DebugString(), ", which does not fit ", want.DebugString());
    }
  }
  return Status::OK();
}

}  // namespace

bool MaybeSavedModelDirectory(const std::string& dir) {
  std::error_code ec;
  return fs::exists(fs::path(dir) / kSavedModelFilenamePb, ec) || fs::exists(fs::path(dir) / kSavedModelFilenamePbTxt, ec);
}

StatusOr<tensorflow::SavedModel> ReadSavedModel(const std::string& export_dir) {
  tensorflow::SavedModel saved_model;
  std::error_code ec;
  const fs::path pb = fs::path(export_dir) / kSavedModelFilenamePb;
  const fs::path pbtxt = fs::path(export_dir) / kSavedModelFilenamePbTxt;
  if (fs::exists(pb, ec)) {
    std::string bytes;
    TA_RETURN_IF_ERROR(ReadFileToString(pb.string(), &bytes));
    if (!saved_model.ParseFromString(bytes)) {
      return errors::DataLoss("could not parse ", pb.string(), " (", bytes.size(),
                              " bytes) as a SavedModel: truncated or not a SavedModel");
    }
  } else if (fs::exists(pbtxt, ec)) {
    std::string text;
    TA_RETURN_IF_ERROR(ReadFileToString(pbtxt.string(), &text));
    Status st = ParseTextProto(text, &saved_model);
    if (!st.ok()) return errors::DataLoss("could not parse ", pbtxt.string(), ": ", st.message());
  } else {
    return errors::NotFound("Could not find SavedModel .pb or .pbtxt at supplied export directory path: ", export_dir);
  }
  return saved_model;
}

StatusOr<std::unique_ptr<SavedModelBundle>> LoadSavedModel(const std::string& export_dir,
                                                           const std::set<std::string>& tags,
                                                           const SessionOptions& options) {
  TA_ASSIGN_OR_RETURN(tensorflow::SavedModel saved_model, ReadSavedModel(export_dir));
  std::unique_ptr<SavedModelBundle> bundle(new SavedModelBundle);
  bundle->export_dir_ = export_dir;
  std::string available;
  bool found = false;
  for (auto& meta_graph : *saved_model.mutable_meta_graphs()) {
    const std::set<std::string> have(meta_graph.meta_info_def().tags().begin(), meta_graph.meta_info_def().tags().end());
    if (have == tags) {
      bundle->meta_graph_def_ = std::move(meta_graph);
      found = true;
      break;
    }
    available += (available.empty() ? "" : ", ") + JoinTags(have);
  }
  if (!found) {
    return errors::NotFound("Could not find meta graph def matching supplied tags: ", JoinTags(tags),
                            " in the SavedModel at ", export_dir, " (it has: ", available, ")");
  }
  const tensorflow::MetaGraphDef& meta_graph = bundle->meta_graph_def_;
  const auto context = [&](const Status& st, const char* what) {
    return st.WithContext(StrCat("loading the SavedModel at ", export_dir, ": ", what));
  };

  TA_ASSIGN_OR_RETURN(bundle->session_, Session::New(options));
  Status st = bundle->session_->Create(meta_graph.graph_def());
  if (!st.ok()) return context(st, "its graph");

  TA_ASSIGN_OR_RETURN(const auto asset_feeds, AssetFeeds(export_dir, meta_graph));
  const tensorflow::SaverDef& saver = meta_graph.saver_def();
  if (!saver.restore_op_name().empty()) {
    const std::string prefix = VariablesPrefix(export_dir);
    std::error_code ec;
    if (!fs::exists(BundleIndexFilename(prefix), ec)) {
      // TensorFlow restores nothing then; a graph with variables would fail at its first
      // run, far from the cause, so that case is refused here.
      if (HasVariableOps(meta_graph.graph_def())) {
        return errors::NotFound("the SavedModel at ", export_dir, " has variables but no checkpoint of them: ",
                                BundleIndexFilename(prefix), " is missing");
      }
    } else {
      std::vector<std::pair<std::string, Tensor>> feeds = asset_feeds;
      feeds.emplace_back(saver.filename_tensor_name(), Tensor::Scalar<std::string>(prefix));
      st = bundle->session_->Run(feeds, {}, {NodeNameOf(saver.restore_op_name())}, nullptr);
      if (!st.ok()) return context(st, "restoring its variables");
      st = RestoreCapturedVariables(*bundle->session_, meta_graph, prefix);
      if (!st.ok()) return context(st, "restoring the variables its functions capture");
    }
  }
  const std::string init_op = InitOpName(meta_graph);
  if (!init_op.empty()) {
    st = bundle->session_->Run(asset_feeds, {}, {init_op}, nullptr);
    if (!st.ok()) return context(st, "running its init op");
  }
  return bundle;
}

StatusOr<const tensorflow::SignatureDef*> SavedModelBundle::Signature(const std::string& key) const {
  auto it = meta_graph_def_.signature_def().find(key);
  if (it == meta_graph_def_.signature_def().end() || key == kInitOpSignatureKey) {
    std::string keys;
    for (const std::string& k : SignatureKeys()) keys += (keys.empty() ? "" : ", ") + k;
    return errors::NotFound("the SavedModel has no signature '", key, "' (it has: ", keys, ")");
  }
  return &it->second;
}

std::vector<std::string> SavedModelBundle::SignatureKeys() const {
  std::vector<std::string> keys;
  for (const auto& [k, v] : meta_graph_def_.signature_def()) {
    if (k != kInitOpSignatureKey) keys.push_back(k);
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

Status SavedModelBundle::Run(const std::string& key, const std::vector<std::pair<std::string, Tensor>>& inputs,
                             std::vector<std::pair<std::string, Tensor>>* outputs,
                             const std::vector<std::string>& output_keys, const RunOptions& options) {
  TA_ASSIGN_OR_RETURN(const tensorflow::SignatureDef* sig, Signature(key));
  std::map<std::string, const Tensor*> given;
  for (const auto& [name, value] : inputs) {
    auto info = sig->inputs().find(name);
    if (info == sig->inputs().end()) {
      return errors::InvalidArgument("signature '", key, "' has no input '", name, "' (its inputs: ",
                                     Keys(sig->inputs()), ")");
    }
    if (!given.emplace(name, &value).second) {
      return errors::InvalidArgument("signature '", key, "': input '", name, "' is given twice");
    }
    TA_RETURN_IF_ERROR(CheckInput(key, name, info->second, value));
  }
  std::vector<std::pair<std::string, Tensor>> feeds;
  for (const auto& [name, info] : sig->inputs()) {
    auto g = given.find(name);
    if (g != given.end()) {
      feeds.emplace_back(info.name(), *g->second);
      continue;
    }
    auto d = sig->defaults().find(name);
    if (d == sig->defaults().end()) {
      return errors::InvalidArgument("signature '", key, "' needs input '", name, "', which was not given");
    }
    TA_ASSIGN_OR_RETURN(Tensor value, Tensor::FromProto(d->second));
    feeds.emplace_back(info.name(), std::move(value));
  }
  std::vector<std::string> keys = output_keys;
  if (keys.empty()) {
    for (const auto& [name, info] : sig->outputs()) keys.push_back(name);
    std::sort(keys.begin(), keys.end());
  }
  std::vector<std::string> fetches;
  for (const std::string& name : keys) {
    auto info = sig->outputs().find(name);
    if (info == sig->outputs().end()) {
      return errors::InvalidArgument("signature '", key, "' has no output '", name, "' (its outputs: ",
                                     Keys(sig->outputs()), ")");
    }
    if (info->second.encoding_case() != tensorflow::TensorInfo::kName) {
      return errors::Unimplemented("signature '", key, "': output '", name,
                                   "' is a sparse or composite tensor, which is not supported");
    }
    fetches.push_back(info->second.name());
  }
  std::vector<Tensor> values;
  TA_RETURN_IF_ERROR(session_->Run(options, feeds, fetches, {}, &values));
  outputs->clear();
  for (size_t i = 0; i < keys.size(); ++i) outputs->emplace_back(keys[i], std::move(values[i]));
  return Status::OK();
}

tensorflow::TensorInfo MakeTensorInfo(const std::string& tensor_name, DataType dtype,
                                      const std::vector<int64_t>& dims, bool unknown_rank) {
  tensorflow::TensorInfo info;
  info.set_name(tensor_name);
  info.set_dtype(dtype);
  if (unknown_rank) {
    info.mutable_tensor_shape()->set_unknown_rank(true);
  } else {
    for (int64_t d : dims) info.mutable_tensor_shape()->add_dim()->set_size(d);
  }
  return info;
}

Status SavedModelWriter::AddMetaGraphAndVariables(Session& session, tensorflow::MetaGraphDef meta_graph,
                                                  const std::vector<std::string>& tags,
                                                  const std::vector<std::string>& assets) {
  if (variables_saved_) {
    return errors::FailedPrecondition("SavedModelWriter: the variables of ", export_dir_,
                                      " are saved already; add further views with AddMetaGraph");
  }
  std::error_code ec;
  if (fs::exists(export_dir_, ec) && !fs::is_empty(export_dir_, ec)) {
    return errors::AlreadyExists("Export directory already exists, and isn't empty. Please choose a different export "
                                 "directory, or delete all the contents of the specified directory: ",
                                 export_dir_);
  }
  fs::create_directories(fs::path(export_dir_) / kVariablesDirectory, ec);
  if (ec) return errors::Internal("cannot create ", export_dir_, "/", kVariablesDirectory, ": ", ec.message());
  const tensorflow::SaverDef& saver = meta_graph.saver_def();
  if (!saver.save_tensor_name().empty()) {
    const std::string prefix = VariablesPrefix(export_dir_);
    Status st = session.Run({{saver.filename_tensor_name(), Tensor::Scalar<std::string>(prefix)}}, {},
                            {NodeNameOf(saver.save_tensor_name())}, nullptr);
    if (!st.ok()) return st.WithContext(StrCat("SavedModelWriter: saving the variables into ", prefix));
  }
  if (!assets.empty()) {
    const fs::path dir = fs::path(export_dir_) / kAssetsDirectory;
    fs::create_directories(dir, ec);
    for (const std::string& asset : assets) {
      fs::copy_file(asset, dir / fs::path(asset).filename(), fs::copy_options::overwrite_existing, ec);
      if (ec) return errors::NotFound("SavedModelWriter: cannot copy asset ", asset, ": ", ec.message());
    }
  }
  variables_saved_ = true;
  return AddMetaGraph(std::move(meta_graph), tags);
}

Status SavedModelWriter::AddMetaGraph(tensorflow::MetaGraphDef meta_graph, const std::vector<std::string>& tags) {
  if (!variables_saved_) {
    return errors::FailedPrecondition("SavedModelWriter: AddMetaGraphAndVariables must come first");
  }
  const std::set<std::string> wanted(tags.begin(), tags.end());
  for (const auto& m : saved_model_.meta_graphs()) {
    if (std::set<std::string>(m.meta_info_def().tags().begin(), m.meta_info_def().tags().end()) == wanted) {
      return errors::AlreadyExists("SavedModelWriter: a meta graph with tags ", JoinTags(wanted), " was added already");
    }
  }
  meta_graph.mutable_meta_info_def()->clear_tags();
  for (const std::string& t : tags) meta_graph.mutable_meta_info_def()->add_tags(t);
  *saved_model_.add_meta_graphs() = std::move(meta_graph);
  return Status::OK();
}

Status SavedModelWriter::Save() {
  if (saved_model_.meta_graphs_size() == 0) return errors::FailedPrecondition("SavedModelWriter: no meta graph added");
  saved_model_.set_saved_model_schema_version(1);
  std::string bytes;
  if (!saved_model_.SerializeToString(&bytes)) return errors::Internal("SavedModelWriter: cannot serialize");
  return WriteFileDurably((fs::path(export_dir_) / kSavedModelFilenamePb).string(), bytes);
}

}  // namespace tensoract
