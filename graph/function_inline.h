// Function calls of a GraphDef's library, inlined: how graphs written by TensorFlow 2
// (tf.function calling tf.function: a FunctionDefLibrary and PartitionedCall or
// StatefulPartitionedCall nodes) run here.
//
// Every call, a PartitionedCall/StatefulPartitionedCall naming a library function in its
// `f` attr or a node whose op is a library function's name, is replaced by the function's
// body, its nodes renamed "<call>/<node>", its arguments wired to the call's inputs, and an
// IdentityN named as the call itself giving the function's results in order, so whatever
// consumed "<call>:k" still does. The IdentityN also waits for the body's control outputs
// (control_ret: its side effects), and the body's nodes wait for the call's control inputs.
// Calls inside bodies are inlined the same way, to any depth; a function that calls itself
// is InvalidArgument. Attr placeholders in a body ("$T") take the call's attr values. The
// library is gone from the result.
//
// ImportGraphDef runs this on any GraphDef with a library, so sessions, the master and
// tensoract-run take such graphs as they are.
#ifndef TENSORACT_GRAPH_FUNCTION_INLINE_H_
#define TENSORACT_GRAPH_FUNCTION_INLINE_H_

#include "base/status.h"
#include "messages/graph.pb.h"

namespace tensoract {

Status InlineFunctionCalls(tensorflow::GraphDef* graph_def);

}  // namespace tensoract

#endif  // TENSORACT_GRAPH_FUNCTION_INLINE_H_
