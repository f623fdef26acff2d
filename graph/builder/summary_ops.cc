#include "graph/builder/summary_ops.h"

#include "graph/builder/attr_util.h"
#include "graph/builder/ops.h"

namespace tensoract {
namespace ops {

Output ScalarSummary(const Scope& scope, const Input& tags, const Input& values) {
  Node* node = scope.AddOp("ScalarSummary", "ScalarSummary", {tags, values}, {{"T", TypeAttr(TypeOf(values))}});
  return node ? Output(node, 0) : Output();
}

Output HistogramSummary(const Scope& scope, const Input& tag, const Input& values) {
  Node* node =
      scope.AddOp("HistogramSummary", "HistogramSummary", {tag, values}, {{"T", TypeAttr(TypeOf(values))}});
  return node ? Output(node, 0) : Output();
}

Output ImageSummary(const Scope& scope, const Input& tag, const Input& images, int64_t max_images) {
  Node* node = scope.AddOp("ImageSummary", "ImageSummary", {tag, images},
                           {{"T", TypeAttr(TypeOf(images))}, {"max_images", IntAttr(max_images)}});
  return node ? Output(node, 0) : Output();
}

Output TensorSummaryV2(const Scope& scope, const Input& tag, const Input& tensor,
                       const tensorflow::SummaryMetadata& metadata) {
  Node* node = scope.AddOp("TensorSummaryV2", "TensorSummaryV2",
                           {tag, tensor, Const(scope.WithOpName("metadata"), metadata.SerializeAsString())},
                           {{"T", TypeAttr(TypeOf(tensor))}});
  return node ? Output(node, 0) : Output();
}

Output MergeSummary(const Scope& scope, const std::vector<Output>& summaries) {
  InputList inputs(summaries);
  Node* node = scope.AddOp("MergeSummary", "MergeSummary", inputs.inputs(),
                           {{"N", IntAttr(static_cast<int64_t>(summaries.size()))}});
  return node ? Output(node, 0) : Output();
}

}  // namespace ops
}  // namespace tensoract
