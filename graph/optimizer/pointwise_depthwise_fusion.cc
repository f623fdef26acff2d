#include "graph/optimizer/pointwise_depthwise_fusion.h"

#include <string>
#include <vector>

#include "graph/optimizer/remapper_util.h"

namespace tensoract {
using remapper::CopyAttrsPrefixed;
using remapper::DataInput;
using remapper::KnownShape4;
using remapper::NumArgs;
using remapper::PlainConvolution;
using remapper::PointwiseConvolution;
using remapper::Source;

bool TryFusePointwiseDepthwise(Graph* graph, Node* pointwise) {
  if (!remapper::OnCpu(*pointwise) || !PlainConvolution(*pointwise) || !PointwiseConvolution(*pointwise, -1)) {
    return false;
  }
  std::vector<int64_t> pw, dw;
  if (!KnownShape4(*pointwise, 1, &pw)) return false;
  Node* depthwise = remapper::SoleConsumerOfType(*pointwise, "_FusedDepthwiseConv2dNative");
  if (depthwise == nullptr || remapper::SoleConsumer(*pointwise)->dst_input != 0) return false;
  if (!PlainConvolution(*depthwise)) return false;
  if (!KnownShape4(*depthwise, 1, &dw) || dw[2] != pw[3] || dw[3] != 1) return false;
  // The projection back, where the depthwise output goes to one alone (MobileNetV2's; not
  // EfficientNet's, whose squeeze-and-excitation reads all of it first).
  Node* project = remapper::SoleConsumerOfType(*depthwise, "_FusedConv2D");
  if (project != nullptr &&
      (remapper::SoleConsumer(*depthwise)->dst_input != 0 || !PlainConvolution(*project, /*add_allowed=*/true) ||
       !PointwiseConvolution(*project, dw[2]))) {
    project = nullptr;
  }

  NodeDef def;
  def.set_op("_FusedConv2DWithDepthwise");
  (*def.mutable_attr())["T"].set_type(tensorflow::DT_FLOAT);
  const int64_t pw_args = NumArgs(*pointwise), dw_args = NumArgs(*depthwise);
  (*def.mutable_attr())["num_pointwise_args"].set_i(pw_args);
  (*def.mutable_attr())["num_depthwise_args"].set_i(dw_args);
  (*def.mutable_attr())["num_project_inputs"].set_i(project == nullptr ? 0 : 1 + NumArgs(*project));
  CopyAttrsPrefixed(*pointwise, kPointwiseAttrPrefix, &def);
  CopyAttrsPrefixed(*depthwise, kDepthwiseAttrPrefix, &def);
  std::vector<Source> data = {DataInput(*pointwise, 0), DataInput(*pointwise, 1)};
  for (int i = 0; i < pw_args; ++i) data.push_back(DataInput(*pointwise, 2 + i));
  data.push_back(DataInput(*depthwise, 1));
  for (int i = 0; i < dw_args; ++i) data.push_back(DataInput(*depthwise, 2 + i));
  std::vector<Node*> chain = {pointwise, depthwise};
  if (project != nullptr) {
    CopyAttrsPrefixed(*project, kProjectAttrPrefix, &def);
    for (int i = 0; i < 1 + NumArgs(*project); ++i) data.push_back(DataInput(*project, 1 + i));
    chain.push_back(project);
  }
  for (const Source& s : data) {
    if (s.node == nullptr) return false;
  }
  return remapper::ReplaceChain(graph, chain, data, std::move(def));
}

}  // namespace tensoract
