// A GraphDef's function library (TensorFlow 2: tf.function calling tf.function is a
// FunctionDefLibrary and PartitionedCall or StatefulPartitionedCall nodes), both ways:
// calls are inlined so such graphs run here, and a traced graph becomes a FunctionDef so a
// traced Function calling another (client/function.h) writes the same form.
//
// InlineFunctionCalls:
// Every call, a PartitionedCall/StatefulPartitionedCall naming a library function in its
// `f` attr or a node whose op is a library function's name, is replaced by the function's
// body, its nodes renamed "<call>/<node>", its arguments wired to the call's inputs, and an
// IdentityN named as the call itself giving the function's results in order, so whatever
// consumed "<call>:k" still does. The IdentityN also waits for the body's control outputs
// (control_ret: its side effects), and the body's nodes wait for the call's control inputs.
// Calls inside bodies are inlined the same way, to any depth; a function that calls itself
// is InvalidArgument. Attr placeholders in a body ("$T") take the call's attr values. The
// library is gone from the result. TensorFlow 2's functional control flow (If, While and
// their Stateless forms) is lowered to Switch/Merge and loop frames on the way, its
// branches, cond and body inlined as calls (graph/lower_functional_ops.h).
//
// ImportGraphDef runs this on any GraphDef with a library, so sessions, the master and
// tensoract-run take such graphs as they are.
#ifndef TENSORACT_GRAPH_FUNCTION_LIBRARY_H_
#define TENSORACT_GRAPH_FUNCTION_LIBRARY_H_

#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "base/types.h"
#include "messages/function.pb.h"
#include "messages/graph.pb.h"

namespace tensoract {

Status InlineFunctionCalls(tensorflow::GraphDef* graph_def);

// The nodes of `graph_def` as the body of function `name`: the nodes named in `args` (the
// trace's placeholders, and the nodes standing for values it captured) become its
// arguments, in order, named as those nodes and of the types given; `outputs`
// ("node:k") its results "output_<i>" of `output_types`; and `control_outputs` (node
// names) the side effects its callers wait for (control_ret). Inputs are rewritten to the
// FunctionDef form ("node:out_arg:index"). InvalidArgument for an arg or a tensor that
// names no node.
StatusOr<tensorflow::FunctionDef> MakeFunctionDef(const tensorflow::GraphDef& graph_def, const std::string& name,
                                                  const std::vector<std::pair<std::string, DataType>>& args,
                                                  const std::vector<std::string>& outputs,
                                                  const DataTypeVector& output_types,
                                                  const std::vector<std::string>& control_outputs);

}  // namespace tensoract

#endif  // TENSORACT_GRAPH_FUNCTION_LIBRARY_H_
