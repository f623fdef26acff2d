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
  const int64_t step_args = NumArgs(*steps), conv_args = NumArgs(*conv);
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

}  // namespace tensoract
