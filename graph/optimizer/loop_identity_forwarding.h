// Identity nodes inside loops are skipped: their consumers read what they read.
//
// A lowered functional While has Identities in every iteration that only pass values on:
// one after each loop Switch (the body's view of a loop variable), one per value the body
// returns (Keras writes Identity(x, ^NoOp) for each), and one for the cond's result. A
// Keras GRU's iteration runs 11 of them among its ~60 nodes, each a kernel call and the
// executor's bookkeeping. Outside loops an Identity runs once a step and stays.
//
// An Identity (or IdentityN, output k for input k) in a loop frame is forwarded when:
//   - it has no reference input or output (an Identity of a ref variable reads its value);
//   - nothing waits on it by a control edge (the loop's pivot, an Identity of a Switch,
//     exists for those), and every consumer is an op node;
//   - it is on the device its inputs are requested on (else it is a transfer);
//   - if it has control inputs, no consumer is a control-flow node: each consumer gets its
//     control inputs instead (a Merge or NextIteration takes none).
// Deadness is unchanged: a consumer now sees the value the Identity saw, and waits for what
// it waited for.
#ifndef TENSORACT_GRAPH_OPTIMIZER_LOOP_IDENTITY_FORWARDING_H_
#define TENSORACT_GRAPH_OPTIMIZER_LOOP_IDENTITY_FORWARDING_H_

#include "graph/graph.h"

namespace tensoract {

// Removes every Identity and IdentityN of `graph`'s loop frames that the rules above allow.
// Returns whether the graph changed; a graph whose control flow is malformed is left alone.
bool ForwardLoopIdentities(Graph* graph);

}  // namespace tensoract

#endif  // TENSORACT_GRAPH_OPTIMIZER_LOOP_IDENTITY_FORWARDING_H_
