// Rendezvous: where a _Send leaves a tensor and the matching _Recv picks it up.
//
// A key names one transfer of one step (TensorFlow's format, graph/partition.h's
// RendezvousKey: "src_device;src_incarnation;dst_device;tensor_name;frame:iteration").
// Send never blocks: the value waits in the rendezvous until it is received. RecvAsync
// never blocks either: `done` runs once, on some other thread, when the value is there or
// when the step is aborted (then with the abort's status). The dead flag of a value
// travels with it (control flow's untaken branches).
//
// The runtime's implementation is an actor (actors/rendezvous.h); kernels see only this.
// Thread-safety: every method may be called from any thread.
#ifndef TENSORACT_KERNELS_RENDEZVOUS_H_
#define TENSORACT_KERNELS_RENDEZVOUS_H_

#include <cstdint>
#include <functional>
#include <string>

#include "base/status.h"
#include "graph/node_def_util.h"
#include "kernels/op_kernel.h"
#include "kernels/tensor.h"

namespace tensoract {

class Rendezvous {
 public:
  using DoneCallback = std::function<void(const Status& status, const Tensor& value, bool is_dead)>;

  virtual ~Rendezvous() = default;
  // Leaves `value` under `key` for step `step_id`. A second send of one key in one step is
  // an error the receiver sees (it names the key).
  virtual void Send(int64_t step_id, const std::string& key, const Tensor& value, bool is_dead) = 0;
  // `allocator`: where a value that comes from another process is written, so that it is
  // copied once: the receiving device's own allocator on a CPU, pinned host memory for a
  // GPU; nullptr: the process's CPU allocator. A value from this process arrives as its
  // sender left it.
  virtual void RecvAsync(int64_t step_id, const std::string& key, Allocator* allocator, DoneCallback done) = 0;
  void RecvAsync(int64_t step_id, const std::string& key, DoneCallback done) {
    RecvAsync(step_id, key, nullptr, std::move(done));
  }
};

// The key a _Send or _Recv node exchanges its tensor under, from the attrs the partitioner
// wrote (send_device, send_device_incarnation, recv_device, tensor_name), for the root
// frame's iteration 0. InvalidArgument naming the node if an attr is missing.
StatusOr<std::string> RendezvousKeyOf(const NodeDef& send_or_recv);

// `root_key` (a key for the root frame's iteration 0, as RendezvousKeyOf makes it) for
// iteration `iter_id` of frame instance `frame_id`: a _Send/_Recv pair inside a loop
// exchanges one value per iteration.
std::string RendezvousKeyInFrame(const std::string& root_key, int64_t frame_id, int64_t iter_id);

// For the _Send and _Recv kernels of every device: the key from the node's attrs (an
// error goes to `ctx`, and the key is then empty), and the error of running outside a
// worker's step.
std::string RendezvousKeyForKernel(OpKernelConstruction* ctx);
Status NoRendezvousError(const OpKernel& kernel);

// The half of a _Recv that is the same on every device: it asks the step's rendezvous for
// its key (in the node's frame and iteration) and finishes when the answer comes, so the
// executor never blocks; an error or a dtype other than the node's fails the step, and a
// dead value leaves the output unset (dead). Each device says where a value from another
// process is written (ReceiveInto) and how a live value becomes its output (Accept).
class RecvKernel : public AsyncOpKernel {
 public:
  explicit RecvKernel(OpKernelConstruction* ctx) : AsyncOpKernel(ctx), key_(RendezvousKeyForKernel(ctx)) {}
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) final;
  bool CanOutputDead() const override { return true; }
  bool RunsWithDeadInputs() const override { return true; }  // a dead control input: it still receives

 protected:
  // Rendezvous::RecvAsync's allocator.
  virtual Allocator* ReceiveInto(OpKernelContext* ctx) const = 0;
  // Sets output 0 from `value` (live, the node's dtype), or the context's status.
  virtual void Accept(OpKernelContext* ctx, const std::string& key, const Tensor& value) const = 0;

 private:
  std::string key_;
};

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_RENDEZVOUS_H_
