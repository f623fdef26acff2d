// Builder functions for the control-flow primitives (graph/ops/control_flow_ops.cc) and
// the stacks (graph/ops/stack_ops.cc), one node each, as TensorFlow's C++ API has them.
// A reference input (a variable) makes the Ref form of the op (RefSwitch, RefMerge,
// RefEnter, RefExit, RefNextIteration), as TensorFlow's Python does.
//
// Most code wants Cond and WhileLoop (graph/builder/control_flow.h), which put these
// together the way tf.cond and tf.while_loop do.
#ifndef TENSORACT_GRAPH_BUILDER_CONTROL_FLOW_OPS_H_
#define TENSORACT_GRAPH_BUILDER_CONTROL_FLOW_OPS_H_

#include <string>

#include "graph/builder/scope.h"

namespace tensoract {
namespace ops {

struct SwitchOutputs {
  Output output_false, output_true;
};
SwitchOutputs Switch(const Scope& scope, const Input& data, const Input& pred);

struct MergeOutputs {
  Output output, value_index;
};
MergeOutputs Merge(const Scope& scope, const InputList& inputs);

struct EnterAttrs {
  bool is_constant = false;
  int64_t parallel_iterations = 10;
};
Output Enter(const Scope& scope, const Input& data, const std::string& frame_name, EnterAttrs attrs = {});
Output Exit(const Scope& scope, const Input& data);
Output NextIteration(const Scope& scope, const Input& data);
Output LoopCond(const Scope& scope, const Input& input);
Node* ControlTrigger(const Scope& scope);

// max_size <= 0: unbounded.
Output StackV2(const Scope& scope, const Input& max_size, DataType elem_type, const std::string& stack_name = "");
Output StackPushV2(const Scope& scope, const Input& handle, const Input& elem);
Output StackPopV2(const Scope& scope, const Input& handle, DataType elem_type);
Node* StackCloseV2(const Scope& scope, const Input& handle);

}  // namespace ops
}  // namespace tensoract

#endif  // TENSORACT_GRAPH_BUILDER_CONTROL_FLOW_OPS_H_
