#include "actors/chrome_trace.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "base/json_string.h"
#include "base/proto_io.h"
#include "base/types.h"

namespace tensoract {
namespace {

// Nanoseconds as microseconds with three exact decimals ("12.345"): the format's unit is
// the microsecond, and printing through a double would round large values.
std::string Micros(int64_t ns) {
  const bool negative = ns < 0;
  const uint64_t abs = negative ? 0 - static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
  std::string frac = std::to_string(abs % 1000);
  frac.insert(0, 3 - frac.size(), '0');
  return StrCat(negative ? "-" : "", abs / 1000, ".", frac);
}

// What a timeline label "<node> = <Op>(<in>, <in>) key=<rendezvous key>" says.
struct Label {
  std::string op;
  std::vector<std::string> inputs;
  std::string key;  // only on _Send / _Recv
};

Label ParseLabel(const std::string& node, const std::string& label) {
  Label parsed;
  std::string rest;
  // The node's own name first: it is known, and a name may itself contain " = ".
  const std::string prefix = node + " = ";
  if (!node.empty() && label.compare(0, prefix.size(), prefix) == 0) {
    rest = label.substr(prefix.size());
  } else {
    const size_t eq = label.find(" = ");
    if (eq == std::string::npos) return parsed;
    rest = label.substr(eq + 3);
  }
  const size_t key = rest.find(") key=");
  if (key != std::string::npos) {
    parsed.key = rest.substr(key + 6);
    rest.erase(key + 1);
  }
  const size_t open = rest.find('(');
  if (open == std::string::npos) {
    parsed.op = rest;
    return parsed;
  }
  parsed.op = rest.substr(0, open);
  size_t close = rest.rfind(')');
  if (close == std::string::npos || close < open) close = rest.size();
  const std::string inside = rest.substr(open + 1, close - open - 1);
  // Tensor names cannot contain ", ", so it separates the inputs.
  for (size_t start = 0; start < inside.size();) {
    size_t comma = inside.find(", ", start);
    if (comma == std::string::npos) comma = inside.size();
    if (comma > start) parsed.inputs.push_back(inside.substr(start, comma - start));
    start = comma + 2;
  }
  return parsed;
}

// The tensor-name field of "src_device;incarnation;dst_device;tensor_name;frame:iter"; the
// whole key when it has another shape.
std::string KeyTensorName(const std::string& key) {
  std::vector<std::string> fields;
  size_t start = 0;
  for (size_t semi; (semi = key.find(';', start)) != std::string::npos; start = semi + 1) {
    fields.push_back(key.substr(start, semi - start));
  }
  fields.push_back(key.substr(start));
  return fields.size() == 5 && !fields[3].empty() ? fields[3] : key;
}

bool IsSend(const std::string& op) { return op == "_Send" || op == "_HostSend"; }
bool IsRecv(const std::string& op) { return op == "_Recv" || op == "_HostRecv"; }

// One node's execution, placed on its device's row.
struct NodeEvent {
  const tensorflow::NodeExecStats* stats;
  Label label;
  int pid;
  uint32_t tid;
  int64_t start_ns;  // absolute, as in the stats
  int64_t dur_ns;
  size_t seq;  // order of appearance: the last tie-breaker, so sorting is deterministic

  int64_t mid_ns() const { return start_ns + dur_ns / 2; }
};

NodeEvent MakeEvent(const tensorflow::NodeExecStats& ns, int pid, size_t seq) {
  NodeEvent e{&ns, ParseLabel(ns.node_name(), ns.timeline_label()), pid, ns.thread_id(), 0, 0, seq};
  // A record with nanosecond times is read in nanoseconds throughout; an older one (micros
  // only) is scaled, so the two kinds can share a file.
  if (ns.all_start_nanos() != 0) {
    e.start_ns = ns.all_start_nanos();
    e.dur_ns = ns.all_end_rel_nanos() != 0 ? ns.all_end_rel_nanos() : ns.op_end_rel_nanos();
  } else {
    e.start_ns = ns.all_start_micros() * 1000;
    e.dur_ns = (ns.all_end_rel_micros() != 0 ? ns.all_end_rel_micros() : ns.op_end_rel_micros()) * 1000;
  }
  e.dur_ns = std::max<int64_t>(e.dur_ns, 0);  // a negative duration makes viewers drop the slice
  return e;
}

void AppendOutputs(std::string* out, const tensorflow::NodeExecStats& ns) {
  *out += "[";
  for (int i = 0; i < ns.output_size(); ++i) {
    const tensorflow::NodeOutput& o = ns.output(i);
    const tensorflow::TensorDescription& d = o.tensor_description();
    *out += StrCat(i ? "," : "", "{\"slot\":", o.slot(), ",\"dtype\":");
    AppendJsonString(out, DataTypeString(d.dtype()));
    *out += ",\"shape\":";
    if (d.shape().unknown_rank()) {
      *out += "null";
    } else {
      *out += "[";
      for (int k = 0; k < d.shape().dim_size(); ++k) *out += StrCat(k ? "," : "", d.shape().dim(k).size());
      *out += "]";
    }
    *out += StrCat(",\"bytes\":", d.allocation_description().requested_bytes(), "}");
  }
  *out += "]";
}

}  // namespace

std::string StepStatsToChromeTrace(const tensorflow::StepStats& stats) {
  // Devices by name, sorted: a merged StepStats may name one device several times.
  std::map<std::string, int> pid_of;
  for (const auto& dev : stats.dev_stats()) pid_of.emplace(dev.device(), 0);
  int next_pid = 0;
  for (auto& [name, pid] : pid_of) pid = next_pid++;

  std::vector<NodeEvent> events;
  std::map<std::pair<int, uint32_t>, std::string> threads;  // (pid, tid) -> row name
  for (const auto& dev : stats.dev_stats()) {
    const int pid = pid_of.at(dev.device());
    for (const auto& ns : dev.node_stats()) {
      events.push_back(MakeEvent(ns, pid, events.size()));
      auto named = dev.thread_names().find(ns.thread_id());
      std::string& row = threads[{pid, ns.thread_id()}];
      if (named != dev.thread_names().end() && !named->second.empty()) row = named->second;
      if (row.empty()) row = StrCat("thread ", ns.thread_id());
    }
  }
  std::sort(events.begin(), events.end(), [](const NodeEvent& a, const NodeEvent& b) {
    if (a.pid != b.pid) return a.pid < b.pid;
    if (a.start_ns != b.start_ns) return a.start_ns < b.start_ns;
    if (a.tid != b.tid) return a.tid < b.tid;
    return a.seq < b.seq;
  });
  int64_t origin = 0;
  for (size_t i = 0; i < events.size(); ++i) origin = i ? std::min(origin, events[i].start_ns) : events[i].start_ns;

  std::string out = StrCat("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"tensoract StepStats\","
                           "\"ts_origin_nanos\":\"",
                           origin, "\"},\"traceEvents\":[");
  bool first = true;
  auto begin_event = [&]() {
    out += first ? "\n{" : ",\n{";
    first = false;
  };

  for (const auto& [name, pid] : pid_of) {
    begin_event();
    out += StrCat("\"ph\":\"M\",\"pid\":", pid, ",\"tid\":0,\"ts\":0,\"name\":\"process_name\",\"args\":{\"name\":");
    AppendJsonString(&out, name.empty() ? StrCat("device ", pid) : name);
    out += "}}";
    begin_event();
    out += StrCat("\"ph\":\"M\",\"pid\":", pid,
                  ",\"tid\":0,\"ts\":0,\"name\":\"process_sort_index\",\"args\":{\"sort_index\":", pid, "}}");
  }
  for (const auto& [row, name] : threads) {
    begin_event();
    out += StrCat("\"ph\":\"M\",\"pid\":", row.first, ",\"tid\":", row.second,
                  ",\"ts\":0,\"name\":\"thread_name\",\"args\":{\"name\":");
    AppendJsonString(&out, name);
    out += "}}";
  }

  for (const NodeEvent& e : events) {
    const tensorflow::NodeExecStats& ns = *e.stats;
    const std::string& name = !ns.node_name().empty() ? ns.node_name()
                              : !e.label.op.empty()   ? e.label.op
                                                      : std::string("(unnamed)");
    begin_event();
    out += StrCat("\"ph\":\"X\",\"pid\":", e.pid, ",\"tid\":", e.tid, ",\"ts\":", Micros(e.start_ns - origin),
                  ",\"dur\":", Micros(e.dur_ns), ",\"name\":");
    AppendJsonString(&out, name);
    out += ",\"cat\":";
    AppendJsonString(&out, e.label.op.empty() ? std::string("unknown") : e.label.op);
    out += ",\"args\":{\"name\":";
    AppendJsonString(&out, ns.node_name());
    out += ",\"op\":";
    AppendJsonString(&out, e.label.op);
    out += ",\"inputs\":[";
    for (size_t k = 0; k < e.label.inputs.size(); ++k) {
      if (k) out += ",";
      AppendJsonString(&out, e.label.inputs[k]);
    }
    out += "],\"outputs\":";
    AppendOutputs(&out, ns);
    if (!e.label.key.empty()) {
      out += ",\"key\":";
      AppendJsonString(&out, e.label.key);
    }
    out += "}}";
  }

  // Transfers: the k-th send of a key pairs with its k-th recv (in time order), so merged
  // steps, which reuse keys, still pair up. Unpaired halves (a device missing from the
  // stats) get no arrow.
  std::map<std::string, std::vector<size_t>> sends, recvs;  // key -> indices into `events`
  for (size_t i = 0; i < events.size(); ++i) {
    if (events[i].label.key.empty()) continue;
    if (IsSend(events[i].label.op)) sends[events[i].label.key].push_back(i);
    if (IsRecv(events[i].label.op)) recvs[events[i].label.key].push_back(i);
  }
  std::vector<std::pair<size_t, size_t>> flows;
  for (auto& [key, from] : sends) {
    auto to = recvs.find(key);
    if (to == recvs.end()) continue;
    auto by_time = [&](size_t a, size_t b) {
      return events[a].start_ns != events[b].start_ns ? events[a].start_ns < events[b].start_ns : a < b;
    };
    std::sort(from.begin(), from.end(), by_time);
    std::sort(to->second.begin(), to->second.end(), by_time);
    for (size_t k = 0; k < from.size() && k < to->second.size(); ++k) flows.emplace_back(from[k], to->second[k]);
  }
  std::sort(flows.begin(), flows.end());  // in the order of the sends' events
  int flow_id = 0;
  for (const auto& [s, f] : flows) {
    const NodeEvent& send = events[s];
    const NodeEvent& recv = events[f];
    ++flow_id;
    const std::string tensor = KeyTensorName(send.label.key);
    // Both ends sit strictly inside their slices where the slices have a length, since the
    // viewers bind a flow event to the slice that encloses it and a boundary is ambiguous.
    // The recv end is not earlier than the send end (a viewer drops a flow that runs
    // backwards): a recv that completed before the middle of its send's slice (the send
    // kernel's slice goes on after it handed the value over) moves the send end back to
    // the recv's end, or to the send's start.
    const int64_t recv_end = recv.start_ns + recv.dur_ns;
    const int64_t s_ts = std::min(send.mid_ns(), std::max(send.start_ns, recv_end));
    const int64_t f_ts = std::min(std::max(recv.mid_ns(), s_ts), recv_end);
    for (const auto& [ph, e, ts] : {std::tuple<const char*, const NodeEvent*, int64_t>{"s", &send, s_ts},
                                    std::tuple<const char*, const NodeEvent*, int64_t>{"f", &recv, f_ts}}) {
      begin_event();
      out += StrCat("\"ph\":\"", ph, "\",\"pid\":", e->pid, ",\"tid\":", e->tid, ",\"ts\":", Micros(ts - origin),
                    ",\"id\":", flow_id, ",\"cat\":\"transfer\",\"name\":");
      AppendJsonString(&out, tensor);
      if (*ph == 'f') out += ",\"bp\":\"e\"";
      out += "}";
    }
  }
  out += "\n]}\n";
  return out;
}

Status WriteChromeTrace(const tensorflow::StepStats& stats, const std::string& path) {
  // WriteStringToFile's errors already name the path; the prefix says what was being written.
  return WriteStringToFile(path, StepStatsToChromeTrace(stats)).WithContext("writing a Chrome trace");
}

}  // namespace tensoract
