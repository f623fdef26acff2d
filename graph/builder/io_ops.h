/// @file
/// Builder functions for the checkpoint ops (graph/ops/io_ops.cc): SaveV2, RestoreV2 and
/// MergeV2Checkpoints; the readers (graph/ops/reader_ops.cc) and DecodeRaw. Conventions as
/// in graph/builder/ops.h. client/saver.h builds whole save/restore subgraphs from these;
/// graph/training/input.h the queues readers take their files from.
#ifndef TENSORACT_GRAPH_BUILDER_IO_OPS_H_
#define TENSORACT_GRAPH_BUILDER_IO_OPS_H_

#include <optional>
#include <string>
#include <vector>

#include "graph/builder/scope.h"

namespace tensoract {
namespace ops {

/// A 1-D string constant written inline (tensor_names, shape_and_slices, prefixes).
Input StringVector(const std::vector<std::string>& values);

/// Writes `tensors` as `tensor_names` to the checkpoint `prefix` (a scalar string);
/// shape_and_slices holds one "" per tensor (slices are not supported). dtypes are taken
/// from the tensors (a reference variable saves its value).
Node* SaveV2(const Scope& scope, const Input& prefix, const Input& tensor_names, const Input& shape_and_slices,
             const InputList& tensors);

/// Reads `tensor_names` from the checkpoint `prefix`, one output per name, of `dtypes`.
OutputList RestoreV2(const Scope& scope, const Input& prefix, const Input& tensor_names,
                     const Input& shape_and_slices, const DataTypeVector& dtypes);

/// Optional attributes of MergeV2Checkpoints().
struct MergeV2CheckpointsAttrs {
  /// Whether to remove each source checkpoint's directory once it is empty (default true);
  /// the source files themselves are always removed.
  bool delete_old_dirs = true;
  /// Whether a source checkpoint that does not exist is skipped rather than a NotFound error
  /// (default false); at least one must exist.
  bool allow_missing_files = false;
};
/// Merges the V2 checkpoints at `checkpoint_prefixes` (a string vector) into one at
/// `destination_prefix` (a scalar string), as sharded saving's last step does; a tensor name
/// present in two sources is an InvalidArgument.
Node* MergeV2Checkpoints(const Scope& scope, const Input& checkpoint_prefixes, const Input& destination_prefix,
                         MergeV2CheckpointsAttrs attrs = {});

/// Attributes of FixedLengthRecordReader().
struct FixedLengthRecordReaderAttrs {
  /// Bytes skipped at the start of each file (default 0).
  int64_t header_bytes = 0;
  /// The length of each record in bytes; must be set (> 0).
  int64_t record_bytes = 0;
  /// Bytes ignored at the end of each file (default 0).
  int64_t footer_bytes = 0;
  /// Bytes from one record's start to the next's (records may overlap); 0, the default, means
  /// record_bytes, records back to back.
  int64_t hop_bytes = 0;
  /// The files' compression: none, zlib or gzip.
  std::string encoding;  ///< "", "ZLIB", "GZIP"
  /// The reader's resource container ("" is the default) and shared name ("": the node's name).
  ///@{
  std::string container, shared_name;
  ///@}
};
/// A reader (FixedLengthRecordReaderV2) whose records are fixed-length byte strings after a
/// header, such as IDX files' images; each key is "file:record_number".
Output FixedLengthRecordReader(const Scope& scope, const FixedLengthRecordReaderAttrs& attrs);
/// A reader (TFRecordReaderV2) of the records of TFRecord files; `compression_type` is "",
/// "ZLIB" or "GZIP".
Output TFRecordReader(const Scope& scope, const std::string& compression_type = "");
/// A reader (WholeFileReaderV2) whose one record per file is the file's whole contents, keyed by
/// the file name.
Output WholeFileReader(const Scope& scope);
/// A reader (TextLineReaderV2) whose records are the lines of text files, without their line
/// endings, after the first `skip_header_lines` lines of each file.
Output TextLineReader(const Scope& scope, int64_t skip_header_lines = 0);

/// The two outputs of ReaderRead() and ReaderReadUpTo().
struct ReaderOutputs {
  /// A record's key (a string naming its file and place) and its value (the record's bytes);
  /// scalars from ReaderRead(), vectors from ReaderReadUpTo().
  ///@{
  Output key, value;
  ///@}
};
/// The reader's next record, its file names dequeued from `queue` (a queue of strings).
ReaderOutputs ReaderRead(const Scope& scope, const Input& reader, const Input& queue);
/// Up to `num_records` (int64) records as two vectors.
ReaderOutputs ReaderReadUpTo(const Scope& scope, const Input& reader, const Input& queue, const Input& num_records);

/// Each string's bytes as a vector of `out_type` (one more dimension than `bytes`).
Output DecodeRaw(const Scope& scope, const Input& bytes, DataType out_type, bool little_endian = true);

/// A fixed-shape feature of tf.Examples (tf.io.FixedLenFeature); an empty default makes
/// it required.
struct DenseFeature {
  /// The feature's name in the tf.Example's features map.
  std::string key;
  /// DT_FLOAT, DT_INT64 or DT_STRING, the feature list's kind.
  DataType dtype;
  /// The shape of one example's value; each example must hold that many values.
  PartialTensorShape shape;
  /// The value for an example without the feature: a tensor of `shape`, or one element repeated over it.
  std::optional<Input> default_value;  ///< none (std::nullopt): the feature is required
};
/// tf.io.parse_example (ParseExampleV2) of a vector of serialized tf.Examples: one output
/// per feature, [batch] + its shape.
OutputList ParseExample(const Scope& scope, const Input& serialized, const std::vector<DenseFeature>& features);

}  // namespace ops
}  // namespace tensoract

#endif  // TENSORACT_GRAPH_BUILDER_IO_OPS_H_
