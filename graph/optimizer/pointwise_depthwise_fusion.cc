#include "graph/optimizer/pointwise_depthwise_fusion.h"

#include <string>
#include <vector>

#include "graph/optimizer/remapper_util.h"

namespace tensoract {
namespace {

using remapper::DataInput;
using remapper::Source;

// The shape of data input `input` of `n` when fully known, rank 4.
bool FilterShape(const Node& n, int input, std::vector<int64_t>* dims) {
  const Source s = DataInput(n, input);
  if (s.node == nullptr) return false;
  const PartialTensorShape& shape = s.node->output_shape(s.port);
  if (!shape.IsFullyDefined() || shape.dims() != 4) return false;
  dims->clear();
  for (int i = 0; i < 4; ++i) dims->push_back(shape.dim_size(i));
  return true;
}

// A float NHWC convolution node without dilation (and without a fused residual Add unless
// `add_allowed`).
bool PlainConvolution(const Node& n, bool add_allowed = false) {
  if (remapper::AttrString(n, "data_format", "NHWC") != "NHWC") return false;
  auto t = n.def().attr().find("T");
  if (t == n.def().attr().end() || t->second.type() != tensorflow::DT_FLOAT) return false;
  auto dilations = n.def().attr().find("dilations");
  if (dilations != n.def().attr().end()) {
    for (int64_t d : dilations->second.list().i()) {
      if (d != 1) return false;
    }
  }
  auto ops = n.def().attr().find("fused_ops");
  if (ops == n.def().attr().end()) return false;
  for (const std::string& op : ops->second.list().s()) {
    if (op == "Add" && !add_allowed) return false;
  }
  return true;
}

// A 1x1 convolution of stride 1 (its filter's shape known) taking `depth` channels, or any
// number where depth < 0.
bool Pointwise(const Node& n, int64_t depth) {
  const std::string padding = remapper::AttrString(n, "padding", "");
  if (padding != "SAME" && padding != "VALID") return false;
  auto strides = n.def().attr().find("strides");
  if (strides == n.def().attr().end()) return false;
  for (int64_t s : strides->second.list().i()) {
    if (s != 1) return false;
  }
  std::vector<int64_t> filter;
  return FilterShape(n, 1, &filter) && filter[0] == 1 && filter[1] == 1 && (depth < 0 || filter[2] == depth);
}

int64_t NumArgs(const Node& n) {
  auto it = n.def().attr().find("num_args");
  return it == n.def().attr().end() ? 0 : it->second.i();
}

// Copies the attrs of `from` that belong to its op (not the runtime's, starting with '_')
// into `def`, each name after `prefix`.
void CopyPrefixed(const Node& from, const std::string& prefix, NodeDef* def) {
  for (const auto& [name, value] : from.def().attr()) {
    if (!name.empty() && name[0] != '_') (*def->mutable_attr())[prefix + name] = value;
  }
}

}  // namespace

bool TryFusePointwiseDepthwise(Graph* graph, Node* pointwise) {
  if (!remapper::OnCpu(*pointwise) || !PlainConvolution(*pointwise) || !Pointwise(*pointwise, -1)) return false;
  std::vector<int64_t> pw, dw;
  if (!FilterShape(*pointwise, 1, &pw)) return false;
  Node* depthwise = remapper::SoleConsumerOfType(*pointwise, "_FusedDepthwiseConv2dNative");
  if (depthwise == nullptr || remapper::SoleConsumer(*pointwise)->dst_input != 0) return false;
  if (!PlainConvolution(*depthwise)) return false;
  if (!FilterShape(*depthwise, 1, &dw) || dw[2] != pw[3] || dw[3] != 1) return false;
  // The projection back, where the depthwise output goes to one alone (MobileNetV2's; not
  // EfficientNet's, whose squeeze-and-excitation reads all of it first).
  Node* project = remapper::SoleConsumerOfType(*depthwise, "_FusedConv2D");
  if (project != nullptr && (remapper::SoleConsumer(*depthwise)->dst_input != 0 ||
                             !PlainConvolution(*project, /*add_allowed=*/true) || !Pointwise(*project, dw[2]))) {
    project = nullptr;
  }

  NodeDef def;
  def.set_op("_FusedConv2DWithDepthwise");
  (*def.mutable_attr())["T"].set_type(tensorflow::DT_FLOAT);
  const int64_t pw_args = NumArgs(*pointwise), dw_args = NumArgs(*depthwise);
  (*def.mutable_attr())["num_pointwise_args"].set_i(pw_args);
  (*def.mutable_attr())["num_depthwise_args"].set_i(dw_args);
  (*def.mutable_attr())["num_project_inputs"].set_i(project == nullptr ? 0 : 1 + NumArgs(*project));
  CopyPrefixed(*pointwise, kPointwiseAttrPrefix, &def);
  CopyPrefixed(*depthwise, kDepthwiseAttrPrefix, &def);
  std::vector<Source> data = {DataInput(*pointwise, 0), DataInput(*pointwise, 1)};
  for (int i = 0; i < pw_args; ++i) data.push_back(DataInput(*pointwise, 2 + i));
  data.push_back(DataInput(*depthwise, 1));
  for (int i = 0; i < dw_args; ++i) data.push_back(DataInput(*depthwise, 2 + i));
  std::vector<Node*> chain = {pointwise, depthwise};
  if (project != nullptr) {
    CopyPrefixed(*project, kProjectAttrPrefix, &def);
    for (int i = 0; i < 1 + NumArgs(*project); ++i) data.push_back(DataInput(*project, 1 + i));
    chain.push_back(project);
  }
  for (const Source& s : data) {
    if (s.node == nullptr) return false;
  }
  return remapper::ReplaceChain(graph, chain, data, std::move(def));
}

}  // namespace tensoract
