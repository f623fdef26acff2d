// The constant folder's evaluator on the CPU kernels.
//
// Constant folding (graph/optimizer/constant_folding.h) lives in the graph layer, which
// cannot run kernels; this is the ConstantEvaluator the runtime hands it. Each Evaluate
// makes the node's CPU kernel on a private CPU device, runs it once on the inputs and
// writes the outputs back as TensorProtos (raw tensor_content, strings in string_val).
// A node with no CPU kernel, or whose kernel fails, is an error, which the folder reads
// as "leave this node to run".
//
// Loading the library also installs it (made on first use) as shape inference's evaluator
// of small constant subgraphs (graph/eval_const_tensor.h), as TensorFlow's shape refiner
// runs them on the CPU kernels.
//
//   TA_RETURN_IF_ERROR(OptimizeGraph(GraphOptimizerOptions(), CpuConstantEvaluator(), &graph));
//
// Thread-safety: the evaluator is process-wide and Evaluate may be called from any number
// of threads at once; each call makes its own kernel and context.
#ifndef TENSORACT_KERNELS_CONSTANT_EVALUATOR_H_
#define TENSORACT_KERNELS_CONSTANT_EVALUATOR_H_

#include "graph/optimizer/constant_folding.h"

namespace tensoract {

// The process-wide CPU evaluator; never null, never destroyed.
const ConstantEvaluator* CpuConstantEvaluator();

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_CONSTANT_EVALUATOR_H_
