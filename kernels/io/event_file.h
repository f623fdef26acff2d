// Event files (events.out.tfevents.*), as TensorBoard reads them: records of TensorFlow's
// record format (kernels/io/record_io.h), each a serialized Event (messages/event.proto),
// the first one naming the format ("brain.Event:2"). client/file_writer.h writes them;
// ReadEventFile reads one back and says where it is damaged.
#ifndef TENSORACT_KERNELS_IO_EVENT_FILE_H_
#define TENSORACT_KERNELS_IO_EVENT_FILE_H_

#include <string>
#include <vector>

#include "base/status.h"
#include "messages/event.pb.h"

namespace tensoract {

// The format the first event of every file names.
inline constexpr char kEventFileVersion[] = "brain.Event:2";

// "events.out.tfevents.<seconds, 10 digits>.<host name><suffix>", TensorFlow's name.
std::string EventFileName(int64_t unix_seconds, const std::string& suffix = "");

// Every event of the file at `path`, in order. A record cut short or failing its checksum
// is DataLoss naming the file and the record's offset; a record that is no Event, too.
// `events` keeps those read before the damage.
Status ReadEventFile(const std::string& path, std::vector<tensorflow::Event>* events);

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_IO_EVENT_FILE_H_
