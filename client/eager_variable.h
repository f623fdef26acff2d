/// @file
/// MakeVariable: tf.Variable for eager code and traced functions.
///
/// @code
///   Variable w = MakeVariable(s, "w", ops::RandomNormal(...)).value();
///   Output y = ops::MatMul(s, x, w.Read(s));
///   ops::AssignSubVariableOp(s, w.handle, ops::Mul(s, lr, grad));
/// @endcode
///
/// The Variable is graph/training/variables.h's, so the optimizers, the Saver and graph
/// code take it as they take graph variables. Where it is made:
/// - in an eager scope: at once, in the ResourceMgr of the scope's device, under a shared
///   name of its own, already holding `initial_value`. The graphs of traced functions and of
///   sessions on the context's server reach the same variable (a graph reading it gets a
///   VarHandleOp naming it);
/// - while a Function traces: eagerly too (tf.init_scope), but only during the function's
///   first trace, the RFC's rule; a later trace that tries is FailedPrecondition, and an
///   initial value computed by the graph being traced is InvalidArgument;
/// - in any other graph scope: as NewVariable makes it (its initializer must run).
///
/// Eager variables live as long as their context.
#ifndef TENSORACT_CLIENT_EAGER_VARIABLE_H_
#define TENSORACT_CLIENT_EAGER_VARIABLE_H_

#include <string>

#include "base/status.h"
#include "graph/builder/scope.h"
#include "graph/training/variables.h"

namespace tensoract {

/// A resource variable named `name` holding `initial_value` (a tensor or a constant), made
/// eagerly in an eager scope or while a Function traces, else as a graph variable; see
/// eager_variable.h for the rules and errors.
StatusOr<Variable> MakeVariable(const Scope& scope, const std::string& name, const Input& initial_value);

}  // namespace tensoract

#endif  // TENSORACT_CLIENT_EAGER_VARIABLE_H_
