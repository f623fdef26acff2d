#include "kernels/io/event_file.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>


namespace tensoract {

std::string EventFileName(int64_t unix_seconds, const std::string& suffix) {
  char host[256] = "localhost";
  if (gethostname(host, sizeof(host) - 1) != 0) std::snprintf(host, sizeof(host), "localhost");
  host[sizeof(host) - 1] = '\0';
  char seconds[32];
  std::snprintf(seconds, sizeof(seconds), "%010lld", static_cast<long long>(unix_seconds));
  return StrCat("events.out.tfevents.", seconds, ".", host, suffix);
}

namespace {

double Now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

StatusOr<std::unique_ptr<EventFileWriter>> EventFileWriter::Open(const std::string& logdir, const std::string& suffix) {
  std::error_code ec;
  std::filesystem::create_directories(logdir, ec);
  if (ec) return errors::PermissionDenied("cannot create the log directory ", logdir, ": ", ec.message());
  const double now = Now();
  std::string path = logdir + "/" + EventFileName(static_cast<int64_t>(now), suffix);
  // Another writer of this second in this directory: a file of our own beside it.
  for (int n = 1; std::filesystem::exists(path); ++n) {
    path = logdir + "/" + EventFileName(static_cast<int64_t>(now), StrCat(suffix, ".", n));
  }
  TA_ASSIGN_OR_RETURN(std::unique_ptr<RecordWriter> records, RecordWriter::Open(path));
  std::unique_ptr<EventFileWriter> writer(new EventFileWriter(path, std::move(records)));
  tensorflow::Event version;
  version.set_wall_time(now);
  version.set_file_version(kEventFileVersion);
  version.mutable_source_metadata()->set_writer("tensoract");
  TA_RETURN_IF_ERROR(writer->Write(std::move(version)));
  TA_RETURN_IF_ERROR(writer->Flush());  // the file is whole from the start
  return writer;
}

EventFileWriter::EventFileWriter(std::string path, std::unique_ptr<RecordWriter> records)
    : path_(std::move(path)), records_(std::move(records)) {}

EventFileWriter::~EventFileWriter() { Close().IgnoreError(); }

Status EventFileWriter::Write(tensorflow::Event event) {
  if (event.wall_time() == 0) event.set_wall_time(Now());
  const std::string bytes = event.SerializeAsString();
  std::lock_guard<std::mutex> lock(mu_);
  if (records_ == nullptr) return errors::FailedPrecondition("the event file ", path_, " is closed");
  return records_->Write(bytes);
}

Status EventFileWriter::Flush() {
  std::lock_guard<std::mutex> lock(mu_);
  if (records_ == nullptr) return errors::FailedPrecondition("the event file ", path_, " is closed");
  return records_->Flush();
}

Status EventFileWriter::Close() {
  std::unique_ptr<RecordWriter> records;
  {
    std::lock_guard<std::mutex> lock(mu_);
    records = std::move(records_);
  }
  return records == nullptr ? Status::OK() : records->Close();
}

Status ReadEventFile(const std::string& path, std::vector<tensorflow::Event>* events) {
  std::error_code ec;
  const uint64_t size = std::filesystem::file_size(path, ec);
  if (ec) return errors::NotFound(path, ": ", ec.message());
  std::ifstream in(path, std::ios::binary);
  if (!in) return errors::NotFound(path, ": cannot open");
  RecordReader reader(&in, path, size);
  for (;;) {
    std::string record;
    bool at_end = false;
    TA_RETURN_IF_ERROR(reader.Next(&record, &at_end));
    if (at_end) return Status::OK();
    tensorflow::Event event;
    if (!event.ParseFromString(record)) {
      return errors::DataLoss(path, ": the record at offset ", reader.record_offset(), " is not an Event");
    }
    events->push_back(std::move(event));
  }
}

}  // namespace tensoract
