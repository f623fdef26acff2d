#include "client/eager_variable.h"

#include "client/eager_context.h"
#include "client/function.h"
#include "graph/builder/ops.h"

namespace tensoract {

StatusOr<Variable> MakeVariable(const Scope& scope, const std::string& name, const Input& initial_value) {
  TA_RETURN_IF_ERROR(scope.status());
  Scope where = scope;
  if (!scope.is_eager()) {
    if (TraceState* trace = CurrentTrace()) {
      if (!trace->may_create_variables) {
        return errors::FailedPrecondition("Function '", trace->function_name, "' tried to create variable '", name,
                                          "' on a trace after its first; variables may only be created while the "
                                          "first trace runs");
      }
      if (!initial_value.is_constant() && !initial_value.output().is_eager()) {
        return errors::InvalidArgument("the initial value of variable '", name,
                                       "' is a tensor of the graph being traced; give an eager value or a constant");
      }
      where = trace->context->scope().WithDevice(scope.device());  // tf.init_scope
    }
  }
  Output init = initial_value.is_constant() ? ops::Const(where.NewSubScope(name), initial_value)
                                            : initial_value.output();
  TA_RETURN_IF_ERROR(where.status());
  Variable v = NewVariable(where, name, init);
  Status made = where.status();
  if (!made.ok()) {
    if (where.is_eager()) where.ClearStatus();
    return made;
  }
  return v;
}

}  // namespace tensoract
