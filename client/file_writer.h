/// @file
/// FileWriter: writes a run's event file for TensorBoard (TensorFlow's tf.summary.FileWriter).
/// It holds summaries by step (the output of a summary op, graph/builder/summary_ops.h), the
/// graph, a traced step's RunMetadata (TensorBoard's graph view then shows each node's compute
/// time and memory) and session starts, in `logdir/events.out.tfevents.<time>.<host>`
/// (kernels/io/event_file.h).
///
/// @code
///   TA_ASSIGN_OR_RETURN(auto writer, FileWriter::Open("logs/run1"));
///   writer->AddGraph(graph_def);
///   session->Run({}, {"merged_summary"}, {"train"}, &out);
///   writer->AddSummary(out[0].scalar<std::string>(), step);
/// @endcode
///
/// Events go to the file as they are added; they reach the operating system every
/// flush_secs (a thread of the writer's), on Flush and on Close, so a process killed
/// between two flushes loses at most the last period's events.
///
/// Thread-safety: every method may be called from any thread.
#ifndef TENSORACT_CLIENT_FILE_WRITER_H_
#define TENSORACT_CLIENT_FILE_WRITER_H_

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "base/status.h"
#include "client/session.h"
#include "kernels/io/event_file.h"
#include "messages/event.pb.h"
#include "messages/graph.pb.h"

namespace tensoract {

/// How a FileWriter flushes and names its event file.
struct FileWriterOptions {
  double flush_secs = 120;      ///< seconds between the writer thread's flushes (TensorFlow's default); > 0
  std::string filename_suffix;  ///< appended to the file name, after the host name
};

/// Writes a TensorBoard event file: summaries, graphs, run metadata and session logs
/// (tf.compat.v1.summary.FileWriter).
class FileWriter {
 public:
  /// Creates `logdir` if needed and a new event file in it (its first event names the format).
  /// InvalidArgument when flush_secs is not positive.
  static StatusOr<std::unique_ptr<FileWriter>> Open(const std::string& logdir, FileWriterOptions options = {});
  ~FileWriter();  ///< Close, its error dropped

  /// A serialized Summary, as a summary op outputs it; InvalidArgument when it is no Summary.
  Status AddSummary(const std::string& serialized_summary, int64_t step);
  /// Writes `summary` as the event of `step`.
  Status AddSummary(const tensorflow::Summary& summary, int64_t step);
  /// Writes `graph` (serialized) for TensorBoard's graph view.
  Status AddGraph(const tensorflow::GraphDef& graph);
  /// A traced step's statistics (Session::Run with RunOptions::trace_level), under `tag`.
  Status AddRunMetadata(const RunMetadata& metadata, const std::string& tag, int64_t step);
  /// A SessionLog event with `status` at `step`. START at `step` after a restart from a
  /// checkpoint: TensorBoard drops the events of the earlier run with larger steps (they
  /// were lost with the state that made them).
  Status AddSessionLog(tensorflow::SessionLog::SessionStatus status, int64_t step,
                       const std::string& checkpoint_path = "");
  /// Any event; a zero wall_time becomes now.
  Status AddEvent(tensorflow::Event event);

  /// Hands the events written so far to the operating system.
  Status Flush();
  /// Flushes and closes the file; later calls fail with FailedPrecondition.
  Status Close();

  /// The event file's path (`logdir/events.out.tfevents.<time>.<host><suffix>`).
  const std::string& path() const { return file_->path(); }

 private:
  FileWriter(std::unique_ptr<EventFileWriter> file, double flush_secs);
  void FlushPeriodically();

  const std::unique_ptr<EventFileWriter> file_;
  const double flush_secs_;
  std::mutex mu_;  // for the flusher's wait
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread flusher_;
};

}  // namespace tensoract

#endif  // TENSORACT_CLIENT_FILE_WRITER_H_
