#include "actors/rendezvous.h"

#include <deque>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <caf/all.hpp>

#include "messages/observer.pb.h"

namespace tensoract {
namespace {

// Who waits for a key: a local kernel's callback, or a remote asker's response promise.
struct Waiter {
  Rendezvous::DoneCallback callback;
  caf::typed_response_promise<RendezvousValue> promise;
  std::chrono::steady_clock::time_point since = std::chrono::steady_clock::now();  // for an observer
  void Answer(const RendezvousValue& v) {
    if (callback) {
      callback(v.status, v.value, v.is_dead);
    } else {
      promise.deliver(v);
    }
  }
};

struct StepTable {
  std::map<std::string, RendezvousValue> sent;            // values no Recv has taken yet
  std::map<std::string, std::vector<Waiter>> waiting;      // Recvs no Send has answered yet
  Status aborted;                                          // set once the step is aborted
};

struct RendezvousState {
  std::string owner;
  std::map<int64_t, StepTable> steps;
  // Steps cleaned up recently: a straggling Send for one of them is dropped instead of
  // opening the step's table again, and a late Recv is told why it ended (its abort's
  // status when it was aborted). Bounded, oldest forgotten first.
  std::map<int64_t, Status> finished;
  std::deque<int64_t> finished_order;
  static constexpr size_t kFinishedRemembered = 4096;
  // Key parts aborted by abort_matching_atom, most recent last, with why: a Recv or Send of
  // a key containing one, arriving later, is answered or dropped as if it had been there
  // (a remote fetch may pass its asker's checks before the abort and reach this actor
  // after it). Bounded, oldest forgotten first.
  std::deque<std::pair<std::string, Status>> aborted_parts;
  static constexpr size_t kAbortedPartsRemembered = 64;
  static inline const char* name = "tensoract.rendezvous";
};

using RendezvousSelf = caf::stateful_actor<RendezvousState>;

// A table with nothing sent, nothing waited for and no abort is the same as none: dropped,
// so steps that never clean up (a collective's transfers) leave nothing behind.
void DropIfEmpty(RendezvousSelf* self, int64_t step) {
  auto it = self->state.steps.find(step);
  if (it != self->state.steps.end() && it->second.sent.empty() && it->second.waiting.empty() &&
      it->second.aborted.ok()) {
    self->state.steps.erase(it);
  }
}

// The status of the remembered abort whose part `key` contains, or OK.
Status AbortedPart(const RendezvousState& st, const std::string& key) {
  for (const auto& [part, why] : st.aborted_parts) {
    if (key.find(part) != std::string::npos) return why;
  }
  return Status::OK();
}

void Deliver(RendezvousSelf* self, int64_t step, const std::string& key, RendezvousValue value) {
  auto& st = self->state;
  if (!st.aborted_parts.empty() && !AbortedPart(st, key).ok()) return;
  if (st.finished.count(step)) return;
  StepTable& table = st.steps[step];
  if (!table.aborted.ok()) return;
  auto w = table.waiting.find(key);
  if (w != table.waiting.end()) {
    std::vector<Waiter> waiters = std::move(w->second);
    table.waiting.erase(w);
    // One Send feeds one Recv; a second Recv of the key is a partitioning bug, told apart.
    waiters.front().Answer(value);
    for (size_t i = 1; i < waiters.size(); ++i) {
      waiters[i].Answer({errors::Internal("rendezvous key ", key, " of step ", step, " was received twice"), {}, false});
    }
    return DropIfEmpty(self, step);
  }
  if (table.sent.count(key)) {
    // The receiver will get this error instead of a value it cannot trust.
    table.sent[key] = {errors::Internal("rendezvous key ", key, " of step ", step, " was sent twice"), {}, false};
    return;
  }
  table.sent.emplace(key, std::move(value));
}

void Receive(RendezvousSelf* self, int64_t step, const std::string& key, Waiter waiter) {
  auto& st = self->state;
  // Before the step's own end: a formation's end names why its transfers stopped.
  if (!st.aborted_parts.empty()) {
    if (Status why = AbortedPart(st, key); !why.ok()) return waiter.Answer({why, {}, false});
  }
  if (auto ended = st.finished.find(step); ended != st.finished.end()) {
    if (!ended->second.ok()) return waiter.Answer({ended->second, {}, false});
    return waiter.Answer({errors::Aborted("step ", step, " has ended; nothing more arrives for ", key), {}, false});
  }
  StepTable& table = st.steps[step];
  if (!table.aborted.ok()) return waiter.Answer({table.aborted, {}, false});
  auto s = table.sent.find(key);
  if (s != table.sent.end()) {
    RendezvousValue v = std::move(s->second);
    table.sent.erase(s);
    DropIfEmpty(self, step);
    return waiter.Answer(v);
  }
  table.waiting[key].push_back(std::move(waiter));
}

void FailWaiters(StepTable& table, const Status& status) {
  auto waiting = std::move(table.waiting);
  table.waiting.clear();
  for (auto& [key, waiters] : waiting) {
    for (Waiter& w : waiters) w.Answer({status, {}, false});
  }
}

caf::behavior rendezvous_actor(RendezvousSelf* self, std::string owner) {
  self->state.owner = std::move(owner);
  return {
      [=](rdv_send_atom, int64_t step, const std::string& key, RendezvousValue& value) {
        Deliver(self, step, key, std::move(value));
      },
      [=](rdv_recv_atom, int64_t step, const std::string& key, RecvCallback& cb) {
        Receive(self, step, key, Waiter{std::move(cb.done), {}});
      },
      [=](rdv_recv_atom, int64_t step, const std::string& key) -> caf::result<RendezvousValue> {
        auto promise = self->make_response_promise<RendezvousValue>();
        Receive(self, step, key, Waiter{nullptr, promise});
        return promise;
      },
      [=](abort_atom, int64_t step, const Status& status) {
        auto& st = self->state;
        if (st.finished.count(step)) return;
        StepTable& table = st.steps[step];
        if (table.aborted.ok()) table.aborted = status.ok() ? errors::Aborted("step ", step, " was aborted") : status;
        table.sent.clear();
        FailWaiters(table, table.aborted);
      },
      [=](abort_matching_atom, const std::string& part, const Status& why) {
        auto& st = self->state;
        st.aborted_parts.emplace_back(part, why);
        if (st.aborted_parts.size() > RendezvousState::kAbortedPartsRemembered) st.aborted_parts.pop_front();
        std::vector<int64_t> emptied;
        for (auto& [step, table] : st.steps) {
          for (auto it = table.sent.begin(); it != table.sent.end();) {
            it = it->first.find(part) != std::string::npos ? table.sent.erase(it) : std::next(it);
          }
          for (auto it = table.waiting.begin(); it != table.waiting.end();) {
            if (it->first.find(part) == std::string::npos) {
              ++it;
              continue;
            }
            std::vector<Waiter> waiters = std::move(it->second);
            it = table.waiting.erase(it);
            for (Waiter& w : waiters) w.Answer({why, {}, false});
          }
          if (table.sent.empty() && table.waiting.empty() && table.aborted.ok()) emptied.push_back(step);
        }
        for (int64_t step : emptied) st.steps.erase(step);
      },
      [=](cleanup_step_atom, int64_t step) {
        auto& st = self->state;
        auto it = st.steps.find(step);
        Status why;  // the step's abort, if it was aborted
        if (it != st.steps.end()) {
          why = it->second.aborted;
          FailWaiters(it->second, why.ok() ? errors::Aborted("step ", step, " ended while this Recv was waiting") : why);
          st.steps.erase(it);
        }
        if (st.finished.emplace(step, why).second) {
          st.finished_order.push_back(step);
          if (st.finished_order.size() > RendezvousState::kFinishedRemembered) {
            st.finished.erase(st.finished_order.front());
            st.finished_order.pop_front();
          }
        }
      },
      [=](observe_atom) -> std::string {
        auto& st = self->state;
        observe::NodeSnapshot part;
        observe::Actor* actor = part.add_actors();
        actor->set_name("rendezvous of " + st.owner);
        actor->set_kind("rendezvous");
        actor->set_mailbox(static_cast<int64_t>(self->mailbox().size()));
        size_t waits = 0, unclaimed = 0;
        const auto now = std::chrono::steady_clock::now();
        for (const auto& [step, table] : st.steps) {
          for (const auto& [key, waiters] : table.waiting) {
            observe::Wait* w = part.add_waits();
            w->set_step_id(step);
            w->set_key(key);
            w->set_recv_waiting(true);
            w->set_age_s(std::chrono::duration<double>(now - waiters.front().since).count());
            ++waits;
          }
          for (const auto& [key, value] : table.sent) {
            observe::Wait* w = part.add_waits();
            w->set_step_id(step);
            w->set_key(key);
            ++unclaimed;
          }
        }
        actor->set_doing(StrCat(st.steps.size(), " steps, ", waits, " Recvs waiting, ", unclaimed,
                                " values sent and not received"));
        return part.SerializeAsString();
      },
      [=](inspect_atom) -> std::string {
        auto& st = self->state;
        std::string out = StrCat("rendezvous of ", st.owner, ": ", st.steps.size(), " steps with entries");
        for (const auto& [step, table] : st.steps) {
          out += StrCat("\n  step ", step, table.aborted.ok() ? "" : " (aborted)");
          for (const auto& [key, waiters] : table.waiting) {
            out += StrCat("\n    Recv waits for Send of ", key, " (", waiters.size(), " receiver",
                          waiters.size() == 1 ? ")" : "s)");
          }
          for (const auto& [key, value] : table.sent) out += StrCat("\n    sent, not yet received: ", key);
        }
        return out;
      },
  };
}

}  // namespace

caf::actor SpawnRendezvous(caf::actor_system& system, std::string owner) {
  return system.spawn(rendezvous_actor, std::move(owner));
}

void ActorRendezvous::Send(int64_t step_id, const std::string& key, const Tensor& value, bool is_dead) {
  caf::anon_send(actor_, rdv_send_atom::value, step_id, key, RendezvousValue{Status::OK(), value, is_dead});
}

void ActorRendezvous::RecvAsync(int64_t step_id, const std::string& key, Allocator* /*allocator*/, DoneCallback done) {
  caf::anon_send(actor_, rdv_recv_atom::value, step_id, key, RecvCallback{std::move(done)});
}

}  // namespace tensoract
