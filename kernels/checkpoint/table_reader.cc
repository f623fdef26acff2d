#include "kernels/checkpoint/table_reader.h"

#include <algorithm>

#include "base/proto_io.h"
#include "kernels/checkpoint/crc32c.h"

namespace tensoract {
namespace table {

Status Table::Corrupt(const std::string& what) const {
  return errors::DataLoss("table ", filename_, " is corrupt: ", what);
}

StatusOr<std::unique_ptr<Table>> Table::OpenFile(const std::string& path) {
  std::string contents;
  TA_RETURN_IF_ERROR(ReadFileToString(path, &contents));
  return Open(std::move(contents), path);
}

StatusOr<std::unique_ptr<Table>> Table::Open(std::string contents, std::string filename) {
  std::unique_ptr<Table> t(new Table(std::move(contents), std::move(filename)));
  const std::string& bytes = t->contents_;
  if (bytes.size() < kFooterSize) {
    return t->Corrupt(StrCat("it has ", bytes.size(), " bytes, fewer than a table's ", kFooterSize, "-byte footer"));
  }
  const char* footer = bytes.data() + bytes.size() - kFooterSize;
  if (DecodeFixed64(footer + kFooterSize - 8) != kTableMagicNumber) {
    return t->Corrupt("the footer lacks the table magic number (not a table, or truncated)");
  }
  std::string_view handles(footer, kFooterSize - 8);
  BlockHandle meta_index, index;
  if (!meta_index.DecodeFrom(&handles) || !index.DecodeFrom(&handles)) {
    return t->Corrupt("the footer's block handles do not decode");
  }
  std::string_view index_block;
  TA_RETURN_IF_ERROR(t->ReadBlock(index, &index_block));
  std::vector<Entry> entries;
  TA_RETURN_IF_ERROR(t->ParseBlock(index_block, &entries));
  for (const Entry& e : entries) {
    IndexEntry ie;
    ie.last_key = e.key;
    std::string_view v = e.value;
    if (!ie.handle.DecodeFrom(&v)) return t->Corrupt("an index entry's block handle does not decode");
    if (!t->index_.empty() && ie.last_key < t->index_.back().last_key) {
      return t->Corrupt("the index keys are out of order");
    }
    t->index_.push_back(std::move(ie));
  }
  return t;
}

Status Table::ReadBlock(const BlockHandle& handle, std::string_view* block) const {
  const uint64_t file_size = contents_.size();
  if (handle.offset > file_size || handle.size > file_size - handle.offset ||
      kBlockTrailerSize > file_size - handle.offset - handle.size) {
    return Corrupt(StrCat("block at offset ", handle.offset, " of ", handle.size, " bytes runs past the end (",
                          file_size, " bytes)"));
  }
  const char* data = contents_.data() + handle.offset;
  const auto type = static_cast<unsigned char>(data[handle.size]);
  const uint32_t stored = crc32c::Unmask(DecodeFixed32(data + handle.size + 1));
  const uint32_t actual = crc32c::Value(data, handle.size + 1);  // the block and its type byte
  if (stored != actual) {
    return Corrupt(StrCat("checksum mismatch in the block at offset ", handle.offset));
  }
  if (type == kSnappyCompression) {
    return errors::Unimplemented("table ", filename_, ": the block at offset ", handle.offset,
                                 " is Snappy-compressed, which this reader does not support");
  }
  if (type != kNoCompression) {
    return errors::Unimplemented("table ", filename_, ": the block at offset ", handle.offset,
                                 " uses unknown compression type ", static_cast<int>(type));
  }
  *block = std::string_view(data, handle.size);
  return Status::OK();
}

Status Table::ParseBlock(std::string_view block, std::vector<Entry>* entries) const {
  if (block.size() < 4) return Corrupt("a block is too short for its restart count");
  const uint32_t num_restarts = DecodeFixed32(block.data() + block.size() - 4);
  if (num_restarts > (block.size() - 4) / 4) return Corrupt("a block's restart count exceeds its size");
  const size_t entries_end = block.size() - 4 - 4 * size_t{num_restarts};
  std::string_view in = block.substr(0, entries_end);
  std::string key;
  while (!in.empty()) {
    uint32_t shared, unshared, value_size;
    if (!GetVarint32(&in, &shared) || !GetVarint32(&in, &unshared) || !GetVarint32(&in, &value_size)) {
      return Corrupt("an entry's header does not decode");
    }
    if (shared > key.size() || in.size() < uint64_t{unshared} + value_size) {
      return Corrupt("an entry's key or value runs past its block");
    }
    key.resize(shared);
    key.append(in.data(), unshared);
    in.remove_prefix(unshared);
    if (!entries->empty() && key <= entries->back().key) return Corrupt("keys in a block are out of order");
    entries->push_back({key, in.substr(0, value_size)});
    in.remove_prefix(value_size);
  }
  return Status::OK();
}

Status Table::Get(std::string_view key, std::string* value) const {
  // The first block whose last key is >= key is the only one that can hold it.
  auto it = std::lower_bound(index_.begin(), index_.end(), key,
                             [](const IndexEntry& e, std::string_view k) { return e.last_key < k; });
  if (it != index_.end()) {
    std::string_view block;
    TA_RETURN_IF_ERROR(ReadBlock(it->handle, &block));
    std::vector<Entry> entries;
    TA_RETURN_IF_ERROR(ParseBlock(block, &entries));
    auto e = std::lower_bound(entries.begin(), entries.end(), key,
                              [](const Entry& en, std::string_view k) { return en.key < k; });
    if (e != entries.end() && e->key == key) {
      value->assign(e->value.data(), e->value.size());
      return Status::OK();
    }
  }
  return errors::NotFound("key '", std::string(key), "' not found in table ", filename_);
}

Status Table::ForEach(const std::function<Status(std::string_view, std::string_view)>& fn) const {
  for (const IndexEntry& ie : index_) {
    std::string_view block;
    TA_RETURN_IF_ERROR(ReadBlock(ie.handle, &block));
    std::vector<Entry> entries;
    TA_RETURN_IF_ERROR(ParseBlock(block, &entries));
    for (const Entry& e : entries) TA_RETURN_IF_ERROR(fn(e.key, e.value));
  }
  return Status::OK();
}

}  // namespace table
}  // namespace tensoract
