#include "kernels/io/record_io.h"

#include <algorithm>
#include <cstring>
#include <memory>

#include <zlib.h>

#include "kernels/checkpoint/crc32c.h"

namespace tensoract {
namespace {

void PutFixed64(char* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<char>(v >> (8 * i));
}
void PutFixed32(char* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<char>(v >> (8 * i));
}
uint64_t GetFixed64(const char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}
uint32_t GetFixed32(const char* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}

}  // namespace

std::string EncodeRecord(const std::string& data) {
  std::string out(12 + data.size() + 4, '\0');
  PutFixed64(&out[0], data.size());
  PutFixed32(&out[8], crc32c::Mask(crc32c::Value(out.data(), 8)));
  std::memcpy(&out[12], data.data(), data.size());
  PutFixed32(&out[12 + data.size()], crc32c::Mask(crc32c::Value(data.data(), data.size())));
  return out;
}

Status RecordReader::Next(std::string* data, bool* at_end) {
  *at_end = false;
  record_offset_ = offset_;
  char header[12];
  in_->read(header, sizeof(header));
  const std::streamsize got = in_->gcount();
  if (got == 0) {
    *at_end = true;
    return Status::OK();
  }
  if (got != sizeof(header)) {
    return errors::DataLoss(name_, ": truncated record at offset ", record_offset_, " (", got,
                            " bytes of its 12-byte header)");
  }
  const uint64_t length = GetFixed64(header);
  if (crc32c::Unmask(GetFixed32(header + 8)) != crc32c::Value(header, 8)) {
    return errors::DataLoss(name_, ": corrupted record at offset ", record_offset_, " (its length's checksum is wrong)");
  }
  const uint64_t left = size_ - std::min(size_, record_offset_ + 12);
  if (length > left || left - length < 4) {
    return errors::DataLoss(name_, ": truncated record at offset ", record_offset_, " (", length,
                            " bytes of data announced, ", left, " bytes left in the file)");
  }
  data->resize(length);
  char footer[4];
  in_->read(data->data(), static_cast<std::streamsize>(length));
  const bool have_data = static_cast<uint64_t>(in_->gcount()) == length;
  if (have_data) in_->read(footer, sizeof(footer));
  if (!have_data || in_->gcount() != sizeof(footer)) {
    return errors::DataLoss(name_, ": truncated record at offset ", record_offset_, " (", length,
                            " bytes of data announced)");
  }
  if (crc32c::Unmask(GetFixed32(footer)) != crc32c::Value(data->data(), length)) {
    // TensorFlow's readers name where the failing checksummed block starts: here the data.
    return errors::DataLoss(name_, ": corrupted record at offset ", record_offset_ + 12,
                            " (its data's checksum is wrong; the record starts at ", record_offset_, ")");
  }
  offset_ += 12 + length + 4;
  return Status::OK();
}

StatusOr<std::unique_ptr<RecordWriter>> RecordWriter::Open(const std::string& path, const std::string& compression,
                                                           bool append) {
  std::unique_ptr<RecordWriter> w(new RecordWriter());
  w->path_ = path;
  if (compression == "GZIP") {
    w->gz_ = gzopen(path.c_str(), append ? "ab" : "wb");
    if (w->gz_ == nullptr) return errors::NotFound(path, ": cannot open for writing");
  } else if (compression.empty()) {
    w->plain_ = std::fopen(path.c_str(), append ? "ab" : "wb");
    if (w->plain_ == nullptr) return errors::NotFound(path, ": cannot open for writing: ", std::strerror(errno));
  } else {
    return errors::Unimplemented("writing records with compression '", compression, "' (only '' and 'GZIP')");
  }
  return w;
}

RecordWriter::~RecordWriter() { Close().IgnoreError(); }

Status RecordWriter::Write(const std::string& data) {
  const std::string record = EncodeRecord(data);
  bool ok = gz_ ? gzwrite(static_cast<gzFile>(gz_), record.data(), static_cast<unsigned>(record.size())) ==
                      static_cast<int>(record.size())
                : plain_ && std::fwrite(record.data(), 1, record.size(), plain_) == record.size();
  return ok ? Status::OK() : errors::DataLoss(path_, ": failed to write a record");
}

Status RecordWriter::Flush() {
  bool ok = gz_ ? gzflush(static_cast<gzFile>(gz_), Z_SYNC_FLUSH) == Z_OK : plain_ && std::fflush(plain_) == 0;
  return ok ? Status::OK() : errors::DataLoss(path_, ": failed to flush");
}

Status RecordWriter::Close() {
  bool ok = true;
  if (gz_) ok = gzclose(static_cast<gzFile>(gz_)) == Z_OK;
  if (plain_) ok = std::fclose(plain_) == 0;
  gz_ = nullptr;
  plain_ = nullptr;
  return ok ? Status::OK() : errors::DataLoss(path_, ": failed to close");
}

}  // namespace tensoract
