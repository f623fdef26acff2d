#include "graph/optimizer/graph_optimizer.h"

#include "graph/optimizer/cse.h"
#include "graph/optimizer/loop_invariant_motion.h"

namespace tensoract {

Status OptimizeGraph(const GraphOptimizerOptions& options, const ConstantEvaluator* evaluator, Graph* graph) {
  if (options.max_constant_size_in_bytes < 0) {
    return errors::InvalidArgument("graph optimizer: max_constant_size_in_bytes is ",
                                   options.max_constant_size_in_bytes, "; it must be >= 0");
  }
  const bool fold = options.do_constant_folding && evaluator != nullptr;
  ConstantFoldingOptions folding;
  folding.max_constant_size_in_bytes = options.max_constant_size_in_bytes;
  folding.consider = options.constant_folding_consider;
  for (int round = 0; round < kMaxOptimizerRounds; ++round) {
    bool changed = false;
    if (fold) changed |= ConstantFold(folding, *evaluator, graph);
    if (options.do_common_subexpression_elimination) changed |= EliminateCommonSubexpressions(graph);
    if (options.do_loop_optimization) changed |= HoistLoopInvariants(graph);
    if (!changed) break;
  }
  return Status::OK();
}

}  // namespace tensoract
