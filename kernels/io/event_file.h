// Event files (events.out.tfevents.*), as TensorBoard reads them: records of TensorFlow's
// record format (kernels/io/record_io.h), each a serialized Event (messages/event.proto),
// the first one naming the format ("brain.Event:2"). client/file_writer.h writes them;
// ReadEventFile reads one back and says where it is damaged.
#ifndef TENSORACT_KERNELS_IO_EVENT_FILE_H_
#define TENSORACT_KERNELS_IO_EVENT_FILE_H_

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/status.h"
#include "kernels/io/record_io.h"
#include "messages/event.pb.h"

namespace tensoract {

// The format the first event of every file names.
inline constexpr char kEventFileVersion[] = "brain.Event:2";

// "events.out.tfevents.<seconds, 10 digits>.<host name><suffix>", TensorFlow's name.
std::string EventFileName(int64_t unix_seconds, const std::string& suffix = "");

// One event file, open for appending events: made in `logdir` (created if needed) under
// TensorFlow's name (another writer's file of the same second is not touched), its first
// event naming the format. A zero wall_time becomes now. The client's FileWriter and the
// summary writer kernels (TensorFlow 2's WriteScalarSummary, ...) write through it.
// Thread-safety: every method may be called from any thread.
class EventFileWriter {
 public:
  static StatusOr<std::unique_ptr<EventFileWriter>> Open(const std::string& logdir, const std::string& suffix = "");
  ~EventFileWriter();  // closes, the error dropped

  Status Write(tensorflow::Event event);
  // Hands what was written to the operating system.
  Status Flush();
  // Flushes and closes; later calls fail with FailedPrecondition.
  Status Close();
  const std::string& path() const { return path_; }

 private:
  EventFileWriter(std::string path, std::unique_ptr<RecordWriter> records);
  const std::string path_;
  std::mutex mu_;
  std::unique_ptr<RecordWriter> records_;  // null once closed
};

// Every event of the file at `path`, in order. A record cut short or failing its checksum
// is DataLoss naming the file and the record's offset; a record that is no Event, too.
// `events` keeps those read before the damage.
Status ReadEventFile(const std::string& path, std::vector<tensorflow::Event>* events);

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_IO_EVENT_FILE_H_
