// TableBuilder: writes a LevelDB-format table (kernels/checkpoint/table_format.h) into a
// string, the way TensorFlow's checkpoint index is written: uncompressed blocks of about
// `block_size` bytes, keys prefix-compressed with a restart point every
// `restart_interval` entries, an empty meta-index block.
//
// Keys must be added in strictly increasing (bytewise) order; a key out of order is an
// InvalidArgument and the builder refuses further work. The caller writes the finished
// bytes to a file (the tables here are checkpoint indexes: small, written at once).
//
// Thread-safety: none; one writer.
#ifndef TENSORACT_KERNELS_CHECKPOINT_TABLE_BUILDER_H_
#define TENSORACT_KERNELS_CHECKPOINT_TABLE_BUILDER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "kernels/checkpoint/table_format.h"

namespace tensoract {
namespace table {

struct TableOptions {
  size_t block_size = 4096;  // a data block is closed once it reaches this many bytes
  int restart_interval = 16;
};

class TableBuilder {
 public:
  explicit TableBuilder(TableOptions options = {});

  Status Add(std::string_view key, std::string_view value);
  // Appends the remaining blocks and the footer; the table is then `contents()`.
  Status Finish();
  const std::string& contents() const { return out_; }
  int64_t num_entries() const { return num_entries_; }

 private:
  // Entries of the block being built, with restart points.
  class BlockBuilder {
   public:
    explicit BlockBuilder(int restart_interval) : restart_interval_(restart_interval) { Reset(); }
    void Reset();
    void Add(std::string_view key, std::string_view value);
    std::string Finish();  // the block's bytes, without a trailer
    size_t SizeEstimate() const { return buf_.size() + 4 * restarts_.size() + 4; }
    bool empty() const { return counter_ == 0 && buf_.empty(); }

   private:
    int restart_interval_;
    std::string buf_;
    std::vector<uint32_t> restarts_;
    int counter_ = 0;
    std::string last_key_;
  };

  // Appends `block` with its trailer; returns where it went.
  void WriteBlock(BlockBuilder* block, BlockHandle* handle);
  void FlushDataBlock();

  TableOptions options_;
  std::string out_;
  BlockBuilder data_block_;
  BlockBuilder index_block_;
  std::string last_key_;
  int64_t num_entries_ = 0;
  Status status_;
  bool finished_ = false;
};

}  // namespace table
}  // namespace tensoract

#endif  // TENSORACT_KERNELS_CHECKPOINT_TABLE_BUILDER_H_
