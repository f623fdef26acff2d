// accuracy_sweep_tool: the tensoract side of tests/compat/accuracy_sweep.py, the dense
// accuracy sweeps of the transcendental functions.
//
//   accuracy_sweep_tool claims OP:DTYPE...
//       Prints one line per argument, "OP:DTYPE 1" when a CPU kernel of OP claims T=DTYPE,
//       "OP:DTYPE 0" otherwise.
//
//   accuracy_sweep_tool run GRAPH feed:NAME=FILE... fetch:NAME=FILE...
//       Runs the binary GraphDef GRAPH in one session and one step on a private server,
//       feeding each placeholder NAME the raw little-endian elements in FILE as one 1-D
//       tensor (of the placeholder's dtype attr), and writes each fetched NAME's raw bytes
//       to its FILE. One large fed tensor per op is the point: the element-wise kernels take
//       their vectorised and threaded paths on it, as a model's tensors do. Raw bytes rather
//       than fidelity_tool's hex JSON, since a sweep is tens of millions of elements.
//
// Exit status: 0 on success, 1 when the graph, a feed or the step fails (said on stderr),
// 2 on a bad command line.
#include <algorithm>
#include <iostream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/proto_io.h"
#include "client/session.h"
#include "kernels/kernel_registry.h"
#include "kernels/tensor.h"

namespace tensoract {
namespace {

// The dtype attr of the placeholder `name` in `graph`.
StatusOr<DataType> PlaceholderType(const tensorflow::GraphDef& graph, const std::string& name) {
  for (const auto& node : graph.node()) {
    if (node.name() != name) continue;
    auto it = node.attr().find("dtype");
    if (it == node.attr().end()) return errors::InvalidArgument("node '", name, "' has no dtype attr");
    return static_cast<DataType>(it->second.type());
  }
  return errors::NotFound("the graph has no node '", name, "'");
}

Status Claims(const std::vector<std::string>& args) {
  for (const std::string& arg : args) {
    const size_t colon = arg.find(':');
    DataType dtype;
    if (colon == std::string::npos || !DataTypeFromString(arg.substr(colon + 1), &dtype)) {
      return errors::InvalidArgument("a claim is OP:DTYPE, not '", arg, "'");
    }
    NodeDef node;
    node.set_name("probe");
    node.set_op(arg.substr(0, colon));
    (*node.mutable_attr())["T"].set_type(dtype);
    std::cout << arg << " " << (KernelExists(node, DEVICE_CPU) ? 1 : 0) << "\n";
  }
  return Status::OK();
}

Status Run(const std::string& graph_path, const std::vector<std::string>& args) {
  tensorflow::GraphDef graph;
  TA_RETURN_IF_ERROR(ReadBinaryProto(graph_path, &graph));
  std::vector<std::pair<std::string, Tensor>> feeds;
  std::vector<std::string> fetches, fetch_paths;
  for (const std::string& arg : args) {
    const size_t eq = arg.find('=');
    const bool feed = arg.rfind("feed:", 0) == 0;
    if (eq == std::string::npos || (!feed && arg.rfind("fetch:", 0) != 0)) {
      return errors::InvalidArgument("an argument is feed:NAME=FILE or fetch:NAME=FILE, not '", arg, "'");
    }
    const size_t from = feed ? 5 : 6;
    const std::string name = arg.substr(from, eq - from);
    if (!feed) {
      fetches.push_back(name + ":0");
      fetch_paths.push_back(arg.substr(eq + 1));
      continue;
    }
    TA_ASSIGN_OR_RETURN(DataType dtype, PlaceholderType(graph, name));
    std::string bytes;
    TA_RETURN_IF_ERROR(ReadFileToString(arg.substr(eq + 1), &bytes));
    const size_t size = DataTypeSize(dtype);
    if (size == 0 || bytes.size() % size != 0) {
      return errors::InvalidArgument(arg, ": ", bytes.size(), " bytes are not whole ", DataTypeString(dtype),
                                     " elements");
    }
    Tensor t(dtype, TensorShape({static_cast<int64_t>(bytes.size() / size)}));
    std::copy(bytes.begin(), bytes.end(), static_cast<char*>(t.data()));
    feeds.emplace_back(name + ":0", std::move(t));
  }
  TA_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, Session::New());
  TA_RETURN_IF_ERROR(session->Create(graph));
  RunOptions options;
  options.timeout_ms = 30 * 60 * 1000;  // a --full sweep of double Pow runs for minutes
  std::vector<Tensor> outputs;
  TA_RETURN_IF_ERROR(session->Run(options, feeds, fetches, {}, &outputs));
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& out = outputs[i];
    TA_RETURN_IF_ERROR(
        WriteStringToFile(fetch_paths[i], std::string(static_cast<const char*>(out.data()), out.TotalBytes())));
  }
  return Status::OK();
}

}  // namespace
}  // namespace tensoract

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  tensoract::Status s;
  if (args.size() >= 1 && args[0] == "claims") {
    s = tensoract::Claims({args.begin() + 1, args.end()});
  } else if (args.size() >= 2 && args[0] == "run") {
    s = tensoract::Run(args[1], {args.begin() + 2, args.end()});
  } else {
    std::cerr << "usage: accuracy_sweep_tool claims OP:DTYPE...\n"
                 "       accuracy_sweep_tool run GRAPH feed:NAME=FILE... fetch:NAME=FILE...\n";
    return 2;
  }
  if (!s.ok()) {
    std::cerr << "accuracy_sweep_tool: " << s.ToString() << "\n";
    return 1;
  }
  return 0;
}
