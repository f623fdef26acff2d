/// @file
/// Eager execution: ops run when they are called and return their values ("Functions, not
/// Sessions", the RFC's eager mode).
///
/// @code
///   auto ctx = EagerContext::New().value();
///   Scope s = ctx->scope();
///   Output a = FromTensor(s, Tensor::FromVector<float>({1, 2, 3, 4}, TensorShape({2, 2})));
///   Output b = ops::MatMul(s, a, a);            // runs now
///   Output c = ops::Add(s, b, 1.0f);
///   TA_RETURN_IF_ERROR(s.status());             // the first error, naming the op and shapes
///   Tensor value = ValueOf(c).value();          // [[8, 11], [16, 23]]
/// @endcode
///
/// The ops:: builder functions are the same ones that build graphs: on an eager scope each
/// runs its kernel at once, on the caller's thread, and the Output it returns holds the
/// values. Kernels are made once per (op, attrs, device) and kept. The scope's device
/// chooses where an op runs (s.WithDevice("/device:CPU:0")); by default an op goes to the
/// first GPU when there is one and it has a GPU kernel there, else to the CPU. Inputs on
/// another device are copied to the op's.
///
/// The context owns a LocalServer whose worker runs on the same devices, so the graphs of
/// traced functions (client/function.h) and sessions made on server() see the variables
/// eager code made, and the other way round.
///
/// With SessionOptions::target naming a cluster ("tensoract://host:port"), ops run on the
/// cluster instead: each kind of op (op, attrs, input dtypes, device) becomes a small graph
/// of the context's session there, run once per call with the inputs fed and the outputs
/// fetched back, so values live in this process and variables on the cluster's tasks
/// (their handles come back). A device scope names a task's device
/// ("/job:worker/replica:0/task:1/device:CPU:0"); without one the master places the op.
/// Functions run on the cluster as their graphs. Each op is then a round trip to the
/// master: use Functions for anything that loops.
///
/// Thread-safety: one thread at a time uses a context and its scopes (TensorFlow's eager
/// contexts are per thread too); Outputs may be read from any thread once made. A context
/// outlives the scopes and Outputs made from it.
#ifndef TENSORACT_CLIENT_EAGER_CONTEXT_H_
#define TENSORACT_CLIENT_EAGER_CONTEXT_H_

#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "client/local_server.h"
#include "graph/builder/eager_node.h"
#include "graph/builder/scope.h"
#include "kernels/tensor.h"

namespace tensoract {

class OpKernel;
class Session;
class EagerOp;  // an op's results (eager_context.cc)

/// What a gradient tape needs from the context: every eager op is offered to each active
/// recorder, which keeps the ops it is watching (client/gradient_tape.h).
class OpRecorder {
 public:
  virtual ~OpRecorder() = default;
  /// Whether the op reading `inputs` must be recorded (one of them is watched, or made by an
  /// op it recorded).
  virtual bool Wants(const std::vector<Output>& inputs) const = 0;
  /// Keeps `op`, which ran and which Wants accepted: its def and inputs are filled in.
  virtual void Record(const std::shared_ptr<EagerNode>& op) = 0;
};

/// Runs ops eagerly: the ops:: builders called on its scope() run their kernels at once and
/// return Outputs holding the values (TensorFlow 2's eager mode); see eager_context.h.
class EagerContext : public EagerRunner {
 public:
  /// A context with a LocalServer of its own (`options` say its threads and GPUs, or with
  /// SessionOptions::target a cluster whose tasks run the ops).
  static StatusOr<std::unique_ptr<EagerContext>> New(const SessionOptions& options = {});
  ~EagerContext() override;

  /// The root eager scope (every call returns a scope of the same context).
  Scope scope() const { return scope_; }
  /// The context's own server: sessions made on it (Session::New(ctx->server())) share the
  /// eager variables.
  LocalServer& server() { return *server_; }
  /// Where ops without a device go: the first GPU, or the CPU.
  Device* default_device() const { return default_device_; }
  /// Where values fetched from graphs (a Function's results) are kept: the first CPU, or on
  /// a cluster's client end the values' host memory here.
  Device* host_device() const;
  /// The device a scope's device string names ("" the default, "/device:CPU:0", "/gpu:0",
  /// a full name); InvalidArgument when none of the context's devices matches.
  StatusOr<Device*> DeviceFor(const std::string& spec);
  /// Kernels made so far (one per op, attrs and device).
  size_t num_cached_kernels() const { return kernels_.size(); }

  /// Adds `recorder` to the gradient tapes recording now, as the innermost (they are kept
  /// innermost last).
  void PushRecorder(OpRecorder* recorder) { recorders_.push_back(recorder); }
  /// Removes `recorder` from the gradient tapes recording now, wherever it is; nothing if
  /// it is not one.
  void PopRecorder(OpRecorder* recorder);

  /// For what runs on the context besides kernels (a traced function's call): `outputs`,
  /// on `device`, as the results of one op of `op_def`.
  std::shared_ptr<EagerNode> MakeOp(const tensorflow::OpDef* op_def, DataTypeVector input_types,
                                    std::vector<Tensor> outputs, Device* device);
  /// Offers `op` (with the `inputs` it read, and `def` for its gradient function; `def`
  /// outlives the op) to the recording tapes; those that watch an input keep it.
  void Record(const std::shared_ptr<EagerNode>& op, std::vector<Output> inputs, const NodeDef* def);
  /// Whether any gradient tape is recording.
  bool recording() const { return !recorders_.empty(); }

  /// EagerRunner: runs the op now.
  StatusOr<std::shared_ptr<EagerNode>> RunOp(const Scope& scope, const std::string& op,
                                             const std::vector<Input>& inputs,
                                             const std::map<std::string, tensorflow::AttrValue>& attrs) override;
  /// The same without building the attrs: the kernel comes from a small table keyed by (op,
  /// type, device), filled through RunOp's cache.
  StatusOr<std::shared_ptr<EagerNode>> RunTypedOp(const Scope& scope, const std::string& op,
                                                  const std::vector<Input>& inputs, DataType type) override;

 private:
  struct CachedKernel;
  explicit EagerContext(std::unique_ptr<LocalServer> server);
  StatusOr<CachedKernel*> KernelFor(Device* device, const std::string& op,
                                    const std::map<std::string, tensorflow::AttrValue>& attrs, size_t num_inputs,
                                    bool device_named);
  // Runs `kernel` (op `op`) on `inputs` and offers the op to the recording tapes.
  StatusOr<std::shared_ptr<EagerNode>> RunKernel(const std::string& op, CachedKernel* kernel,
                                                 const std::vector<Input>& inputs);
  // Offers the op that made `result` from `inputs` (their tensors `in`) to the recording
  // tapes.
  void OfferToTapes(const std::shared_ptr<EagerOp>& result, const std::vector<Input>& inputs,
                    const std::vector<Tensor>& in);
  StatusOr<Tensor> InputTensor(const Input& input, Device* device) const;
  // Every input as a tensor on `device`; an error names `op` and the input.
  StatusOr<std::vector<Tensor>> InputTensors(const std::string& op, const std::vector<Input>& inputs,
                                             Device* device) const;
  std::shared_ptr<Device> SharedDevice(Device* device) const;
  // On a cluster: runs `op` there on the (host) input values; its results come back here.
  struct RemoteOp;
  StatusOr<std::shared_ptr<EagerOp>> RunRemote(const std::string& device, const std::string& op,
                                               const std::map<std::string, tensorflow::AttrValue>& attrs,
                                               const std::vector<Tensor>& in);

  std::unique_ptr<LocalServer> server_;
  Scope scope_;
  Device* default_device_ = nullptr;
  std::unordered_map<std::string, Device*> device_for_spec_;
  std::unordered_map<std::string, std::unique_ptr<CachedKernel>> kernels_;
  // RunTypedOp's table: direct-mapped by a hash of (op, type, device); a slot holds the last
  // kernel that hashed there.
  struct TypedSlot {
    std::string op;
    DataType type = tensorflow::DT_INVALID;
    Device* device = nullptr;
    size_t num_inputs = 0;
    CachedKernel* kernel = nullptr;
  };
  static constexpr size_t kTypedSlots = 64;
  TypedSlot typed_[kTypedSlots];
  std::vector<OpRecorder*> recorders_;
  std::string key_;  // scratch for kernel cache keys
  // A cluster's client end (no local devices): ops run through remote_session_, one small
  // graph per op kind, and values are kept in host_device_'s memory here.
  bool remote_ = false;
  std::shared_ptr<Device> host_device_;
  std::unique_ptr<Session> remote_session_;
  std::unordered_map<std::string, std::unique_ptr<RemoteOp>> remote_ops_;
};

/// The value of an eager op's output, in host memory (copied from a GPU, waiting for the
/// kernels that make it). InvalidArgument for an output of a graph, or an empty one.
StatusOr<Tensor> ValueOf(const Output& output);
/// The device an eager value is on; nullptr for an Output of a graph.
Device* DeviceOf(const Output& output);
/// `value` as an eager value on the scope's device (the way data enters eager code: a
/// batch of images, initial weights). The scope must be eager; an error (a graph scope, an
/// unknown device) goes into the scope's status and the result is an empty Output.
Output FromTensor(const Scope& scope, const Tensor& value);

}  // namespace tensoract

#endif  // TENSORACT_CLIENT_EAGER_CONTEXT_H_
