#include "kernels/checkpoint/tensor_bundle.h"

#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <cerrno>

#include "base/durable_file.h"
#include "base/proto_io.h"
#include "kernels/checkpoint/crc32c.h"
#include "kernels/checkpoint/table_builder.h"
#include "kernels/checkpoint/table_format.h"

namespace tensoract {
namespace {

namespace fs = std::filesystem;
using tensorflow::BundleEntryProto;
using tensorflow::BundleHeaderProto;

// TensorFlow's bundle format version (tensor_bundle.h's kTensorBundleVersion and
// kTensorBundleMinConsumer).
constexpr int kBundleVersion = 1;
constexpr int kBundleMinConsumer = 0;

bool IsSupportedType(DataType dt) { return dt == tensorflow::DT_STRING || DataTypeIsFixedSize(dt); }

// The wire bytes of a tensor and the CRC32C a BundleEntryProto records for them (masked).
// Strings follow TensorFlow: the CRC covers each length as a uint32 (a uint64 when it does
// not fit), the masked length checksum, then the string bytes; not the varints themselves.
Status EncodeTensor(const std::string& key, const Tensor& t, std::string* bytes, uint32_t* masked_crc) {
  if (t.dtype() == tensorflow::DT_STRING) {
    const std::string* s = t.base<std::string>();
    const int64_t n = t.NumElements();
    uint32_t crc = 0;
    for (int64_t i = 0; i < n; ++i) {
      const uint64_t len = s[i].size();
      table::PutVarint64(bytes, len);
      if (len <= 0xffffffffull) {
        const uint32_t len32 = static_cast<uint32_t>(len);
        crc = crc32c::Extend(crc, reinterpret_cast<const char*>(&len32), sizeof(len32));
      } else {
        crc = crc32c::Extend(crc, reinterpret_cast<const char*>(&len), sizeof(len));
      }
    }
    const size_t checksum_at = bytes->size();
    table::PutFixed32(bytes, crc32c::Mask(crc));
    crc = crc32c::Extend(crc, bytes->data() + checksum_at, 4);
    for (int64_t i = 0; i < n; ++i) {
      bytes->append(s[i]);
      crc = crc32c::Extend(crc, s[i].data(), s[i].size());
    }
    *masked_crc = crc32c::Mask(crc);
    return Status::OK();
  }
  if (!DataTypeIsFixedSize(t.dtype())) {
    return errors::Unimplemented("cannot save tensor '", key, "': checkpoints hold no ", DataTypeString(t.dtype()),
                                 " tensors");
  }
  const size_t size = static_cast<size_t>(t.NumElements()) * DataTypeSize(t.dtype());
  if (size > 0) bytes->assign(static_cast<const char*>(t.data()), size);
  *masked_crc = crc32c::Mask(crc32c::Value(bytes->data(), bytes->size()));
  return Status::OK();
}

// The inverse of EncodeTensor's string layout, checking both checksums.
Status DecodeStrings(const std::string& where, const std::string& bytes, uint32_t expected_masked_crc, Tensor* out) {
  const int64_t n = out->NumElements();
  std::string* s = out->base<std::string>();
  std::string_view in(bytes);
  std::vector<uint64_t> lengths(static_cast<size_t>(n));
  uint32_t crc = 0;
  uint64_t total = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (!table::GetVarint64(&in, &lengths[i])) return errors::DataLoss(where, ": its string lengths are truncated");
    const uint64_t len = lengths[i];
    if (len <= 0xffffffffull) {
      const uint32_t len32 = static_cast<uint32_t>(len);
      crc = crc32c::Extend(crc, reinterpret_cast<const char*>(&len32), sizeof(len32));
    } else {
      crc = crc32c::Extend(crc, reinterpret_cast<const char*>(&len), sizeof(len));
    }
    total += len;
    if (total > bytes.size()) return errors::DataLoss(where, ": its string lengths exceed its ", bytes.size(), " bytes");
  }
  if (in.size() < 4) return errors::DataLoss(where, ": the checksum of its string lengths is missing");
  if (crc32c::Unmask(table::DecodeFixed32(in.data())) != crc) {
    return errors::DataLoss(where, ": the checksum of its string lengths does not match (corrupt data)");
  }
  crc = crc32c::Extend(crc, in.data(), 4);
  in.remove_prefix(4);
  if (in.size() != total) {
    return errors::DataLoss(where, ": ", in.size(), " bytes of strings where the lengths say ", total);
  }
  for (int64_t i = 0; i < n; ++i) {
    s[i].assign(in.data(), lengths[i]);
    in.remove_prefix(lengths[i]);
  }
  crc = crc32c::Extend(crc, bytes.data() + (bytes.size() - total), total);
  if (crc32c::Mask(crc) != expected_masked_crc) {
    return errors::DataLoss(where, ": checksum mismatch (corrupt data)");
  }
  return Status::OK();
}

// Reads `size` bytes at `offset` of `path`; DataLoss when the file is shorter.
Status ReadFileRange(const std::string& path, const std::string& where, int64_t offset, int64_t size, char* dst) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return errors::NotFound(where, ": cannot open data file ", path);
  in.seekg(0, std::ios::end);
  const int64_t file_size = static_cast<int64_t>(in.tellg());
  if (offset < 0 || size < 0 || offset > file_size || size > file_size - offset) {
    return errors::DataLoss(where, ": bytes [", offset, ", ", offset + size, ") lie past the end of ", path, " (",
                            file_size, " bytes; truncated?)");
  }
  in.seekg(offset);
  if (size > 0 && !in.read(dst, size)) return errors::DataLoss(where, ": error reading ", path);
  return Status::OK();
}

}  // namespace

std::string BundleIndexFilename(const std::string& prefix) { return prefix + ".index"; }

std::string BundleDataFilename(const std::string& prefix, int shard, int num_shards) {
  char buf[40];
  std::snprintf(buf, sizeof(buf), ".data-%05d-of-%05d", shard, num_shards);
  return prefix + buf;
}

// ---- BundleWriter ----------------------------------------------------------------------

BundleWriter::BundleWriter(std::string prefix) : prefix_(std::move(prefix)) {
  const fs::path dir = fs::path(prefix_).parent_path();
  std::error_code ec;
  if (!dir.empty()) fs::create_directories(dir, ec);
  if (ec) {
    status_ = errors::PermissionDenied("cannot make directory ", dir.string(), " for checkpoint ", prefix_, ": ",
                                       ec.message());
    return;
  }
  tmp_data_ = BundleDataFilename(prefix_, 0, 1) + UniqueTempSuffix();
  data_.open(tmp_data_, std::ios::binary | std::ios::trunc);
  if (!data_) status_ = errors::PermissionDenied("cannot write checkpoint data file ", tmp_data_);
}

BundleWriter::~BundleWriter() {
  if (finished_) return;
  data_.close();
  std::error_code ec;
  if (!tmp_data_.empty()) fs::remove(tmp_data_, ec);
}

Status BundleWriter::Add(const std::string& key, const Tensor& tensor) {
  if (!status_.ok()) return status_;
  if (finished_) return errors::FailedPrecondition("checkpoint ", prefix_, ": Add after Finish");
  if (key.empty()) return status_ = errors::InvalidArgument("checkpoint ", prefix_, ": a tensor name may not be empty");
  if (entries_.count(key)) {
    return status_ = errors::InvalidArgument("checkpoint ", prefix_, ": tensor '", key, "' is added twice");
  }
  std::string bytes;
  uint32_t masked_crc = 0;
  TA_RETURN_IF_ERROR(status_ = EncodeTensor(key, tensor, &bytes, &masked_crc));
  BundleEntryProto& entry = entries_[key];
  entry.set_dtype(tensor.dtype());
  tensor.shape().AsProto(entry.mutable_shape());
  entry.set_shard_id(0);
  entry.set_offset(offset_);
  entry.set_size(static_cast<int64_t>(bytes.size()));
  entry.set_crc32c(masked_crc);
  data_.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!data_) return status_ = WriteError(tmp_data_, errno);
  offset_ += static_cast<int64_t>(bytes.size());
  return Status::OK();
}

Status BundleWriter::Finish() {
  if (!status_.ok()) return status_;
  if (finished_) return errors::FailedPrecondition("checkpoint ", prefix_, ": Finish called twice");
  data_.close();
  if (!data_) return status_ = WriteError(tmp_data_, errno);

  table::TableBuilder builder;
  BundleHeaderProto header;
  header.set_num_shards(1);
  header.set_endianness(BundleHeaderProto::LITTLE);
  header.mutable_version()->set_producer(kBundleVersion);
  TA_RETURN_IF_ERROR(status_ = builder.Add("", header.SerializeAsString()));
  for (const auto& [key, entry] : entries_) TA_RETURN_IF_ERROR(status_ = builder.Add(key, entry.SerializeAsString()));
  TA_RETURN_IF_ERROR(status_ = builder.Finish());

  // Crash-safe order: the data on the disk before its name, the index (which makes the
  // checkpoint exist for readers) only after the data it points into, each flushed. A crash
  // anywhere leaves the previous checkpoint of this prefix or the new one, and at worst a
  // temporary or an unindexed data file that no state file names.
  TA_RETURN_IF_ERROR(status_ = SyncFile(tmp_data_));
  CrashPoint("checkpoint_data_written");
  std::error_code ec;
  fs::rename(tmp_data_, BundleDataFilename(prefix_, 0, 1), ec);
  if (ec) return status_ = errors::PermissionDenied("cannot rename checkpoint files into ", prefix_, ": ", ec.message());
  CrashPoint("checkpoint_data_renamed");
  TA_RETURN_IF_ERROR(status_ = WriteFileDurably(BundleIndexFilename(prefix_), builder.contents()));
  CrashPoint("checkpoint_index_written");
  finished_ = true;
  return Status::OK();
}

// ---- BundleReader ----------------------------------------------------------------------

StatusOr<std::unique_ptr<BundleReader>> BundleReader::Open(const std::string& prefix) {
  const std::string index_path = BundleIndexFilename(prefix);
  std::error_code ec;
  if (!fs::exists(index_path, ec)) {
    return errors::NotFound("checkpoint ", prefix, " not found: no file ", index_path);
  }
  TA_ASSIGN_OR_RETURN(std::unique_ptr<table::Table> index, table::Table::OpenFile(index_path));
  std::unique_ptr<BundleReader> r(new BundleReader(prefix));
  bool have_header = false;
  TA_RETURN_IF_ERROR(index->ForEach([&](std::string_view key, std::string_view value) -> Status {
    if (key.empty()) {
      if (!r->header_.ParseFromArray(value.data(), static_cast<int>(value.size()))) {
        return errors::DataLoss("checkpoint index ", index_path, ": its header does not parse");
      }
      have_header = true;
      return Status::OK();
    }
    BundleEntryProto entry;
    const std::string name(key);
    if (!entry.ParseFromArray(value.data(), static_cast<int>(value.size()))) {
      return errors::DataLoss("checkpoint index ", index_path, ": the entry of tensor '", name, "' does not parse");
    }
    r->keys_.push_back(name);
    r->entries_.emplace(name, std::move(entry));
    return Status::OK();
  }));
  if (!have_header) return errors::DataLoss("checkpoint index ", index_path, " has no bundle header");
  const BundleHeaderProto& h = r->header_;
  if (h.endianness() != BundleHeaderProto::LITTLE) {
    return errors::Unimplemented("checkpoint ", prefix, " was written big-endian, which is not supported");
  }
  if (h.num_shards() < 1) return errors::DataLoss("checkpoint index ", index_path, " says it has ", h.num_shards(), " shards");
  if (h.version().min_consumer() > kBundleVersion) {
    return errors::FailedPrecondition("checkpoint ", prefix, " needs a reader of version ", h.version().min_consumer(),
                                      " or newer; this one is ", kBundleVersion);
  }
  for (int bad : h.version().bad_consumers()) {
    if (bad == kBundleVersion) {
      return errors::FailedPrecondition("checkpoint ", prefix, " disallows reader version ", kBundleVersion);
    }
  }
  (void)kBundleMinConsumer;
  return r;
}

Status BundleReader::GetEntry(const std::string& key, BundleEntryProto* entry) const {
  auto it = entries_.find(key);
  if (it == entries_.end()) return errors::NotFound("Key ", key, " not found in checkpoint ", prefix_);
  *entry = it->second;
  return Status::OK();
}

Status BundleReader::Lookup(const std::string& key, Tensor* value, Allocator* allocator) const {
  BundleEntryProto entry;
  TA_RETURN_IF_ERROR(GetEntry(key, &entry));
  const std::string where = StrCat("tensor '", key, "' of checkpoint ", prefix_);
  if (entry.slices_size() > 0) {
    return errors::Unimplemented(where, " is saved in slices (a partitioned variable), which is not supported");
  }
  if (!IsSupportedType(entry.dtype())) {
    return errors::Unimplemented(where, " has dtype ", DataTypeString(entry.dtype()), ", which cannot be read");
  }
  auto shape = TensorShape::FromProto(entry.shape());
  if (!shape.ok()) return errors::DataLoss(where, ": bad shape: ", shape.status().message());
  if (entry.shard_id() < 0 || entry.shard_id() >= header_.num_shards()) {
    return errors::DataLoss(where, ": shard ", entry.shard_id(), " of ", header_.num_shards());
  }
  const std::string path = BundleDataFilename(prefix_, entry.shard_id(), header_.num_shards());
  const int64_t n = shape->num_elements();
  if (entry.dtype() != tensorflow::DT_STRING) {
    const int64_t elem = DataTypeSize(entry.dtype());
    const int64_t expected = n <= INT64_MAX / elem ? n * elem : -1;
    if (entry.size() != expected) {
      return errors::DataLoss(where, ": ", entry.size(), " bytes stored where ", shape->DebugString(), " ",
                              DataTypeString(entry.dtype()), " needs ", expected);
    }
  } else if (entry.size() < n || entry.size() < 0) {
    return errors::DataLoss(where, ": ", entry.size(), " bytes cannot hold ", n, " strings");
  }
  std::string bytes(static_cast<size_t>(std::max<int64_t>(entry.size(), 0)), '\0');
  TA_RETURN_IF_ERROR(ReadFileRange(path, where, entry.offset(), entry.size(), bytes.data()));
  TA_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(allocator, entry.dtype(), *shape));
  if (entry.dtype() == tensorflow::DT_STRING) {
    TA_RETURN_IF_ERROR(DecodeStrings(where, bytes, entry.crc32c(), &t));
  } else {
    if (crc32c::Mask(crc32c::Value(bytes.data(), bytes.size())) != entry.crc32c()) {
      return errors::DataLoss(where, ": checksum mismatch in ", path, " (corrupt data)");
    }
    if (entry.dtype() == tensorflow::DT_BOOL) {
      // Any byte but 0 or 1 is not a valid bool; read it as C++ would convert it.
      for (char& c : bytes) c = c != 0;
    }
    if (!bytes.empty()) std::memcpy(t.data(), bytes.data(), bytes.size());
  }
  *value = std::move(t);
  return Status::OK();
}

// ---- MergeBundles ----------------------------------------------------------------------

Status MergeBundles(const std::vector<std::string>& prefixes, const std::string& destination,
                    bool allow_missing_files, bool delete_old_dirs) {
  std::vector<std::unique_ptr<BundleReader>> readers;
  std::map<std::string, const BundleReader*> owner;
  for (const std::string& prefix : prefixes) {
    auto reader = BundleReader::Open(prefix);
    if (!reader.ok()) {
      if (allow_missing_files && reader.status().code() == error::NOT_FOUND) continue;
      return reader.status();
    }
    for (const std::string& key : (*reader)->keys()) {
      auto [it, inserted] = owner.emplace(key, reader->get());
      if (!inserted) {
        return errors::InvalidArgument("tensor '", key, "' is in both checkpoint ", it->second->prefix(), " and ",
                                       prefix, "; merged checkpoints must not share names");
      }
    }
    readers.push_back(std::move(reader).value());
  }
  if (readers.empty()) {
    return errors::NotFound("none of the ", prefixes.size(), " checkpoints to merge into ", destination, " exist");
  }
  BundleWriter writer(destination);
  for (const auto& [key, reader] : owner) {
    Tensor t;
    TA_RETURN_IF_ERROR(reader->Lookup(key, &t));
    TA_RETURN_IF_ERROR(writer.Add(key, t));
  }
  TA_RETURN_IF_ERROR(writer.Finish());

  const std::string dest_index = BundleIndexFilename(destination);
  const std::string dest_data = BundleDataFilename(destination, 0, 1);
  for (const auto& reader : readers) {
    std::error_code ec;
    std::vector<std::string> files{BundleIndexFilename(reader->prefix())};
    for (int s = 0; s < reader->header().num_shards(); ++s) {
      files.push_back(BundleDataFilename(reader->prefix(), s, reader->header().num_shards()));
    }
    for (const std::string& f : files) {
      if (f != dest_index && f != dest_data) fs::remove(f, ec);
    }
    if (delete_old_dirs) {
      // Only an empty directory goes; anything else left in it keeps it.
      const fs::path dir = fs::path(reader->prefix()).parent_path();
      if (!dir.empty() && fs::path(destination).parent_path() != dir) fs::remove(dir, ec);
    }
  }
  return Status::OK();
}

}  // namespace tensoract
