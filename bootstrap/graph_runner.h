// Running a GraphDef file from the command line (the tensoract-run tool).
//
// One step, the simple form:
//
//   tensoract-run --graph model.pbtxt --feed x=1,1,2,0@2x2 --fetch y [--target init]
//
// Several steps on one session, in order (variables keep their values between them):
//
//   tensoract-run --graph model.pb --json --run 'target=init'
//       --run 'feed=x=1,2@1x2 fetch=y:0,w/read:0' --run 'target=inc_w fetch=w/read'
//
// The graph file is text when it ends in .pbtxt or .txt, binary otherwise. --cpu-devices N
// gives the session N CPU devices, for graphs placed on several (collectives among them).
// --server tensoract://host:port [--token-file F] runs the steps on that node's master
// (a cluster's) instead of a private one.
//
// A SavedModel's signature instead of a graph (feeds and fetches by the signature's keys;
// without --fetch, every output):
//
//   tensoract-run --saved-model DIR [--tag-set serve] [--signature serving_default]
//       --feed images=0.5,0.25@1x784 [--fetch output_0]
//
// --feed-proto NAME=FILE feeds a binary TensorProto file (any dtype, strings included).
//
// A feed is NAME=[DTYPE:]VALUES[@SHAPE]:
//   NAME    any tensor, "node" or "node:port"
//   DTYPE   float (the default), double, int8, int16, int32, int64, uint8, uint16, uint32,
//           uint64 or bool (true/false/1/0)
//   VALUES  comma-separated, e.g. 1,-2.5,3e4 (nan, inf and -inf for floating types)
//   SHAPE   dimensions joined by x, e.g. 2x3; without @SHAPE the feed is a vector of the
//           values; "@" alone (or "@[]") is a scalar.
//   e.g. x=1,2,3,4@2x2   n=int64:7@   flags=bool:true,false
//   resource:@ is a scalar resource handle naming nothing (a TensorFlow 2 function's
//   ordering tokens, which only order ops)
//
// A --run is one step, a space-separated list of KEY=VALUE items, each key repeatable:
//   feed=NAME=[DTYPE:]VALUES[@SHAPE]   one feed, as above
//   fetch=T1[,T2...]                   tensors to fetch, in order
//   target=N1[,N2...]                  nodes to run for their effect
// --feed/--fetch/--target describe the single step when there is no --run; mixing the two
// forms is an error.
//
// Output, per fetch of each step:
//   default  "name = Tensor<type: float shape: [2,2] values: [[1 2][3 4]]>" (every value),
//            prefixed by "run N: " when --run is used
//   --json   one JSON object per step and line (JSON Lines), with every value in full
//            precision (float: 9 significant digits, double: 17, integers exact):
//              {"run":0,"code":"OK","fetches":[{"name":"y:0","dtype":"float",
//                                               "shape":[2,2],"values":[1,2,3,4]}]}
//              {"run":1,"code":"FAILED_PRECONDITION","message":"..."}
//            values are flat, row-major; NaN and infinities are written NaN, Infinity and
//            -Infinity (what Python's json module reads).
//
// The first failing step ends the sequence unless --keep-going is given, in which case
// its error is reported (on stderr, or as the step's JSON line) and the next step runs.
// Exit status: 0 when every step succeeded, 1 when loading the graph or a step failed, 2
// for a bad command line.
#ifndef TENSORACT_BOOTSTRAP_GRAPH_RUNNER_H_
#define TENSORACT_BOOTSTRAP_GRAPH_RUNNER_H_

#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "kernels/tensor.h"

namespace tensoract {

// One Session::Run call.
struct RunStepSpec {
  std::vector<std::pair<std::string, Tensor>> feeds;
  std::vector<std::string> fetches;
  std::vector<std::string> targets;
};

struct GraphRunSpec {
  std::string graph_path;
  std::string saved_model_dir;  // instead of graph_path: run a SavedModel's signature
  std::string signature = "serving_default";
  std::string tag_set = "serve";  // comma-separated
  std::vector<RunStepSpec> steps;  // run in order on one session
  bool json = false;               // JSON Lines instead of DebugString lines
  bool keep_going = false;         // report a failed step and go on with the next
  bool multi_step = false;         // given with --run: output lines name their step
  int cpu_devices = 1;             // --cpu-devices: CPU:0 .. CPU:<n-1> (a graph's devices)
  std::string server;              // --server tensoract://host:port: that node's master
  std::string token_file;          // --token-file: the cluster token (else the environment's)
};

// "[dtype:]values[@shape]", e.g. "int32:1,2,3,4@2x2". InvalidArgument naming the bad part.
StatusOr<Tensor> ParseFeedValue(const std::string& text);
// "name=[dtype:]values[@shape]" -> (name, tensor).
StatusOr<std::pair<std::string, Tensor>> ParseFeed(const std::string& text);
// "name=FILE", FILE a binary TensorProto -> (name, tensor).
StatusOr<std::pair<std::string, Tensor>> ParseProtoFeed(const std::string& text);
// The text of one --run: "feed=x=1,2 fetch=y,z target=init".
StatusOr<RunStepSpec> ParseRunStep(const std::string& text);
// Parses the command line above (without argv[0]); InvalidArgument names an unknown or
// incomplete flag.
StatusOr<GraphRunSpec> ParseGraphRunArgs(const std::vector<std::string>& args);

// Every value of `t` as a JSON object {"dtype","shape","values"} (numbers in full precision).
std::string TensorToJson(const Tensor& t);

// Loads the graph, creates one session and runs the steps in order, printing the fetches
// to `out` (and, without --json, the errors of steps that --keep-going passes over to
// `err`). Returns the first error: the graph's, or a step's.
Status RunGraphFile(const GraphRunSpec& spec, std::ostream& out, std::ostream& err);

// The text `tensoract-run --help` prints.
std::string GraphRunUsage();

}  // namespace tensoract

#endif  // TENSORACT_BOOTSTRAP_GRAPH_RUNNER_H_
