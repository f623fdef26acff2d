// What the master tells about itself: Inspect's text and its part of an observer's snapshot.
#include <algorithm>

#include "actors/master_state.h"
#include "messages/observer.pb.h"

namespace tensoract {
namespace master_internal {

std::string ObserveMaster(Self* self) {
  const MasterState& st = self->state;
  observe::NodeSnapshot part;
  observe::Actor* actor = part.add_actors();
  actor->set_name("master");
  actor->set_kind("master");
  actor->set_mailbox(static_cast<int64_t>(self->mailbox().size()));
  actor->set_doing(StrCat(st.sessions.size(), " sessions, ", st.steps.size(), " steps running"));
  const auto now = std::chrono::steady_clock::now();
  for (const TaskState& t : st.membership->tasks()) {
    observe::Task* task = part.add_tasks();
    task->set_name(t.name);
    task->set_address(t.address);
    task->set_healthy(t.healthy);
    task->set_incarnation(t.incarnation);
    task->set_since_heartbeat_s(t.last_heartbeat.time_since_epoch().count() == 0
                                    ? -1
                                    : std::chrono::duration<double>(now - t.last_heartbeat).count());
    if (!t.healthy) task->set_error(t.last_error.message());
  }
  if (st.last_traced) {
    observe::TracedStep* traced = part.mutable_last_traced();
    traced->set_step_id(st.last_traced_step);
    traced->set_duration_s(st.last_traced_s);
    *traced->mutable_step_stats() = *st.last_traced;
  }
  for (const auto& [id, step] : st.steps) {
    observe::Step* s = part.add_steps();
    s->set_step_id(id);
    s->set_age_s(std::chrono::duration<double>(now - step.started).count());
    for (int t : step.tasks) {
      if (std::find(step.answered.begin(), step.answered.end(), t) == step.answered.end()) {
        s->add_waiting_for(st.membership->task(t).name);
      }
    }
  }
  return part.SerializeAsString();
}

std::string InspectMaster(const MasterState& st) {
  std::string out = StrCat("master: ", st.sessions.size(), " sessions, ", st.steps.size(),
                           " steps running, next step id ", st.next_step);
  for (const auto& [handle, s] : st.sessions) {
    const auto idle = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - s.last_used);
    out += StrCat("\n  ", handle, ": ", s.graph->node_size(), " nodes, ", s.calls.size(), " cached signatures, idle ",
                  idle.count(), " s");
  }
  out += st.membership->Inspect();
  auto names = [&](const std::vector<int>& tasks) {
    std::string list;
    for (int t : tasks) list += StrCat(list.empty() ? "" : ", ", st.membership->task(t).name);
    return list;
  };
  for (const auto& [id, step] : st.steps) {
    out += StrCat("\n  step ", id, ": waiting for ", step.remaining, " of ", step.tasks.size(), " tasks [",
                  names(step.tasks), "]");
  }
  for (const auto& [id, start] : st.starting) {
    out += StrCat("\n  a first step registering its graphs on tasks [", names(start.tasks), "]");
  }
  out += st.membership->InspectWaiting();
  return out;
}

}  // namespace master_internal
}  // namespace tensoract
