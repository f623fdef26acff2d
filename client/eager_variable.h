// Variable: a resource variable of eager code (tf.Variable in TensorFlow 2).
//
//   auto w = Variable::New(s, ops::RandomNormal(...), "w").value();
//   Output y = ops::MatMul(s, x, w.Read(s));
//   w.AssignSub(s, ops::Mul(s, lr, grad));
//
// It lives in the ResourceMgr of the device it was made on, under a shared name of its
// own ("w_3"), so the graphs of traced functions (client/function.h) and sessions on the
// context's server reach the same variable: reading or writing it in a graph scope uses a
// VarHandleOp naming it. Copies of a Variable are the same variable; it is deleted when
// the last copy goes.
//
// Made in a Function's trace, a variable is created once, eagerly, during the first trace
// (the RFC's rule); a later trace that tries is FailedPrecondition.
#ifndef TENSORACT_CLIENT_EAGER_VARIABLE_H_
#define TENSORACT_CLIENT_EAGER_VARIABLE_H_

#include <memory>
#include <string>

#include "base/status.h"
#include "graph/builder/scope.h"

namespace tensoract {

class Variable {
 public:
  Variable() = default;
  // A variable holding `initial_value` (an eager value or an inline constant) on the
  // scope's device. `name` is made unique among the process's variables.
  static StatusOr<Variable> New(const Scope& scope, const Input& initial_value, const std::string& name = "Variable");

  // The eager resource handle (what a tape watches and gradients are taken with respect to).
  const Output& handle() const;
  // The handle in `scope`: the eager one, or in a graph a VarHandleOp naming the variable.
  Output handle(const Scope& scope) const;
  Output Read(const Scope& scope) const;
  // Writes: they run at once in an eager scope; in a graph they are nodes (targets).
  Node* Assign(const Scope& scope, const Input& value) const;
  Node* AssignAdd(const Scope& scope, const Input& delta) const;
  Node* AssignSub(const Scope& scope, const Input& delta) const;

  DataType dtype() const;
  const std::string& name() const;  // the shared name in the device's ResourceMgr
  bool valid() const { return state_ != nullptr; }

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace tensoract

#endif  // TENSORACT_CLIENT_EAGER_VARIABLE_H_
