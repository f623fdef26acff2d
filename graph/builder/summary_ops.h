/// @file
/// Builder functions for the summary ops (graph/ops/summary_ops.cc): each outputs a
/// serialized Summary for a FileWriter (client/file_writer.h) to write into an event file.
/// Conventions as in graph/builder/ops.h.
///
/// @code
///   Output loss_summary = ops::ScalarSummary(root, "loss", loss);
///   Output weights = ops::HistogramSummary(root, "dense/kernel", kernel);
///   Output merged = ops::MergeSummary(root, {loss_summary, weights});
/// @endcode
#ifndef TENSORACT_GRAPH_BUILDER_SUMMARY_OPS_H_
#define TENSORACT_GRAPH_BUILDER_SUMMARY_OPS_H_

#include <string>
#include <vector>

#include "graph/builder/scope.h"
#include "messages/summary.pb.h"

namespace tensoract {
namespace ops {

/// One simple_value per tag: `tags` and `values` of the same shape (a std::string tag and a
/// scalar value for the usual case).
Output ScalarSummary(const Scope& scope, const Input& tags, const Input& values);
/// The histogram of every element of `values` (real numbers; NaN or infinity fails the step).
Output HistogramSummary(const Scope& scope, const Input& tag, const Input& values);
/// Up to max_images PNG images of [batch, height, width, channels] (1, 3 or 4) `images`:
/// uint8 as they are, floating point scaled per image (tags "tag/image/N", or "tag/image"
/// when max_images is 1).
Output ImageSummary(const Scope& scope, const Input& tag, const Input& images, int64_t max_images = 3);
/// The tensor itself, with a plugin's metadata (TensorFlow 2's summaries).
Output TensorSummaryV2(const Scope& scope, const Input& tag, const Input& tensor,
                       const tensorflow::SummaryMetadata& metadata);
/// The values of several summaries in one (a tag twice fails the step).
Output MergeSummary(const Scope& scope, const std::vector<Output>& summaries);

/// A handle to TensorFlow 2's summary writer (tf.summary.create_file_writer and its write ops), in a
/// graph or, on an eager scope, op by op; the writer is named `shared_name` ("": the node's name)
/// and CreateSummaryFileWriter() opens it:
///
/// @code
///   Output writer = ops::SummaryWriter(scope);
///   ops::CreateSummaryFileWriter(scope, writer, "logs/run1");
///   ops::WriteScalarSummary(scope, writer, step, "loss", loss);
///   ops::CloseSummaryWriter(scope, writer);
/// @endcode
Output SummaryWriter(const Scope& scope, const std::string& shared_name = "");
/// Opens `writer` on a new event file in `logdir` (flushing every flush_millis, default
/// TensorFlow's 2 minutes); a writer already open stays as it is. `filename_suffix` is appended
/// to the event file's name.
Node* CreateSummaryFileWriter(const Scope& scope, const Input& writer, const Input& logdir,
                              int32_t flush_millis = 120000, const std::string& filename_suffix = "");
/// Writes the scalar `value` (a real number) under `tag` (a string scalar) at `step` (an int64
/// scalar), as a simple_value.
Node* WriteScalarSummary(const Scope& scope, const Input& writer, const Input& step, const Input& tag,
                         const Input& value);
/// Writes the histogram of every element of `values` under `tag` at `step` (an int64 scalar).
Node* WriteHistogramSummary(const Scope& scope, const Input& writer, const Input& step, const Input& tag,
                            const Input& values);
/// Writes up to `max_images` of [batch, height, width, channels] `images` as PNGs under `tag` at
/// `step`, as ImageSummary() encodes them; non-finite pixels are drawn red.
Node* WriteImageSummary(const Scope& scope, const Input& writer, const Input& step, const Input& tag,
                        const Input& images, int64_t max_images = 3);
/// A tensor with a plugin's metadata (what tf.summary.scalar writes in TensorFlow 2).
Node* WriteSummary(const Scope& scope, const Input& writer, const Input& step, const Input& tensor, const Input& tag,
                   const tensorflow::SummaryMetadata& metadata);
/// Hands what `writer` has written so far to the operating system.
Node* FlushSummaryWriter(const Scope& scope, const Input& writer);
/// Flushes, closes and deletes the writer.
Node* CloseSummaryWriter(const Scope& scope, const Input& writer);

}  // namespace ops
}  // namespace tensoract

#endif  // TENSORACT_GRAPH_BUILDER_SUMMARY_OPS_H_
