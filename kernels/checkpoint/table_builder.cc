#include "kernels/checkpoint/table_builder.h"

#include <algorithm>

#include "kernels/checkpoint/crc32c.h"
#include "kernels/checkpoint/table_format.h"

namespace tensoract {
namespace table {

void TableBuilder::BlockBuilder::Reset() {
  buf_.clear();
  restarts_.assign(1, 0);
  counter_ = 0;
  last_key_.clear();
}

void TableBuilder::BlockBuilder::Add(std::string_view key, std::string_view value) {
  size_t shared = 0;
  if (counter_ < restart_interval_) {
    const size_t limit = std::min(last_key_.size(), key.size());
    while (shared < limit && last_key_[shared] == key[shared]) ++shared;
  } else {
    restarts_.push_back(static_cast<uint32_t>(buf_.size()));
    counter_ = 0;
  }
  PutVarint32(&buf_, static_cast<uint32_t>(shared));
  PutVarint32(&buf_, static_cast<uint32_t>(key.size() - shared));
  PutVarint32(&buf_, static_cast<uint32_t>(value.size()));
  buf_.append(key.data() + shared, key.size() - shared);
  buf_.append(value.data(), value.size());
  last_key_.assign(key.data(), key.size());
  ++counter_;
}

std::string TableBuilder::BlockBuilder::Finish() {
  std::string block = std::move(buf_);
  for (uint32_t r : restarts_) PutFixed32(&block, r);
  PutFixed32(&block, static_cast<uint32_t>(restarts_.size()));
  Reset();
  return block;
}

// The index uses a restart point per entry, as LevelDB's does: each lookup is then a pure
// binary search.
TableBuilder::TableBuilder(TableOptions options)
    : options_(options), data_block_(options.restart_interval), index_block_(1) {}

Status TableBuilder::Add(std::string_view key, std::string_view value) {
  if (finished_) return errors::FailedPrecondition("table: Add after Finish");
  if (!status_.ok()) return status_;
  if (num_entries_ > 0 && key <= std::string_view(last_key_)) {
    status_ = errors::InvalidArgument("table: key '", std::string(key), "' added after '", last_key_,
                                      "'; keys must be strictly increasing");
    return status_;
  }
  data_block_.Add(key, value);
  last_key_.assign(key.data(), key.size());
  ++num_entries_;
  if (data_block_.SizeEstimate() >= options_.block_size) FlushDataBlock();
  return Status::OK();
}

void TableBuilder::WriteBlock(BlockBuilder* block, BlockHandle* handle) {
  const std::string contents = block->Finish();
  handle->offset = out_.size();
  handle->size = contents.size();
  out_ += contents;
  const char type = static_cast<char>(kNoCompression);
  out_.push_back(type);
  uint32_t crc = crc32c::Value(contents.data(), contents.size());
  crc = crc32c::Extend(crc, &type, 1);
  PutFixed32(&out_, crc32c::Mask(crc));
}

// The index key of a block is its last key: valid (>= every key in the block, < the next
// block's first) and simpler than LevelDB's shortest separator, at a few bytes' cost.
void TableBuilder::FlushDataBlock() {
  if (data_block_.empty()) return;
  BlockHandle handle;
  WriteBlock(&data_block_, &handle);
  std::string encoded;
  handle.EncodeTo(&encoded);
  index_block_.Add(last_key_, encoded);
}

Status TableBuilder::Finish() {
  if (finished_) return errors::FailedPrecondition("table: Finish called twice");
  if (!status_.ok()) return status_;
  finished_ = true;
  FlushDataBlock();
  BlockBuilder meta_index(options_.restart_interval);
  BlockHandle meta_index_handle, index_handle;
  WriteBlock(&meta_index, &meta_index_handle);
  WriteBlock(&index_block_, &index_handle);
  std::string footer;
  meta_index_handle.EncodeTo(&footer);
  index_handle.EncodeTo(&footer);
  footer.resize(2 * kMaxBlockHandleSize, '\0');
  PutFixed64(&footer, kTableMagicNumber);
  out_ += footer;
  return Status::OK();
}

}  // namespace table
}  // namespace tensoract
