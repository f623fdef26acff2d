#include "actors/cluster_membership.h"

#include <algorithm>
#include <chrono>

#include "actors/remote_worker.h"
#include "base/log_line.h"

namespace tensoract {

ClusterMembership::ClusterMembership(caf::event_based_actor* self, caf::actor local_worker,
                                     const MasterOptions& options, Events events)
    : self_(self), options_(options), events_(std::move(events)) {
  TaskState home;
  home.name = "";  // filled in by the first heartbeat
  home.worker = std::move(local_worker);
  tasks_.push_back(std::move(home));
  for (RemoteAddress address : options.remote_tasks) {
    // A worker's process gone: its RunGraph and registrations fail now, naming it, not at
    // their deadlines.
    address.fail_calls_when_gone = true;
    TaskState t;
    t.name = address.name;
    t.address = StrCat(address.host, ":", address.port);
    // Its steps there are aborted if no heartbeat renews the lease in time (this master
    // froze or was cut off): HeartbeatLeaseMs, the longest two heartbeats can be apart.
    t.worker = SpawnRemoteWorker(self->system(), address,
                                 HeartbeatLeaseMs(options.heartbeat_interval_ms, options.heartbeat_timeout_ms));
    self->link_to(t.worker);
    t.last_error = errors::Unavailable("not contacted yet");
    tasks_.push_back(std::move(t));
  }
  for (const auto& [name, actor] : options.in_process_tasks) {
    TaskState t;
    t.name = name;
    t.address = "in-process";
    t.worker = actor;
    t.last_error = errors::Unavailable("not contacted yet");
    tasks_.push_back(std::move(t));
  }
}

void ClusterMembership::StartHeartbeats() {
  if (!cluster() || heartbeats_started_) return;
  heartbeats_started_ = true;
  self_->send(self_, heartbeat_tick_atom::value);
}

void ClusterMembership::Tick() {
  for (size_t t = 1; t < tasks_.size(); ++t) {
    if (!tasks_[t].heartbeat_in_flight) AskHeartbeat(static_cast<int>(t), options_.heartbeat_timeout_ms, nullptr);
  }
  self_->delayed_send(self_, std::chrono::milliseconds(options_.heartbeat_interval_ms), heartbeat_tick_atom::value);
}

void ClusterMembership::CheckNow(int task) {
  if (!tasks_[task].heartbeat_in_flight) AskHeartbeat(task, options_.heartbeat_timeout_ms, nullptr);
}

void ClusterMembership::SendPeers(int moved) {
  PeerDirectory all, news;
  for (size_t i = 0; i < tasks_.size(); ++i) {
    const TaskState& t = tasks_[i];
    if (t.data_plane.empty()) continue;
    all.data_plane_by_task[t.name] = t.data_plane;
    if (static_cast<int>(i) == moved) news.data_plane_by_task[t.name] = t.data_plane;
  }
  for (size_t i = 0; i < tasks_.size(); ++i) {
    // The moved task (a restarted one knows nothing) gets everything, the others the news.
    const bool everything = moved < 0 || static_cast<int>(i) == moved;
    self_->send(tasks_[i].worker, set_peers_atom::value, everything ? all : news);
  }
}

void ClusterMembership::MarkUnhealthy(int task, const Status& why) {
  TaskState& t = tasks_[task];
  if (t.healthy) LogLine(StrCat("master: task ", t.name, " is unavailable: ", why.message()));
  t.healthy = false;
  t.last_error = why;
  events_.unavailable(task, errors::Unavailable("task ", t.name, " is unavailable: ", why.message()));
}

void ClusterMembership::OnHeartbeat(int task, WorkerInfo info) {
  TaskState& t = tasks_[task];
  if (!info.status.ok()) return MarkUnhealthy(task, info.status);
  if (t.name.empty()) t.name = info.task;  // the master's own task names itself
  if (!info.task.empty() && info.task != t.name) {
    return MarkUnhealthy(task, errors::FailedPrecondition("the node at its address says it is task ", info.task));
  }
  if (t.incarnation != 0 && info.incarnation != t.incarnation) {
    LogLine(StrCat("master: task ", t.name, " restarted (incarnation ", t.incarnation, " -> ", info.incarnation,
               "); its graphs will be registered again"));
    events_.restarted(task);
  } else if (!t.healthy && t.incarnation != 0) {
    LogLine(StrCat("master: task ", t.name, " answers again"));
  }
  bool moved = info.data_plane != t.data_plane;
  t.incarnation = info.incarnation;
  t.data_plane = std::move(info.data_plane);
  t.devices = std::move(info.devices);
  t.healthy = true;
  t.last_error = Status::OK();
  t.last_heartbeat = std::chrono::steady_clock::now();
  // Workers merge what they are told: one task's move is news of one entry. During a
  // discovery round nothing is sent until it ends (then the whole directory, once): a
  // directory per first heartbeat would be N^2 messages of N entries.
  if (moved && cluster() && discovering_ == 0) SendPeers(task);
}

void ClusterMembership::AskHeartbeat(int task, int64_t timeout_ms, std::function<void()> then) {
  TaskState& t = tasks_[task];
  const uint64_t id = next_heartbeat_++;
  t.heartbeat_in_flight = true;
  t.heartbeat_id = id;
  t.heartbeat_timeout_ms = timeout_ms;
  t.heartbeat_due = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  t.heartbeat_then = std::move(then);
  CheckDeadlinesBy(t.heartbeat_due);
  // No CAF timeout: a request with one costs a timer of CAF's clock (a lock and a wake-up of
  // its thread) per task per round; the deadline is CheckDeadlines'. Every worker answers
  // in the end (a RemoteWorker's calls have deadlines of their own); an answer after the
  // deadline, to a heartbeat no longer in flight, is dropped.
  self_->request(t.worker, caf::infinite, heartbeat_atom::value)
      .then(
          [=](WorkerInfo& info) {
            if (!tasks_[task].heartbeat_in_flight || tasks_[task].heartbeat_id != id) return;
            OnHeartbeat(task, std::move(info));
            EndHeartbeat(task);
          },
          [=](caf::error& e) {
            if (!tasks_[task].heartbeat_in_flight || tasks_[task].heartbeat_id != id) return;
            MarkUnhealthy(task, FromCafError(e, "heartbeat"));
            EndHeartbeat(task);
          });
}

void ClusterMembership::EndHeartbeat(int task) {
  TaskState& t = tasks_[task];
  t.heartbeat_in_flight = false;
  std::function<void()> then = std::move(t.heartbeat_then);
  t.heartbeat_then = nullptr;
  if (then) then();
}

void ClusterMembership::CheckDeadlinesBy(std::chrono::steady_clock::time_point due) {
  if (due >= next_check_) return;  // a check comes before then, and schedules the next
  next_check_ = due;
  const auto wait = std::chrono::ceil<std::chrono::milliseconds>(due - std::chrono::steady_clock::now());
  self_->delayed_send(self_, std::max(wait, std::chrono::milliseconds(0)), heartbeat_deadline_atom::value);
}

void ClusterMembership::CheckDeadlines() {
  const auto now = std::chrono::steady_clock::now();
  next_check_ = std::chrono::steady_clock::time_point::max();
  auto next = next_check_;
  for (size_t task = 0; task < tasks_.size(); ++task) {
    TaskState& t = tasks_[task];
    if (!t.heartbeat_in_flight) continue;
    if (now < t.heartbeat_due) {
      next = std::min(next, t.heartbeat_due);
      continue;
    }
    MarkUnhealthy(static_cast<int>(task),
                  errors::DeadlineExceeded("no heartbeat within ", t.heartbeat_timeout_ms, " ms"));
    EndHeartbeat(static_cast<int>(task));  // its `then` may ask again (and schedule a check)
  }
  if (next != std::chrono::steady_clock::time_point::max()) CheckDeadlinesBy(next);
}

void ClusterMembership::WithCluster(std::function<void(const Status&)> next) {
  bool ready = true;
  for (const TaskState& t : tasks_) ready &= t.healthy;
  if (ready) return next(Status::OK());
  waiting_for_cluster_.push_back(std::move(next));
  if (discovering_ > 0) return;
  auto round_done = [this]() {
    if (--discovering_ > 0) return;
    std::string missing;
    for (const TaskState& t : tasks_) {
      if (!t.healthy) missing += StrCat(missing.empty() ? "" : "; ", t.name, ": ", t.last_error.message());
    }
    Status status = missing.empty() ? Status::OK() : errors::Unavailable("tasks not reachable: ", missing);
    if (cluster()) SendPeers();  // what the round learned, whether or not every task answered
    auto waiting = std::move(waiting_for_cluster_);
    waiting_for_cluster_.clear();
    for (auto& k : waiting) k(status);
  };
  // A first contact includes connecting; give it the longer of the two.
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(std::max<int64_t>(options_.heartbeat_timeout_ms, 5000));
  for (size_t t = 0; t < tasks_.size(); ++t) {
    if (tasks_[t].healthy) continue;
    ++discovering_;
    Discover(static_cast<int>(t), deadline, 0, round_done);
  }
}

void ClusterMembership::Discover(int task, std::chrono::steady_clock::time_point deadline, int attempt,
                                     std::function<void()> then) {
  using std::chrono::milliseconds;
  const int64_t left =
      std::max<int64_t>(std::chrono::duration_cast<milliseconds>(deadline - std::chrono::steady_clock::now()).count(), 1);
  auto next = [=] {
    // Tries again, after a pause that doubles, while the task's connection failed rather
    // than timed out: two nodes' masters dialling each other at the same moment (every
    // client starting its own, as MultiWorkerMirroredStrategy's do) can see CAF drop a
    // connection, and a second dial at once may be handed the dying one again.
    const int64_t pause_ms = std::min<int64_t>(50 << std::min(attempt, 4), 800);
    const bool timed_out = errors::IsDeadlineExceeded(tasks_[task].last_error);
    if (tasks_[task].healthy || timed_out || std::chrono::steady_clock::now() + milliseconds(pause_ms) >= deadline) {
      return then();
    }
    LogLine(StrCat("master: discovering task ", tasks_[task].name, " again in ", pause_ms,
               " ms: ", tasks_[task].last_error.message()));
    const uint64_t retry = next_retry_++;
    retries_[retry] = [=] { Discover(task, deadline, attempt + 1, then); };
    self_->delayed_send(self_, milliseconds(pause_ms), discovery_retry_atom::value, retry);
  };
  TaskState& t = tasks_[task];
  if (t.heartbeat_in_flight) {
    // A periodic heartbeat is out already (the first session started them): wait for its
    // answer rather than ask again, with the discovery's longer deadline.
    std::function<void()> before = std::move(t.heartbeat_then);
    t.heartbeat_then = [before, next] {
      if (before) before();
      next();
    };
    t.heartbeat_timeout_ms = std::max(t.heartbeat_timeout_ms, left);
    t.heartbeat_due = std::max(t.heartbeat_due, deadline);
    return;
  }
  AskHeartbeat(task, left, next);
}

void ClusterMembership::Retry(uint64_t id) {
  auto it = retries_.find(id);
  if (it == retries_.end()) return;
  std::function<void()> retry = std::move(it->second);
  retries_.erase(it);
  retry();
}

std::string ClusterMembership::Inspect() const {
  std::string out;
  if (!cluster()) return out;
  for (const TaskState& t : tasks_) {
    out += StrCat("\n  task ", t.name, ": ", t.healthy ? "healthy" : "UNAVAILABLE",
                  t.healthy ? "" : StrCat(" (", t.last_error.message(), ")"), ", incarnation ", t.incarnation,
                  ", data plane ", t.data_plane.empty() ? "-" : t.data_plane, ", ", t.devices.size(), " devices");
  }
  return out;
}

std::string ClusterMembership::InspectWaiting() const {
  if (waiting_for_cluster_.empty()) return "";
  return StrCat("\n  ", waiting_for_cluster_.size(), " first steps wait to learn every task's devices (", discovering_,
                " heartbeats out)");
}

}  // namespace tensoract
