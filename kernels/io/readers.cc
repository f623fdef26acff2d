#include "kernels/io/readers.h"

#include <fstream>
#include <sstream>

#include "kernels/io/record_io.h"

namespace tensoract {

Status WorkReader::Read(int64_t max_records, std::vector<std::string>* keys, std::vector<std::string>* values,
                        bool* needs_work) {
  std::lock_guard<std::mutex> lock(mu_);
  *needs_work = false;
  while (static_cast<int64_t>(values->size()) < max_records) {
    if (!working_) {
      if (pending_.empty()) {
        *needs_work = true;
        return Status::OK();
      }
      current_ = std::move(pending_.front());
      pending_.pop_front();
      working_ = true;
      Status started = OnWorkStarted(current_);
      if (!started.ok()) {
        working_ = false;
        return started;
      }
    }
    std::string key, value;
    bool at_end = false;
    Status read = ReadRecord(current_, keys ? &key : nullptr, &value, &at_end);
    if (!read.ok()) {
      // The rest of a corrupt unit is skipped; the next Read starts the next unit.
      OnWorkFinished();
      working_ = false;
      return read;
    }
    if (at_end) {
      OnWorkFinished();
      working_ = false;
      ++completed_;
      continue;
    }
    if (keys) keys->push_back(std::move(key));
    values->push_back(std::move(value));
    ++records_;
  }
  return Status::OK();
}

void WorkReader::AddWork(std::string work) {
  std::lock_guard<std::mutex> lock(mu_);
  pending_.push_back(std::move(work));
}

void WorkReader::Reset() {
  std::lock_guard<std::mutex> lock(mu_);
  if (working_) OnWorkFinished();
  working_ = false;
  pending_.clear();
  records_ = completed_ = 0;
}

int64_t WorkReader::records_produced() const {
  std::lock_guard<std::mutex> lock(mu_);
  return records_;
}

int64_t WorkReader::work_units_completed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return completed_;
}

std::string WorkReader::DebugString() const {
  std::lock_guard<std::mutex> lock(mu_);
  return StrCat(Kind(), ": ", records_, " records from ", completed_, " work units",
                working_ ? ", reading " + current_ : std::string());
}

namespace {

class FixedLengthRecordReader : public WorkReader {
 public:
  explicit FixedLengthRecordReader(FixedLengthRecordOptions o) : o_(std::move(o)) {}

 protected:
  Status OnWorkStarted(const std::string& work) override {
    TA_ASSIGN_OR_RETURN(file_, OpenInputFile(work, o_.encoding, &file_));
    limit_ = file_.size - o_.footer_bytes;
    if (o_.footer_bytes > file_.size || limit_ < o_.header_bytes) {
      return errors::DataLoss(work, ": ", file_.size, " bytes cannot hold its ", o_.header_bytes, "-byte header and ",
                              o_.footer_bytes, "-byte footer");
    }
    pos_ = o_.header_bytes;
    record_number_ = 0;
    file_.stream->seekg(pos_);
    return Status::OK();
  }
  Status ReadRecord(const std::string& work, std::string* key, std::string* value, bool* at_end) override {
    // Compared as what is left, so that no attr, however large, overflows.
    const int64_t left = limit_ - pos_;
    if (left <= 0 || (o_.hop_bytes > 0 && o_.record_bytes > left)) {
      *at_end = true;
      return Status::OK();
    }
    if (o_.record_bytes > left) {
      return errors::DataLoss(work, ": ", left, " bytes at offset ", pos_, " are less than a record (",
                              o_.record_bytes, " bytes): the file is truncated or its record size is wrong");
    }
    value->resize(o_.record_bytes);
    if (o_.hop_bytes > 0) file_.stream->seekg(pos_);  // overlapping records; else sequential
    file_.stream->read(value->data(), o_.record_bytes);
    if (file_.stream->gcount() != o_.record_bytes) {
      return errors::DataLoss(work, ": could not read the record at offset ", pos_);
    }
    if (key) {  // not StrCat (a stream): keys are made for every record
      *key = work;
      *key += ':';
      *key += std::to_string(record_number_);
    }
    ++record_number_;
    const int64_t step = o_.hop_bytes > 0 ? o_.hop_bytes : o_.record_bytes;
    pos_ = step > limit_ - pos_ ? limit_ : pos_ + step;
    return Status::OK();
  }
  void OnWorkFinished() override { file_.Close(); }  // its memory serves the next file
  const char* Kind() const override { return "FixedLengthRecordReader"; }

 private:
  FixedLengthRecordOptions o_;
  InputFile file_;
  int64_t pos_ = 0, limit_ = 0, record_number_ = 0;
};

class TFRecordReader : public WorkReader {
 public:
  explicit TFRecordReader(std::string compression) : compression_(std::move(compression)) {}

 protected:
  Status OnWorkStarted(const std::string& work) override {
    TA_ASSIGN_OR_RETURN(file_, OpenInputFile(work, compression_, &file_));
    reader_ = std::make_unique<RecordReader>(file_.stream.get(), work, static_cast<uint64_t>(file_.size));
    return Status::OK();
  }
  Status ReadRecord(const std::string& work, std::string* key, std::string* value, bool* at_end) override {
    TA_RETURN_IF_ERROR(reader_->Next(value, at_end));
    if (!*at_end && key) {
      *key = work;
      *key += ':';
      *key += std::to_string(reader_->record_offset());
    }
    return Status::OK();
  }
  void OnWorkFinished() override {
    reader_.reset();
    file_.Close();  // its memory serves the next file
  }
  const char* Kind() const override { return "TFRecordReader"; }

 private:
  std::string compression_;
  InputFile file_;
  std::unique_ptr<RecordReader> reader_;
};

class WholeFileReader : public WorkReader {
 protected:
  Status OnWorkStarted(const std::string&) override {
    done_ = false;
    return Status::OK();
  }
  Status ReadRecord(const std::string& work, std::string* key, std::string* value, bool* at_end) override {
    if (done_) {
      *at_end = true;
      return Status::OK();
    }
    TA_ASSIGN_OR_RETURN(InputFile file, OpenInputFile(work, ""));
    value->resize(file.size);
    file.stream->read(value->data(), file.size);
    if (file.stream->gcount() != file.size) return errors::DataLoss(work, ": read ", file.stream->gcount(), " of ", file.size, " bytes");
    if (key) *key = work;
    done_ = true;
    return Status::OK();
  }
  const char* Kind() const override { return "WholeFileReader"; }

 private:
  bool done_ = false;
};

class TextLineReader : public WorkReader {
 public:
  explicit TextLineReader(int64_t skip) : skip_(skip) {}

 protected:
  Status OnWorkStarted(const std::string& work) override {
    TA_ASSIGN_OR_RETURN(file_, OpenInputFile(work, "", &file_));
    line_ = 0;
    std::string skipped;
    for (int64_t i = 0; i < skip_ && std::getline(*file_.stream, skipped); ++i) ++line_;
    return Status::OK();
  }
  Status ReadRecord(const std::string& work, std::string* key, std::string* value, bool* at_end) override {
    if (!std::getline(*file_.stream, *value)) {
      *at_end = true;
      return Status::OK();
    }
    if (!value->empty() && value->back() == '\r') value->pop_back();
    ++line_;
    if (key) *key = StrCat(work, ":", line_);
    return Status::OK();
  }
  void OnWorkFinished() override { file_.Close(); }  // its memory serves the next file
  const char* Kind() const override { return "TextLineReader"; }

 private:
  int64_t skip_;
  InputFile file_;
  int64_t line_ = 0;
};

}  // namespace

std::shared_ptr<WorkReader> NewFixedLengthRecordReader(const FixedLengthRecordOptions& options) {
  return std::make_shared<FixedLengthRecordReader>(options);
}
std::shared_ptr<WorkReader> NewTFRecordReader(const std::string& compression) {
  return std::make_shared<TFRecordReader>(compression);
}
std::shared_ptr<WorkReader> NewWholeFileReader() { return std::make_shared<WholeFileReader>(); }
std::shared_ptr<WorkReader> NewTextLineReader(int64_t skip_header_lines) {
  return std::make_shared<TextLineReader>(skip_header_lines);
}

}  // namespace tensoract
