#include "graph/builder/control_flow_ops.h"

#include "graph/builder/attr_util.h"

namespace tensoract {
namespace ops {
namespace {

bool IsRef(const Input& in) { return !in.is_constant() && IsRefType(in.output().type()); }

// `op`, or its Ref form when `data` is a reference.
std::string MaybeRef(const Input& data, const std::string& op) { return IsRef(data) ? "Ref" + op : op; }

}  // namespace

SwitchOutputs Switch(const Scope& scope, const Input& data, const Input& pred) {
  Node* n = scope.AddOp(MaybeRef(data, "Switch"), "Switch", {data, pred}, {{"T", TypeAttr(TypeOf(data))}});
  return {Output(n, 0), Output(n, 1)};
}

MergeOutputs Merge(const Scope& scope, const InputList& inputs) {
  if (inputs.size() == 0) {
    scope.UpdateStatus(errors::InvalidArgument("ops::Merge needs at least one input"));
    return {};
  }
  const Input& first = *inputs.begin();
  Node* n = scope.AddOp(MaybeRef(first, "Merge"), "Merge", inputs.inputs(),
                        {{"T", TypeAttr(TypeOf(first))}, {"N", IntAttr(static_cast<int64_t>(inputs.size()))}});
  return {Output(n, 0), Output(n, 1)};
}

Output Enter(const Scope& scope, const Input& data, const std::string& frame_name, EnterAttrs attrs) {
  return Output(scope.AddOp(MaybeRef(data, "Enter"), "Enter", {data},
                            {{"T", TypeAttr(TypeOf(data))},
                             {"frame_name", StringAttr(frame_name)},
                             {"is_constant", BoolAttr(attrs.is_constant)},
                             {"parallel_iterations", IntAttr(attrs.parallel_iterations)}}),
                0);
}

Output Exit(const Scope& scope, const Input& data) {
  return Output(scope.AddOp(MaybeRef(data, "Exit"), "Exit", {data}, {{"T", TypeAttr(TypeOf(data))}}), 0);
}

Output NextIteration(const Scope& scope, const Input& data) {
  return Output(scope.AddOp(MaybeRef(data, "NextIteration"), "NextIteration", {data}, {{"T", TypeAttr(TypeOf(data))}}),
                0);
}

Output LoopCond(const Scope& scope, const Input& input) {
  return Output(scope.AddOp("LoopCond", "LoopCond", {input}, {}), 0);
}

Node* ControlTrigger(const Scope& scope) { return scope.AddOp("ControlTrigger", "ControlTrigger", {}, {}); }

Output StackV2(const Scope& scope, const Input& max_size, DataType elem_type, const std::string& stack_name) {
  return Output(scope.AddOp("StackV2", "StackV2", {max_size},
                            {{"elem_type", TypeAttr(elem_type)}, {"stack_name", StringAttr(stack_name)}}),
                0);
}

Output StackPushV2(const Scope& scope, const Input& handle, const Input& elem) {
  return Output(scope.AddOp("StackPushV2", "StackPushV2", {handle, elem},
                            {{"T", TypeAttr(TypeOf(elem))}, {"swap_memory", BoolAttr(false)}}),
                0);
}

Output StackPopV2(const Scope& scope, const Input& handle, DataType elem_type) {
  return Output(scope.AddOp("StackPopV2", "StackPopV2", {handle}, {{"elem_type", TypeAttr(elem_type)}}), 0);
}

Node* StackCloseV2(const Scope& scope, const Input& handle) {
  return scope.AddOp("StackCloseV2", "StackCloseV2", {handle}, {});
}

}  // namespace ops
}  // namespace tensoract
