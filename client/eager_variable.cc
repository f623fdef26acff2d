#include "client/eager_variable.h"

#include <atomic>

#include "client/eager_context.h"
#include "client/function.h"
#include "graph/builder/attr_util.h"
#include "graph/builder/ops.h"
#include "kernels/resource_handle.h"
#include "kernels/variable.h"

namespace tensoract {

struct Variable::State {
  Output handle;  // eager
  DataType dtype = tensorflow::DT_INVALID;
  PartialTensorShape shape;
  std::string container, name, device;
  ~State() {
    // The last copy went: the variable goes too (nobody can name it any more except a
    // graph traced while it lived, which then fails as TensorFlow's does).
    if (Device* d = DeviceOf(handle)) d->resource_manager()->Delete<Var>(container, name).IgnoreError();
  }
};

StatusOr<Variable> Variable::New(const Scope& scope, const Input& initial_value, const std::string& name) {
  Scope eager = scope;
  if (!scope.is_eager()) {
    const TraceState* trace = CurrentTrace();
    if (trace == nullptr) {
      return errors::InvalidArgument("Variable::New needs an eager scope, or a graph scope while a Function traces");
    }
    if (!trace->may_create_variables) {
      return errors::FailedPrecondition("Function '", trace->function_name,
                                        "' tried to create variables on a trace after its first; variables may "
                                        "only be created while the first trace runs");
    }
    // tf.init_scope: the variable is made eagerly, outside the graph being traced.
    eager = trace->context->scope().WithDevice(scope.device());
    if (!initial_value.is_constant() && !initial_value.output().is_eager()) {
      return errors::InvalidArgument("the initial value of variable '", name,
                                     "' is a tensor of the graph being traced; give an eager value or a constant");
    }
  }
  static std::atomic<int64_t> counter{0};
  auto state = std::make_shared<State>();
  state->dtype = ops::TypeOf(initial_value);
  state->name = StrCat(name, "_", counter++);
  Output init = initial_value.is_constant() ? ops::Const(eager, initial_value) : initial_value.output();
  TA_RETURN_IF_ERROR(eager.status());
  state->shape = init.shape();
  ops::VarHandleOpAttrs attrs;
  attrs.shared_name = state->name;
  attrs.debug_name = name;
  state->handle = ops::VarHandleOp(eager, state->dtype, state->shape, attrs);
  TA_RETURN_IF_ERROR(eager.status());
  TA_ASSIGN_OR_RETURN(Tensor h, ValueOf(state->handle));
  const ResourceHandle& rh = *h.base<ResourceHandle>();
  state->container = rh.container();
  state->device = rh.device();
  ops::AssignVariableOp(eager, state->handle, init);
  TA_RETURN_IF_ERROR(eager.status());
  Variable v;
  v.state_ = std::move(state);
  return v;
}

const Output& Variable::handle() const {
  static const Output* const kNone = new Output;
  return state_ ? state_->handle : *kNone;
}

Output Variable::handle(const Scope& scope) const {
  if (!state_) {
    scope.UpdateStatus(errors::FailedPrecondition("an empty Variable was used"));
    return Output();
  }
  if (scope.is_eager()) return state_->handle;
  // In a graph: a VarHandleOp naming this variable, made once per traced graph.
  auto captured = state_->handle.eager->Capture(scope, state_->handle.index);
  if (!captured.ok()) {
    scope.UpdateStatus(captured.status());
    return Output();
  }
  return captured.value();
}

Output Variable::Read(const Scope& scope) const {
  Output h = handle(scope);
  if (h.node == nullptr) return Output();
  return ops::ReadVariableOp(scope, h, state_->dtype);
}

Node* Variable::Assign(const Scope& scope, const Input& value) const {
  Output h = handle(scope);
  return h.node == nullptr ? nullptr : ops::AssignVariableOp(scope, h, value);
}

Node* Variable::AssignAdd(const Scope& scope, const Input& delta) const {
  Output h = handle(scope);
  return h.node == nullptr ? nullptr : ops::AssignAddVariableOp(scope, h, delta);
}

Node* Variable::AssignSub(const Scope& scope, const Input& delta) const {
  Output h = handle(scope);
  return h.node == nullptr ? nullptr : ops::AssignSubVariableOp(scope, h, delta);
}

DataType Variable::dtype() const { return state_ ? state_->dtype : tensorflow::DT_INVALID; }

const std::string& Variable::name() const {
  static const std::string* const kNone = new std::string;
  return state_ ? state_->name : *kNone;
}

}  // namespace tensoract
