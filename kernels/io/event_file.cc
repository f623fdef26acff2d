#include "kernels/io/event_file.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "kernels/io/record_io.h"

namespace tensoract {

std::string EventFileName(int64_t unix_seconds, const std::string& suffix) {
  char host[256] = "localhost";
  if (gethostname(host, sizeof(host) - 1) != 0) std::snprintf(host, sizeof(host), "localhost");
  host[sizeof(host) - 1] = '\0';
  char seconds[32];
  std::snprintf(seconds, sizeof(seconds), "%010lld", static_cast<long long>(unix_seconds));
  return StrCat("events.out.tfevents.", seconds, ".", host, suffix);
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
