// summary_tool: what tests/compat/tensorboard_compat.py needs of the summary ops, the
// FileWriter and the event file reader, as a process:
//
//   summary_tool run GRAPH.pb LOGDIR FETCH...   runs the GraphDef once, fetching each FETCH
//       (a summary op's output); writes fetch i as the summary of step i into an event
//       file in LOGDIR; a failing fetch is written as "error i CODE MESSAGE" to stdout
//       instead (the others still run)
//   summary_tool read EVENTFILE                 reads an event file: "events N" and exit 0,
//       or the reader's error and exit 1
#include <cstdio>

#include "base/proto_io.h"
#include "client/file_writer.h"
#include "client/session.h"
#include "kernels/io/event_file.h"

using namespace tensoract;

namespace {

Status Run(const std::string& graph_path, const std::string& logdir, const std::vector<std::string>& fetches) {
  tensorflow::GraphDef graph;
  TA_RETURN_IF_ERROR(ReadBinaryProto(graph_path, &graph));
  TA_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, Session::New());
  TA_RETURN_IF_ERROR(session->Create(graph));
  TA_ASSIGN_OR_RETURN(std::unique_ptr<FileWriter> writer, FileWriter::Open(logdir));
  for (size_t i = 0; i < fetches.size(); ++i) {
    std::vector<Tensor> out;
    Status s = session->Run({}, {fetches[i]}, {}, &out);
    if (!s.ok()) {
      std::printf("error %zu %s %s\n", i, ErrorCodeName(s.code()).c_str(), s.message().c_str());
      continue;
    }
    TA_RETURN_IF_ERROR(writer->AddSummary(out[0].base<std::string>()[0], static_cast<int64_t>(i)));
  }
  std::printf("file %s\n", writer->path().c_str());
  return writer->Close();
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  Status s;
  if (mode == "run" && argc >= 4) {
    s = Run(argv[2], argv[3], std::vector<std::string>(argv + 4, argv + argc));
  } else if (mode == "read" && argc == 3) {
    std::vector<tensorflow::Event> events;
    s = ReadEventFile(argv[2], &events);
    if (s.ok()) std::printf("events %zu\n", events.size());
  } else {
    std::fprintf(stderr, "usage: summary_tool run GRAPH.pb LOGDIR FETCH... | summary_tool read EVENTFILE\n");
    return 2;
  }
  if (!s.ok()) {
    std::fprintf(stderr, "summary_tool: %s\n", s.ToString().c_str());
    return 1;
  }
  return 0;
}
