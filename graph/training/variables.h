// Trainable variables for graphs built in C++: a resource variable with its initializer
// and the one read that the model uses, as TensorFlow's graph-mode tf.Variable makes them.
//
//   Scope root = Scope::NewRootScope();
//   Variable w = NewVariable(root, "dense/kernel", [](const Scope& s) {
//     return ops::TruncatedNormal(s, {784, 256}, DT_FLOAT);   // "dense/kernel/Initializer/..."
//   });
//   auto y = ops::MatMul(root, x, w.value);
//   Node* init = GroupInitializers(root.WithOpName("init"), {w, ...});  // run once, or restore
//
// Gradients are taken with respect to `handle`: ReadVariableOp passes its gradient to the
// handle (graph/gradients/state_grad.cc), so every read of the variable contributes.
//
// In an eager scope (client/eager_context.h) the same calls make a variable at once: its
// handle is an eager value naming a variable of its own (a unique shared name), already
// holding its initial value (no initializer to run), and `value` is that initial value;
// read the current one with Read(scope). The optimizers below work on such variables too,
// their updates running eagerly. client/eager_variable.h's MakeVariable also works while
// a Function traces.
#ifndef TENSORACT_GRAPH_TRAINING_VARIABLES_H_
#define TENSORACT_GRAPH_TRAINING_VARIABLES_H_

#include <functional>
#include <string>
#include <vector>

#include "graph/builder/scope.h"

namespace tensoract {

struct Variable {
  Output handle;                // VarHandleOp "<name>": a DT_RESOURCE scalar
  Output value;                 // ReadVariableOp "<name>/Read/ReadVariableOp"
  Node* initializer = nullptr;  // AssignVariableOp "<name>/Assign" of the initial value
  DataType dtype = tensorflow::DT_INVALID;
  PartialTensorShape shape;
  // The handle node's name: the variable's name in checkpoints.
  std::string name() const;
  // The handle in `scope`: `handle`, or, for an eager variable used while a graph is built
  // (a Function's trace), the VarHandleOp that stands for it in that graph.
  Output Handle(const Scope& scope) const;
  // A read of the current value in `scope` (a new ReadVariableOp: eager, it runs now).
  Output Read(const Scope& scope) const;
};

// A variable holding its initial value once its initializer runs; dtype and shape are the
// initial value's (its shape must be fully known). The first form builds the initial
// value with `make_initial_value` under "<name>/Initializer/", as TensorFlow does; the
// second takes one built elsewhere. Errors go to the scope's status and leave the
// Variable's outputs empty. The handle is named `name`, made unique in the scope.
using InitialValueFn = std::function<Output(const Scope& scope)>;
Variable NewVariable(const Scope& scope, const std::string& name, const InitialValueFn& make_initial_value);
Variable NewVariable(const Scope& scope, const std::string& name, const Output& initial_value);

// A variable of zeros shaped like `like`, named "<like's name>/<slot>", for optimizer state
// (momentum, Adam's m and v).
Variable NewZerosSlot(const Scope& scope, const Variable& like, const std::string& slot);

// A NoOp that runs every variable's initializer.
Node* GroupInitializers(const Scope& scope, const std::vector<Variable>& vars);

// A bool vector: whether each of `vars` is initialised (a MonitoredSession accepts it as
// its ready_op, client/monitored_session.h).
Output VariablesInitialized(const Scope& scope, const std::vector<Variable>& vars);

// A string vector: the names of those of `vars` not initialised yet, in order; empty when
// all are (TensorFlow's tf.compat.v1.report_uninitialized_variables, a Scaffold's default
// ready_op). Built as TensorFlow builds it, under "report_uninitialized_variables/": a
// VarIsInitializedOp per variable, stacked, LogicalNot, and a boolean mask (Where, Squeeze,
// GatherV2) over a constant of the names. The result, the GatherV2, is named by `scope`.
// No variables: an empty string constant.
Output ReportUninitializedVariables(const Scope& scope, const std::vector<Variable>& vars);

}  // namespace tensoract

#endif  // TENSORACT_GRAPH_TRAINING_VARIABLES_H_
