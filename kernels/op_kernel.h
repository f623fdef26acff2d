// OpKernel: how one node computes on one device.
//
// A kernel is made once per node when a graph is registered (its constructor reads and
// checks the node's attrs), and Compute runs once per step. Compute may run for several
// steps at once on different threads, so it must not change the kernel's own members;
// per-step state lives in the OpKernelContext. Errors are reported with
// OP_REQUIRES(ctx, cond, errors::X(...)) and end the step with that status.
//
//   class IdentityOp : public OpKernel {
//    public:
//     using OpKernel::OpKernel;
//     void Compute(OpKernelContext* ctx) override { ctx->set_output(0, ctx->input(0)); }
//     bool IsExpensive() const override { return false; }
//   };
#ifndef TENSORACT_KERNELS_OP_KERNEL_H_
#define TENSORACT_KERNELS_OP_KERNEL_H_

#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "graph/node_def_util.h"
#include "kernels/device.h"
#include "kernels/tensor.h"

namespace tensoract {

class Var;
class Rendezvous;
class CancellationManager;
class CollectiveExecutor;

// How a step's feeds reach its _Arg nodes and its _Retval nodes reach the fetches.
// Called only from the executor's own thread (the call-frame kernels are inexpensive).
class CallFrame {
 public:
  virtual ~CallFrame() = default;
  virtual Status GetArg(int index, Tensor* value) const = 0;
  virtual Status SetRetval(int index, const Tensor& value) = 0;
};

class OpKernelConstruction {
 public:
  OpKernelConstruction(Device* device, const NodeDef& def, DataTypeVector input_types,
                       DataTypeVector output_types)
      : device_(device), def_(def), input_types_(std::move(input_types)), output_types_(std::move(output_types)) {}

  const NodeDef& def() const { return def_; }
  Device* device() const { return device_; }
  const DataTypeVector& input_types() const { return input_types_; }
  const DataTypeVector& output_types() const { return output_types_; }

  template <class T>
  Status GetAttr(const std::string& name, T* value) const { return GetNodeAttr(def_, name, value); }

  void SetStatus(const Status& s) { if (status_.ok()) status_ = s; }
  const Status& status() const { return status_; }

 private:
  Device* device_;
  const NodeDef& def_;
  DataTypeVector input_types_, output_types_;
  Status status_;
};

class OpKernelContext;

class OpKernel {
 public:
  explicit OpKernel(OpKernelConstruction* ctx);
  virtual ~OpKernel();

  virtual void Compute(OpKernelContext* ctx) = 0;
  // Inexpensive kernels run inline in the executor's handler; expensive ones on the
  // device's threads. Most kernels with real arithmetic should say true.
  virtual bool IsExpensive() const { return true; }
  // True for AsyncOpKernel: Compute is not called; ComputeAsync is.
  virtual bool IsAsync() const { return false; }
  // True for the kernels that may leave an output unset, which makes that output dead
  // (control flow's untaken branches): Switch, and _Recv receiving a dead value. Any other
  // kernel must set every output.
  virtual bool CanOutputDead() const { return false; }
  // True for the kernels the executor runs even when an input is dead (is_input_dead tells
  // them): _Send, which passes the deadness on, and a while loop gradient's StackPushV2,
  // which records it. Any other node with a dead input is skipped, its outputs dead.
  virtual bool RunsWithDeadInputs() const { return false; }

  const std::string& name() const { return name_; }
  const std::string& type_string() const { return type_; }
  const DataTypeVector& input_types() const { return input_types_; }
  const DataTypeVector& output_types() const { return output_types_; }
  int num_outputs() const { return static_cast<int>(output_types_.size()); }

 private:
  std::string name_, type_;
  DataTypeVector input_types_, output_types_;
};

// "node 'NAME' (TYPE): ", how a kernel's error messages begin.
std::string KernelWhere(const OpKernel& kernel);

class OpKernelContext {
 public:
  struct Params {
    Device* device = nullptr;
    const OpKernel* kernel = nullptr;
    const std::vector<Tensor>* inputs = nullptr;
    // For a kernel with reference inputs (Assign's `ref: Ref(T)`): the variable behind
    // each ref input, nullptr for value inputs. Absent (nullptr) when no input is a ref.
    const std::vector<std::shared_ptr<Var>>* input_refs = nullptr;
    CallFrame* call_frame = nullptr;
    int64_t step_id = 0;
    // Where _Send and _Recv exchange tensors with other devices; nullptr outside a worker.
    Rendezvous* rendezvous = nullptr;
    // Where the outputs go; nullptr: the context's own vector. An executor running many
    // kernels on one thread passes one vector for all of them and saves an allocation each.
    std::vector<Tensor>* output_storage = nullptr;
    // The executor runs a node with a dead input only if it is a _Send (which passes the
    // deadness on to its _Recv); every other such node is skipped.
    bool is_input_dead = false;
    // Bit i clear: input i has no value (a Merge's inputs other than the live one). Inputs
    // from 64 on always have one.
    uint64_t inputs_present = ~uint64_t{0};
    // The frame instance and iteration the node runs in (0, 0 outside loops): a _Send or
    // _Recv inside a loop exchanges one value per iteration under keys ending in them.
    int64_t frame_id = 0;
    int64_t iter_id = 0;
    // Bit i clear: nothing consumes output i in this graph (TensorFlow's output_required):
    // a kernel may set it cheaply (an empty value of the right shape) instead of computing
    // it. Outputs from 64 on are always required.
    uint64_t outputs_required = ~uint64_t{0};
    // The step's cancellation (kernels/cancellation.h), for asynchronous kernels that wait
    // on something outside the step (a queue); nullptr outside a worker's step.
    CancellationManager* cancellation = nullptr;
    // Where collective ops (kernels/collective.h) meet the other members of their group:
    // the worker's; nullptr outside a worker's step.
    CollectiveExecutor* collectives = nullptr;
    // The step runs every kernel on its caller's thread (RunOptions::inter_op_thread_pool
    // -1): an asynchronous kernel goes on with its work here when it can, rather than on
    // the device's threads.
    bool on_caller_thread = false;
    // The executor has other expensive nodes ready to run: an asynchronous kernel with long
    // work of its own (a whole loop) should leave the executor's thread to them.
    bool work_waiting = false;
  };
  explicit OpKernelContext(const Params& params);

  const OpKernel& op_kernel() const { return *params_.kernel; }
  Device* device() const { return params_.device; }
  CallFrame* call_frame() const { return params_.call_frame; }
  int64_t step_id() const { return params_.step_id; }
  bool on_caller_thread() const { return params_.on_caller_thread; }
  bool work_waiting() const { return params_.work_waiting; }
  Rendezvous* rendezvous() const { return params_.rendezvous; }
  bool is_input_dead() const { return params_.is_input_dead; }
  int64_t frame_id() const { return params_.frame_id; }
  int64_t iter_id() const { return params_.iter_id; }
  CancellationManager* cancellation() const { return params_.cancellation; }
  CollectiveExecutor* collectives() const { return params_.collectives; }
  bool output_required(int i) const { return i >= 64 || ((params_.outputs_required >> i) & 1); }

  int num_inputs() const { return static_cast<int>(params_.inputs->size()); }
  // False for an input that has no value: only a Merge sees such inputs (all but its
  // first live one).
  bool has_input(int i) const { return i >= 64 || ((params_.inputs_present >> i) & 1); }
  const Tensor& input(int i) const { return (*params_.inputs)[i]; }
  // The variable behind reference input `i`; nullptr when input `i` is not a reference.
  const std::shared_ptr<Var>& input_ref(int i) const;
  ResourceMgr* resource_manager() const { return params_.device->resource_manager(); }

  // Allocates output `i` from the device's allocator; fails with ResourceExhausted.
  Status allocate_output(int i, const TensorShape& shape, Tensor** out);
  // Output `output_index` in input `input_index`'s buffer when nothing else holds that
  // buffer (the executor hands a value's last consumer the only reference), the dtypes match
  // and the element counts agree; else allocate_output. TensorFlow's
  // forward_input_or_allocate_output: an element-wise kernel then reads and writes the same
  // lines instead of also fetching a fresh output's (ReluGrad over 51 MB: 2.4x faster).
  // For kernels whose output element i depends only on input elements i.
  Status forward_input_or_allocate_output(int input_index, int output_index, const TensorShape& shape, Tensor** out);
  // The first of `candidates` that can be forwarded, else allocate_output: a binary kernel's
  // output goes into whichever operand has the output's element count and no other holder.
  Status forward_input_or_allocate_output(std::initializer_list<int> candidates, int output_index,
                                          const TensorShape& shape, Tensor** out);
  void set_output(int i, const Tensor& t);
  // A reference output (VariableV2's `ref: Ref(dtype)`): consumers with a ref input get the
  // variable itself, the others its value when they run.
  void set_output_ref(int i, std::shared_ptr<Var> var);
  std::vector<Tensor>& outputs() { return *outputs_; }
  // Whether the kernel set output i (set_output, allocate_output or set_output_ref); one
  // left unset is dead, which only kernels that CanOutputDead may do.
  bool output_set(int i) const { return i >= 64 || ((outputs_set_ >> i) & 1); }
  std::vector<std::shared_ptr<Var>>& output_refs() { return output_refs_; }

  void SetStatus(const Status& s) { if (status_.ok()) status_ = s; }
  const Status& status() const { return status_; }

 private:
  Params params_;
  std::vector<Tensor> own_outputs_;
  std::vector<Tensor>* outputs_;  // own_outputs_ or Params::output_storage
  std::vector<std::shared_ptr<Var>> output_refs_;  // sized on the first set_output_ref
  uint64_t outputs_set_ = 0;  // bit i: output i was set
  Status status_;
};

// A kernel that finishes later, from any thread: it starts its work in ComputeAsync and
// calls `done` exactly once when its outputs (or its error) are in the context. The
// executor keeps the context alive until then and is told through a message, so it never
// blocks on the kernel. (Recv is the canonical one; see the many-devices issue.)
class AsyncOpKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  using DoneCallback = std::function<void()>;
  virtual void ComputeAsync(OpKernelContext* ctx, DoneCallback done) = 0;
  bool IsAsync() const final { return true; }
  bool IsExpensive() const override { return false; }
  // Runs ComputeAsync and waits; for callers that need a result now (constant folding).
  void Compute(OpKernelContext* ctx) final;
};

#define OP_REQUIRES(CTX, EXP, STATUS) \
  do {                                \
    if (!(EXP)) {                     \
      (CTX)->SetStatus(STATUS);       \
      return;                         \
    }                                 \
  } while (0)

#define OP_REQUIRES_OK(CTX, STATUS)          \
  do {                                       \
    ::tensoract::Status _s = (STATUS);       \
    if (!_s.ok()) {                          \
      (CTX)->SetStatus(_s);                  \
      return;                                \
    }                                        \
  } while (0)

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_OP_KERNEL_H_
