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

Output SummaryWriter(const Scope& scope, const std::string& shared_name) {
  Node* node = scope.AddOp("SummaryWriter", "SummaryWriter", {},
                           {{"shared_name", StringAttr(shared_name)}, {"container", StringAttr("")}});
  return node ? Output(node, 0) : Output();
}

Node* CreateSummaryFileWriter(const Scope& scope, const Input& writer, const Input& logdir, int32_t flush_millis,
                              const std::string& filename_suffix) {
  return scope.AddOp("CreateSummaryFileWriter", "CreateSummaryFileWriter",
                     {writer, logdir, Const(scope, int32_t{10}), Const(scope, flush_millis),
                      Const(scope, filename_suffix)},
                     {});
}

Node* WriteScalarSummary(const Scope& scope, const Input& writer, const Input& step, const Input& tag,
                         const Input& value) {
  return scope.AddOp("WriteScalarSummary", "WriteScalarSummary", {writer, step, tag, value},
                     {{"T", TypeAttr(TypeOf(value))}});
}

Node* WriteHistogramSummary(const Scope& scope, const Input& writer, const Input& step, const Input& tag,
                            const Input& values) {
  return scope.AddOp("WriteHistogramSummary", "WriteHistogramSummary", {writer, step, tag, values},
                     {{"T", TypeAttr(TypeOf(values))}});
}

Node* WriteImageSummary(const Scope& scope, const Input& writer, const Input& step, const Input& tag,
                        const Input& images, int64_t max_images) {
  tensorflow::TensorProto bad_color;
  bad_color.set_dtype(tensorflow::DT_UINT8);
  bad_color.mutable_tensor_shape()->add_dim()->set_size(4);
  for (int v : {255, 0, 0, 255}) bad_color.add_int_val(v);
  return scope.AddOp("WriteImageSummary", "WriteImageSummary", {writer, step, tag, images, Const(scope, bad_color)},
                     {{"T", TypeAttr(TypeOf(images))}, {"max_images", IntAttr(max_images)}});
}

Node* WriteSummary(const Scope& scope, const Input& writer, const Input& step, const Input& tensor, const Input& tag,
                   const tensorflow::SummaryMetadata& metadata) {
  return scope.AddOp("WriteSummary", "WriteSummary",
                     {writer, step, tensor, tag, Const(scope, metadata.SerializeAsString())},
                     {{"T", TypeAttr(TypeOf(tensor))}});
}

Node* FlushSummaryWriter(const Scope& scope, const Input& writer) {
  return scope.AddOp("FlushSummaryWriter", "FlushSummaryWriter", {writer}, {});
}

Node* CloseSummaryWriter(const Scope& scope, const Input& writer) {
  return scope.AddOp("CloseSummaryWriter", "CloseSummaryWriter", {writer}, {});
}

}  // namespace ops
}  // namespace tensoract
