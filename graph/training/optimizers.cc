#include "graph/training/optimizers.h"

#include "graph/builder/math_ops.h"
#include "graph/builder/ops.h"
#include "graph/builder/training_ops.h"
#include "graph/gradients/gradients.h"

namespace tensoract {

Output Optimizer::Constant(const Scope& scope, double value, DataType dtype, const std::string& name) {
  // A double constant cast to the variable's type: constant folding turns it into one Const.
  return ops::Cast(scope.WithOpName(name), value, dtype);
}

Variable Optimizer::AddSlot(const Scope& root, const Variable& var, const std::string& slot) {
  // One slot per variable and kind, however many times gradients are applied (eagerly:
  // every step), as TensorFlow's get_or_make_slot.
  const std::string key = var.name() + "/" + slot;
  auto found = slots_.find(key);
  if (found != slots_.end()) return found->second;
  Variable v = NewZerosSlot(root, var, slot);
  if (v.handle.node != nullptr) {
    state_.push_back(v);
    slots_[key] = v;
  }
  return v;
}

Output Optimizer::Current(const Scope& scope, const Variable& var) {
  // An eager variable's `value` is its first value: read it again.
  return scope.is_eager() || var.handle.is_eager() ? var.Read(scope) : var.value;
}

void Optimizer::Build(const Scope& scope, const std::vector<Variable>& vars) {
  Scope root = scope.WithNoControlDependencies().ClearColocation();
  Prepare(scope.NewSubScope(name_), root, vars);
  for (const Variable& v : vars) MakeSlots(root, v);
}

Node* Optimizer::Minimize(const Scope& scope, const Output& loss, const std::vector<Variable>& vars,
                          const Variable* global_step) {
  if (!scope.ok()) return nullptr;
  std::vector<Output> xs;
  for (const Variable& v : vars) xs.push_back(v.Handle(scope));
  std::vector<Output> grads;
  Status s = AddSymbolicGradients(scope, {loss}, xs, &grads);
  if (!s.ok()) {
    scope.UpdateStatus(s);
    return nullptr;
  }
  return ApplyGradients(scope, vars, grads, global_step);
}

Node* Optimizer::ApplyGradients(const Scope& scope, const std::vector<Variable>& vars,
                                const std::vector<Output>& grads, const Variable* global_step) {
  if (!scope.ok()) return nullptr;
  if (vars.size() != grads.size()) {
    scope.UpdateStatus(errors::InvalidArgument(name_, ": ", vars.size(), " variables but ", grads.size(),
                                               " gradients"));
    return nullptr;
  }
  bool any = false;
  for (const Output& g : grads) any |= g.node != nullptr;
  if (!any) {
    scope.UpdateStatus(errors::InvalidArgument(name_, ": no gradients for any variable; the loss does not depend on ",
                                               vars.empty() ? std::string("(no variables)") : vars[0].name(),
                                               vars.size() > 1 ? " or the others" : ""));
    return nullptr;
  }
  Scope root = scope.WithNoControlDependencies().ClearColocation();
  Scope opt = scope.NewSubScope(name_);
  Prepare(opt, root, vars);
  std::vector<Output> updates;
  for (size_t i = 0; i < vars.size(); ++i) {
    if (grads[i].node == nullptr) continue;
    Scope update = opt.NewSubScope("update_" + vars[i].name()).ColocateWith(vars[i].handle);
    Node* n = ApplyDense(root, update, vars[i], grads[i]);
    if (n == nullptr) return nullptr;
    updates.emplace_back(n);
  }
  if (Node* finish = Finish(opt.WithControlDependencies(updates))) updates.emplace_back(finish);
  if (global_step != nullptr) {
    Scope step = opt.WithControlDependencies(updates).ColocateWith(global_step->handle);
    Node* inc = ops::AssignAddVariableOp(step.WithOpName("AssignAddVariableOp"), global_step->handle,
                                         Constant(step, 1, global_step->dtype, "one"));
    if (inc == nullptr) return nullptr;
    updates.emplace_back(inc);
  }
  // Named like the optimizer's name scope, as TensorFlow's train op: "Adam" over "Adam/...".
  return ops::NoOp(opt.WithScopeName().WithControlDependencies(updates));
}

Node* GradientDescentOptimizer::ApplyDense(const Scope& root, const Scope& scope, const Variable& var, const Output& grad) {
  return ops::ResourceApplyGradientDescent(scope, var.handle, Constant(scope, learning_rate_, var.dtype, "learning_rate"),
                                           grad);
}

Node* MomentumOptimizer::ApplyDense(const Scope& root, const Scope& scope, const Variable& var,
                                    const Output& grad) {
  Variable accum = AddSlot(root, var, "Momentum");
  if (accum.handle.node == nullptr) return nullptr;
  ops::ApplyMomentumAttrs attrs;
  attrs.use_nesterov = use_nesterov_;
  return ops::ResourceApplyMomentum(scope, var.handle, accum.handle,
                                    Constant(scope, learning_rate_, var.dtype, "learning_rate"), grad,
                                    Constant(scope, momentum_, var.dtype, "momentum"), attrs);
}

void AdamOptimizer::Prepare(const Scope& scope, const Scope& root, const std::vector<Variable>& vars) {
  dtype_ = vars.empty() ? tensorflow::DT_FLOAT : vars[0].dtype;
  if (beta1_power_.handle.node != nullptr) return;  // made on the first application
  const Scope& at = root;
  beta1_power_ = NewVariable(at, "beta1_power", [&](const Scope& s) { return Constant(s, beta1_, dtype_, "initial_value"); });
  beta2_power_ = NewVariable(at, "beta2_power", [&](const Scope& s) { return Constant(s, beta2_, dtype_, "initial_value"); });
  if (beta1_power_.handle.node) state_.push_back(beta1_power_);
  if (beta2_power_.handle.node) state_.push_back(beta2_power_);
}

Node* AdamOptimizer::ApplyDense(const Scope& root, const Scope& scope, const Variable& var, const Output& grad) {
  Variable m = AddSlot(root, var, "Adam");
  Variable v = AddSlot(root, var, "Adam_1");
  if (m.handle.node == nullptr || v.handle.node == nullptr) return nullptr;
  return ops::ResourceApplyAdam(scope, var.handle, m.handle, v.handle, Current(scope, beta1_power_), Current(scope, beta2_power_),
                                Constant(scope, learning_rate_, var.dtype, "learning_rate"),
                                Constant(scope, beta1_, var.dtype, "beta1"), Constant(scope, beta2_, var.dtype, "beta2"),
                                Constant(scope, epsilon_, var.dtype, "epsilon"), grad);
}

Node* AdamOptimizer::Finish(const Scope& scope) {
  Node* b1 = ops::AssignVariableOp(scope.WithOpName("update_beta1_power"), beta1_power_.handle,
                                   ops::Mul(scope, Current(scope, beta1_power_), Constant(scope, beta1_, dtype_, "beta1")));
  Node* b2 = ops::AssignVariableOp(scope.WithOpName("update_beta2_power"), beta2_power_.handle,
                                   ops::Mul(scope, Current(scope, beta2_power_), Constant(scope, beta2_, dtype_, "beta2")));
  if (b1 == nullptr || b2 == nullptr) return nullptr;
  return ops::NoOp(scope.WithOpName("finish").WithControlDependencies({Output(b1), Output(b2)}));
}

}  // namespace tensoract
