// fidelity_tool: the tensoract side of the differential harness, tests/compat/tf_fidelity_compat.py.
//
//   fidelity_tool kernels [--device GPU] [--handles] [OP...]
//       Which type-attr combinations the kernel registry claims for the CPU (or the GPU),
//       per op (every registered op without OP arguments), as one JSON object:
//         {"Add": [{"T": "float"}, {"T": "int32"}, ...], "Cast": [{"SrcT": "bool", "DstT": "float"}, ...]}
//       --handles probes unconstrained type attrs with variant and resource too.
//       The registry is asked (KernelExists) for every combination of the values the
//       OpDef allows each type attr; an op with more than 4096 combinations is left out.
//
//   fidelity_tool run [--device cpu|gpu] MANIFEST OUT
//       Runs batches of cases on the CPU (the default: no GPU device is made, whatever the
//       machine has) or with the GPU (nodes with a GPU kernel placed there, the rest on the
//       CPU, as a TensorFlow session places them; an error when the machine has no GPU). Each MANIFEST line is "GRAPH CASES ALONE": GRAPH a binary
//       GraphDef holding every case of the batch, each case's nodes under the name scope
//       "c<id>/"; CASES a stream of RunStepRequests (messages/master.proto), each preceded by
//       its byte length as a little-endian uint32: request_id the case's id, feed and fetch
//       the case's, session_handle its key (cases with one key tend to fail alike: the op and
//       what the case probes); ALONE 1 to run each case as its own step.
//       Otherwise one step fetches the batch's cases together; a case that makes a step fail
//       (its node named by the error) and the later ones of its key run alone, a failure
//       naming no case is split in halves. A refusal by Session::Create likewise: the named
//       case, and later ones of its key, get a session of their own.
//       Writes one JSON line per case to OUT, in the manifest's order:
//         {"id":N,"code":"OK","outputs":[{"dtype":"float","shape":[2,3],"hex":"0000803f..."}]}
//         {"id":N,"code":"INVALID_ARGUMENT","stage":"create"|"run","message":"..."}
//       with every output's raw bytes in hex (so the harness sees the exact bits: NaN
//       payloads, signed zeros, denormals). "create" is a refusal of the graph (Session::
//       Create: validation and shape inference), "run" a failure of the step. A step that
//       runs over a minute fails with DEADLINE_EXCEEDED.
//       FIDELITY_TOOL_TRACE=1 prints each step's case ids on stderr.
//       A line "GRAPH CASES ALONE GRADS" makes a batch of gradient cases: GRADS a text
//       file, a line per case "ID<tab>XS<tab>YS<tab>GYS", each a space-separated list of
//       tensor names of GRAPH (the forward graph only). Each case gets our symbolic
//       gradients d(sum_i YS_i * GYS_i)/d(XS) (AddSymbolicGradients, under "c<id>/gradients"),
//       and they, not the case's fetches, are its outputs, in XS's order; an x that no path
//       reaches gets {"dtype":"none"} (tf.gradients' None). A graph this process cannot
//       import refuses its case at "create"; AddSymbolicGradients' failure is the case's
//       outcome at stage "gradient" ("No gradient defined for op" is a NOT_FOUND there).
//
//   fidelity_tool gradients
//       Which ops have a gradient registered here, as one JSON object: {"Add": "yes",
//       "Shape": "none", ...} ("none": registered as having no gradient, REGISTER_NO_GRADIENT_OP).
//
// Exit status: 0 when every batch was processed (whatever the cases' outcomes), 1 on a bad
// manifest or file, 2 on a bad command line.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "base/json_string.h"
#include "base/proto_io.h"
#include "client/local_server.h"
#include "client/session.h"
#include "graph/gradients/gradient_registry.h"
#include "graph/lower_functional_ops.h"
#include "graph/gradients/gradients.h"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "kernels/device.h"
#include "kernels/kernel_libraries.h"
#include "kernels/kernel_registry.h"
#include "kernels/tensor.h"
#include "messages/master.pb.h"

namespace tensoract {
namespace {

// ---- fidelity_tool kernels ----------------------------------------------------------

// The types an unconstrained type attr is probed with: every fixed-size dtype a kernel of
// this runtime could claim, and strings; with `handles`, variants and resources too (the
// op census asks about TensorLists; the harness makes no values of those).
const DataTypeVector& AllProbedTypes(bool handles) {
  static const DataTypeVector types = {
      tensorflow::DT_FLOAT,  tensorflow::DT_DOUBLE, tensorflow::DT_HALF,   tensorflow::DT_BFLOAT16,
      tensorflow::DT_INT8,   tensorflow::DT_INT16,  tensorflow::DT_INT32,  tensorflow::DT_INT64,
      tensorflow::DT_UINT8,  tensorflow::DT_UINT16, tensorflow::DT_UINT32, tensorflow::DT_UINT64,
      tensorflow::DT_BOOL,   tensorflow::DT_COMPLEX64, tensorflow::DT_COMPLEX128, tensorflow::DT_STRING};
  static const DataTypeVector with_handles = [] {
    DataTypeVector all = types;
    all.push_back(tensorflow::DT_VARIANT);
    all.push_back(tensorflow::DT_RESOURCE);
    return all;
  }();
  return handles ? with_handles : types;
}

bool probe_handles = false;  // fidelity_tool kernels --handles

// Prints {"attr": "dtype", ...} for every combination of `op`'s type attrs with a kernel for
// `device_type`.
void PrintKernelCombinations(const tensorflow::OpDef& op, const std::string& device_type, std::ostream& os) {
  std::vector<std::pair<std::string, DataTypeVector>> attrs;
  size_t combinations = 1;
  for (const auto& attr : op.attr()) {
    if (attr.type() != "type") continue;
    DataTypeVector allowed;
    if (attr.has_allowed_values() && attr.allowed_values().list().type_size() > 0) {
      for (int t : attr.allowed_values().list().type()) allowed.push_back(static_cast<DataType>(t));
    } else {
      allowed = AllProbedTypes(probe_handles);
    }
    combinations *= allowed.size();
    attrs.emplace_back(attr.name(), std::move(allowed));
  }
  os << JsonString(op.name()) << ": [";
  if (combinations > 4096) {
    os << "]";
    return;
  }
  NodeDef node;
  node.set_name("probe");
  node.set_op(op.name());
  std::vector<size_t> index(attrs.size(), 0);
  bool first = true;
  for (size_t n = 0; n < combinations; ++n) {
    size_t rest = n;
    for (size_t a = 0; a < attrs.size(); ++a) {
      index[a] = rest % attrs[a].second.size();
      rest /= attrs[a].second.size();
      (*node.mutable_attr())[attrs[a].first].set_type(attrs[a].second[index[a]]);
    }
    if (!KernelExists(node, device_type)) continue;
    os << (first ? "" : ", ") << "{";
    for (size_t a = 0; a < attrs.size(); ++a) {
      os << (a ? ", " : "") << JsonString(attrs[a].first) << ": "
         << JsonString(DataTypeString(attrs[a].second[index[a]]));
    }
    os << "}";
    first = false;
  }
  os << "]";
}

int ListKernels(const std::string& device_type, const std::vector<std::string>& ops) {
  // The GPU's kernels are in a library a worker loads only where a driver is: load it to list them.
  if (device_type == DEVICE_GPU) {
    std::string why;
    if (LoadGpuKernelLibrary(&why) == nullptr) std::fprintf(stderr, "fidelity_tool: %s\n", why.c_str());
  }
  std::vector<std::string> names = ops.empty() ? OpRegistry::Global()->ListOpNames() : ops;
  std::cout << "{";
  bool first = true;
  for (const std::string& name : names) {
    auto op = OpRegistry::Global()->LookUp(name);
    if (!op.ok()) continue;  // an op this binary does not register: no kernels to list
    std::cout << (first ? "\n" : ",\n");
    PrintKernelCombinations(**op, device_type, std::cout);
    first = false;
  }
  std::cout << "\n}\n";
  return 0;
}

int ListGradients() {
  std::cout << "{";
  bool first = true;
  for (const std::string& name : OpRegistry::Global()->ListOpNames()) {
    GradFunc fn;
    if (IsFunctionalControlFlow(name)) {
      // No gradient function of their own: the importer lowers If and While to Switch/Merge
      // and frames (graph/lower_functional_ops.h), which AddSymbolicGradients differentiates.
      std::cout << (first ? "\n" : ",\n") << JsonString(name) << ": \"yes\"";
      first = false;
      continue;
    }
    if (!GradientRegistry::Global()->Lookup(name, &fn).ok()) continue;
    std::cout << (first ? "\n" : ",\n") << JsonString(name) << ": " << (fn ? "\"yes\"" : "\"none\"");
    first = false;
  }
  std::cout << "\n}\n";
  return 0;
}

// ---- fidelity_tool run --------------------------------------------------------------

struct Case {
  int64_t id = 0;
  std::string key;  // cases with one key tend to fail alike (the op and what the case probes)
  std::vector<std::pair<std::string, Tensor>> feeds;
  std::vector<std::string> fetches;
  std::vector<bool> none_at;  // gradient cases: the outputs (by x) that no path reaches
};

struct Outcome {
  Status status;
  std::string stage;  // "create" or "run" when status is an error
  std::vector<Tensor> outputs;
};

std::string Hex(const void* data, size_t size) {
  static const char* digits = "0123456789abcdef";
  const auto* bytes = static_cast<const unsigned char*>(data);
  std::string out(2 * size, '0');
  for (size_t i = 0; i < size; ++i) {
    out[2 * i] = digits[bytes[i] >> 4];
    out[2 * i + 1] = digits[bytes[i] & 15];
  }
  return out;
}

void WriteOutcome(const Case& c, const Outcome& outcome, std::ostream& os) {
  const int64_t id = c.id;
  os << "{\"id\":" << id << ",\"code\":" << JsonString(ErrorCodeName(outcome.status.code()));
  if (!outcome.status.ok()) {
    os << ",\"stage\":" << JsonString(outcome.stage) << ",\"message\":" << JsonString(outcome.status.message())
       << "}\n";
    return;
  }
  os << ",\"outputs\":[";
  size_t next = 0;
  const size_t slots = c.none_at.empty() ? outcome.outputs.size() : c.none_at.size();
  for (size_t i = 0; i < slots; ++i) {
    if (!c.none_at.empty() && c.none_at[i]) {
      os << (i ? "," : "") << "{\"dtype\":\"none\",\"shape\":[],\"hex\":\"\"}";
      continue;
    }
    if (next >= outcome.outputs.size()) break;
    const Tensor& t = outcome.outputs[next++];
    os << (i ? "," : "") << "{\"dtype\":" << JsonString(DataTypeString(t.dtype())) << ",\"shape\":[";
    for (int d = 0; d < t.dims(); ++d) os << (d ? "," : "") << t.dim_size(d);
    os << "],\"hex\":\"";
    if (DataTypeIsFixedSize(t.dtype())) os << Hex(t.data(), t.TotalBytes());
    os << "\"}";
  }
  os << "]}\n";
}

Status ReadCases(const std::string& path, std::vector<Case>* cases) {
  std::string bytes;
  TA_RETURN_IF_ERROR(ReadFileToString(path, &bytes));
  size_t at = 0;
  while (at < bytes.size()) {
    if (bytes.size() - at < 4) return errors::DataLoss(path, ": a record's length is cut short at byte ", at);
    uint32_t size = 0;
    for (int b = 3; b >= 0; --b) size = (size << 8) | static_cast<unsigned char>(bytes[at + b]);
    at += 4;
    if (bytes.size() - at < size) return errors::DataLoss(path, ": a record is cut short at byte ", at);
    tensorflow::RunStepRequest request;
    if (!request.ParseFromArray(bytes.data() + at, static_cast<int>(size))) {
      return errors::DataLoss(path, ": the record at byte ", at, " is not a RunStepRequest");
    }
    at += size;
    Case c;
    c.id = request.request_id();
    c.key = request.session_handle();
    for (const auto& feed : request.feed()) {
      StatusOr<Tensor> t = Tensor::FromProto(feed.tensor());
      if (!t.ok()) return t.status().WithContext(StrCat(path, ": case ", c.id, " feed ", feed.name()));
      c.feeds.emplace_back(feed.name(), std::move(t).value());
    }
    c.fetches.assign(request.fetch().begin(), request.fetch().end());
    cases->push_back(std::move(c));
  }
  return Status::OK();
}

// The nodes of `graph` that belong to the cases in `ids` (by name scope).
tensorflow::GraphDef NodesOf(const tensorflow::GraphDef& graph, const std::set<int64_t>& ids) {
  tensorflow::GraphDef out;
  *out.mutable_versions() = graph.versions();
  *out.mutable_library() = graph.library();
  for (const auto& node : graph.node()) {
    const std::string& name = node.name();
    if (name.size() < 3 || name[0] != 'c') continue;
    size_t slash = name.find('/');
    if (slash == std::string::npos) continue;
    int64_t id = std::strtoll(name.c_str() + 1, nullptr, 10);
    if (ids.count(id)) *out.add_node() = node;
  }
  return out;
}

// The first case id a Create error names, or -1.
int64_t CaseNamedBy(const Status& s, const std::set<int64_t>& ids) {
  static const std::regex node_name("\\bc([0-9]+)/");
  const std::string& message = s.message();
  for (auto it = std::sregex_iterator(message.begin(), message.end(), node_name); it != std::sregex_iterator(); ++it) {
    int64_t id = std::stoll((*it)[1].str());
    if (ids.count(id)) return id;
  }
  return -1;
}

// Runs batches on sessions of one server. Steps are what cost (each new set of feeds and
// fetches builds an executor, a few ms), and a failing step says nothing about its other
// cases, so the runner learns: a case whose graph is refused or whose step fails marks its
// key, and later cases with a marked key get a session or a step of their own instead of
// sinking a shared one.
class BatchRunner {
 public:
  explicit BatchRunner(LocalServer& server) : server_(server) {}

  // Runs every case of the batch into `outcomes` (by id).
  void Run(const tensorflow::GraphDef& graph, const std::vector<Case>& cases, bool alone,
           std::map<int64_t, Outcome>* outcomes) {
    std::set<int64_t> ids;
    std::vector<const Case*> own_session;
    for (const Case& c : cases) {
      if (refused_keys_.count(c.key)) own_session.push_back(&c);
      else ids.insert(c.id);
    }
    std::unique_ptr<Session> session;
    // Create, dropping each case a refusal names (and the others of its key), until the
    // rest is accepted.
    while (!ids.empty()) {
      StatusOr<std::unique_ptr<Session>> made = Session::New(server_);
      if (!made.ok()) {
        for (int64_t id : ids) (*outcomes)[id] = Outcome{made.status(), "create", {}};
        return;
      }
      session = std::move(made).value();
      Status s = session->Create(NodesOf(graph, ids));
      if (s.ok()) break;
      session.reset();
      const int64_t named = CaseNamedBy(s, ids);
      if (named < 0) {
        for (const Case& c : cases) {
          if (ids.count(c.id)) own_session.push_back(&c);
        }
        ids.clear();
        break;
      }
      (*outcomes)[named] = Outcome{s, "create", {}};
      ids.erase(named);
      const Case* refused = nullptr;
      for (const Case& c : cases) {
        if (c.id == named) refused = &c;
      }
      refused_keys_.insert(refused->key);
      for (const Case& c : cases) {
        if (ids.count(c.id) && c.key == refused->key) {
          own_session.push_back(&c);
          ids.erase(c.id);
        }
      }
    }
    for (const Case* c : own_session) RunInItsOwnSession(graph, *c, outcomes);
    if (ids.empty()) return;
    std::vector<const Case*> together, apart;
    for (const Case& c : cases) {
      if (!ids.count(c.id)) continue;
      (alone || failed_keys_.count(c.key) ? apart : together).push_back(&c);
    }
    // A case expected to fail runs in a session of its own nodes: a step of one case on the
    // batch's session is a new signature there, whose pruning walks the whole batch graph.
    for (const Case* c : apart) RunInItsOwnSession(graph, *c, outcomes);
    RunLearning(*session, graph, together, outcomes);
  }

 private:
  void RunInItsOwnSession(const tensorflow::GraphDef& graph, const Case& c, std::map<int64_t, Outcome>* outcomes) {
    StatusOr<std::unique_ptr<Session>> made = Session::New(server_);
    if (!made.ok()) {
      (*outcomes)[c.id] = Outcome{made.status(), "create", {}};
      return;
    }
    Status s = (*made)->Create(NodesOf(graph, {c.id}));
    if (!s.ok()) {
      (*outcomes)[c.id] = Outcome{s, "create", {}};
      return;
    }
    Step(**made, {&c}, outcomes);
  }

  // One step for `group`; while it fails naming one of its cases, that case and the others
  // of its key run alone and the rest again. A failure naming none is split in halves.
  void RunLearning(Session& session, const tensorflow::GraphDef& graph, std::vector<const Case*> group,
                   std::map<int64_t, Outcome>* outcomes) {
    while (!group.empty()) {
      Status s = Step(session, group, outcomes);
      if (s.ok() || group.size() == 1) return;
      std::set<int64_t> ids;
      for (const Case* c : group) ids.insert(c->id);
      const int64_t named = CaseNamedBy(s, ids);
      if (named < 0) {
        Bisect(session, group, outcomes);
        return;
      }
      std::string key;
      for (const Case* c : group) {
        if (c->id == named) key = c->key;
      }
      failed_keys_.insert(key);
      std::vector<const Case*> rest;
      for (const Case* c : group) {
        if (c->key == key) RunInItsOwnSession(graph, *c, outcomes);
        else rest.push_back(c);
      }
      group = std::move(rest);
    }
  }

  void Bisect(Session& session, const std::vector<const Case*>& group, std::map<int64_t, Outcome>* outcomes) {
    if (Step(session, group, outcomes).ok() || group.size() == 1) return;
    const size_t half = group.size() / 2;
    Bisect(session, {group.begin(), group.begin() + half}, outcomes);
    Bisect(session, {group.begin() + half, group.end()}, outcomes);
  }

  // One step fetching every case of `group`: their outcomes when it succeeds (or when it
  // holds one case); the step's status either way.
  Status Step(Session& session, const std::vector<const Case*>& group, std::map<int64_t, Outcome>* outcomes) {
    std::vector<std::pair<std::string, Tensor>> feeds;
    std::vector<std::string> fetches;
    for (const Case* c : group) {
      feeds.insert(feeds.end(), c->feeds.begin(), c->feeds.end());
      fetches.insert(fetches.end(), c->fetches.begin(), c->fetches.end());
    }
    if (trace_) {
      std::cerr << "fidelity_tool: step of " << group.size() << " cases:";
      for (const Case* c : group) std::cerr << " " << c->id;
      std::cerr << std::endl;
    }
    std::vector<Tensor> outputs;
    RunOptions options;
    options.timeout_ms = kStepTimeoutMs;
    Status s = session.Run(options, feeds, fetches, {}, &outputs);
    if (s.ok()) {
      size_t at = 0;
      for (const Case* c : group) {
        Outcome& o = (*outcomes)[c->id];
        o.outputs.assign(outputs.begin() + at, outputs.begin() + at + c->fetches.size());
        at += c->fetches.size();
      }
    } else if (group.size() == 1) {
      (*outcomes)[group[0]->id] = Outcome{s, "run", {}};
    }
    return s;
  }

  // A step that hangs is a finding, not a reason to stop: it fails with DEADLINE_EXCEEDED
  // (and its cases are split and retried like any failing step's).
  static constexpr int64_t kStepTimeoutMs = 60 * 1000;
  LocalServer& server_;
  std::set<std::string> refused_keys_;  // a case of the key was refused by Create
  std::set<std::string> failed_keys_;   // a case of the key failed its step
  const bool trace_ = std::getenv("FIDELITY_TOOL_TRACE") != nullptr;  // each step's cases on stderr
};

// ---- gradient cases -----------------------------------------------------------------

struct GradSpec {
  std::vector<std::string> xs, ys, grad_ys;  // tensor names, "node:k"
};

std::vector<std::string> SplitNames(const std::string& field) {
  std::vector<std::string> out;
  std::istringstream in(field);
  std::string name;
  while (in >> name) out.push_back(name);
  return out;
}

Status ReadGradSpecs(const std::string& path, std::map<int64_t, GradSpec>* specs) {
  std::ifstream in(path);
  if (!in) return errors::NotFound("cannot read ", path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::vector<std::string> fields;
    size_t at = 0;
    for (size_t tab; (tab = line.find('\t', at)) != std::string::npos; at = tab + 1) {
      fields.push_back(line.substr(at, tab - at));
    }
    fields.push_back(line.substr(at));
    if (fields.size() != 4) return errors::DataLoss(path, ": a line without 4 tab-separated fields: ", line);
    GradSpec& spec = (*specs)[std::strtoll(fields[0].c_str(), nullptr, 10)];
    spec.xs = SplitNames(fields[1]);
    spec.ys = SplitNames(fields[2]);
    spec.grad_ys = SplitNames(fields[3]);
  }
  return Status::OK();
}

StatusOr<Output> TensorNamed(const Graph& graph, const std::string& name) {
  const size_t colon = name.rfind(':');
  Node* node = graph.FindNode(colon == std::string::npos ? name : name.substr(0, colon));
  const int index = colon == std::string::npos ? 0 : std::atoi(name.c_str() + colon + 1);
  if (node == nullptr || index >= node->num_outputs()) return errors::NotFound("no tensor ", name, " in the graph");
  return Output(node, index);
}

// The batch's forward graph with each case's gradient nodes added; `runnable` gets the
// cases that reached a step, their fetches the gradients. The others get their outcome.
tensorflow::GraphDef AddGradients(const tensorflow::GraphDef& graph, const std::map<int64_t, GradSpec>& specs,
                                  std::vector<Case>* cases, std::vector<Case>* runnable,
                                  std::map<int64_t, Outcome>* outcomes) {
  std::set<int64_t> ids;
  for (const Case& c : *cases) ids.insert(c.id);
  // Import what this process accepts: a refusal naming a case is that case's outcome.
  std::unique_ptr<Scope> root;
  while (!ids.empty()) {
    StatusOr<Scope> imported = Scope::FromGraphDef(NodesOf(graph, ids));
    if (imported.ok()) {
      root = std::make_unique<Scope>(std::move(imported).value());
      break;
    }
    const int64_t named = CaseNamedBy(imported.status(), ids);
    if (named < 0) {
      for (int64_t id : ids) (*outcomes)[id] = Outcome{imported.status(), "create", {}};
      ids.clear();
      break;
    }
    (*outcomes)[named] = Outcome{imported.status(), "create", {}};
    ids.erase(named);
  }
  tensorflow::GraphDef out;
  if (root == nullptr) return out;
  for (Case& c : *cases) {
    if (!ids.count(c.id)) continue;
    auto spec = specs.find(c.id);
    Status s = spec == specs.end() ? errors::NotFound("no gradient spec for case ", c.id) : Status::OK();
    std::vector<Output> xs, ys, grad_ys, grads;
    auto resolve = [&](const std::vector<std::string>& names, std::vector<Output>* into) {
      for (const std::string& name : names) {
        if (!s.ok()) return;
        StatusOr<Output> t = TensorNamed(*root->graph(), name);
        if (t.ok()) into->push_back(*t);
        else s = t.status();
      }
    };
    if (s.ok()) {
      resolve(spec->second.xs, &xs);
      resolve(spec->second.ys, &ys);
      resolve(spec->second.grad_ys, &grad_ys);
    }
    if (s.ok()) s = AddSymbolicGradients(root->NewSubScope(StrCat("c", c.id)), ys, xs, grad_ys, &grads);
    if (!s.ok()) {
      // The nodes it did add stay unfetched; the recorded error must not sink the next case.
      root->ClearStatus();
      (*outcomes)[c.id] = Outcome{s, "gradient", {}};
      continue;
    }
    c.fetches.clear();
    c.none_at.clear();
    for (const Output& g : grads) {
      c.none_at.push_back(g.node == nullptr);
      if (g.node != nullptr) c.fetches.push_back(g.name());
    }
    runnable->push_back(c);
  }
  Status s = root->ToGraphDef(&out);
  if (!s.ok()) {
    for (const Case& c : *runnable) (*outcomes)[c.id] = Outcome{s, "gradient", {}};
    runnable->clear();
  }
  return out;
}

bool HasGpuDevice(const LocalServer& server) {
  for (const auto& device : server.devices()) {
    if (device->device_type() == DEVICE_GPU) return true;
  }
  return false;
}

int RunManifest(bool gpu, const std::string& manifest_path, const std::string& out_path) {
  std::ifstream manifest(manifest_path);
  if (!manifest) {
    std::cerr << "fidelity_tool: cannot read " << manifest_path << "\n";
    return 1;
  }
  std::ofstream out(out_path);
  if (!out) {
    std::cerr << "fidelity_tool: cannot write " << out_path << "\n";
    return 1;
  }
  SessionOptions options;
  if (!gpu) options.gpu.visible_device_list = "none";
  StatusOr<std::unique_ptr<LocalServer>> server = LocalServer::New(options);
  if (!server.ok()) {
    std::cerr << "fidelity_tool: " << server.status().ToString() << "\n";
    return 1;
  }
  if (gpu && !HasGpuDevice(**server)) {
    std::cerr << "fidelity_tool: --device gpu, but this machine has no GPU device\n";
    return 1;
  }
  BatchRunner runner(**server);
  std::string line;
  while (std::getline(manifest, line)) {
    std::istringstream fields(line);
    std::string graph_path, cases_path, grads_path;
    int alone = 0;
    if (!(fields >> graph_path >> cases_path >> alone)) continue;
    fields >> grads_path;
    tensorflow::GraphDef graph;
    std::vector<Case> cases;
    std::map<int64_t, GradSpec> specs;
    Status s = ReadBinaryProto(graph_path, &graph);
    if (s.ok()) s = ReadCases(cases_path, &cases);
    if (s.ok() && !grads_path.empty()) s = ReadGradSpecs(grads_path, &specs);
    if (!s.ok()) {
      std::cerr << "fidelity_tool: " << s.ToString() << "\n";
      return 1;
    }
    std::map<int64_t, Outcome> outcomes;
    if (grads_path.empty()) {
      runner.Run(graph, cases, alone != 0, &outcomes);
    } else {
      std::vector<Case> runnable;
      const tensorflow::GraphDef with_grads = AddGradients(graph, specs, &cases, &runnable, &outcomes);
      runner.Run(with_grads, runnable, alone != 0, &outcomes);
    }
    for (const Case& c : cases) WriteOutcome(c, outcomes[c.id], out);
    out.flush();
  }
  return 0;
}

}  // namespace
}  // namespace tensoract

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  // "--device D" right after the command: which device's kernels are listed or run.
  std::string device = "cpu";
  if (args.size() >= 3 && args[1] == "--device") {
    device = args[2];
    args.erase(args.begin() + 1, args.begin() + 3);
  }
  const bool gpu = device == "gpu" || device == "GPU";
  if (device != "cpu" && device != "CPU" && !gpu) {
    std::cerr << "fidelity_tool: --device must be cpu or gpu, not '" << device << "'\n";
    return 2;
  }
  if (args.size() >= 2 && args[0] == "kernels" && args[1] == "--handles") {
    tensoract::probe_handles = true;
    args.erase(args.begin() + 1);
  }
  if (!args.empty() && args[0] == "kernels") {
    return tensoract::ListKernels(gpu ? tensoract::DEVICE_GPU : tensoract::DEVICE_CPU, {args.begin() + 1, args.end()});
  }
  if (args.size() == 3 && args[0] == "run") return tensoract::RunManifest(gpu, args[1], args[2]);
  if (args.size() == 1 && args[0] == "gradients") return tensoract::ListGradients();
  std::cerr << "usage: fidelity_tool kernels [--device cpu|gpu] [--handles] [OP...]\n"
               "       fidelity_tool run [--device cpu|gpu] MANIFEST OUT\n"
               "       fidelity_tool gradients\n";
  return 2;
}
