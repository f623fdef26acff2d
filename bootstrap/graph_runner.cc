#include "bootstrap/graph_runner.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <memory>
#include <set>
#include <sstream>
#include <type_traits>

#include "client/saved_model.h"
#include "client/session.h"
#include "base/json_string.h"
#include "base/proto_io.h"
#include "base/types.h"

namespace tensoract {
namespace {

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::stringstream in(s);
  std::string part;
  while (std::getline(in, part, sep)) parts.push_back(part);
  return parts;
}

// One element of type T from text; false when it is not a number of that type (or out of
// its range). strto* rather than sto*: no exceptions, and the end pointer tells whether
// the whole text was used.
template <class T>
bool ParseElement(const std::string& text, T* out) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text[0]))) return false;
  char* end = nullptr;
  errno = 0;
  if constexpr (std::is_same_v<T, bool>) {
    if (text == "true" || text == "1") return *out = true, true;
    if (text == "false" || text == "0") return *out = false, true;
    return false;
  } else if constexpr (std::is_floating_point_v<T>) {
    // ERANGE on underflow still gives the nearest value (a denormal or 0), as TF would.
    T v = std::is_same_v<T, float> ? std::strtof(text.c_str(), &end) : std::strtod(text.c_str(), &end);
    if (errno == ERANGE && std::isinf(v)) return false;
    *out = v;
  } else if constexpr (std::is_signed_v<T>) {
    long long v = std::strtoll(text.c_str(), &end, 10);
    if (errno == ERANGE || v < std::numeric_limits<T>::min() || v > std::numeric_limits<T>::max()) return false;
    *out = static_cast<T>(v);
  } else {
    if (text[0] == '-') return false;
    unsigned long long v = std::strtoull(text.c_str(), &end, 10);
    if (errno == ERANGE || v > std::numeric_limits<T>::max()) return false;
    *out = static_cast<T>(v);
  }
  return end == text.c_str() + text.size();
}

template <class T>
StatusOr<Tensor> MakeTensor(const std::vector<std::string>& parts, const TensorShape& shape, const std::string& text) {
  if (shape.num_elements() != static_cast<int64_t>(parts.size())) {
    return errors::InvalidArgument("feed '", text, "' has ", parts.size(), " values but shape ", shape.DebugString(),
                                   " holds ", shape.num_elements());
  }
  std::vector<T> values(parts.size());
  for (size_t i = 0; i < parts.size(); ++i) {
    T v{};
    if (!ParseElement(parts[i], &v)) {
      return errors::InvalidArgument("feed value '", parts[i], "' in '", text, "' is not a valid ",
                                     DataTypeString(DataTypeToEnum<T>::value));
    }
    values[i] = v;
  }
  return Tensor::FromVector(values, shape);
}

// Calls fn(T{}) with the C++ type of the dtypes a feed or a JSON fetch may have; false for
// any other dtype.
template <class Fn>
bool VisitSimpleType(DataType dtype, Fn&& fn) {
  switch (dtype) {
    case tensorflow::DT_FLOAT: fn(float{}); return true;
    case tensorflow::DT_DOUBLE: fn(double{}); return true;
    case tensorflow::DT_INT8: fn(int8_t{}); return true;
    case tensorflow::DT_INT16: fn(int16_t{}); return true;
    case tensorflow::DT_INT32: fn(int32_t{}); return true;
    case tensorflow::DT_INT64: fn(int64_t{}); return true;
    case tensorflow::DT_UINT8: fn(uint8_t{}); return true;
    case tensorflow::DT_UINT16: fn(uint16_t{}); return true;
    case tensorflow::DT_UINT32: fn(uint32_t{}); return true;
    case tensorflow::DT_UINT64: fn(uint64_t{}); return true;
    case tensorflow::DT_BOOL: fn(bool{}); return true;
    default: return false;
  }
}

template <class T>
void JsonElement(std::ostream& os, T v) {
  if constexpr (std::is_same_v<T, bool>) {
    os << (v ? "true" : "false");
  } else if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(v)) {
      os << "NaN";
    } else if (std::isinf(v)) {
      os << (v > 0 ? "Infinity" : "-Infinity");
    } else {
      os.precision(std::numeric_limits<T>::max_digits10);  // round-trips exactly
      os << v;
    }
  } else {
    os << +v;  // int8/uint8 as numbers, not characters
  }
}

bool IsStepFlag(const std::string& flag) {
  return flag == "--feed" || flag == "--feed-proto" || flag == "--fetch" || flag == "--target";
}

void PrintStepError(const GraphRunSpec& spec, size_t step, const Status& s, std::ostream& out, std::ostream& err) {
  if (spec.json) {
    out << "{\"run\":" << step << ",\"code\":" << JsonString(ErrorCodeName(s.code()))
        << ",\"message\":" << JsonString(s.message()) << "}\n";
  } else {
    err << "run " << step << ": " << s << "\n";
  }
}

}  // namespace

StatusOr<Tensor> ParseFeedValue(const std::string& text) {
  std::string values = text, shape_text;
  bool has_shape = false;
  if (size_t at = text.find('@'); at != std::string::npos) {
    values = text.substr(0, at);
    shape_text = text.substr(at + 1);
    has_shape = true;
  }
  DataType dtype = tensorflow::DT_FLOAT;
  if (size_t colon = values.find(':'); colon != std::string::npos) {
    std::string name = values.substr(0, colon);
    if (!DataTypeFromString(name, &dtype)) {
      return errors::InvalidArgument("'", name, "' in feed '", text, "' is not a dtype (float, double, int32, ...)");
    }
    values = values.substr(colon + 1);
  }
  std::vector<std::string> parts = values.empty() ? std::vector<std::string>{} : Split(values, ',');
  if (!values.empty() && values.back() == ',') parts.push_back("");  // "1,2," has an empty value
  std::vector<int64_t> dims;
  if (!has_shape) {
    dims.push_back(static_cast<int64_t>(parts.size()));
  } else if (!shape_text.empty() && shape_text != "[]") {
    for (const std::string& d : Split(shape_text, 'x')) {
      int64_t size = 0;
      if (!ParseElement(d, &size)) {
        return errors::InvalidArgument("shape '", shape_text, "' in '", text, "' is not like 2x3");
      }
      dims.push_back(size);
    }
  }
  TA_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::FromDims(dims));
  if (dtype == tensorflow::DT_RESOURCE && parts.empty()) {
    return Tensor(dtype, shape);  // handles naming nothing: TensorFlow's ordering tokens
  }
  StatusOr<Tensor> result = errors::InvalidArgument("feed '", text, "': dtype ", DataTypeString(dtype),
                                                    " cannot be fed from the command line");
  VisitSimpleType(dtype, [&](auto zero) { result = MakeTensor<decltype(zero)>(parts, shape, text); });
  return result;
}

StatusOr<std::pair<std::string, Tensor>> ParseFeed(const std::string& text) {
  size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) {
    return errors::InvalidArgument("feed '", text, "' is not name=[dtype:]values[@shape]");
  }
  TA_ASSIGN_OR_RETURN(Tensor t, ParseFeedValue(text.substr(eq + 1)));
  return std::make_pair(text.substr(0, eq), t);
}

StatusOr<RunStepSpec> ParseRunStep(const std::string& text) {
  RunStepSpec step;
  std::istringstream in(text);
  std::string item;
  while (in >> item) {
    size_t eq = item.find('=');
    std::string key = item.substr(0, eq), value = eq == std::string::npos ? "" : item.substr(eq + 1);
    if (eq == std::string::npos || value.empty()) {
      return errors::InvalidArgument("'", item, "' in --run '", text, "' is not feed=..., feed-proto=..., fetch=... or target=...");
    }
    if (key == "feed") {
      TA_ASSIGN_OR_RETURN(auto feed, ParseFeed(value));
      step.feeds.push_back(std::move(feed));
    } else if (key == "feed-proto") {
      TA_ASSIGN_OR_RETURN(auto feed, ParseProtoFeed(value));
      step.feeds.push_back(std::move(feed));
    } else if (key == "fetch" || key == "target") {
      auto& names = key == "fetch" ? step.fetches : step.targets;
      for (const std::string& name : Split(value, ',')) {
        if (name.empty()) return errors::InvalidArgument("empty name in '", item, "' of --run '", text, "'");
        names.push_back(name);
      }
    } else {
      return errors::InvalidArgument("unknown key '", key, "' in --run '", text, "' (known: feed feed-proto fetch target)");
    }
  }
  return step;
}

StatusOr<GraphRunSpec> ParseGraphRunArgs(const std::vector<std::string>& args) {
  GraphRunSpec spec;
  RunStepSpec single;
  bool single_used = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& flag = args[i];
    if (flag == "--json") {
      spec.json = true;
      continue;
    }
    if (flag == "--keep-going") {
      spec.keep_going = true;
      continue;
    }
    if (i + 1 >= args.size()) return errors::InvalidArgument("flag '", flag, "' needs a value");
    const std::string& value = args[++i];
    if (flag == "--graph") {
      spec.graph_path = value;
    } else if (flag == "--saved-model") {
      spec.saved_model_dir = value;
    } else if (flag == "--signature") {
      spec.signature = value;
    } else if (flag == "--tag-set") {
      spec.tag_set = value;
    } else if (flag == "--server") {
      if (value.rfind("tensoract://", 0) != 0) {
        return errors::InvalidArgument("--server wants tensoract://host:port, got '", value, "'");
      }
      spec.server = value;
    } else if (flag == "--token-file") {
      spec.token_file = value;
    } else if (flag == "--cpu-devices") {
      char* end = nullptr;
      const long n = std::strtol(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0' || n < 1 || n > 64) {
        return errors::InvalidArgument("--cpu-devices wants a number from 1 to 64, got '", value, "'");
      }
      spec.cpu_devices = static_cast<int>(n);
    } else if (flag == "--run") {
      TA_ASSIGN_OR_RETURN(RunStepSpec step, ParseRunStep(value));
      spec.steps.push_back(std::move(step));
      spec.multi_step = true;
    } else if (IsStepFlag(flag)) {
      single_used = true;
      if (flag == "--fetch") {
        single.fetches.push_back(value);
      } else if (flag == "--target") {
        single.targets.push_back(value);
      } else if (flag == "--feed-proto") {
        TA_ASSIGN_OR_RETURN(auto feed, ParseProtoFeed(value));
        single.feeds.push_back(std::move(feed));
      } else {
        TA_ASSIGN_OR_RETURN(auto feed, ParseFeed(value));
        single.feeds.push_back(std::move(feed));
      }
    } else {
      return errors::InvalidArgument("unknown flag '", flag,
                                     "' (known: --graph --saved-model --signature --tag-set --cpu-devices --server "
                                     "--token-file --feed --feed-proto --fetch --target --run --json --keep-going "
                                     "--help)");
    }
  }
  if (spec.graph_path.empty() == spec.saved_model_dir.empty()) {
    return errors::InvalidArgument("one of --graph and --saved-model is required");
  }
  if (single_used && spec.multi_step) {
    return errors::InvalidArgument("--feed/--fetch/--target describe a single step; with --run put them in each --run");
  }
  if (!spec.multi_step) spec.steps.push_back(std::move(single));
  return spec;
}

std::string TensorToJson(const Tensor& t) {
  std::ostringstream os;
  os << "{\"dtype\":" << JsonString(DataTypeString(t.dtype())) << ",\"shape\":[";
  for (int d = 0; d < t.dims(); ++d) os << (d ? "," : "") << t.dim_size(d);
  os << "],\"values\":";
  bool known = VisitSimpleType(t.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const T* p = t.base<T>();
    os << '[';
    for (int64_t i = 0; i < t.NumElements(); ++i) {
      if (i) os << ',';
      JsonElement(os, p[i]);
    }
    os << ']';
  });
  if (!known && t.dtype() == tensorflow::DT_STRING) {
    const std::string* p = t.base<std::string>();
    os << '[';
    for (int64_t i = 0; i < t.NumElements(); ++i) os << (i ? "," : "") << JsonString(p[i]);
    os << ']';
    known = true;
  }
  // Other dtypes (half, resources...) as TensorFlow would print them.
  if (!known) os << "null,\"text\":" << JsonString(t.SummarizeValue(t.NumElements()));
  os << '}';
  return os.str();
}

StatusOr<std::pair<std::string, Tensor>> ParseProtoFeed(const std::string& text) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) return errors::InvalidArgument("--feed-proto '", text, "' is not NAME=FILE");
  tensorflow::TensorProto proto;
  TA_RETURN_IF_ERROR(ReadBinaryProto(text.substr(eq + 1), &proto));
  StatusOr<Tensor> t = Tensor::FromProto(proto);
  if (!t.ok()) return t.status().WithContext(StrCat("--feed-proto ", text));
  return std::make_pair(text.substr(0, eq), std::move(t).value());
}

Status RunGraphFile(const GraphRunSpec& spec, std::ostream& out, std::ostream& err) {
  std::unique_ptr<Session> session;
  std::unique_ptr<SavedModelBundle> bundle;
  if (!spec.saved_model_dir.empty()) {
    std::set<std::string> tags;
    for (const std::string& t : Split(spec.tag_set, ',')) tags.insert(t);
    TA_ASSIGN_OR_RETURN(bundle, LoadSavedModel(spec.saved_model_dir, tags));
  } else {
    tensorflow::GraphDef graph;
    TA_RETURN_IF_ERROR(ReadProto(spec.graph_path, &graph));
    SessionOptions options;
    options.num_cpu_devices = spec.cpu_devices;
    if (!spec.server.empty()) {
      options.target = spec.server;
      if (!spec.token_file.empty()) {
        std::ifstream in(spec.token_file);
        if (!in || !std::getline(in, options.cluster_token)) {
          return errors::InvalidArgument("--token-file: cannot read '", spec.token_file, "'");
        }
      } else if (const char* token = std::getenv("TENSORACT_CLUSTER_TOKEN")) {
        options.cluster_token = token;
      }
    }
    TA_ASSIGN_OR_RETURN(session, Session::New(options));
    TA_RETURN_IF_ERROR(session->Create(graph));
  }
  Status first_error;
  size_t failed = 0;
  for (size_t step = 0; step < spec.steps.size(); ++step) {
    RunStepSpec run = spec.steps[step];
    std::vector<Tensor> outputs;
    Status s;
    if (bundle != nullptr) {
      std::vector<std::pair<std::string, Tensor>> named;
      s = run.targets.empty() ? bundle->Run(spec.signature, run.feeds, &named, run.fetches)
                              : errors::InvalidArgument("a SavedModel's signature has no targets");
      run.fetches.clear();
      for (auto& [key, value] : named) {
        run.fetches.push_back(key);
        outputs.push_back(std::move(value));
      }
    } else {
      s = session->Run(run.feeds, run.fetches, run.targets, &outputs);
    }
    if (!s.ok()) {
      if (!spec.keep_going) {
        if (spec.json) PrintStepError(spec, step, s, out, err);
        return spec.multi_step ? s.WithContext(StrCat("run ", step)) : s;
      }
      PrintStepError(spec, step, s, out, err);
      if (first_error.ok()) first_error = s.WithContext(StrCat("run ", step));
      ++failed;
      continue;
    }
    if (spec.json) {
      out << "{\"run\":" << step << ",\"code\":\"OK\",\"fetches\":[";
      for (size_t i = 0; i < outputs.size(); ++i) {
        std::string tensor = TensorToJson(outputs[i]);
        out << (i ? "," : "") << "{\"name\":" << JsonString(run.fetches[i]) << "," << tensor.substr(1);
      }
      out << "]}\n";
    } else {
      for (size_t i = 0; i < outputs.size(); ++i) {
        if (spec.multi_step) out << "run " << step << ": ";
        // DebugString's format with every value, not its first few.
        const Tensor& t = outputs[i];
        out << run.fetches[i] << " = Tensor<type: " << DataTypeString(t.dtype()) << " shape: "
            << t.shape().DebugString() << " values: " << t.SummarizeValue(t.NumElements()) << ">\n";
      }
    }
    out.flush();
  }
  if (failed == 0) return Status::OK();
  // Each error was reported as it happened; this only sums them up.
  return Status(first_error.code(), StrCat(failed, " of ", spec.steps.size(), " steps failed; the first: ",
                                           first_error.message()));
}

std::string GraphRunUsage() {
  return R"(usage: tensoract-run --graph FILE [--cpu-devices N] [--json] [--keep-going] STEPS
       tensoract-run --saved-model DIR [--tag-set serve] [--signature serving_default] STEPS
Runs steps of a TensorFlow GraphDef (text if FILE ends in .pbtxt or .txt, else binary),
or of a SavedModel's signature (feeds and fetches named by its keys; no --fetch: all).
--cpu-devices N: the session has CPU:0 .. CPU:N-1 (for graphs placed on several).
--server tensoract://HOST:PORT [--token-file F]: a session on that node's master instead
(token from F or $TENSORACT_CLUSTER_TOKEN).

STEPS is either one step:
  [--feed NAME=[DTYPE:]VALUES[@SHAPE]]... [--fetch TENSOR]... [--target NODE]...
or several, run in order on one session (variables keep their values between them):
  --run 'feed=NAME=[DTYPE:]VALUES[@SHAPE] fetch=T1,T2 target=N1,N2' --run '...' ...

  --feed-proto NAME=FILE   feeds a binary TensorProto (any dtype, strings too); in --run:
                           feed-proto=NAME=FILE
  NAME, TENSOR  "node" or "node:port"      DTYPE  float (default), double, int8, int16,
  VALUES  1,-2.5,3e4 (nan, inf)                   int32, int64, uint8..uint64, bool
  SHAPE   2x3; none: a vector; "@" alone: a scalar; resource:@ a handle naming nothing
  e.g.  --run 'target=init' --run 'feed=x=1,2@1x2 feed=n=int32:3@ fetch=y:0,w/read'

Output: "name = Tensor<...>" per fetch ("run N: name = ..." with --run); with --json one
JSON object per step and line: {"run":N,"code":"OK","fetches":[{"name","dtype","shape",
"values"}]} (values flat, full precision) or {"run":N,"code":"...","message":"..."}.
The first failing step ends the run unless --keep-going.
Exit status: 0 success, 1 a load or step error, 2 a bad command line.
)";
}

}  // namespace tensoract
