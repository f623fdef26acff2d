#include "graph/optimizer/filter_scale_folding.h"

#include <string>
#include <vector>

#include "graph/optimizer/remapper_util.h"

namespace tensoract {
namespace {

using remapper::DataInput;
using remapper::Source;

tensorflow::DataType AttrType(const Node& n, const std::string& name) {
  auto it = n.def().attr().find(name);
  return it == n.def().attr().end() ? tensorflow::DT_INVALID : it->second.type();
}

// The Const's dtype and (where asked) element count; false for anything else or a shape not
// known whole.
bool ConstOf(const Source& s, tensorflow::DataType* dtype, int64_t* elements = nullptr) {
  if (s.node == nullptr || s.node->type_string() != "Const" || s.port != 0) return false;
  auto value = s.node->def().attr().find("value");
  if (value == s.node->def().attr().end()) return false;
  *dtype = value->second.tensor().dtype();
  int64_t count = 1;
  for (const auto& dim : value->second.tensor().tensor_shape().dim()) {
    if (dim.size() < 0) return false;
    count *= dim.size();
  }
  if (elements != nullptr) *elements = count;
  return true;
}

// A node of `op` on `device` named `name`, reading `inputs`, or nullptr where the graph refused it.
Node* Add(Graph* graph, const std::string& name, const std::string& op, const std::string& device,
          const std::vector<Source>& inputs, const std::vector<std::pair<std::string, tensorflow::DataType>>& types) {
  NodeDef def;
  def.set_name(name);
  def.set_op(op);
  def.set_device(device);
  for (const Source& s : inputs) def.add_input(remapper::InputName(s));
  for (const auto& [attr, type] : types) (*def.mutable_attr())[attr].set_type(type);
  if (op == "Cast") (*def.mutable_attr())["Truncate"].set_b(false);
  auto made = graph->AddNode(std::move(def));
  if (!made.ok()) return nullptr;
  for (int i = 0; i < static_cast<int>(inputs.size()); ++i) graph->AddEdge(inputs[i].node, inputs[i].port, *made, i);
  return *made;
}

// `s` as float: itself, or a Cast of it.
Source AsFloat(Graph* graph, const Source& s, tensorflow::DataType type, const std::string& name,
               const std::string& device) {
  if (type == tensorflow::DT_FLOAT) return s;
  return {Add(graph, name, "Cast", device, {s}, {{"SrcT", type}, {"DstT", tensorflow::DT_FLOAT}}), 0};
}

bool TryFold(Graph* graph, Node* conv, int64_t max_float_filter_bytes) {
  if (remapper::AttrString(*conv, "data_format", "NHWC") != "NHWC" ||
      remapper::AttrString(*conv, "filter_format", "HWIO") != "HWIO") {
    return false;
  }
  auto fused = conv->def().attr().find("fused_ops");
  if (fused == conv->def().attr().end() || fused->second.list().s_size() < 2 ||
      fused->second.list().s(0) != "ChannelMul") {
    return false;
  }
  const Source filter = DataInput(*conv, 1), scale = DataInput(*conv, 2);
  tensorflow::DataType filter_type, scale_type;
  int64_t filter_elements;
  if (!ConstOf(filter, &filter_type, &filter_elements) || !ConstOf(scale, &scale_type)) return false;
  const tensorflow::DataType t = AttrType(*conv, "T");
  const bool narrow = t == tensorflow::DT_BFLOAT16 || t == tensorflow::DT_HALF;
  if (filter_type != t || (t != tensorflow::DT_FLOAT && !narrow) ||
      (scale_type != tensorflow::DT_FLOAT && scale_type != t) || filter_elements * 4 > max_float_filter_bytes) {
    return false;
  }
  std::vector<int64_t> dims;
  if (!remapper::KnownShape4(*conv, 1, &dims) || !remapper::IsChannelVector(scale, dims[3], 4)) {
    return false;
  }
  // filter' = Cast<T>(Cast<float>(filter) * Cast<float>(scale)); the scale broadcasts over
  // the last (output channel) dimension.
  const std::string base = conv->name() + "/folded_channel_mul";
  const std::string& device = conv->def().device();
  const Source wide = AsFloat(graph, filter, t, base + "/filter", device);
  const Source factor = AsFloat(graph, scale, scale_type, base + "/scale", device);
  if (wide.node == nullptr || factor.node == nullptr) return false;
  Source scaled = {Add(graph, base + "/mul", "Mul", device, {wide, factor}, {{"T", tensorflow::DT_FLOAT}}), 0};
  if (scaled.node != nullptr && narrow) {
    scaled = {Add(graph, base, "Cast", device, {scaled}, {{"SrcT", tensorflow::DT_FLOAT}, {"DstT", t}}), 0};
  }
  if (scaled.node == nullptr) return false;

  // The convolution without the step and its arg.
  NodeDef def = conv->def();
  def.clear_input();
  auto* ops = (*def.mutable_attr())["fused_ops"].mutable_list()->mutable_s();
  ops->erase(ops->begin());
  (*def.mutable_attr())["num_args"].set_i(def.attr().at("num_args").i() - 1);
  if (def.attr().count("TArgs") != 0) {
    auto* types = (*def.mutable_attr())["TArgs"].mutable_list()->mutable_type();
    if (!types->empty()) types->erase(types->begin());
  }
  std::vector<Source> data = {DataInput(*conv, 0), scaled};
  for (int i = 3; i < conv->num_inputs(); ++i) data.push_back(DataInput(*conv, i));
  return remapper::ReplaceNodes(graph, {conv}, {conv}, data, std::move(def)) != nullptr;
}

}  // namespace

int FoldChannelMulIntoFilters(Graph* graph, int64_t max_float_filter_bytes) {
  int folded = 0;
  std::vector<Node*> convs;
  for (Node* n : graph->op_nodes()) {
    if (n->type_string() == "_FusedConv2D" || n->type_string() == "_MklNativeFusedConv2D") convs.push_back(n);
  }
  for (Node* conv : convs) folded += TryFold(graph, conv, max_float_filter_bytes) ? 1 : 0;
  return folded;
}

}  // namespace tensoract
