// Builder functions for the checkpoint ops (graph/ops/io_ops.cc): SaveV2, RestoreV2 and
// MergeV2Checkpoints; the readers (graph/ops/reader_ops.cc) and DecodeRaw. Conventions as
// in graph/builder/ops.h. client/saver.h builds whole save/restore subgraphs from these;
// graph/training/input.h the queues readers take their files from.
#ifndef TENSORACT_GRAPH_BUILDER_IO_OPS_H_
#define TENSORACT_GRAPH_BUILDER_IO_OPS_H_

#include <optional>
#include <string>
#include <vector>

#include "graph/builder/scope.h"

namespace tensoract {
namespace ops {

// A 1-D string constant written inline (tensor_names, shape_and_slices, prefixes).
Input StringVector(const std::vector<std::string>& values);

// Writes `tensors` as `tensor_names` to the checkpoint `prefix` (a scalar string);
// shape_and_slices holds one "" per tensor (slices are not supported). dtypes are taken
// from the tensors (a reference variable saves its value).
Node* SaveV2(const Scope& scope, const Input& prefix, const Input& tensor_names, const Input& shape_and_slices,
             const InputList& tensors);

// Reads `tensor_names` from the checkpoint `prefix`, one output per name, of `dtypes`.
OutputList RestoreV2(const Scope& scope, const Input& prefix, const Input& tensor_names,
                     const Input& shape_and_slices, const DataTypeVector& dtypes);

struct MergeV2CheckpointsAttrs {
  bool delete_old_dirs = true;
  bool allow_missing_files = false;
};
Node* MergeV2Checkpoints(const Scope& scope, const Input& checkpoint_prefixes, const Input& destination_prefix,
                         MergeV2CheckpointsAttrs attrs = {});

struct FixedLengthRecordReaderAttrs {
  int64_t header_bytes = 0;
  int64_t record_bytes = 0;
  int64_t footer_bytes = 0;
  int64_t hop_bytes = 0;
  std::string encoding;  // "", "ZLIB", "GZIP"
  std::string container, shared_name;
};
Output FixedLengthRecordReader(const Scope& scope, const FixedLengthRecordReaderAttrs& attrs);
Output TFRecordReader(const Scope& scope, const std::string& compression_type = "");
Output WholeFileReader(const Scope& scope);
Output TextLineReader(const Scope& scope, int64_t skip_header_lines = 0);

struct ReaderOutputs {
  Output key, value;
};
// The reader's next record, its file names dequeued from `queue` (a queue of strings).
ReaderOutputs ReaderRead(const Scope& scope, const Input& reader, const Input& queue);
// Up to `num_records` (int64) records as two vectors.
ReaderOutputs ReaderReadUpTo(const Scope& scope, const Input& reader, const Input& queue, const Input& num_records);

// Each string's bytes as a vector of `out_type` (one more dimension than `bytes`).
Output DecodeRaw(const Scope& scope, const Input& bytes, DataType out_type, bool little_endian = true);

// A fixed-shape feature of tf.Examples (tf.io.FixedLenFeature); an empty default makes
// it required.
struct DenseFeature {
  std::string key;
  DataType dtype;
  PartialTensorShape shape;
  std::optional<Input> default_value;  // none: required
};
// tf.io.parse_example (ParseExampleV2) of a vector of serialized tf.Examples: one output
// per feature, [batch] + its shape.
OutputList ParseExample(const Scope& scope, const Input& serialized, const std::vector<DenseFeature>& features);

}  // namespace ops
}  // namespace tensoract

#endif  // TENSORACT_GRAPH_BUILDER_IO_OPS_H_
