#include "graph/training/variables.h"

#include <atomic>

#include "base/status.h"
#include "graph/builder/eager_node.h"
#include "graph/builder/array_ops.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/ops.h"

namespace tensoract {

std::string Variable::name() const { return handle.node ? handle.node->name() : std::string(); }

Output Variable::Handle(const Scope& scope) const {
  if (scope.is_eager() || !handle.is_eager()) return handle;
  auto captured = handle.eager->Capture(scope, handle.index);
  if (!captured.ok()) {
    scope.UpdateStatus(captured.status());
    return Output();
  }
  return captured.value();
}

Output Variable::Read(const Scope& scope) const { return ops::ReadVariableOp(scope, Handle(scope), dtype); }

Variable NewVariable(const Scope& scope, const std::string& name, const InitialValueFn& make_initial_value) {
  Variable var;
  if (!scope.ok()) return var;
  Scope vs = scope.NewSubScope(name);
  Output initial_value = make_initial_value(vs.NewSubScope("Initializer"));
  if (!scope.ok() || initial_value.node == nullptr) return var;
  const PartialTensorShape& shape = initial_value.shape();
  if (!shape.IsFullyDefined()) {
    scope.UpdateStatus(errors::InvalidArgument("variable '", name, "': the initial value ", initial_value.name(),
                                               " has shape ", shape.DebugString(),
                                               ", which is not fully known"));
    return var;
  }
  var.dtype = initial_value.type();
  var.shape = shape;
  if (scope.is_eager()) {
    // A variable of its own, whatever names other eager variables have.
    static std::atomic<int64_t> eager_variables{0};
    ops::VarHandleOpAttrs attrs;
    attrs.shared_name = StrCat(vs.name_prefix(), "_", eager_variables++);
    attrs.debug_name = vs.name_prefix();
    var.handle = ops::VarHandleOp(vs, var.dtype, shape, attrs);
    if (!scope.ok()) return var;
    NodeDef def;  // its name, for name() (checkpoints, slots)
    def.set_name(vs.name_prefix());
    def.set_op("VarHandleOp");
    var.handle.eager->set_def(std::move(def));
    ops::AssignVariableOp(vs, var.handle, initial_value);  // ran: nothing to initialize later
    var.value = var.Read(vs);
    return var;
  }
  var.handle = ops::VarHandleOp(vs.WithScopeName(), var.dtype, shape);
  if (!scope.ok()) return var;
  var.initializer = ops::AssignVariableOp(vs.WithOpName("Assign"), var.handle, initial_value);
  var.value = ops::ReadVariableOp(vs.NewSubScope("Read").WithOpName("ReadVariableOp"), var.handle, var.dtype);
  return var;
}

Variable NewVariable(const Scope& scope, const std::string& name, const Output& initial_value) {
  return NewVariable(scope, name, [&](const Scope&) { return initial_value; });
}

Variable NewZerosSlot(const Scope& scope, const Variable& like, const std::string& slot) {
  if (!scope.ok() || like.handle.node == nullptr) return Variable();
  // A slot lives where its variable does (TensorFlow colocates them): the update op that
  // uses both is placed with the variable, whatever device the optimizer's scope names.
  Scope root = scope.WithNoControlDependencies().ClearColocation().ColocateWith(like.handle);
  tensorflow::TensorProto dims;
  dims.set_dtype(tensorflow::DT_INT32);
  dims.mutable_tensor_shape()->add_dim()->set_size(like.shape.dims());
  for (int i = 0; i < like.shape.dims(); ++i) dims.add_int_val(static_cast<int32_t>(like.shape.dim_size(i)));
  return NewVariable(root, like.name() + "/" + slot, [&](const Scope& s) {
    Output zero = ops::Cast(s.WithOpName("zero"), 0.0, like.dtype);
    return ops::Fill(s.WithOpName("zeros"), ops::Const(s.WithOpName("shape"), dims), zero);
  });
}

Node* GroupInitializers(const Scope& scope, const std::vector<Variable>& vars) {
  std::vector<Output> deps;
  for (const Variable& v : vars) {
    if (v.initializer != nullptr) deps.emplace_back(v.initializer);
  }
  return ops::NoOp(scope.WithControlDependencies(deps));
}

Output VariablesInitialized(const Scope& scope, const std::vector<Variable>& vars) {
  // The flags without the scope's op name: it is the result's (a WithOpName("ready") scope
  // once named the first flag "ready", and a ready_op checked one variable only).
  const Scope flags_scope = scope.NewSubScope("");
  std::vector<Input> flags;
  for (const Variable& v : vars) flags.push_back(ops::VarIsInitializedOp(flags_scope, v.handle));
  return ops::Stack(scope, flags);
}

Output ReportUninitializedVariables(const Scope& scope, const std::vector<Variable>& vars) {
  tensorflow::TensorProto names;
  names.set_dtype(tensorflow::DT_STRING);
  names.mutable_tensor_shape()->add_dim()->set_size(static_cast<int64_t>(vars.size()));
  for (const Variable& v : vars) names.add_string_val(v.name());
  if (vars.empty()) return ops::Const(scope, names);
  const Scope s = scope.NewSubScope("report_uninitialized_variables");
  std::vector<Input> flags;
  for (const Variable& v : vars) flags.push_back(ops::VarIsInitializedOp(s, v.handle));
  Output missing = ops::LogicalNot(s, ops::Stack(s, flags));
  const Scope mask = s.NewSubScope("boolean_mask");
  Output indices = ops::Squeeze(mask, ops::Where(mask, missing), {1});
  return ops::GatherV2(scope, ops::Const(s, names), indices, 0);
}

}  // namespace tensoract
