#include "graph/optimizer/pad_folding.h"

#include <vector>

#include "graph/optimizer/remapper_util.h"
#include "graph/shape_inference.h"

namespace tensoract {

using remapper::DataInput;
using remapper::Source;

namespace {

// The 8 paddings of a Pad's constant `paddings` input ([4, 2], int32 or int64), when only
// rows and columns are padded, none negatively.
bool RowAndColumnPaddings(const Source& paddings, std::vector<int64_t>* values) {
  if (paddings.node == nullptr || paddings.node->type_string() != "Const") return false;
  auto attr = paddings.node->def().attr().find("value");
  if (attr == paddings.node->def().attr().end()) return false;
  const tensorflow::TensorProto& proto = attr->second.tensor();
  const auto& dims = proto.tensor_shape().dim();
  if (dims.size() != 2 || dims[0].size() != 4 || dims[1].size() != 2) return false;
  if (!shape_inference::TensorProtoToInt64s(proto, values).ok() || values->size() != 8) return false;
  const std::vector<int64_t>& p = *values;
  for (int64_t v : p) {
    if (v < 0) return false;
  }
  return p[0] == 0 && p[1] == 0 && p[6] == 0 && p[7] == 0;
}

}  // namespace

bool TryFoldPadIntoConvolution(Graph* graph, Node* convolution) {
  if (remapper::AttrString(*convolution, "padding", "") != "VALID" ||
      remapper::AttrString(*convolution, "data_format", "NHWC") != "NHWC") {
    return false;
  }
  const Source padded = DataInput(*convolution, 0);
  Node* pad = padded.node;
  if (pad == nullptr || (pad->type_string() != "Pad" && pad->type_string() != "PadV2")) return false;
  if (!remapper::OnCpu(*convolution) || !remapper::SameCpuFloat(*pad, *convolution)) return false;
  if (pad->type_string() == "PadV2" && !remapper::IsScalarConst(DataInput(*pad, 2), 0.f)) return false;
  const std::vector<const Edge*> consumers = remapper::ConsumersOfOutput0(*pad);
  if (consumers.size() != 1 || consumers[0]->dst != convolution) return false;
  std::vector<int64_t> paddings;
  if (!RowAndColumnPaddings(DataInput(*pad, 1), &paddings)) return false;

  NodeDef def = convolution->def();
  def.clear_input();
  (*def.mutable_attr())["padding"].set_s("EXPLICIT");
  auto* list = (*def.mutable_attr())["explicit_paddings"].mutable_list();
  list->clear_i();
  for (int64_t p : paddings) list->add_i(p);
  return remapper::ReplaceNodes(graph, {pad, convolution}, {convolution},
                                {DataInput(*pad, 0), DataInput(*convolution, 1)}, std::move(def)) != nullptr;
}

}  // namespace tensoract
