#include "graph/optimizer/steps_conv_fusion.h"

#include <string>
#include <vector>

#include "graph/optimizer/remapper_util.h"

namespace tensoract {

using remapper::DataInput;
using remapper::NumArgs;
using remapper::Source;

bool TryFuseStepsIntoConvolution(Graph* graph, Node* steps) {
  if (!remapper::OnCpu(*steps) || remapper::FusesAdd(*steps)) return false;
  const Edge* out = remapper::SoleConsumer(*steps);
  if (out == nullptr || out->dst_input != 0) return false;
  Node* conv = out->dst;
  if ((conv->type_string() != "Conv2D" && conv->type_string() != "_FusedConv2D") ||
      !remapper::SameCpuFloat(*steps, *conv) || !remapper::PlainConvolution(*conv) ||
      !remapper::PointwiseConvolution(*conv, -1)) {
    return false;
  }
  std::vector<int64_t> filter;
  if (!remapper::KnownShape4(*conv, 1, &filter) || filter[3] < 16) return false;

  NodeDef def;
  def.set_op("_FusedChannelStepsConv2D");
  (*def.mutable_attr())["T"].set_type(tensorflow::DT_FLOAT);
  (*def.mutable_attr())["Targs"].set_type(tensorflow::DT_FLOAT);
  const int64_t step_args = NumArgs(*steps), conv_args = NumArgs(*conv);
  (*def.mutable_attr())["num_pieces"].set_i(1);
  (*def.mutable_attr())["num_step_args"].set_i(step_args);
  (*def.mutable_attr())["num_args"].set_i(conv_args);
  (*def.mutable_attr())["convolution"].set_s(conv->type_string());
  remapper::CopyAttrsPrefixed(*steps, kStepsAttrPrefix, &def);
  remapper::CopyAttrsPrefixed(*conv, kConvAttrPrefix, &def);
  std::vector<Source> data = {DataInput(*steps, 0)};
  for (int i = 0; i < step_args; ++i) data.push_back(DataInput(*steps, 1 + i));
  for (int i = 0; i < 1 + conv_args; ++i) data.push_back(DataInput(*conv, 1 + i));
  for (const Source& s : data) {
    if (s.node == nullptr) return false;
  }
  return remapper::ReplaceChain(graph, {steps, conv}, data, std::move(def));
}

bool TryFuseConcatIntoStepsConvolution(Graph* graph, Node* steps_conv) {
  auto pieces_attr = steps_conv->def().attr().find("num_pieces");
  if (pieces_attr != steps_conv->def().attr().end() && pieces_attr->second.i() != 1) return false;
  const Source x = DataInput(*steps_conv, 0);
  Node* concat = x.node;
  if (concat == nullptr || x.port != 0 || concat->type_string() != "ConcatV2" ||
      !remapper::SameCpuFloat(*concat, *steps_conv)) {
    return false;
  }
  const Edge* only = remapper::SoleConsumer(*concat);
  if (only == nullptr || only->dst != steps_conv) return false;
  int64_t axis = 0;
  if (!remapper::ConcatAxis(*concat, &axis) || (axis != 3 && axis != -1)) return false;
  const int n = static_cast<int>(concat->def().attr().at("N").i());
  NodeDef def = steps_conv->def();
  def.clear_input();
  (*def.mutable_attr())["num_pieces"].set_i(n);
  std::vector<Source> data;
  for (int i = 0; i < n; ++i) data.push_back(DataInput(*concat, i));
  for (int i = 1; i < steps_conv->num_inputs(); ++i) data.push_back(DataInput(*steps_conv, i));
  return remapper::ReplaceChain(graph, {concat, steps_conv}, data, std::move(def));
}

}  // namespace tensoract
