#include "actors/data_plane/egress_order.h"

#include <algorithm>

namespace tensoract {
namespace data_plane {

std::unique_ptr<EgressOrder::Ticket> EgressOrder::Join() {
  std::lock_guard<std::mutex> lock(mu_);
  const uint64_t id = next_id_++;
  entries_.emplace(id, Entry{});
  return std::unique_ptr<Ticket>(new Ticket(shared_from_this(), id));
}

bool EgressOrder::WaitTurn(uint64_t id) {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    const Clock::time_point now = Clock::now();
    Clock::time_point recheck = Clock::time_point::max();
    bool blocked = false;
    for (const auto& [other, e] : entries_) {
      if (other >= id) break;
      if (e.state == State::kWriting) {
        blocked = true;
      } else if (e.state == State::kPolling && now < e.since + stall_) {
        blocked = true;
        recheck = std::min(recheck, e.since + stall_);
      }
    }
    if (!blocked) break;
    if (recheck == Clock::time_point::max()) {
      cv_.wait(lock);
    } else {
      cv_.wait_until(lock, recheck);
    }
  }
  entries_[id].state = State::kWriting;
  return entries_.size() > 1;
}

void EgressOrder::Set(uint64_t id, State state) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    Entry& e = entries_[id];
    e.state = state;
    if (state == State::kPolling) e.since = Clock::now();
  }
  cv_.notify_all();
}

void EgressOrder::Leave(uint64_t id) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    entries_.erase(id);
  }
  cv_.notify_all();
}

}  // namespace data_plane
}  // namespace tensoract
