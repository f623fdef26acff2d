#include "client/function_export.h"

#include <set>

#include "client/meta_graph.h"
#include "client/saver.h"
#include "graph/builder/ops.h"
#include "graph/node_def_util.h"

namespace tensoract {
namespace {

constexpr char kArgPrefix[] = "args_";
constexpr char kOutputPrefix[] = "output_";

bool StartsWith(const std::string& s, const std::string& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

}  // namespace

Status SaveFunction(EagerContext& ctx, Function& function, const std::vector<FunctionArg>& args,
                    const std::string& export_dir, const std::string& signature_key) {
  TA_ASSIGN_OR_RETURN(tensorflow::GraphDef graph, function.GraphFor(ctx.scope(), args));
  // The Saver's nodes are built beside the trace, over a copy of each VarHandleOp the trace
  // has (same name and attrs: the same node once merged), and added to it.
  Scope saver_scope = Scope::NewRootScope();
  std::vector<Output> handles;
  std::set<std::string> names;
  for (const auto& node : graph.node()) names.insert(node.name());
  tensorflow::MetaGraphDef meta;
  tensorflow::SignatureDef& sig = (*meta.mutable_signature_def())[signature_key];
  sig.set_method_name(kPredictMethodName);
  for (const auto& node : graph.node()) {
    if (node.op() == "VarHandleOp") {
      DataType dtype;
      TA_RETURN_IF_ERROR(GetNodeAttr(node, "dtype", &dtype));
      ops::VarHandleOpAttrs attrs;
      attrs.shared_name = node.name();
      (void)GetNodeAttr(node, "shared_name", &attrs.shared_name);
      (void)GetNodeAttr(node, "container", &attrs.container);
      PartialTensorShape shape;
      (void)GetNodeAttr(node, "shape", &shape);
      // The same node as the trace's (merged into it below): the checkpoint key is its name.
      handles.push_back(ops::VarHandleOp(saver_scope.WithOpName(node.name()), dtype, shape, attrs));
    } else if (node.op() == "Placeholder" && StartsWith(node.name(), kArgPrefix)) {
      DataType dtype;
      TA_RETURN_IF_ERROR(GetNodeAttr(node, "dtype", &dtype));
      tensorflow::TensorInfo& info = (*sig.mutable_inputs())[node.name()];
      info.set_name(node.name() + ":0");
      info.set_dtype(dtype);
      PartialTensorShape shape;
      if (GetNodeAttr(node, "shape", &shape).ok()) shape.AsProto(info.mutable_tensor_shape());
    } else if (StartsWith(node.name(), kOutputPrefix)) {
      DataType dtype;
      if (!GetNodeAttr(node, "T", &dtype).ok()) continue;
      tensorflow::TensorInfo& info = (*sig.mutable_outputs())[node.name()];
      info.set_name(node.name() + ":0");
      info.set_dtype(dtype);
    }
  }
  SaverOptions options;
  options.write_meta_graph = false;
  std::unique_ptr<Saver> saver;
  if (!handles.empty()) {
    TA_ASSIGN_OR_RETURN(Saver s, Saver::New(saver_scope, handles, options));
    saver = std::make_unique<Saver>(std::move(s));
    tensorflow::GraphDef saver_graph;
    TA_RETURN_IF_ERROR(saver_scope.ToGraphDef(&saver_graph));
    for (auto& node : *saver_graph.mutable_node()) {
      if (names.count(node.name()) == 0) *graph.add_node() = std::move(node);
    }
  }
  if (saver != nullptr) *meta.mutable_saver_def() = saver->saver_def();
  meta.mutable_meta_info_def()->set_tensorflow_version(kMetaGraphTensorFlowVersion);
  *meta.mutable_graph_def() = graph;
  // A session on the context's server shares its worker, and so the variables' values.
  TA_ASSIGN_OR_RETURN(auto session, Session::New(ctx.server()));
  TA_RETURN_IF_ERROR(session->Create(graph));
  SavedModelWriter writer(export_dir);
  TA_RETURN_IF_ERROR(writer.AddMetaGraphAndVariables(*session, std::move(meta), {kSavedModelTagServe}));
  return writer.Save();
}

}  // namespace tensoract
