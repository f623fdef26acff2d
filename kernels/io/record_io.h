// TensorFlow's record format (TFRecord files, and the event files TensorBoard reads): each
// record is
//   uint64 length | uint32 masked CRC-32C of those 8 bytes | data | uint32 masked CRC-32C of data
// little-endian (kernels/checkpoint/crc32c.h for the masking).
//
// RecordReader reads records from a stream in order; a record whose checksums disagree or
// that is cut short is DataLoss naming the file and the record's offset. RecordWriter
// appends records to a file, plain or GZIP-compressed.
// Thread-safety: none; one user at a time.
#ifndef TENSORACT_KERNELS_IO_RECORD_IO_H_
#define TENSORACT_KERNELS_IO_RECORD_IO_H_

#include <cstdint>
#include <cstdio>
#include <istream>
#include <string>

#include "base/status.h"

namespace tensoract {

// The bytes of one record, header and footer included.
std::string EncodeRecord(const std::string& data);

class RecordReader {
 public:
  // `name`: the file, for messages. `size`: the bytes the stream holds; a record that
  // claims more than what is left is DataLoss before anything is allocated for it (a
  // corrupt length must not make us allocate gigabytes).
  RecordReader(std::istream* in, std::string name, uint64_t size)
      : in_(in), name_(std::move(name)), size_(size) {}
  // The next record into *data; *at_end (and OK) at a clean end of the stream.
  Status Next(std::string* data, bool* at_end);
  // Where the record Next returns last starts.
  uint64_t record_offset() const { return record_offset_; }

 private:
  std::istream* in_;
  std::string name_;
  uint64_t size_;
  uint64_t offset_ = 0, record_offset_ = 0;
};

class RecordWriter {
 public:
  // compression: "" or "GZIP".
  static StatusOr<std::unique_ptr<RecordWriter>> Open(const std::string& path, const std::string& compression = "",
                                                      bool append = false);
  ~RecordWriter();
  Status Write(const std::string& data);
  // Hands what was written to the operating system (it survives the process being killed).
  Status Flush();
  Status Close();

 private:
  RecordWriter() = default;
  std::string path_;
  std::FILE* plain_ = nullptr;
  void* gz_ = nullptr;  // gzFile
};

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_IO_RECORD_IO_H_
