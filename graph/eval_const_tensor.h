// The value a node's output will certainly have, found when the graph is built, for shape
// functions that read a shape, an axis or paddings from an input (InferenceContext::
// input_tensor). TensorFlow's shape refiner does the same (EvaluateConstantTensor in
// tensorflow/core/common_runtime/eval_const_tensor.cc): it refuses, for example, the
// gradient of a Slice whose paddings Pad(dy, Concat(begin, Shape(x) - Shape(y) - begin))
// come out negative when the gradient graph is built, not when the step runs.
//
// An output's value is known when it is
//   - a Const's value (seen through Identity nodes);
//   - the Shape, Size or Rank of a tensor whose shape inference already knows (Shape and
//     Size need every dimension, Rank only the rank);
//   - else, when an evaluator is installed, the output of a small subgraph of nodes that
//     may be computed ahead of time (not stateful, no Placeholder, control flow, Send/Recv
//     or function call, no reference or resource/variant values) whose inputs are all of
//     the above: the evaluator runs each node once, as the constant folder does.
// The subgraph is bounded (kMaxEvaluatedNodes nodes, each input and output at most
// kMaxEvaluatedElements elements, every output's shape already fully inferred, so nothing
// large is ever computed). Anything else, and any evaluation error (the node's kernel will
// report it when it runs), is "unknown", exactly what the shape function saw before.
//
// The graph layer cannot run kernels (../shared/DESIGN.md), so evaluation goes through the
// constant folder's ConstantEvaluator interface (graph/optimizer/constant_folding.h); the
// kernels layer installs its CPU evaluator for the whole process when its library loads
// (kernels/constant_evaluator.cc). A process without kernels, or a test that installs
// nullptr, only knows Consts, shapes and Identity.
//
// Thread-safety: SetConstantEvaluator and EvaluateConstantTensor may be called from any
// thread; an evaluation reads the graph, which must not change meanwhile.
#ifndef TENSORACT_GRAPH_EVAL_CONST_TENSOR_H_
#define TENSORACT_GRAPH_EVAL_CONST_TENSOR_H_

#include <cstdint>
#include <deque>

#include "messages/tensor.pb.h"

namespace tensoract {

class ConstantEvaluator;
class Node;

namespace shape_inference {

constexpr int kMaxEvaluatedNodes = 64;
constexpr int64_t kMaxEvaluatedElements = 1024;

// Installs the evaluator shape inference runs constant subgraphs with (nullptr: none);
// returns the one it replaces. The evaluator must outlive its use.
const ConstantEvaluator* SetConstantEvaluator(const ConstantEvaluator* evaluator);
const ConstantEvaluator* GetConstantEvaluator();

// The value of output `port` of `node` when it is known (see above), else nullptr. Values
// it computes are kept in `storage` (pointers into a deque stay valid as it grows); a
// Const's value is the graph's own.
const tensorflow::TensorProto* EvaluateConstantTensor(const Node& node, int port,
                                                      std::deque<tensorflow::TensorProto>* storage);

}  // namespace shape_inference
}  // namespace tensoract

#endif  // TENSORACT_GRAPH_EVAL_CONST_TENSOR_H_
