// Builder functions for the summary ops (graph/ops/summary_ops.cc): each outputs a
// serialized Summary for a FileWriter (client/file_writer.h) to write into an event file.
// Conventions as in graph/builder/ops.h.
//
//   Output loss_summary = ops::ScalarSummary(root, "loss", loss);
//   Output weights = ops::HistogramSummary(root, "dense/kernel", kernel);
//   Output merged = ops::MergeSummary(root, {loss_summary, weights});
#ifndef TENSORACT_GRAPH_BUILDER_SUMMARY_OPS_H_
#define TENSORACT_GRAPH_BUILDER_SUMMARY_OPS_H_

#include <string>
#include <vector>

#include "graph/builder/scope.h"
#include "messages/summary.pb.h"

namespace tensoract {
namespace ops {

// One simple_value per tag: `tags` and `values` of the same shape (a std::string tag and a
// scalar value for the usual case).
Output ScalarSummary(const Scope& scope, const Input& tags, const Input& values);
// The histogram of every element of `values` (real numbers; NaN or infinity fails the step).
Output HistogramSummary(const Scope& scope, const Input& tag, const Input& values);
// Up to max_images PNG images of [batch, height, width, channels] (1, 3 or 4) `images`:
// uint8 as they are, floating point scaled per image (tags "tag/image/N", or "tag/image"
// when max_images is 1).
Output ImageSummary(const Scope& scope, const Input& tag, const Input& images, int64_t max_images = 3);
// The tensor itself, with a plugin's metadata (TensorFlow 2's summaries).
Output TensorSummaryV2(const Scope& scope, const Input& tag, const Input& tensor,
                       const tensorflow::SummaryMetadata& metadata);
// The values of several summaries in one (a tag twice fails the step).
Output MergeSummary(const Scope& scope, const std::vector<Output>& summaries);

}  // namespace ops
}  // namespace tensoract

#endif  // TENSORACT_GRAPH_BUILDER_SUMMARY_OPS_H_
