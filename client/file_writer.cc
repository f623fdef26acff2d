#include "client/file_writer.h"

#include <chrono>
#include <filesystem>

#include "kernels/io/event_file.h"
#include "messages/config.pb.h"

namespace tensoract {
namespace {

double Now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

StatusOr<std::unique_ptr<FileWriter>> FileWriter::Open(const std::string& logdir, FileWriterOptions options) {
  if (!(options.flush_secs > 0)) {
    return errors::InvalidArgument("FileWriter: flush_secs must be positive, not ", options.flush_secs);
  }
  std::error_code ec;
  std::filesystem::create_directories(logdir, ec);
  if (ec) return errors::PermissionDenied("FileWriter: cannot create the log directory ", logdir, ": ", ec.message());
  const double now = Now();
  std::string path = logdir + "/" + EventFileName(static_cast<int64_t>(now), options.filename_suffix);
  // Another writer of this second in this directory: a file of our own beside it.
  for (int n = 1; std::filesystem::exists(path); ++n) {
    path = logdir + "/" + EventFileName(static_cast<int64_t>(now), StrCat(options.filename_suffix, ".", n));
  }
  TA_ASSIGN_OR_RETURN(std::unique_ptr<RecordWriter> records, RecordWriter::Open(path));
  std::unique_ptr<FileWriter> writer(new FileWriter(path, std::move(records), options.flush_secs));
  tensorflow::Event version;
  version.set_wall_time(now);
  version.set_file_version(kEventFileVersion);
  version.mutable_source_metadata()->set_writer("tensoract");
  TA_RETURN_IF_ERROR(writer->AddEvent(std::move(version)));
  TA_RETURN_IF_ERROR(writer->Flush());  // the file is whole from the start
  return writer;
}

FileWriter::FileWriter(std::string path, std::unique_ptr<RecordWriter> records, double flush_secs)
    : path_(std::move(path)), flush_secs_(flush_secs), records_(std::move(records)) {
  flusher_ = std::thread([this] { FlushPeriodically(); });
}

FileWriter::~FileWriter() { Close().IgnoreError(); }

void FileWriter::FlushPeriodically() {
  std::unique_lock<std::mutex> lock(mu_);
  const auto period = std::chrono::duration<double>(flush_secs_);
  while (!stop_) {
    wake_.wait_for(lock, period, [this] { return stop_; });
    if (records_ != nullptr) records_->Flush().IgnoreError();  // the next Add or Flush reports a failing file
  }
}

Status FileWriter::AddEvent(tensorflow::Event event) {
  if (event.wall_time() == 0) event.set_wall_time(Now());
  const std::string bytes = event.SerializeAsString();
  std::lock_guard<std::mutex> lock(mu_);
  if (records_ == nullptr) return errors::FailedPrecondition("FileWriter: ", path_, " is closed");
  return records_->Write(bytes);
}

Status FileWriter::AddSummary(const std::string& serialized_summary, int64_t step) {
  tensorflow::Event event;
  if (!event.mutable_summary()->ParseFromString(serialized_summary)) {
    return errors::InvalidArgument("FileWriter: the ", serialized_summary.size(),
                                   " bytes given to AddSummary are not a serialized Summary");
  }
  event.set_step(step);
  return AddEvent(std::move(event));
}

Status FileWriter::AddSummary(const tensorflow::Summary& summary, int64_t step) {
  tensorflow::Event event;
  *event.mutable_summary() = summary;
  event.set_step(step);
  return AddEvent(std::move(event));
}

Status FileWriter::AddGraph(const tensorflow::GraphDef& graph) {
  tensorflow::Event event;
  graph.SerializeToString(event.mutable_graph_def());
  return AddEvent(std::move(event));
}

Status FileWriter::AddRunMetadata(const RunMetadata& metadata, const std::string& tag, int64_t step) {
  tensorflow::RunMetadata proto;
  *proto.mutable_step_stats() = metadata.step_stats;
  for (const tensorflow::GraphDef& g : metadata.partition_graphs) *proto.add_partition_graphs() = g;
  tensorflow::Event event;
  event.set_step(step);
  event.mutable_tagged_run_metadata()->set_tag(tag);
  proto.SerializeToString(event.mutable_tagged_run_metadata()->mutable_run_metadata());
  return AddEvent(std::move(event));
}

Status FileWriter::AddSessionLog(tensorflow::SessionLog::SessionStatus status, int64_t step,
                                 const std::string& checkpoint_path) {
  tensorflow::Event event;
  event.set_step(step);
  event.mutable_session_log()->set_status(status);
  event.mutable_session_log()->set_checkpoint_path(checkpoint_path);
  return AddEvent(std::move(event));
}

Status FileWriter::Flush() {
  std::lock_guard<std::mutex> lock(mu_);
  if (records_ == nullptr) return errors::FailedPrecondition("FileWriter: ", path_, " is closed");
  return records_->Flush();
}

Status FileWriter::Close() {
  std::unique_ptr<RecordWriter> records;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    records = std::move(records_);
  }
  wake_.notify_all();
  if (flusher_.joinable()) flusher_.join();
  if (records == nullptr) return Status::OK();  // closed before
  return records->Close();
}

}  // namespace tensoract
