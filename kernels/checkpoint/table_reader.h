// Table: reads a LevelDB-format table (kernels/checkpoint/table_format.h), TensorFlow's
// checkpoint index among them, from bytes in memory.
//
// Open checks the footer; each block is checked (bounds, trailer CRC, entry encoding)
// when it is first read. Anything malformed is a DataLoss naming the file; a block
// compressed with a codec this reader lacks (Snappy) is Unimplemented, naming the codec.
// Nothing that is in the bytes can crash the reader.
//
// Thread-safety: a Table is immutable after Open; any number of threads may read it.
#ifndef TENSORACT_KERNELS_CHECKPOINT_TABLE_READER_H_
#define TENSORACT_KERNELS_CHECKPOINT_TABLE_READER_H_

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "kernels/checkpoint/table_format.h"

namespace tensoract {
namespace table {

class Table {
 public:
  // `filename` only names the table in errors.
  static StatusOr<std::unique_ptr<Table>> Open(std::string contents, std::string filename);
  // Reads the whole file first: NotFound when it does not exist.
  static StatusOr<std::unique_ptr<Table>> OpenFile(const std::string& path);

  // The value stored under `key`; NotFound when there is none.
  Status Get(std::string_view key, std::string* value) const;
  // Every entry in key order; stops at the first error `fn` (or a corrupt block) returns.
  Status ForEach(const std::function<Status(std::string_view key, std::string_view value)>& fn) const;

  const std::string& filename() const { return filename_; }

 private:
  struct IndexEntry {
    std::string last_key;  // >= every key of the block
    BlockHandle handle;
  };
  struct Entry {
    std::string key;
    std::string_view value;  // into contents_
  };

  Table(std::string contents, std::string filename) : contents_(std::move(contents)), filename_(std::move(filename)) {}
  Status Corrupt(const std::string& what) const;
  // The verified bytes of the block at `handle` (without trailer).
  Status ReadBlock(const BlockHandle& handle, std::string_view* block) const;
  // Every entry of a block, keys expanded, in order.
  Status ParseBlock(std::string_view block, std::vector<Entry>* entries) const;

  std::string contents_;
  std::string filename_;
  std::vector<IndexEntry> index_;
};

}  // namespace table
}  // namespace tensoract

#endif  // TENSORACT_KERNELS_CHECKPOINT_TABLE_READER_H_
