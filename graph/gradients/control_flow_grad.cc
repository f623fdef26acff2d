// Gradients of a conditional's Switch and Merge (loops are differentiated as a whole,
// graph/gradients/while_grad.cc). The backward pass is a conditional too: the gradient
// flows back only through the branch that ran.
//
//   Merge:  input i took the value iff value_index == i, so the gradient of input i is the
//           output's gradient switched on that: live for the branch that ran, dead for the
//           others (TensorFlow's _MergeGrad for more than two inputs; the same for two).
//   Switch: the gradient of its data is that of whichever output was live, a Merge of the
//           two (the untaken side's is dead); the predicate gets none.
#include "graph/builder/control_flow_ops.h"
#include "graph/gradients/grad_helpers.h"

namespace tensoract {
namespace {

Status MergeGrad(const Scope& scope, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  const Output value_index(const_cast<Node*>(&op), 1);
  for (int i = 0; i < op.num_inputs(); ++i) {
    (*dx)[i] = ops::Switch(scope, dy[0], ops::Equal(scope, value_index, i)).output_true;
  }
  return scope.status();
}
REGISTER_GRADIENT_OP("Merge", MergeGrad);
REGISTER_GRADIENT_OP("RefMerge", MergeGrad);

Status SwitchGrad(const Scope& scope, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  (*dx)[0] = ops::Merge(scope, OutputList{dy[0], dy[1]}).output;
  (*dx)[1] = Output();
  return scope.status();
}
REGISTER_GRADIENT_OP("Switch", SwitchGrad);
REGISTER_GRADIENT_OP("RefSwitch", SwitchGrad);

// A loop's predicate and the stacks that differentiate loops carry no gradient.
REGISTER_NO_GRADIENT_OP("LoopCond");
REGISTER_NO_GRADIENT_OP("ControlTrigger");
REGISTER_NO_GRADIENT_OP("StackV2");
REGISTER_NO_GRADIENT_OP("StackPushV2");
REGISTER_NO_GRADIENT_OP("StackPopV2");
REGISTER_NO_GRADIENT_OP("StackCloseV2");

}  // namespace
}  // namespace tensoract
