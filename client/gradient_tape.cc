#include "client/gradient_tape.h"

#include <algorithm>
#include <map>

#include "graph/builder/array_ops.h"
#include "graph/builder/math_ops.h"
#include "graph/gradients/gradient_registry.h"

namespace tensoract {
namespace {

// A variable's handle: an eager resource value.
bool IsVariableHandle(const Output& x) { return x.is_eager() && x.type() == tensorflow::DT_RESOURCE; }

}  // namespace

GradientTape::GradientTape(EagerContext& ctx, bool persistent, bool watch_accessed_variables)
    : ctx_(ctx), persistent_(persistent), watch_accessed_variables_(watch_accessed_variables) {
  StartRecording();
}

GradientTape::~GradientTape() { StopRecording(); }

void GradientTape::StartRecording() {
  if (recording_) return;
  recording_ = true;
  ctx_.PushRecorder(this);
}

void GradientTape::StopRecording() {
  if (!recording_) return;
  recording_ = false;
  ctx_.PopRecorder(this);
}

void GradientTape::Watch(const Output& x) {
  if (!x.is_eager()) return;
  watched_.insert({x.eager.get(), x.index});
  watched_values_.push_back(x);
}

void GradientTape::Watch(const Variable& v) { Watch(v.handle); }

bool GradientTape::Watched(const Output& x) const {
  return x.is_eager() && (recorded_.count(x.eager.get()) > 0 || watched_.count({x.eager.get(), x.index}) > 0);
}

bool GradientTape::Wants(const std::vector<Output>& inputs) const {
  for (const Output& in : inputs) {
    if (Watched(in) || (watch_accessed_variables_ && IsVariableHandle(in))) return true;
  }
  return false;
}

void GradientTape::Record(const std::shared_ptr<EagerNode>& op) {
  if (watch_accessed_variables_) {
    for (const Output& in : op->inputs) {
      if (IsVariableHandle(in) && !watched_.count({in.eager.get(), in.index})) Watch(in);
    }
  }
  recorded_.insert(op.get());
  ops_.push_back(op);
}

StatusOr<std::vector<Output>> GradientTape::Gradient(const Output& target, const std::vector<Output>& sources,
                                                     const Output& output_gradient) {
  if (used_ && !persistent_) {
    return errors::FailedPrecondition("A non-persistent GradientTape can only be used to compute one set of "
                                      "gradients (or jacobians)");
  }
  if (!target.is_eager()) return errors::InvalidArgument("the target of a gradient must be an eager value");
  used_ = true;
  // This tape does not record its own gradient ops; an enclosing tape does, for what it
  // watches (a gradient of a gradient).
  const bool was_recording = recording_;
  StopRecording();
  struct Resume {
    GradientTape* tape;
    bool on;
    ~Resume() {
      if (on) tape->StartRecording();
    }
  } resume{this, was_recording};

  // The recorded ops on some path from a source (in the order they ran).
  std::set<TensorKey> source_keys;
  for (const Output& x : sources) {
    if (x.is_eager()) source_keys.insert({x.eager.get(), x.index});
  }
  std::unordered_set<const EagerNode*> reached;
  for (const auto& op : ops_) {
    for (const Output& in : op->inputs) {
      if (in.is_eager() && (reached.count(in.eager.get()) || source_keys.count({in.eager.get(), in.index}))) {
        reached.insert(op.get());
        break;
      }
    }
  }

  Scope s = ctx_.scope();
  std::map<TensorKey, std::vector<Output>> grads;
  Output seed = output_gradient.node != nullptr ? output_gradient : ops::OnesLike(s, target);
  TA_RETURN_IF_ERROR(s.status());
  grads[{target.eager.get(), target.index}].push_back(seed);
  auto sum = [&](std::vector<Output>& parts) { return parts.size() == 1 ? parts[0] : ops::AddN(s, parts); };

  for (auto it = ops_.rbegin(); it != ops_.rend(); ++it) {
    EagerNode* op = it->get();
    if (!reached.count(op)) continue;
    const Node& node = op->node();
    std::vector<Output> dy(node.num_outputs());
    bool any = false;
    for (int i = 0; i < node.num_outputs(); ++i) {
      auto g = grads.find({op, i});
      if (g == grads.end()) continue;
      dy[i] = sum(g->second);
      any = true;
    }
    if (!any) continue;
    for (int i = 0; i < node.num_outputs(); ++i) {
      if (dy[i].node == nullptr) dy[i] = ops::ZerosLike(s, Output(&op->node(), i));
    }
    GradFunc fn = op->gradient;
    if (!fn) TA_RETURN_IF_ERROR(GradientRegistry::Global()->Lookup(node.type_string(), &fn));
    if (!fn) continue;  // registered without a gradient: StopGradient, Shape, ...
    // A function call's recorded inputs include what it captured (its variables).
    std::vector<Output> dx(std::max<size_t>(node.num_inputs(), op->inputs.size()));
    // The inputs no source lies behind want no gradient: say so to the gradient function.
    op->skip_inputs = 0;
    for (size_t j = 0; j < op->inputs.size() && j < 64; ++j) {
      const Output& in = op->inputs[j];
      bool wanted = in.is_eager() && (reached.count(in.eager.get()) || source_keys.count({in.eager.get(), in.index}));
      if (!wanted) op->skip_inputs |= uint64_t{1} << j;
    }
    Status st = fn(s, node, dy, &dx);
    if (st.ok()) st = s.status();
    if (!st.ok()) {
      s.ClearStatus();
      return Status(st.code(), StrCat("gradient of ", node.type_string(), ": ", st.message()));
    }
    for (size_t j = 0; j < dx.size() && j < op->inputs.size(); ++j) {
      const Output& in = op->inputs[j];
      if (dx[j].node == nullptr || !in.is_eager()) continue;
      grads[{in.eager.get(), in.index}].push_back(dx[j]);
    }
  }

  std::vector<Output> result;
  for (const Output& x : sources) {
    auto g = x.is_eager() ? grads.find({x.eager.get(), x.index}) : grads.end();
    result.push_back(g == grads.end() ? Output() : sum(g->second));
  }
  TA_RETURN_IF_ERROR(s.status());
  if (!persistent_) {
    ops_.clear();
    recorded_.clear();
  }
  return result;
}

StatusOr<std::vector<Output>> GradientTape::Gradient(const Output& target,
                                                     const std::vector<Variable>& sources) {
  std::vector<Output> handles;
  for (const Variable& v : sources) handles.push_back(v.handle);
  return Gradient(target, handles);
}

}  // namespace tensoract
