#include "client/file_writer.h"

#include <chrono>

#include "kernels/io/event_file.h"
#include "messages/config.pb.h"

namespace tensoract {

StatusOr<std::unique_ptr<FileWriter>> FileWriter::Open(const std::string& logdir, FileWriterOptions options) {
  if (!(options.flush_secs > 0)) {
    return errors::InvalidArgument("FileWriter: flush_secs must be positive, not ", options.flush_secs);
  }
  TA_ASSIGN_OR_RETURN(std::unique_ptr<EventFileWriter> file, EventFileWriter::Open(logdir, options.filename_suffix));
  return std::unique_ptr<FileWriter>(new FileWriter(std::move(file), options.flush_secs));
}

FileWriter::FileWriter(std::unique_ptr<EventFileWriter> file, double flush_secs)
    : file_(std::move(file)), flush_secs_(flush_secs) {
  flusher_ = std::thread([this] { FlushPeriodically(); });
}

FileWriter::~FileWriter() { Close().IgnoreError(); }

void FileWriter::FlushPeriodically() {
  std::unique_lock<std::mutex> lock(mu_);
  const auto period = std::chrono::duration<double>(flush_secs_);
  while (!stop_) {
    wake_.wait_for(lock, period, [this] { return stop_; });
    file_->Flush().IgnoreError();  // the next Add or Flush reports a failing (or closed) file
  }
}

Status FileWriter::AddEvent(tensorflow::Event event) { return file_->Write(std::move(event)); }

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

Status FileWriter::Flush() { return file_->Flush(); }

Status FileWriter::Close() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  if (flusher_.joinable()) flusher_.join();
  return file_->Close();
}

}  // namespace tensoract
