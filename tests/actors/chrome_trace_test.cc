// Step statistics as Chrome trace-event JSON (actors/chrome_trace.h): the structure a
// viewer needs, the arrow of a transfer, escaping, determinism, a real step's every node.
//
// With TENSORACT_CHROME_TRACE_DIR set, the tests also leave their traces there
// (hand_built_trace.json, session_trace.json) for tests/compat/validate_chrome_trace.py.
#include "actors/chrome_trace.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "base/proto_io.h"
#include "graph/builder/ops.h"
#include "tests/actors/test_util.h"

namespace tensoract {
namespace {

// Just enough JSON to read back what the converter writes, so the checks look at parsed
// values rather than substrings.
struct Json {
  enum Kind { kNull, kBool, kNumber, kString, kArray, kObject } kind = kNull;
  bool boolean = false;
  double number = 0;
  std::string str;
  std::vector<Json> items;
  std::vector<std::pair<std::string, Json>> fields;

  bool Has(const std::string& key) const {
    for (const auto& f : fields) {
      if (f.first == key) return true;
    }
    return false;
  }
  const Json& operator[](const std::string& key) const {
    for (const auto& f : fields) {
      if (f.first == key) return f.second;
    }
    FAIL("JSON object has no field '" << key << "'");
    static const Json none;
    return none;
  }
};

class JsonReader {
 public:
  explicit JsonReader(const std::string& text) : s_(text) {}

  // False, with error() saying where, on anything that is not one complete JSON value.
  bool Read(Json* out) {
    if (!Value(out)) return false;
    Space();
    return pos_ == s_.size() || Fail("trailing characters");
  }
  const std::string& error() const { return error_; }

 private:
  bool Fail(const std::string& what) {
    if (error_.empty()) error_ = what + " at offset " + std::to_string(pos_);
    return false;
  }
  void Space() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\r' || s_[pos_] == '\t')) ++pos_;
  }
  bool Literal(const char* word) {
    const std::string w(word);
    if (s_.compare(pos_, w.size(), w) != 0) return Fail("bad literal");
    pos_ += w.size();
    return true;
  }
  bool Value(Json* out) {
    Space();
    if (pos_ >= s_.size()) return Fail("unexpected end");
    const char c = s_[pos_];
    if (c == '{') return Object(out);
    if (c == '[') return Array(out);
    if (c == '"') {
      out->kind = Json::kString;
      return String(&out->str);
    }
    if (c == 't' || c == 'f') {
      out->kind = Json::kBool;
      out->boolean = c == 't';
      return Literal(c == 't' ? "true" : "false");
    }
    if (c == 'n') return Literal("null");
    return Number(out);
  }
  bool Number(Json* out) {
    const size_t start = pos_;
    if (pos_ < s_.size() && s_[pos_] == '-') ++pos_;
    while (pos_ < s_.size() && std::string("0123456789.eE+-").find(s_[pos_]) != std::string::npos) ++pos_;
    if (pos_ == start) return Fail("unexpected character");
    out->kind = Json::kNumber;
    out->number = std::stod(s_.substr(start, pos_ - start));
    return true;
  }
  bool String(std::string* out) {
    ++pos_;  // the opening quote
    while (pos_ < s_.size() && s_[pos_] != '"') {
      const unsigned char c = s_[pos_++];
      if (c < 0x20) return Fail("raw control character in a string");
      if (c != '\\') {
        out->push_back(static_cast<char>(c));
        continue;
      }
      if (pos_ >= s_.size()) return Fail("unterminated escape");
      const char e = s_[pos_++];
      switch (e) {
        case '"': case '\\': case '/': out->push_back(e); break;
        case 'b': out->push_back('\b'); break;
        case 'f': out->push_back('\f'); break;
        case 'n': out->push_back('\n'); break;
        case 'r': out->push_back('\r'); break;
        case 't': out->push_back('\t'); break;
        case 'u': {
          if (pos_ + 4 > s_.size()) return Fail("short \\u escape");
          const unsigned cp = std::stoul(s_.substr(pos_, 4), nullptr, 16);
          pos_ += 4;
          // The converter writes only BMP code points this way (\u00XX, \ufffd).
          if (cp < 0x80) {
            out->push_back(static_cast<char>(cp));
          } else if (cp < 0x800) {
            out->push_back(static_cast<char>(0xc0 | (cp >> 6)));
            out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
          } else {
            out->push_back(static_cast<char>(0xe0 | (cp >> 12)));
            out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
            out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
          }
          break;
        }
        default: return Fail("bad escape");
      }
    }
    if (pos_ >= s_.size()) return Fail("unterminated string");
    ++pos_;
    return true;
  }
  bool Array(Json* out) {
    out->kind = Json::kArray;
    ++pos_;
    Space();
    if (pos_ < s_.size() && s_[pos_] == ']') return ++pos_, true;
    for (;;) {
      out->items.emplace_back();
      if (!Value(&out->items.back())) return false;
      Space();
      if (pos_ < s_.size() && s_[pos_] == ',') { ++pos_; continue; }
      if (pos_ < s_.size() && s_[pos_] == ']') return ++pos_, true;
      return Fail("expected , or ]");
    }
  }
  bool Object(Json* out) {
    out->kind = Json::kObject;
    ++pos_;
    Space();
    if (pos_ < s_.size() && s_[pos_] == '}') return ++pos_, true;
    for (;;) {
      Space();
      if (pos_ >= s_.size() || s_[pos_] != '"') return Fail("expected a key");
      std::string key;
      if (!String(&key)) return false;
      Space();
      if (pos_ >= s_.size() || s_[pos_] != ':') return Fail("expected :");
      ++pos_;
      out->fields.emplace_back(key, Json());
      if (!Value(&out->fields.back().second)) return false;
      Space();
      if (pos_ < s_.size() && s_[pos_] == ',') { ++pos_; continue; }
      if (pos_ < s_.size() && s_[pos_] == '}') return ++pos_, true;
      return Fail("expected , or }");
    }
  }

  const std::string& s_;
  size_t pos_ = 0;
  std::string error_;
};

Json ParseJson(const std::string& text) {
  Json root;
  JsonReader reader(text);
  INFO(text);
  INFO(reader.error());
  REQUIRE(reader.Read(&root));
  REQUIRE(root.kind == Json::kObject);
  REQUIRE(root["traceEvents"].kind == Json::kArray);
  return root;
}

// Leaves `trace` in $TENSORACT_CHROME_TRACE_DIR for the Python validator, when asked to.
void MaybeKeep(const tensorflow::StepStats& stats, const std::string& file) {
  const char* dir = std::getenv("TENSORACT_CHROME_TRACE_DIR");
  if (dir == nullptr || *dir == '\0') return;
  std::filesystem::create_directories(dir);
  Status s = WriteChromeTrace(stats, std::string(dir) + "/" + file);
  INFO(s.ToString());
  REQUIRE(s.ok());
}

const char* kCpu0 = "/job:localhost/replica:0/task:0/device:CPU:0";
const char* kCpu1 = "/job:localhost/replica:0/task:0/device:CPU:1";
const char* kKey = "/job:localhost/replica:0/task:0/device:CPU:0;00000000deadbeef;"
                   "/job:localhost/replica:0/task:0/device:CPU:1;edge_4_a;0:0";
const int64_t kT0 = 1700000000123456789;  // an absolute start, in nanoseconds, as the executor records

tensorflow::NodeExecStats* AddNodeStats(tensorflow::DeviceStepStats* dev, const std::string& name,
                                   const std::string& label, int64_t start_ns, int64_t dur_ns, uint32_t tid) {
  tensorflow::NodeExecStats* ns = dev->add_node_stats();
  ns->set_node_name(name);
  ns->set_timeline_label(label);
  ns->set_all_start_nanos(start_ns);
  ns->set_all_start_micros(start_ns / 1000);
  ns->set_op_end_rel_nanos(dur_ns);
  ns->set_all_end_rel_nanos(dur_ns);
  ns->set_op_end_rel_micros(dur_ns / 1000);
  ns->set_all_end_rel_micros(dur_ns / 1000);
  ns->set_thread_id(tid);
  return ns;
}

const std::string kWeird = "we\"ird\\name\n\t\x01/x";

// Two devices, listed CPU:1 first (the converter must not care), a transfer between them,
// a name needing every kind of escape, and one record with microseconds only.
tensorflow::StepStats HandBuilt() {
  tensorflow::StepStats stats;
  tensorflow::DeviceStepStats* cpu1 = stats.add_dev_stats();
  cpu1->set_device(kCpu1);
  (*cpu1->mutable_thread_names())[3] = "pool 3";
  AddNodeStats(cpu1, "recv_a", std::string("recv_a = _Recv() key=") + kKey, kT0 + 1500, 4000, 3);
  AddNodeStats(cpu1, "b", "b = Mul(recv_a, recv_a)", kT0 + 6000, 2500, 3);
  tensorflow::NodeExecStats* old = cpu1->add_node_stats();  // an older record: micros only
  old->set_node_name("c");
  old->set_timeline_label("c = Neg(b)");
  old->set_all_start_micros(kT0 / 1000 + 10);
  old->set_all_end_rel_micros(2);
  old->set_thread_id(3);

  tensorflow::DeviceStepStats* cpu0 = stats.add_dev_stats();
  cpu0->set_device(kCpu0);
  tensorflow::NodeExecStats* a = AddNodeStats(cpu0, "a", "a = Const()", kT0, 500, 7);
  tensorflow::NodeOutput* out = a->add_output();
  out->set_slot(0);
  out->mutable_tensor_description()->set_dtype(tensorflow::DT_FLOAT);
  out->mutable_tensor_description()->mutable_shape()->add_dim()->set_size(2);
  out->mutable_tensor_description()->mutable_shape()->add_dim()->set_size(3);
  out->mutable_tensor_description()->mutable_allocation_description()->set_requested_bytes(24);
  AddNodeStats(cpu0, "send_a", std::string("send_a = _Send(a) key=") + kKey, kT0 + 1000, 1000, 7);
  AddNodeStats(cpu0, kWeird, kWeird + " = Identity(a)", kT0 + 800, 300, 8);
  AddNodeStats(cpu0, "bad\xff", "bad\xff = NoOp()", kT0 + 900, 0, 8);
  return stats;
}

std::vector<const Json*> TraceEvents(const Json& root, const std::string& ph) {
  std::vector<const Json*> found;
  for (const Json& e : root["traceEvents"].items) {
    if (e["ph"].str == ph) found.push_back(&e);
  }
  return found;
}

const Json& NodeEventNamed(const Json& root, const std::string& name) {
  for (const Json* e : TraceEvents(root, "X")) {
    if ((*e)["name"].str == name) return *e;
  }
  FAIL("no X event named '" << name << "'");
  return root;
}

TEST_CASE("a hand-built step becomes one process per device and one slice per node", "[trace]") {
  const tensorflow::StepStats stats = HandBuilt();
  const std::string text = StepStatsToChromeTrace(stats);
  const Json root = ParseJson(text);
  CHECK(root["displayTimeUnit"].str == "ns");
  CHECK(root["otherData"]["ts_origin_nanos"].str == std::to_string(kT0));

  // Processes: sorted device names, so CPU:0 is pid 0 whatever order the stats came in.
  std::map<int, std::string> process_names;
  std::map<int, int> sort_index;
  std::map<std::pair<int, int>, std::string> thread_names;
  for (const Json* m : TraceEvents(root, "M")) {
    const int pid = static_cast<int>((*m)["pid"].number);
    if ((*m)["name"].str == "process_name") process_names[pid] = (*m)["args"]["name"].str;
    if ((*m)["name"].str == "process_sort_index") sort_index[pid] = static_cast<int>((*m)["args"]["sort_index"].number);
    if ((*m)["name"].str == "thread_name") {
      thread_names[{pid, static_cast<int>((*m)["tid"].number)}] = (*m)["args"]["name"].str;
    }
  }
  CHECK(process_names == std::map<int, std::string>{{0, kCpu0}, {1, kCpu1}});
  CHECK(sort_index == std::map<int, int>{{0, 0}, {1, 1}});
  CHECK(thread_names == std::map<std::pair<int, int>, std::string>{
                            {{0, 7}, "thread 7"}, {{0, 8}, "thread 8"}, {{1, 3}, "pool 3"}});

  // Slices: every node once, in device then time order, times relative to the first start.
  const std::vector<const Json*> slices = TraceEvents(root, "X");
  REQUIRE(slices.size() == 7);
  std::vector<std::pair<int, double>> order;
  for (const Json* e : slices) order.emplace_back(static_cast<int>((*e)["pid"].number), (*e)["ts"].number);
  CHECK(std::is_sorted(order.begin(), order.end()));

  const Json& a = NodeEventNamed(root, "a");
  CHECK(a["pid"].number == 0);
  CHECK(a["tid"].number == 7);
  CHECK(a["ts"].number == 0);
  CHECK(a["dur"].number == Approx(0.5));
  CHECK(a["cat"].str == "Const");
  CHECK(a["args"]["op"].str == "Const");
  CHECK(a["args"]["inputs"].items.empty());
  REQUIRE(a["args"]["outputs"].items.size() == 1);
  const Json& output = a["args"]["outputs"].items[0];
  CHECK(output["slot"].number == 0);
  CHECK(output["dtype"].str == "float");
  REQUIRE(output["shape"].items.size() == 2);
  CHECK(output["shape"].items[0].number == 2);
  CHECK(output["shape"].items[1].number == 3);
  CHECK(output["bytes"].number == 24);

  const Json& b = NodeEventNamed(root, "b");
  CHECK(b["pid"].number == 1);
  CHECK(b["ts"].number == Approx(6.0));
  CHECK(b["dur"].number == Approx(2.5));
  CHECK(b["cat"].str == "Mul");
  REQUIRE(b["args"]["inputs"].items.size() == 2);
  CHECK(b["args"]["inputs"].items[0].str == "recv_a");
  CHECK(b["args"]["inputs"].items[1].str == "recv_a");

  // The micros-only record lands on the same time axis.
  const Json& c = NodeEventNamed(root, "c");
  CHECK(c["ts"].number == Approx(10.0 - 0.789));  // kT0 is 0.789 us past a whole microsecond
  CHECK(c["dur"].number == Approx(2.0));

  const Json& recv = NodeEventNamed(root, "recv_a");
  CHECK(recv["cat"].str == "_Recv");
  CHECK(recv["args"]["key"].str == kKey);
  CHECK(NodeEventNamed(root, "send_a")["args"]["inputs"].items.at(0).str == "a");

  SECTION("names survive escaping, and invalid UTF-8 becomes U+FFFD") {
    const Json& weird = NodeEventNamed(root, kWeird);
    CHECK(weird["args"]["name"].str == kWeird);
    CHECK(weird["cat"].str == "Identity");
    CHECK(weird["args"]["inputs"].items.at(0).str == "a");
    CHECK(NodeEventNamed(root, "bad\xEF\xBF\xBD")["cat"].str == "NoOp");
    CHECK(text.find('\x01') == std::string::npos);
  }

  SECTION("the transfer is a flow from the send's slice to the recv's slice") {
    const std::vector<const Json*> starts = TraceEvents(root, "s");
    const std::vector<const Json*> finishes = TraceEvents(root, "f");
    REQUIRE(starts.size() == 1);
    REQUIRE(finishes.size() == 1);
    const Json& s = *starts[0];
    const Json& f = *finishes[0];
    CHECK(s["id"].number == f["id"].number);
    CHECK(s["cat"].str == "transfer");
    CHECK(f["cat"].str == "transfer");
    CHECK(s["name"].str == "edge_4_a");
    CHECK(f["name"].str == "edge_4_a");
    CHECK(f["bp"].str == "e");
    const Json& send = NodeEventNamed(root, "send_a");
    CHECK(s["pid"].number == send["pid"].number);
    CHECK(s["tid"].number == send["tid"].number);
    CHECK(s["ts"].number > send["ts"].number);
    CHECK(s["ts"].number < send["ts"].number + send["dur"].number);
    CHECK(f["pid"].number == recv["pid"].number);
    CHECK(f["tid"].number == recv["tid"].number);
    CHECK(f["ts"].number > recv["ts"].number);
    CHECK(f["ts"].number < recv["ts"].number + recv["dur"].number);
    CHECK(f["ts"].number >= s["ts"].number);
  }

  SECTION("a recv that completes before the middle of its send's slice still gets a forward flow") {
    tensorflow::StepStats late = stats;
    for (auto& dev : *late.mutable_dev_stats()) {
      for (auto& ns : *dev.mutable_node_stats()) {
        if (ns.node_name() != "send_a") continue;  // it started at +1000; recv_a ends at +5500
        ns.set_op_end_rel_nanos(20000);
        ns.set_all_end_rel_nanos(20000);
      }
    }
    const Json root_late = ParseJson(StepStatsToChromeTrace(late));
    const std::vector<const Json*> starts = TraceEvents(root_late, "s");
    const std::vector<const Json*> finishes = TraceEvents(root_late, "f");
    REQUIRE(starts.size() == 1);
    REQUIRE(finishes.size() == 1);
    const Json& send = NodeEventNamed(root_late, "send_a");
    const Json& recv = NodeEventNamed(root_late, "recv_a");
    CHECK((*starts[0])["ts"].number > send["ts"].number);
    CHECK((*starts[0])["ts"].number < send["ts"].number + send["dur"].number);
    CHECK((*finishes[0])["ts"].number >= (*starts[0])["ts"].number);
    CHECK((*finishes[0])["ts"].number <= recv["ts"].number + recv["dur"].number);
  }

  SECTION("the output depends only on the stats, not on the order of the devices") {
    tensorflow::StepStats swapped;
    *swapped.add_dev_stats() = stats.dev_stats(1);
    *swapped.add_dev_stats() = stats.dev_stats(0);
    CHECK(StepStatsToChromeTrace(swapped) == text);
    CHECK(StepStatsToChromeTrace(stats) == text);
  }

  SECTION("two steps appended share the processes and pair their transfers in time order") {
    tensorflow::StepStats two = stats;
    for (const auto& dev : stats.dev_stats()) {
      tensorflow::DeviceStepStats* later = two.add_dev_stats();
      *later = dev;
      for (auto& ns : *later->mutable_node_stats()) {
        ns.set_all_start_nanos(ns.all_start_nanos() + 1000000);
        ns.set_all_start_micros(ns.all_start_micros() + 1000);
      }
    }
    const Json both = ParseJson(StepStatsToChromeTrace(two));
    CHECK(TraceEvents(both, "X").size() == 14);
    int process_names_seen = 0;
    for (const Json* m : TraceEvents(both, "M")) process_names_seen += (*m)["name"].str == "process_name";
    CHECK(process_names_seen == 2);
    const std::vector<const Json*> starts = TraceEvents(both, "s");
    const std::vector<const Json*> finishes = TraceEvents(both, "f");
    REQUIRE(starts.size() == 2);
    REQUIRE(finishes.size() == 2);
    for (size_t k = 0; k < 2; ++k) {
      CHECK((*starts[k])["id"].number == (*finishes[k])["id"].number);
      CHECK((*finishes[k])["ts"].number >= (*starts[k])["ts"].number);
      CHECK((*finishes[k])["ts"].number - (*starts[k])["ts"].number < 1000);  // within one step
    }
    CHECK((*starts[0])["id"].number != (*starts[1])["id"].number);
  }

  SECTION("WriteChromeTrace writes the same bytes, and an unwritable path is an error naming it") {
    const std::string path =
        (std::filesystem::temp_directory_path() / ("tensoract_chrome_trace_test_" + std::to_string(::getpid()) + ".json"))
            .string();
    REQUIRE(WriteChromeTrace(stats, path).ok());
    std::string written;
    REQUIRE(ReadFileToString(path, &written).ok());
    CHECK(written == text);
    std::filesystem::remove(path);

    const std::string bad = "/nonexistent-tensoract-dir/trace.json";
    const Status s = WriteChromeTrace(stats, bad);
    REQUIRE_FALSE(s.ok());
    CHECK_THAT(s.message(), Catch::Contains(bad));
  }

  MaybeKeep(stats, "hand_built_trace.json");
}

TEST_CASE("an empty StepStats is an empty but valid trace", "[trace]") {
  const Json root = ParseJson(StepStatsToChromeTrace(tensorflow::StepStats()));
  CHECK(root["traceEvents"].items.empty());
}

TEST_CASE("a real step's statistics show every node that ran as a slice", "[trace]") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), tensorflow::DT_FLOAT);
  auto y = ops::Mul(root.WithOpName("y"), x, 2.f);
  auto z = ops::Add(root.WithOpName("z"), y, x);
  ops::MatMul(root.WithOpName("w"), z, z, {});
  tensorflow::GraphDef def;
  REQUIRE(root.ToGraphDef(&def).ok());
  auto session = testing::NewSessionWith(def);

  RunOptions options;
  options.trace_level = RunOptions::FULL_TRACE;
  options.output_partition_graphs = true;
  RunMetadata metadata;
  std::vector<Tensor> out;
  Tensor feed(tensorflow::DT_FLOAT, TensorShape({2, 2}));
  for (int i = 0; i < 4; ++i) feed.base<float>()[i] = static_cast<float>(i);
  Status s = session->Run(options, {{"x", feed}}, {"w"}, {}, &out, &metadata);
  INFO(s.ToString());
  REQUIRE(s.ok());
  REQUIRE(metadata.step_stats.dev_stats_size() >= 1);

  const Json trace = ParseJson(StepStatsToChromeTrace(metadata.step_stats));
  std::map<std::string, std::string> slices;  // name -> cat
  for (const Json* e : TraceEvents(trace, "X")) {
    CHECK((*e)["dur"].number >= 0);
    CHECK((*e)["ts"].number >= 0);
    slices[(*e)["name"].str] = (*e)["cat"].str;
  }
  // Every node of every partition that ran (the runtime's _Arg/_Retval included) is a slice.
  REQUIRE_FALSE(metadata.partition_graphs.empty());
  for (const auto& partition : metadata.partition_graphs) {
    for (const auto& node : partition.node()) {
      INFO(node.name() << " (" << node.op() << ")");
      REQUIRE(slices.count(node.name()) == 1);
      CHECK(slices[node.name()] == node.op());
    }
  }
  CHECK(slices.count("y") == 1);
  CHECK(slices.count("z") == 1);
  CHECK(slices["w"] == "MatMul");
  MaybeKeep(metadata.step_stats, "session_trace.json");
}

}  // namespace
}  // namespace tensoract
