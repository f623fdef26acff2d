#include "bootstrap/observer.h"

#include <algorithm>
#include <cstdio>
#include <future>
#include <map>
#include <set>

#include <caf/all.hpp>

#include "actors/messages.h"
#include "bootstrap/node_auth.h"

namespace tensoract {
namespace {

std::string Seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), s < 10 ? "%.1f" : "%.0f", s);
  return buf;
}

std::vector<std::string> SplitKey(const std::string& key) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t semi; (semi = key.find(';', start)) != std::string::npos; start = semi + 1) {
    parts.push_back(key.substr(start, semi - start));
  }
  parts.push_back(key.substr(start));
  return parts;
}

// A rendezvous key's parts: the sending task and the tensor's name.
struct KeyParts {
  std::string src_task, tensor;
};
KeyParts ParseKey(const std::string& key) {
  std::vector<std::string> parts = SplitKey(key);
  KeyParts out;
  if (!parts.empty()) out.src_task = TaskOfDevice(parts[0]);
  out.tensor = parts.size() > 3 ? parts[3] : key;
  return out;
}

// What a _Recv brings: "w1_value/_Recv_0" (the partitioner's name) brings `w1_value`.
std::string SourceOfRecv(const std::string& recv) {
  const size_t at = recv.rfind("/_Recv_");
  return at == std::string::npos ? recv : recv.substr(0, at);
}

// The cluster as the explanation walks it.
class Walk {
 public:
  explicit Walk(const ClusterView& view) : view_(view) {}

  const observe::NodeSnapshot* Node(const std::string& task) const {
    for (const auto& n : view_.nodes) {
      if (n.task() == task) return &n;
    }
    return nullptr;
  }

  std::vector<const observe::Executor*> Executors(const observe::NodeSnapshot& node, int64_t step) const {
    std::vector<const observe::Executor*> out;
    for (const auto& e : node.executors()) {
      if (e.step_id() == step) out.push_back(&e);
    }
    return out;
  }

  std::string Silence(const std::string& task) const {
    for (const observe::Task& t : view_.tasks) {
      if (t.name() != task) continue;
      if (!t.healthy()) return StrCat(", which is unavailable (", t.error(), ")");
      if (t.since_heartbeat_s() >= 0) {
        return StrCat(", which does not answer (no heartbeat for ", Seconds(t.since_heartbeat_s()), " s)");
      }
    }
    auto why = view_.silent.find(task);
    return StrCat(", which does not answer", why == view_.silent.end() ? "" : " (" + why->second + ")");
  }

  // Why `task`'s part of the step does not finish.
  std::string WhyTaskWaits(const std::string& task, int64_t step, int depth) {
    const observe::NodeSnapshot* node = Node(task);
    if (node == nullptr) return Silence(task);
    std::vector<const observe::Executor*> executors = Executors(*node, step);
    if (executors.empty()) return ": it has no executor of the step (finishing, or not started yet)";
    for (const observe::Executor* e : executors) {
      for (const observe::RunningNode& r : e->running()) {
        if (r.op() != "_Recv") continue;
        const KeyParts key = ParseKey(r.recv_key());
        std::string consumer = r.name();
        for (const observe::PendingNode& p : e->pending()) {
          if (std::find(p.blocked_on().begin(), p.blocked_on().end(), r.name()) != p.blocked_on().end()) {
            consumer = p.name();
            break;
          }
        }
        evidence_.push_back(StrCat(task, ": on ", e->device(), ", `", consumer, "` waits for _Recv `", r.name(),
                                   "` of key ", r.recv_key()));
        return StrCat(": its executor has `", consumer, "` pending on Recv of `", SourceOfRecv(r.name()), "` from ",
                      key.src_task, ", ", WhySend(key.src_task, r.recv_key(), step, depth + 1));
      }
    }
    for (const observe::Executor* e : executors) {
      for (const observe::RunningNode& r : e->running()) {
        evidence_.push_back(StrCat(task, ": on ", e->device(), ", `", r.name(), "` (", r.op(), ") has been running"));
        return StrCat(": its executor runs `", r.name(), "` (", r.op(), "), which has not finished",
                      r.op().rfind("Queue", 0) == 0 ? " (it waits on its queue)" : "");
      }
    }
    const observe::Executor* e = executors.front();
    return StrCat(": its executor on ", e->device(), " has ", e->pending_size(), " nodes pending and none running");
  }

  // Why the value under `key` has not reached its receiver: the Send on `task`.
  std::string WhySend(const std::string& task, const std::string& key, int64_t step, int depth) {
    if (depth > 8) return "and so on";
    const observe::NodeSnapshot* node = Node(task);
    if (node == nullptr) return Silence(task).substr(2);  // after the caller's ", "
    for (const observe::Executor* e : Executors(*node, step)) {
      for (const observe::PendingNode& send : e->pending_sends()) {
        if (send.name() != key) continue;
        evidence_.push_back(StrCat(task, ": on ", e->device(), ", the _Send of ", key, " misses ",
                                   send.missing_inputs(), " inputs"));
        if (send.blocked_on().empty()) return "whose Send there has not run";
        return StrCat("whose Send there has not run because its input ", WhyNodeWaits(task, *e, send.blocked_on(0), step, depth));
      }
    }
    for (const observe::Wait& w : node->waits()) {
      if (w.step_id() == step && w.key() == key && w.recv_waiting()) {
        return StrCat("whose Send there has not run (the Recv has waited ", Seconds(w.age_s()), " s)");
      }
    }
    return "whose value was sent (it is on its way)";
  }

  // `name` on `task`'s executor `e`, followed back through the nodes it waits for to one
  // that runs (a Recv from elsewhere, a queue, a long kernel).
  std::string WhyNodeWaits(const std::string& task, const observe::Executor& e, const std::string& start,
                           int64_t step, int depth) {
    std::string name = start, previous;
    for (int hops = 0; hops < 64; ++hops) {
      for (const observe::RunningNode& r : e.running()) {
        if (r.name() != name) continue;
        // `start` waits (through `previous`) on this running node.
        std::string lead = StrCat("`", start, "`");
        if (name != start) {
          evidence_.push_back(StrCat(task, ": on ", e.device(), ", `", previous, "` waits for `", name, "`"));
          lead = StrCat("`", start, "` waits for `", r.op() == "_Recv" ? SourceOfRecv(name) : name, "`, which");
        }
        if (r.op() == "_Recv") {
          const KeyParts key = ParseKey(r.recv_key());
          evidence_.push_back(StrCat(task, ": on ", e.device(), ", _Recv `", r.name(), "` waits for key ", r.recv_key()));
          if (name == start) lead = StrCat("`", SourceOfRecv(name), "`");
          return StrCat(lead, " has not arrived from ", key.src_task, ", ",
                        WhySend(key.src_task, r.recv_key(), step, depth + 1));
        }
        if (name == start) return StrCat("`", start, "` (", r.op(), ") is still running");
        return StrCat("`", start, "` waits for `", name, "` (", r.op(), "), which is still running");
      }
      const observe::PendingNode* pending = nullptr;
      for (const observe::PendingNode& p : e.pending()) {
        if (p.name() == name) pending = &p;
      }
      if (pending == nullptr || pending->blocked_on().empty()) return StrCat("`", name, "` has not run");
      previous = name;
      name = pending->blocked_on(0);
    }
    return StrCat("`", name, "` has not run");
  }

  const std::vector<std::string>& evidence() const { return evidence_; }

 private:
  const ClusterView& view_;
  std::vector<std::string> evidence_;
};

void Line(std::string* out, const std::string& text) { *out += text + "\n"; }

std::string Pad(const std::string& s, size_t width) { return s.size() >= width ? s + " " : s + std::string(width - s.size(), ' '); }

}  // namespace

std::string TaskOfDevice(const std::string& device) {
  const size_t at = device.find("/device:");
  return at == std::string::npos ? device : device.substr(0, at);
}

Observer::Observer(caf::actor_system& system, TaskAddress start, std::chrono::milliseconds timeout)
    : system_(system), start_(std::move(start)), timeout_(timeout) {}

StatusOr<caf::actor> Observer::Connection(const std::string& address) {
  auto found = connections_.find(address);
  if (found != connections_.end()) return found->second;
  TA_ASSIGN_OR_RETURN(TaskAddress where, ParseTaskAddress(address));
  TA_ASSIGN_OR_RETURN(caf::actor node, ConnectToNode(system_, where.host, where.port, timeout_));
  connections_.emplace(address, node);
  return node;
}

StatusOr<observe::NodeSnapshot> Observer::Ask(const caf::actor& node, const std::string& address) {
  caf::scoped_actor self{system_};
  StatusOr<observe::NodeSnapshot> result = errors::DeadlineExceeded("no answer from ", address);
  self->request(node, timeout_, observe_atom::value)
      .receive(
          [&](const std::string& bytes) {
            observe::NodeSnapshot snapshot;
            if (snapshot.ParseFromString(bytes)) {
              result = std::move(snapshot);
            } else {
              result = errors::DataLoss("an unreadable snapshot from ", address);
            }
          },
          [&](caf::error& e) { result = FromCafError(e, StrCat("observing ", address)); });
  return result;
}

ClusterView Observer::Poll() {
  ClusterView view;
  view.origin = start_.ToString();
  StatusOr<caf::actor> origin = Connection(view.origin);
  StatusOr<observe::NodeSnapshot> first = origin.ok() ? Ask(*origin, view.origin) : origin.status();
  if (!first.ok()) {
    connections_.erase(view.origin);
    view.silent[view.origin] = first.status().message();
    return view;
  }
  view.tasks.assign(first->tasks().begin(), first->tasks().end());
  view.nodes.push_back(std::move(first).value());
  // The others, each asked from a thread of its own: a frozen one costs its deadline once.
  struct Other {
    std::string task, address;
    std::future<StatusOr<observe::NodeSnapshot>> answer;
  };
  std::vector<Other> others;
  for (const observe::Task& t : view.tasks) {
    if (t.address().empty() || t.name() == view.nodes.front().task()) continue;
    Other other{t.name(), t.address(), {}};
    StatusOr<caf::actor> node = Connection(t.address());
    if (node.ok()) {
      other.answer = std::async(std::launch::async, [this, node = *node, address = t.address()] { return Ask(node, address); });
    } else {
      other.answer = std::async(std::launch::deferred, [s = node.status()] { return StatusOr<observe::NodeSnapshot>(s); });
    }
    others.push_back(std::move(other));
  }
  for (Other& other : others) {
    StatusOr<observe::NodeSnapshot> s = other.answer.get();
    if (s.ok()) {
      view.nodes.push_back(std::move(s).value());
    } else {
      connections_.erase(other.address);  // a restarted node gets a new connection next time
      view.silent[other.task] = s.status().message();
    }
  }
  // Every node runs a master, but only those with sessions send heartbeats: the tasks'
  // health is the word of the master that heard from most of them.
  auto heard = [](const observe::NodeSnapshot& n) {
    return std::count_if(n.tasks().begin(), n.tasks().end(), [](const observe::Task& t) { return t.incarnation() != 0; });
  };
  const observe::NodeSnapshot* best = &view.nodes.front();
  for (const auto& n : view.nodes) {
    if (n.tasks_size() == best->tasks_size() && heard(n) > heard(*best)) best = &n;
  }
  if (best != &view.nodes.front()) {
    // Its own task has no address in its list; the origin's list has it.
    std::map<std::string, std::string> addresses;
    for (const observe::Task& t : view.tasks) addresses[t.name()] = t.address();
    std::vector<observe::Task> tasks(best->tasks().begin(), best->tasks().end());
    for (observe::Task& t : tasks) {
      if (t.name().empty()) t.set_name(best->task());
      if (t.address().empty()) t.set_address(addresses[t.name()]);
    }
    view.tasks = std::move(tasks);
  }
  return view;
}

Status Observer::Watch(const ClusterView& view, const observe::WatchRequest& request) {
  std::vector<std::string> addresses = {view.origin};
  for (const observe::Task& t : view.tasks) {
    if (!t.address().empty()) addresses.push_back(t.address());
  }
  const std::string bytes = request.SerializeAsString();
  for (const std::string& address : addresses) {
    TA_ASSIGN_OR_RETURN(caf::actor node, Connection(address));
    caf::scoped_actor self{system_};
    Status result = errors::DeadlineExceeded("no answer from ", address);
    self->request(node, timeout_, watch_atom::value, bytes)
        .receive([&](const std::string& error) { result = error.empty() ? Status::OK() : errors::Internal(error); },
                 [&](caf::error& e) { result = FromCafError(e, StrCat("asking ", address, " to watch")); });
    TA_RETURN_IF_ERROR(result);
  }
  return Status::OK();
}

namespace {

struct TracedNode {
  std::string device, name, op;
  int64_t start = 0, end = 0;  // microseconds
  std::vector<std::string> inputs;  // node names (same device)
  std::string key;                  // a _Send's or _Recv's rendezvous key
};

// "name = Op(a, b:1, ^c) key=K" (the executor's timeline label).
void ParseLabel(const std::string& label, TracedNode* n) {
  const size_t eq = label.find(" = "), open = label.find('('), close = label.find(')');
  if (eq != std::string::npos && open != std::string::npos) n->op = label.substr(eq + 3, open - eq - 3);
  if (open != std::string::npos && close != std::string::npos && close > open) {
    std::string list = label.substr(open + 1, close - open - 1);
    for (size_t start = 0; start < list.size();) {
      size_t comma = list.find(", ", start);
      if (comma == std::string::npos) comma = list.size();
      std::string in = list.substr(start, comma - start);
      if (!in.empty() && in[0] == '^') in = in.substr(1);
      if (const size_t colon = in.rfind(':'); colon != std::string::npos) in = in.substr(0, colon);
      if (!in.empty()) n->inputs.push_back(in);
      start = comma + 2;
    }
  }
  if (const size_t k = label.find(" key="); k != std::string::npos) n->key = label.substr(k + 5);
}

std::string Ms(double us) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.2f ms", us / 1000);
  return buf;
}

}  // namespace

std::string ExplainSlowStep(const ClusterView& view) {
  const observe::TracedStep* traced = nullptr;
  for (const auto& node : view.nodes) {
    if (node.has_last_traced()) traced = &node.last_traced();
  }
  if (traced == nullptr) return "";
  std::vector<TracedNode> nodes;
  std::map<std::pair<std::string, std::string>, size_t> by_name;  // (device, name)
  std::map<std::string, size_t> sends;                            // key -> _Send
  for (const auto& dev : traced->step_stats().dev_stats()) {
    for (const auto& ns : dev.node_stats()) {
      TracedNode n;
      n.device = dev.device();
      n.name = ns.node_name();
      n.start = ns.all_start_micros();
      n.end = ns.all_start_micros() + ns.all_end_rel_micros();
      ParseLabel(ns.timeline_label(), &n);
      by_name[{n.device, n.name}] = nodes.size();
      if (n.op == "_Send" && !n.key.empty()) sends[n.key] = nodes.size();
      nodes.push_back(std::move(n));
    }
  }
  if (nodes.empty()) return "";
  int64_t first = nodes.front().start;
  size_t last = 0;
  // The walk starts at the last node to end other than a _Send: a _Send's end includes
  // handing its value over, which may outlast the step's last real work.
  for (size_t i = 0; i < nodes.size(); ++i) {
    first = std::min(first, nodes[i].start);
    if ((nodes[last].op == "_Send" || nodes[i].end > nodes[last].end) && nodes[i].op != "_Send") last = i;
  }
  // Back from the last to end: each node's predecessor is the input that ended last.
  std::vector<size_t> path = {last};
  std::set<size_t> visited = {last};
  for (size_t at = last; path.size() < 200;) {
    const TracedNode& n = nodes[at];
    std::vector<size_t> preds;
    for (const std::string& in : n.inputs) {
      auto it = by_name.find({n.device, in});
      if (it != by_name.end()) preds.push_back(it->second);
    }
    if (n.op == "_Recv") {
      auto it = sends.find(n.key);
      if (it != sends.end()) preds.push_back(it->second);
    }
    size_t best = SIZE_MAX;
    for (size_t p : preds) {
      if (visited.count(p)) continue;
      if (best == SIZE_MAX || nodes[p].end > nodes[best].end) best = p;
    }
    if (best == SIZE_MAX) break;
    visited.insert(best);
    path.push_back(best);
    at = best;
  }
  std::reverse(path.begin(), path.end());
  std::string out = StrCat("step ", traced->step_id(), " (traced) took ", Ms(traced->duration_s() * 1e6), "; nodes ran ",
                           Ms(static_cast<double>(nodes[last].end - first)), " from the first start to the last end\n");
  out += "  critical path (each waited for the one before it to end):\n";
  for (size_t i : path) {
    const TracedNode& n = nodes[i];
    out += StrCat("    ", Pad(TaskOfDevice(n.device), 30), Pad(n.name, 36), Pad(n.op, 18), Ms(static_cast<double>(n.end - n.start)),
                  " (starts at ", Ms(static_cast<double>(n.start - first)), ")\n");
  }
  // Per task: where its time went.
  std::map<std::string, std::vector<size_t>> by_task;
  for (size_t i = 0; i < nodes.size(); ++i) by_task[TaskOfDevice(nodes[i].device)].push_back(i);
  out += "  busiest nodes per task:\n";
  for (auto& [task, list] : by_task) {
    std::sort(list.begin(), list.end(), [&](size_t a, size_t b) {
      return nodes[a].end - nodes[a].start > nodes[b].end - nodes[b].start;
    });
    std::string top;
    for (size_t k = 0; k < list.size() && k < 3; ++k) {
      const TracedNode& n = nodes[list[k]];
      top += StrCat(k ? ", " : "", n.name, " (", n.op, ") ", Ms(static_cast<double>(n.end - n.start)));
    }
    out += StrCat("    ", Pad(task, 30), top, "\n");
  }
  return out;
}

std::string RenderStats(const observe::TensorStats& s) {
  std::string shape;
  for (int64_t d : s.shape()) shape += (shape.empty() ? "" : ",") + std::to_string(d);
  std::string out = StrCat("step ", s.step_id(), "  ", s.node(), ":", s.output(), " on ", s.device(), "  ", s.dtype(),
                           " [", shape, "]  min ", s.min(), " max ", s.max(), " mean ", s.mean(), "  NaN ",
                           s.nan_count(), " inf ", s.inf_count());
  if (!s.values().empty()) out += "\n    values: " + s.values();
  return out;
}

std::string RenderNan(const observe::NanReport& r) {
  std::string out = StrCat("first NaN or infinity of step ", r.step_id(), ": node `", r.node(), "` (", r.op(), ") on ",
                           r.device(), "\n");
  for (const auto& o : r.outputs()) out += "  output " + RenderStats(o) + "\n";
  for (const auto& i : r.inputs()) out += "  input  " + RenderStats(i) + "\n";
  return out;
}

int64_t OldestStep(const ClusterView& view) {
  int64_t oldest = -1;
  double age = -1;
  for (const auto& node : view.nodes) {
    for (const observe::Step& s : node.steps()) {
      if (s.age_s() > age) {
        age = s.age_s();
        oldest = s.step_id();
      }
    }
  }
  return oldest;
}

std::string ExplainStep(const ClusterView& view, int64_t step_id) {
  const observe::Step* step = nullptr;
  for (const auto& node : view.nodes) {
    for (const observe::Step& s : node.steps()) {
      if (s.step_id() == step_id) step = &s;
    }
  }
  if (step == nullptr) return StrCat("step ", step_id, " is not running (finished, or not this master's)\n");
  // One chain per task the step waits for; the one reaching a task that does not answer
  // explains the most (it names the key and the node that wait on it), else the longest.
  std::string why;
  std::vector<std::string> evidence;
  int best = -1;
  for (const std::string& task : step->waiting_for()) {
    Walk walk(view);
    const std::string chain = StrCat("waits on ", task, walk.WhyTaskWaits(task, step_id, 0));
    const bool answered = walk.Node(task) != nullptr;
    const bool reaches_silence = chain.find("does not answer") != std::string::npos ||
                                 chain.find("is unavailable") != std::string::npos;
    const int score = (answered ? 2 : 0) + (reaches_silence ? 4 : 0);
    const int rank = score * 100000 + static_cast<int>(chain.size());
    if (rank > best) {
      best = rank;
      why = chain;
      evidence = walk.evidence();
    }
  }
  if (why.empty()) why = "waits for no task (its last replies are on their way)";
  std::string out = StrCat("step ", step_id, " (running ", Seconds(step->age_s()), " s) ", why, "\n");
  for (const std::string& e : evidence) out += "  - " + e + "\n";
  return out;
}

std::string RenderView(const ClusterView& view) {
  std::string out;
  Line(&out, StrCat("tensoract-observe: cluster seen from ", view.origin, " (", view.nodes.size(), " nodes answered, ",
                    view.silent.size(), " silent)"));
  if (!view.tasks.empty()) {
    Line(&out, "");
    Line(&out, "TASKS");
    Line(&out, "  " + Pad("task", 28) + Pad("address", 18) + Pad("health", 12) + Pad("incarnation", 18) + "heartbeat");
    for (const observe::Task& t : view.tasks) {
      char inc[24];
      std::snprintf(inc, sizeof(inc), "%016llx", static_cast<unsigned long long>(t.incarnation()));
      const bool own = t.address().empty() || t.name() == view.nodes.front().task();
      const bool silent = view.silent.count(t.name()) > 0;
      // An idle master has not asked yet (its heartbeats start with the first session).
      const std::string health = own ? "this node" : silent ? "SILENT" : t.healthy() ? "healthy"
                                 : t.incarnation() == 0 ? "not asked" : "UNAVAILABLE";
      Line(&out, "  " + Pad(own && t.name().empty() ? view.nodes.front().task() : t.name(), 28) +
                     Pad(own ? "-" : t.address(), 18) + Pad(health, 12) + Pad(t.incarnation() ? inc : "-", 18) +
                     (t.since_heartbeat_s() < 0 ? "-" : Seconds(t.since_heartbeat_s()) + " s ago"));
    }
  }
  std::vector<const observe::Step*> steps;
  for (const auto& node : view.nodes) {
    for (const observe::Step& s : node.steps()) steps.push_back(&s);
  }
  Line(&out, "");
  Line(&out, StrCat("STEPS IN FLIGHT (", steps.size(), ")"));
  for (const observe::Step* s : steps) {
    std::string waiting;
    for (const std::string& t : s->waiting_for()) waiting += (waiting.empty() ? "" : ", ") + t;
    Line(&out, StrCat("  step ", s->step_id(), ": running ", Seconds(s->age_s()), " s, waiting for ",
                      waiting.empty() ? "-" : waiting));
  }
  for (const auto& node : view.nodes) {
    Line(&out, "");
    char inc[24];
    std::snprintf(inc, sizeof(inc), "%016llx", static_cast<unsigned long long>(node.incarnation()));
    Line(&out, StrCat("NODE ", node.task(), " (incarnation ", inc, ")"));
    for (const observe::Actor& a : node.actors()) {
      Line(&out, "  " + Pad(a.kind(), 11) + Pad(a.name(), 58) + Pad(StrCat("mailbox ", a.mailbox()), 11) + a.doing());
    }
    for (const observe::Executor& e : node.executors()) {
      if (e.ready_size() + e.running_size() + e.pending_size() + e.pending_sends_size() == 0) continue;
      Line(&out, StrCat("    step ", e.step_id(), " on ", e.device(), ": ", e.done(), "/", e.total(), " done, ",
                        Seconds(e.age_s()), " s"));
      for (const auto& r : e.running()) {
        Line(&out, StrCat("      running  ", r.name(), " (", r.op(), ")", r.recv_key().empty() ? "" : " key " + r.recv_key()));
      }
      for (const auto& r : e.ready()) Line(&out, "      ready    " + r);
      for (const auto& p : e.pending()) {
        std::string on;
        for (const auto& b : p.blocked_on()) on += (on.empty() ? "" : ", ") + b;
        Line(&out, StrCat("      pending  ", p.name(), " (", p.op(), "; ", p.missing_inputs(), " inputs missing",
                          on.empty() ? "" : "; waits for " + on, ")"));
      }
      for (const auto& p : e.pending_sends()) Line(&out, StrCat("      unsent   ", p.name()));
    }
    for (const observe::Wait& w : node.waits()) {
      Line(&out, StrCat("    rendezvous step ", w.step_id(), ": ",
                        w.recv_waiting() ? StrCat("a Recv has waited ", Seconds(w.age_s()), " s for ") : "sent, not received: ",
                        w.key()));
    }
    for (const std::string& r : node.resources()) Line(&out, "    resource " + r);
    for (const std::string& n : node.notes()) Line(&out, "    note: " + n);
  }
  for (const auto& [who, why] : view.silent) {
    Line(&out, "");
    Line(&out, StrCat("NODE ", who, ": NOT ANSWERING (", why, ")"));
  }
  return out;
}

}  // namespace tensoract
