// TensorFlow 2's functional control flow (If, StatelessIf, Case, StatelessCase, While,
// StatelessWhile: tf.cond, tf.switch_case and tf.while_loop inside a tf.function) lowered to TensorFlow 1's primitives
// (graph/control_flow.h), as TensorFlow's LowerFunctionalOpsPass does, so the executor
// runs them as it runs TF 1.x conditionals and loops.
//
// An If named N becomes:
//   N/switch_pred = Switch(cond, cond)   N/pivot_t, N/pivot_f: its two outputs
//   N/input_i     = Switch(input_i, cond) for each input
//   N/then, N/else: calls of the branch functions on the switches' true/false outputs,
//                   waiting for their pivot (so a branch's constants are dead when the
//                   other is taken), then inlined by `expand`
//   N/output_j    = Merge(N/then:j, N/else:j)
//   N/branch_executed: a Merge that is live once the taken branch's side effects ran
//   N             = IdentityN(N/output_j...) after N/branch_executed (NoOp without outputs)
// A Case named N with branches 0..K-1 becomes, for each branch k, a bool predicate
// N/branch_k_pred (index == k for k < K - 1; for the last, index outside [0, K - 1), where
// TensorFlow runs the last branch for any index out of range), N/branch_k_switch and
// N/branch_k_pivot as an If's, N/branch_k_input_i = Switch(input_i, pred):1 and the call
// N/branch_k on them; N/output_j = Merge of the K branches' outputs, N/branch_executed and
// N as an If's. The predicates' constants wait for the index's node (its frame).
// A While named N becomes a loop frame named N: per loop variable i, Enter -> Merge ->
// Switch on LoopCond(cond(merges)) -> Exit out of the loop, or Identity -> body ->
// NextIteration back into the Merge; N = IdentityN(exits). The cond call waits for
// N/merge_0 and the body call for N/identity_0, so the functions' constants run in the
// loop's frame, once per iteration.
// A loop variable the body returns unchanged (its output i is its input i: what a
// tf.function's loop captures, weights, resources, the input list) is a loop invariant, as
// in TensorFlow 1: one Enter with is_constant, read by the cond and the body in every
// iteration, and no Merge, Switch, Identity, NextIteration or Exit; N:i is the input itself,
// given out with the Exits (unless every variable is invariant: then the loop is kept as
// written).
// So consumers of "N:k" and "^N" are unchanged. The functional node's control inputs go to
// the nodes that enter it (the Switches, the Enters).
//
// Refused (InvalidArgument): a cond that is not a bool (TensorFlow would convert it:
// tf.cond and tf.while_loop always give bools) and a While without loop variables.
#ifndef TENSORACT_GRAPH_LOWER_FUNCTIONAL_OPS_H_
#define TENSORACT_GRAPH_LOWER_FUNCTIONAL_OPS_H_

#include <functional>
#include <string>
#include <vector>

#include "base/status.h"
#include "messages/function.pb.h"
#include "messages/graph.pb.h"

namespace tensoract {

// If, StatelessIf, Case, StatelessCase, While or StatelessWhile.
bool IsFunctionalControlFlow(const std::string& op);

// Appends to `out` what replaces a call node (a PartitionedCall with `f`, `Tin` and `Tout`):
// its function's body, inlined.
using ExpandCall = std::function<Status(const tensorflow::NodeDef& call, std::vector<tensorflow::NodeDef>* out)>;

// The function of that name in the graph's library, or null.
using FindFunction = std::function<const tensorflow::FunctionDef*(const std::string& name)>;

// Appends to `out` the lowered form of `node` (IsFunctionalControlFlow(node.op())). `find`
// (may be null) gives a While's body, to see its loop invariants.
Status LowerFunctionalControlFlow(const tensorflow::NodeDef& node, const ExpandCall& expand, const FindFunction& find,
                                  std::vector<tensorflow::NodeDef>* out);

}  // namespace tensoract

#endif  // TENSORACT_GRAPH_LOWER_FUNCTIONAL_OPS_H_
