#include "client/eager_context.h"

#include <algorithm>
#include <cstring>

#include "client/function.h"
#include "client/session.h"
#include "graph/builder/ops.h"
#include "graph/device_name.h"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "kernels/denormal.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"
#include "kernels/resource_handle.h"
#include "kernels/variable.h"

namespace tensoract {

// One (op, attrs, device)'s kernel, made on first use and kept.
struct EagerContext::CachedKernel {
  std::unique_ptr<OpKernel> kernel;
  NodeDef def;  // with the op's defaults: what a gradient tape gives gradient functions
  const tensorflow::OpDef* op_def = nullptr;
  DataTypeVector input_types, output_types;
  std::shared_ptr<Device> device;  // where it runs (the CPU when a GPU has no kernel)
};

// The result of one eager op: its outputs, on the device it ran on.
class EagerOp final : public EagerNode {
 public:
  EagerOp(const tensorflow::OpDef* op_def, DataTypeVector in, DataTypeVector out, std::shared_ptr<Device> device)
      : EagerNode(op_def, std::move(in), std::move(out)), device(std::move(device)) {}

  // A captured resource handle becomes a VarHandleOp naming the same variable on the same
  // device (the worker runs the graph on the context's devices, so it finds it there); any
  // other value becomes a Const holding it.
  StatusOr<Output> Capture(const Scope& graph_scope, int index) const override {
    if (index < 0 || index >= static_cast<int>(outputs.size())) {
      return errors::InvalidArgument("eager op '", node().type_string(), "' has no output ", index);
    }
    // Within one trace a value is captured once (tf.function's captures).
    TraceState* trace = CurrentTrace();
    if (trace != nullptr) {
      auto seen = trace->captured.find({this, index});
      if (seen != trace->captured.end()) return seen->second;
    }
    TA_ASSIGN_OR_RETURN(Output in_graph, MakeCapture(graph_scope, index));
    if (trace != nullptr) {
      trace->captured[{this, index}] = in_graph;
      trace->captures.push_back({in_graph, Output(const_cast<Node*>(&node()), index)});
    }
    return in_graph;
  }

  bool KnownValue(int index, tensorflow::TensorProto* value) const override {
    if (index < 0 || index >= static_cast<int>(outputs.size())) return false;
    const Tensor& t = outputs[index];
    if (t.NumElements() > 64 || t.dtype() == tensorflow::DT_RESOURCE) return false;
    auto host = device->CopyToHost(t);
    if (!host.ok()) return false;
    host.value().AsProtoField(value);
    return true;
  }

  StatusOr<Output> MakeCapture(const Scope& graph_scope, int index) const {
    const Tensor& t = outputs[index];
    if (t.dtype() == tensorflow::DT_RESOURCE) {
      const ResourceHandle& h = *t.base<ResourceHandle>();
      DataType dtype = tensorflow::DT_INVALID;
      auto var = device->resource_manager()->Lookup<Var>(h);
      if (var.ok()) dtype = var.value()->dtype();
      if (dtype == tensorflow::DT_INVALID && kernel_def != nullptr) GetNodeAttr(*kernel_def, "dtype", &dtype).IgnoreError();
      if (dtype == tensorflow::DT_INVALID) {
        return errors::InvalidArgument("the resource ", h.DebugString(), " used in a graph is not a variable");
      }
      ops::VarHandleOpAttrs attrs;
      attrs.container = h.container();
      attrs.shared_name = h.name();
      Output handle = ops::VarHandleOp(graph_scope.WithDevice(h.device()).WithOpName(h.name()), dtype,
                                       PartialTensorShape(), attrs);
      TA_RETURN_IF_ERROR(graph_scope.status());
      return handle;
    }
    TA_ASSIGN_OR_RETURN(Tensor host, device->CopyToHost(t));
    tensorflow::TensorProto proto;
    host.AsProtoTensorContent(&proto);
    Output c = ops::Const(graph_scope.WithOpName("captured"), Input(proto));
    TA_RETURN_IF_ERROR(graph_scope.status());
    return c;
  }

  std::vector<Tensor> outputs;
  std::shared_ptr<Device> device;
  const NodeDef* kernel_def = nullptr;  // the cached kernel's (the context outlives its ops)
};

namespace {

const tensorflow::OpDef* ConstOpDef() {
  static const tensorflow::OpDef* def = OpRegistry::Global()->LookUp("Const").value();
  return def;
}

// "float[2,3]" for error messages.
std::string Describe(const Tensor& t) { return StrCat(DataTypeString(t.dtype()), t.shape().DebugString()); }

// "MatMul on <device> with inputs (float[2,3], float[3,2])": what an eager error names.
std::string DescribeCall(const std::string& op, const std::string& where, const std::vector<Tensor>& in) {
  std::string s;
  for (const Tensor& t : in) s += StrCat(s.empty() ? "" : ", ", Describe(t));
  return StrCat(op, " on ", where, " with inputs (", s, ")");
}

// An op's results as an eager value: `outputs` on `device`, with their concrete shapes.
std::shared_ptr<EagerOp> NewEagerOp(const tensorflow::OpDef* op_def, DataTypeVector input_types,
                                    std::vector<Tensor> outputs, std::shared_ptr<Device> device) {
  DataTypeVector types;
  for (const Tensor& t : outputs) types.push_back(t.dtype());
  auto op = std::make_shared<EagerOp>(op_def, std::move(input_types), std::move(types), std::move(device));
  for (size_t i = 0; i < outputs.size(); ++i) {
    op->set_output_shape(static_cast<int>(i), PartialTensorShape(outputs[i].shape().dim_sizes()));
  }
  op->outputs = std::move(outputs);
  return op;
}

// The kernel cache key's part for one attr value: short and exact for the common kinds.
void AppendAttrKey(std::string* key, const tensorflow::AttrValue& v) {
  auto append_bytes = [key](const void* p, size_t n) { key->append(static_cast<const char*>(p), n); };
  switch (v.value_case()) {
    case tensorflow::AttrValue::kType: {
      key->push_back('t');
      int t = v.type();
      append_bytes(&t, sizeof t);
      break;
    }
    case tensorflow::AttrValue::kB:
      key->push_back(v.b() ? 'T' : 'F');
      break;
    case tensorflow::AttrValue::kI: {
      key->push_back('i');
      int64_t i = v.i();
      append_bytes(&i, sizeof i);
      break;
    }
    case tensorflow::AttrValue::kF: {
      key->push_back('f');
      float f = v.f();
      append_bytes(&f, sizeof f);
      break;
    }
    case tensorflow::AttrValue::kS:
      key->push_back('s');
      *key += std::to_string(v.s().size());
      key->push_back(':');
      *key += v.s();
      break;
    default:
      key->push_back('p');
      std::string bytes = v.SerializeAsString();
      *key += std::to_string(bytes.size());
      key->push_back(':');
      *key += bytes;
  }
}

// Every attr's part of a cache key, in the map's (sorted) order.
void AppendAttrsKey(std::string* key, const std::map<std::string, tensorflow::AttrValue>& attrs) {
  for (const auto& [name, value] : attrs) {
    *key += name;
    key->push_back('=');
    AppendAttrKey(key, value);
  }
}

// Gives `def` (op, name and inputs set) `attrs` and the op's defaults, checks it, and
// works out its input and output types.
Status CompleteNodeDef(const tensorflow::OpDef& op_def, const std::map<std::string, tensorflow::AttrValue>& attrs,
                       NodeDef* def, DataTypeVector* input_types, DataTypeVector* output_types) {
  for (const auto& [name, value] : attrs) (*def->mutable_attr())[name] = value;
  AddDefaultsToNodeDef(op_def, def);
  TA_RETURN_IF_ERROR(ValidateNodeDef(*def, op_def));
  return InOutTypesForNode(*def, op_def, input_types, output_types);
}

}  // namespace

StatusOr<std::unique_ptr<EagerContext>> EagerContext::New(const SessionOptions& options) {
  TA_ASSIGN_OR_RETURN(std::unique_ptr<LocalServer> server, LocalServer::New(options));
  return std::unique_ptr<EagerContext>(new EagerContext(std::move(server)));
}

EagerContext::EagerContext(std::unique_ptr<LocalServer> server)
    : server_(std::move(server)), scope_(Scope::NewEagerScope(this)) {
  const auto& devices = server_->devices();
  if (devices.empty()) {
    // A cluster's client end: ops run on the cluster, their values come back here.
    remote_ = true;
    host_device_ = std::make_shared<Device>("/job:client/replica:0/task:0/device:CPU:0", DEVICE_CPU, 1);
    default_device_ = host_device_.get();
    return;
  }
  default_device_ = devices.front().get();
  for (const auto& d : devices) {
    if (d->device_type() == DEVICE_GPU) {
      default_device_ = d.get();
      break;
    }
  }
}

EagerContext::~EagerContext() = default;

Device* EagerContext::host_device() const {
  return remote_ ? host_device_.get() : server_->devices().front().get();
}

void EagerContext::PopRecorder(OpRecorder* recorder) {
  auto it = std::find(recorders_.begin(), recorders_.end(), recorder);
  if (it != recorders_.end()) recorders_.erase(it);
}

StatusOr<Device*> EagerContext::DeviceFor(const std::string& spec) {
  // On a cluster values live here and the master checks the device an op names.
  if (spec.empty() || remote_) return default_device_;
  auto found = device_for_spec_.find(spec);
  if (found != device_for_spec_.end()) return found->second;
  ParsedDeviceName want;
  TA_RETURN_IF_ERROR(ParseDeviceSpec(spec, &want));
  std::string names;
  for (const auto& d : server_->devices()) {
    ParsedDeviceName have;
    if (ParseDeviceName(d->name(), &have) && IsSpecification(want, have)) {
      device_for_spec_[spec] = d.get();
      return d.get();
    }
    names += StrCat(names.empty() ? "" : ", ", d->name());
  }
  return errors::InvalidArgument("no device matches '", spec, "'; this context has ", names);
}

StatusOr<EagerContext::CachedKernel*> EagerContext::KernelFor(Device* device, const std::string& op,
                                                              const std::map<std::string, tensorflow::AttrValue>& attrs,
                                                              size_t num_inputs, bool device_named) {
  key_.assign(reinterpret_cast<const char*>(&device), sizeof device);
  key_ += op;
  key_.push_back('\0');
  AppendAttrsKey(&key_, attrs);
  auto found = kernels_.find(key_);
  if (found != kernels_.end()) return found->second.get();

  TA_ASSIGN_OR_RETURN(const tensorflow::OpDef* op_def, OpRegistry::Global()->LookUp(op));
  auto k = std::make_unique<CachedKernel>();
  k->op_def = op_def;
  k->def.set_name(op);
  k->def.set_op(op);
  // Inputs named only for ValidateNodeDef's count (a list input's length is an attr, so the
  // count follows from the key).
  for (size_t i = 0; i < num_inputs; ++i) k->def.add_input(StrCat("input", i));
  TA_RETURN_IF_ERROR(CompleteNodeDef(*op_def, attrs, &k->def, &k->input_types, &k->output_types));
  for (DataType t : k->input_types) {
    if (IsRefType(t)) {
      return errors::InvalidArgument("op ", op, " takes a reference (a TensorFlow 1 variable), which eager code does "
                                     "not have: use a resource variable (MakeVariable, client/eager_variable.h)");
    }
  }
  for (DataType t : k->output_types) {
    if (IsRefType(t)) {
      return errors::InvalidArgument("op ", op, " makes a reference (a TensorFlow 1 variable), which eager code does "
                                     "not have: use a resource variable (MakeVariable, client/eager_variable.h)");
    }
  }
  k->def.set_device(device->name());
  Status made = CreateOpKernel(device, k->def, *op_def, &k->kernel);
  k->device = SharedDevice(device);
  if (errors::IsNotFound(made) && !device_named && device->device_type() != DEVICE_CPU) {
    // An op without a kernel on the default GPU runs on the CPU, as TensorFlow's eager
    // placement does; a device the scope names is kept to.
    Device* cpu = server_->devices().front().get();
    k->def.set_device(cpu->name());
    made = CreateOpKernel(cpu, k->def, *op_def, &k->kernel);
    k->device = SharedDevice(cpu);
  }
  TA_RETURN_IF_ERROR(made);
  if (k->kernel->IsAsync()) {
    return errors::InvalidArgument("op ", op, " is asynchronous (it waits for another device); eager code has no "
                                   "rendezvous to run it");
  }
  auto* raw = k.get();
  kernels_.emplace(key_, std::move(k));
  return raw;
}

StatusOr<std::vector<Tensor>> EagerContext::InputTensors(const std::string& op, const std::vector<Input>& inputs,
                                                         Device* device) const {
  std::vector<Tensor> in;
  in.reserve(inputs.size());
  for (const Input& input : inputs) {
    auto t = InputTensor(input, device);
    if (!t.ok()) return Status(t.status().code(), StrCat("eager ", op, " input ", in.size(), ": ", t.status().message()));
    in.push_back(std::move(t).value());
  }
  return in;
}

StatusOr<Tensor> EagerContext::InputTensor(const Input& input, Device* device) const {
  Tensor t;
  if (input.is_constant()) {
    if (input.constant().dtype() == tensorflow::DT_INVALID) {
      return errors::InvalidArgument("an inline constant has rows of different lengths");
    }
    TA_ASSIGN_OR_RETURN(t, Tensor::FromProto(input.constant()));
  } else {
    const Output& o = input.output();
    if (o.node == nullptr) return errors::InvalidArgument("an input is empty (an earlier op failed?)");
    auto* op = dynamic_cast<const EagerOp*>(o.eager.get());
    if (op == nullptr) {
      return errors::InvalidArgument("'", o.name(), "' is a tensor of a graph; eager ops take eager values");
    }
    t = op->outputs[o.index];
    if (op->device.get() == device) return t;
    if (t.buffer_allocator() != nullptr && !t.buffer_allocator()->IsHostMemory()) {
      TA_ASSIGN_OR_RETURN(t, op->device->CopyToHost(t));
    }
  }
  return device->CopyFromHost(t);
}

StatusOr<std::shared_ptr<EagerNode>> EagerContext::RunOp(const Scope& scope, const std::string& op,
                                                         const std::vector<Input>& inputs,
                                                         const std::map<std::string, tensorflow::AttrValue>& attrs) {
  TA_ASSIGN_OR_RETURN(Device* device, DeviceFor(scope.device()));
  std::vector<Tensor> in;
  std::shared_ptr<EagerOp> result;
  if (op == "Const") {
    // A constant is its value: no kernel, nothing to cache.
    auto value = attrs.find("value");
    if (value == attrs.end() || !value->second.has_tensor()) return errors::InvalidArgument("Const without a value");
    TA_ASSIGN_OR_RETURN(Tensor host, Tensor::FromProto(value->second.tensor()));
    TA_ASSIGN_OR_RETURN(Tensor t, device->CopyFromHost(host));
    result = NewEagerOp(ConstOpDef(), {}, {std::move(t)}, SharedDevice(device));
  } else if (op == "Placeholder" || op == "PlaceholderWithDefault") {
    return errors::InvalidArgument("a ", op, " has no value in eager code: make the value with FromTensor");
  } else if (remote_) {
    TA_ASSIGN_OR_RETURN(in, InputTensors(op, inputs, device));
    TA_ASSIGN_OR_RETURN(result, RunRemote(scope.device(), op, attrs, in));
  } else {
    auto k = KernelFor(device, op, attrs, inputs.size(), !scope.device().empty());
    if (!k.ok()) return Status(k.status().code(), StrCat("eager ", op, ": ", k.status().message()));
    return RunKernel(op, k.value(), inputs);
  }
  if (!recorders_.empty()) OfferToTapes(result, inputs, in);
  return std::shared_ptr<EagerNode>(std::move(result));
}

void EagerContext::OfferToTapes(const std::shared_ptr<EagerOp>& result, const std::vector<Input>& inputs,
                                const std::vector<Tensor>& in) {
  // The op's inputs as eager values (an inline constant becomes one), for its gradient.
  std::vector<Output> input_values;
  input_values.reserve(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].is_constant()) {
      input_values.push_back(inputs[i].output());
      continue;
    }
    auto c = NewEagerOp(ConstOpDef(), {}, {in[i]}, result->device);
    input_values.emplace_back(&c->node(), 0);
  }
  Record(result, std::move(input_values), result->kernel_def);
}

StatusOr<std::shared_ptr<EagerNode>> EagerContext::RunTypedOp(const Scope& scope, const std::string& op,
                                                              const std::vector<Input>& inputs, DataType type) {
  if (remote_) return EagerRunner::RunTypedOp(scope, op, inputs, type);
  TA_ASSIGN_OR_RETURN(Device* device, DeviceFor(scope.device()));
  size_t hash = std::hash<std::string>()(op) ^ (static_cast<size_t>(type) * 0x9e3779b97f4a7c15ULL) ^
                (reinterpret_cast<uintptr_t>(device) >> 4);
  TypedSlot& slot = typed_[(hash ^ (hash >> 17)) % kTypedSlots];
  if (slot.kernel == nullptr || slot.type != type || slot.device != device || slot.num_inputs != inputs.size() ||
      slot.op != op) {
    tensorflow::AttrValue t;
    t.set_type(type);
    auto k = KernelFor(device, op, {{"T", t}}, inputs.size(), !scope.device().empty());
    if (!k.ok()) return Status(k.status().code(), StrCat("eager ", op, ": ", k.status().message()));
    slot = TypedSlot{op, type, device, inputs.size(), k.value()};
  }
  return RunKernel(op, slot.kernel, inputs);
}

StatusOr<std::shared_ptr<EagerNode>> EagerContext::RunKernel(const std::string& op, CachedKernel* kernel,
                                                             const std::vector<Input>& inputs) {
  std::vector<Tensor> in, kept_inputs;
  std::shared_ptr<EagerOp> result;
  {
    Device* device = kernel->device.get();
    TA_ASSIGN_OR_RETURN(in, InputTensors(op, inputs, device));
    auto describe = [&] { return DescribeCall(op, device->name(), in); };
    if (in.size() != kernel->input_types.size()) {
      return errors::InvalidArgument(describe(), ": the op takes ", kernel->input_types.size(), " inputs");
    }
    for (size_t i = 0; i < in.size(); ++i) {
      if (in[i].dtype() != kernel->input_types[i]) {
        return errors::InvalidArgument(describe(), ": input ", i, " must be ",
                                       DataTypeString(kernel->input_types[i]));
      }
    }
    // A tape keeps the inputs for the gradient: held twice, no kernel may reuse their
    // buffers for its outputs (an inline constant's buffer is otherwise the kernel's alone).
    if (!recorders_.empty()) kept_inputs = in;
    OpKernelContext::Params params;
    params.device = device;
    params.kernel = kernel->kernel.get();
    params.inputs = &in;
    OpKernelContext ctx(params);
    {
      // As the executor runs every kernel: denormals flushed (kernels/denormal.h), here on
      // the caller's thread and only while the kernel runs.
      ScopedFlushDenormal flush;
      kernel->kernel->Compute(&ctx);
    }
    if (!ctx.status().ok()) return Status(ctx.status().code(), StrCat(describe(), ": ", ctx.status().message()));
    const int n = static_cast<int>(kernel->output_types.size());
    for (int i = 0; i < n; ++i) {
      if (!ctx.output_set(i)) return errors::Internal(describe(), ": the kernel left output ", i, " unset");
    }
    result = NewEagerOp(kernel->op_def, kernel->input_types, std::move(ctx.outputs()), kernel->device);
    result->kernel_def = &kernel->def;
  }
  if (!recorders_.empty()) OfferToTapes(result, inputs, in);
  return std::shared_ptr<EagerNode>(std::move(result));
}

// One op kind run on a cluster: its nodes in the context's remote session.
struct EagerContext::RemoteOp {
  std::vector<std::string> feeds, fetches, targets;
  NodeDef def;  // the op's node: what a tape's gradient function reads
  const tensorflow::OpDef* op_def = nullptr;
  DataTypeVector input_types, output_types;
};

StatusOr<std::shared_ptr<EagerOp>> EagerContext::RunRemote(const std::string& device, const std::string& op,
                                                          const std::map<std::string, tensorflow::AttrValue>& attrs,
                                                          const std::vector<Tensor>& in) {
  auto describe = [&] { return DescribeCall(op, device.empty() ? std::string("the cluster") : device, in); };
  std::string key = StrCat(device, ";", op, ";");
  AppendAttrsKey(&key, attrs);
  for (const Tensor& t : in) {
    key += StrCat(";", static_cast<int>(t.dtype()));
    if (t.dtype() == tensorflow::DT_RESOURCE) {  // each variable its own graph (see below)
      const ResourceHandle& h = *t.base<ResourceHandle>();
      key += StrCat(":", h.device(), ":", h.container(), ":", h.name());
    }
  }
  auto found = remote_ops_.find(key);
  if (found == remote_ops_.end() && op == "VarHandleOp") {
    // A handle is only a name: made here, naming the variable on the device the scope
    // names; the ops that use it run graphs that name it there (above).
    auto r = std::make_unique<RemoteOp>();
    TA_ASSIGN_OR_RETURN(r->op_def, OpRegistry::Global()->LookUp(op));
    r->def.set_name(op);
    r->def.set_op(op);
    r->def.set_device(device);
    TA_RETURN_IF_ERROR(CompleteNodeDef(*r->op_def, attrs, &r->def, &r->input_types, &r->output_types));
    found = remote_ops_.emplace(key, std::move(r)).first;
  }
  if (op == "VarHandleOp") {
    RemoteOp& r = *found->second;
    std::string container, shared_name;
    GetNodeAttr(r.def, "container", &container).IgnoreError();
    GetNodeAttr(r.def, "shared_name", &shared_name).IgnoreError();
    if (shared_name.empty()) {
      return errors::InvalidArgument(describe(), ": a variable on a cluster needs a shared name (MakeVariable gives one)");
    }
    Tensor handle(tensorflow::DT_RESOURCE, TensorShape());
    *handle.base<ResourceHandle>() = ResourceHandle(device, container, shared_name, 0, "Var");
    auto result = NewEagerOp(r.op_def, {}, {std::move(handle)}, host_device_);
    result->kernel_def = &r.def;
    return result;
  }
  if (found == remote_ops_.end()) {
    // The op's first run with these attrs and input types: a placeholder per input and the
    // op, added to the session's graph under a prefix of their own.
    auto r = std::make_unique<RemoteOp>();
    TA_ASSIGN_OR_RETURN(r->op_def, OpRegistry::Global()->LookUp(op));
    const std::string prefix = StrCat("eager_", remote_ops_.size());
    tensorflow::GraphDef def;
    r->def.set_name(prefix + "/" + op);
    r->def.set_op(op);
    r->def.set_device(device);
    for (size_t i = 0; i < in.size(); ++i) {
      NodeDef* p = def.add_node();
      p->set_name(StrCat(prefix, "/input", i));
      if (in[i].dtype() == tensorflow::DT_RESOURCE) {
        // A variable lives on its task and its handle may not leave it (the placer keeps a
        // resource with its users): the graph names the variable itself, on its device.
        const ResourceHandle& h = *in[i].base<ResourceHandle>();
        p->set_op("VarHandleOp");
        p->set_device(h.device());
        (*p->mutable_attr())["container"].set_s(h.container());
        (*p->mutable_attr())["shared_name"].set_s(h.name());
        auto dtype = attrs.count("dtype") ? attrs.at("dtype") : attrs.count("T") ? attrs.at("T") : tensorflow::AttrValue();
        (*p->mutable_attr())["dtype"].set_type(dtype.type() == tensorflow::DT_INVALID ? tensorflow::DT_FLOAT : dtype.type());
        (*p->mutable_attr())["shape"].mutable_shape()->set_unknown_rank(true);
        r->def.add_input(p->name());
        r->feeds.push_back("");  // not fed
        continue;
      }
      p->set_op("Placeholder");
      (*p->mutable_attr())["dtype"].set_type(in[i].dtype());
      r->def.add_input(p->name());
      r->feeds.push_back(p->name());
    }
    TA_RETURN_IF_ERROR(CompleteNodeDef(*r->op_def, attrs, &r->def, &r->input_types, &r->output_types));
    for (size_t i = 0; i < in.size() && i < r->input_types.size(); ++i) {
      if (in[i].dtype() != r->input_types[i]) {
        return errors::InvalidArgument(describe(), ": input ", i, " must be ", DataTypeString(r->input_types[i]));
      }
    }
    for (size_t j = 0; j < r->output_types.size(); ++j) r->fetches.push_back(StrCat(r->def.name(), ":", j));
    if (r->output_types.empty()) r->targets.push_back(r->def.name());
    *def.add_node() = r->def;
    if (!remote_session_) {
      TA_ASSIGN_OR_RETURN(remote_session_, Session::New(*server_));
      TA_RETURN_IF_ERROR(remote_session_->Create(def));
    } else {
      TA_RETURN_IF_ERROR(remote_session_->Extend(def));
    }
    found = remote_ops_.emplace(key, std::move(r)).first;
  }
  RemoteOp& r = *found->second;
  std::vector<std::pair<std::string, Tensor>> feeds;
  for (size_t i = 0; i < in.size(); ++i) {
    if (!r.feeds[i].empty()) feeds.emplace_back(r.feeds[i], in[i]);
  }
  std::vector<Tensor> outs;
  Status ran = remote_session_->Run(feeds, r.fetches, r.targets, &outs);
  if (!ran.ok()) return Status(ran.code(), StrCat(describe(), ": ", ran.message()));
  auto result = NewEagerOp(r.op_def, r.input_types, std::move(outs), host_device_);
  result->kernel_def = &r.def;
  return result;
}

void EagerContext::Record(const std::shared_ptr<EagerNode>& op, std::vector<Output> inputs, const NodeDef* def) {
  OpRecorder* wanting[8];
  size_t n = 0;
  bool more = false;
  for (OpRecorder* r : recorders_) {
    if (!r->Wants(inputs)) continue;
    if (n < 8) {
      wanting[n++] = r;
    } else {
      more = true;
    }
  }
  if (n == 0) return;
  op->inputs = std::move(inputs);
  op->set_shared_def(def);  // the kernel cache's: no copy per recorded op
  for (size_t i = 0; i < n; ++i) wanting[i]->Record(op);
  if (more) {  // more than 8 tapes at once: ask the rest again
    for (size_t i = 8; i < recorders_.size(); ++i) {
      if (recorders_[i]->Wants(op->inputs)) recorders_[i]->Record(op);
    }
  }
}

std::shared_ptr<Device> EagerContext::SharedDevice(Device* device) const {
  if (device == host_device_.get()) return host_device_;
  for (const auto& d : server_->devices()) {
    if (d.get() == device) return d;
  }
  return nullptr;
}

std::shared_ptr<EagerNode> EagerContext::MakeOp(const tensorflow::OpDef* op_def, DataTypeVector input_types,
                                                std::vector<Tensor> outputs, Device* device) {
  return NewEagerOp(op_def, std::move(input_types), std::move(outputs), SharedDevice(device));
}

StatusOr<Tensor> ValueOf(const Output& output) {
  if (output.node == nullptr) return errors::InvalidArgument("ValueOf an empty output (an earlier op failed?)");
  auto* op = dynamic_cast<const EagerOp*>(output.eager.get());
  if (op == nullptr && CurrentTrace() != nullptr) {
    return errors::InvalidArgument("'", output.name(), "' is a symbolic tensor of Function '",
                                   CurrentTrace()->function_name,
                                   "' being traced: its value is not known until the graph runs, so C++ control flow "
                                   "cannot depend on it; use ops::Cond for a branch and ops::WhileLoop for a loop");
  }
  if (op == nullptr) return errors::InvalidArgument("'", output.name(), "' is a tensor of a graph, not an eager value");
  if (output.index < 0 || output.index >= static_cast<int>(op->outputs.size())) {
    return errors::InvalidArgument("eager op '", op->node().type_string(), "' has no output ", output.index);
  }
  return op->device->CopyToHost(op->outputs[output.index]);
}

Device* DeviceOf(const Output& output) {
  auto* op = dynamic_cast<const EagerOp*>(output.eager.get());
  return op == nullptr ? nullptr : op->device.get();
}

Output FromTensor(const Scope& scope, const Tensor& value) {
  auto* ctx = dynamic_cast<EagerContext*>(scope.eager_runner());
  if (ctx == nullptr) {
    scope.UpdateStatus(errors::InvalidArgument("FromTensor needs an eager scope (EagerContext::scope())"));
    return Output();
  }
  if (!scope.ok()) return Output();
  auto device = ctx->DeviceFor(scope.device());
  if (!device.ok()) {
    scope.UpdateStatus(device.status());
    return Output();
  }
  auto t = device.value()->CopyFromHost(value);
  if (!t.ok()) {
    scope.UpdateStatus(t.status());
    return Output();
  }
  auto op = ctx->MakeOp(ConstOpDef(), {}, {std::move(t).value()}, device.value());
  return Output(&op->node(), 0);
}

}  // namespace tensoract
