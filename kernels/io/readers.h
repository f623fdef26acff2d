// Readers (whitepaper 4.7; TensorFlow's ReaderBase): resources that turn work units
// (file names, dequeued from a queue by the ReaderRead kernels) into (key, value) records.
//
//   FixedLengthRecordReader  fixed-size records after header_bytes (Fashion-MNIST's IDX
//                            files: header 16, record 784), key "file:record_number"
//   TFRecordReader           TensorFlow's record files (kernels/io/record_io.h), key "file:offset"
//   WholeFileReader          one record per file: the whole file, key the file name
//   TextLineReader           one record per line (newline dropped), key "file:line_number"
//
// A reader holds the work units it was given, in order; Read takes records from the
// current one, starting the next as each ends, and says when it holds no more work (the
// kernel then dequeues another). Corrupt input is DataLoss naming the file and offset.
// Thread-safety: every public method locks the reader; several kernels may share one.
#ifndef TENSORACT_KERNELS_IO_READERS_H_
#define TENSORACT_KERNELS_IO_READERS_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/status.h"
#include "kernels/io/input_file.h"
#include "kernels/resource_mgr.h"

namespace tensoract {

class WorkReader : public ResourceBase {
 public:
  // Reads records until `values` holds `max_records` or the work runs out; `*needs_work`
  // then says the reader holds no more. `keys` nullptr: the keys are not wanted (not made).
  Status Read(int64_t max_records, std::vector<std::string>* keys, std::vector<std::string>* values,
              bool* needs_work);
  void AddWork(std::string work);
  // Forgets the work it holds and its counts (ReaderResetV2).
  void Reset();
  int64_t records_produced() const;
  int64_t work_units_completed() const;
  std::string DebugString() const override;

 protected:
  // The format: start a work unit, read one record (or say it ended), finish it.
  virtual Status OnWorkStarted(const std::string& work) = 0;
  // `key` nullptr: not wanted.
  virtual Status ReadRecord(const std::string& work, std::string* key, std::string* value, bool* at_end) = 0;
  virtual void OnWorkFinished() {}
  virtual const char* Kind() const = 0;

 private:
  mutable std::mutex mu_;
  std::deque<std::string> pending_;  // work units given, not started
  std::string current_;
  bool working_ = false;
  int64_t records_ = 0, completed_ = 0;
};

struct FixedLengthRecordOptions {
  int64_t header_bytes = 0, record_bytes = 0, footer_bytes = 0, hop_bytes = 0;
  std::string encoding;  // "", "ZLIB", "GZIP"
};

std::shared_ptr<WorkReader> NewFixedLengthRecordReader(const FixedLengthRecordOptions& options);
std::shared_ptr<WorkReader> NewTFRecordReader(const std::string& compression);
std::shared_ptr<WorkReader> NewWholeFileReader();
std::shared_ptr<WorkReader> NewTextLineReader(int64_t skip_header_lines);

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_IO_READERS_H_
