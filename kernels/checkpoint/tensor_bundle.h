// Tensor bundles: TensorFlow's V2 checkpoint format, read and written.
//
// A bundle with prefix P is two kinds of file:
//   P.index                        a table (kernels/checkpoint/table_format.h): key "" holds
//                                  the BundleHeaderProto, each tensor's name its
//                                  BundleEntryProto (dtype, shape, shard, offset, size, the
//                                  masked CRC32C of its bytes)
//   P.data-00000-of-00001, ...     the tensors' bytes, back to back: fixed-size elements
//                                  raw and little-endian; strings as
//                                  [varint64 len]*n [masked crc32c of the lengths] [bytes]*n
//
// Files TensorFlow writes read here and the other way round (tests/compat/
// tf_checkpoint_compat.py). A tensor saved in slices (partitioned variables) is not
// supported: reading one is Unimplemented.
//
// Errors: a missing bundle is NotFound; bad, truncated or corrupt files are DataLoss; both
// name the file, and the tensor where one is involved. Nothing in a file can crash a reader.
//
// Thread-safety: a BundleWriter belongs to one thread. A BundleReader is immutable after
// Open; any number of threads may Lookup at once.
#ifndef TENSORACT_KERNELS_CHECKPOINT_TENSOR_BUNDLE_H_
#define TENSORACT_KERNELS_CHECKPOINT_TENSOR_BUNDLE_H_

#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "kernels/checkpoint/table_reader.h"
#include "kernels/tensor.h"
#include "messages/tensor_bundle.pb.h"

namespace tensoract {

std::string BundleIndexFilename(const std::string& prefix);
// "P.data-00003-of-00008".
std::string BundleDataFilename(const std::string& prefix, int shard, int num_shards);

// Writes one single-shard bundle. Nothing is visible under the prefix until Finish
// succeeds: the files are written under unique temporary names, flushed to the disk and
// renamed into place, data first, index last (base/durable_file.h), so a reader sees the old
// bundle or the whole new one, even after a crash of the process or the machine. A full
// disk is ResourceExhausted naming the file. The directory
// of the prefix is made if missing, as TensorFlow's SaveV2 does.
class BundleWriter {
 public:
  explicit BundleWriter(std::string prefix);
  ~BundleWriter();  // removes the temporary files of a bundle never finished

  // Appends `tensor`'s bytes; a key already added, or "", is InvalidArgument.
  Status Add(const std::string& key, const Tensor& tensor);
  Status Finish();
  // The first error of any call so far.
  const Status& status() const { return status_; }

 private:

  std::string prefix_;
  std::string tmp_data_;  // the data file under its temporary name until Finish
  std::ofstream data_;
  int64_t offset_ = 0;
  std::map<std::string, tensorflow::BundleEntryProto> entries_;  // in the table's key order
  Status status_;
  bool finished_ = false;
};

class BundleReader {
 public:
  // NotFound when P.index does not exist; DataLoss when it is not a bundle's index.
  static StatusOr<std::unique_ptr<BundleReader>> Open(const std::string& prefix);

  const tensorflow::BundleHeaderProto& header() const { return header_; }
  // The tensors' names, sorted.
  const std::vector<std::string>& keys() const { return keys_; }
  bool Contains(const std::string& key) const { return entries_.count(key) != 0; }
  // NotFound naming the key and the checkpoint when it is absent.
  Status GetEntry(const std::string& key, tensorflow::BundleEntryProto* entry) const;
  // Reads and verifies the tensor (its CRC32C, its size against its dtype and shape).
  Status Lookup(const std::string& key, Tensor* value, Allocator* allocator = cpu_allocator()) const;

  const std::string& prefix() const { return prefix_; }

 private:
  explicit BundleReader(std::string prefix) : prefix_(std::move(prefix)) {}

  std::string prefix_;
  tensorflow::BundleHeaderProto header_;
  std::map<std::string, tensorflow::BundleEntryProto> entries_;
  std::vector<std::string> keys_;
};

// Merges the bundles at `prefixes` into one at `destination` (tensor names must not
// repeat across them), then deletes the sources' files. allow_missing_files: a prefix
// without an index is skipped (but not all of them). delete_old_dirs: also removes each
// source's directory once it is empty (TensorFlow's MergeV2Checkpoints).
Status MergeBundles(const std::vector<std::string>& prefixes, const std::string& destination,
                    bool allow_missing_files = false, bool delete_old_dirs = true);

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_CHECKPOINT_TENSOR_BUNDLE_H_
