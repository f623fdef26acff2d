// EgressOrder: a node's large replies leave it oldest first, not all at once.
//
// Why: when several peers pull large tensors from one node at the same moment (workers
// fetching a ps's weights at the start of a step), TCP shares the node's link among them
// and every transfer ends at the same late moment, the sum of them all; no puller can start
// computing before then, and the link back (their gradients) idles meanwhile. Sent one after
// the other, the first ends after its own share of the time, its puller computes and sends
// back while the next is sent, and the last ends no later than before. Whole steps through a
// ps get shorter; nothing gets longer.
//
// How: each large reply holds a Ticket while it is queued (tickets are numbered in the order
// replies become ready). A reply's writer may put bytes into its socket when no older reply
// is writing, or waiting for its own socket to take more for less than `stall`: an older
// reply whose peer takes its bytes slowly (its own link, not this node's, is the narrow one)
// holds nobody up for longer than that, so the node's link never idles for its sake. A reply
// whose writer is not at work on it (queued behind another reply of the same connection)
// holds nobody up either: its connection is busy with that other reply anyway.
//
// Thread-safety: every member may be called from any thread.
#ifndef TENSORACT_ACTORS_DATA_PLANE_EGRESS_ORDER_H_
#define TENSORACT_ACTORS_DATA_PLANE_EGRESS_ORDER_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

namespace tensoract {
namespace data_plane {

class EgressOrder : public std::enable_shared_from_this<EgressOrder> {
 public:
  using Clock = std::chrono::steady_clock;

  explicit EgressOrder(std::chrono::milliseconds stall) : stall_(stall) {}

  // A large reply's place in line, from Join until it is destroyed.
  class Ticket {
   public:
    ~Ticket() { order_->Leave(id_); }
    Ticket(const Ticket&) = delete;
    Ticket& operator=(const Ticket&) = delete;

    // Waits until this reply may write (see the file's comment); then it counts as writing.
    // Whether other replies are in line (the writer keeps less unsent then).
    bool WaitTurn() { return order_->WaitTurn(id_); }
    // The writer waits for its socket to take more (until Writing or the ticket's end).
    void Polling() { order_->Set(id_, State::kPolling); }
    // The writer put down the reply (it goes back in its connection's queue).
    void Idle() { order_->Set(id_, State::kIdle); }

   private:
    friend class EgressOrder;
    Ticket(std::shared_ptr<EgressOrder> order, uint64_t id) : order_(std::move(order)), id_(id) {}
    const std::shared_ptr<EgressOrder> order_;  // a reply may outlive its server
    const uint64_t id_;
  };

  // The next place in line. The order must be owned by a shared_ptr.
  std::unique_ptr<Ticket> Join();

 private:
  enum class State { kIdle, kWriting, kPolling };
  struct Entry {
    State state = State::kIdle;
    Clock::time_point since;  // when kPolling began
  };

  bool WaitTurn(uint64_t id);
  void Set(uint64_t id, State state);
  void Leave(uint64_t id);

  const std::chrono::milliseconds stall_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<uint64_t, Entry> entries_;  // by id: oldest first
  uint64_t next_id_ = 0;
};

}  // namespace data_plane
}  // namespace tensoract

#endif  // TENSORACT_ACTORS_DATA_PLANE_EGRESS_ORDER_H_
