// The graph optimizer: what the master runs on each call graph before placing it.
//
// After the feed/fetch rewrite (feeds are _Arg nodes, fetches _Retval nodes) and
// pruning (graph/subgraph.h), OptimizeGraph alternates constant folding
// (graph/optimizer/constant_folding.h) and common-subexpression elimination
// (graph/optimizer/cse.h) until neither changes the graph, at most kMaxRounds rounds: a
// fold can make two nodes equal (two Consts of one value), a merge can make a node's
// inputs constant. Loop-invariant motion joins the rounds (a moved node may then merge with one
// outside the loop). This is TensorFlow's GraphOptimizer
// (tensorflow/core/common_runtime/graph_optimizer.cc) at its default level L1.
//
//   GraphOptimizerOptions options;               // both passes on, as in TensorFlow
//   TA_RETURN_IF_ERROR(OptimizeGraph(options, CpuConstantEvaluator(), &graph));
//
// Not thread-safe for one graph; different graphs may be optimised at once (the
// evaluator must allow that, as ConstantEvaluator requires).
#ifndef TENSORACT_GRAPH_OPTIMIZER_GRAPH_OPTIMIZER_H_
#define TENSORACT_GRAPH_OPTIMIZER_GRAPH_OPTIMIZER_H_

#include <cstdint>
#include <functional>

#include "base/status.h"
#include "graph/graph.h"
#include "graph/optimizer/constant_folding.h"

namespace tensoract {

// Mirrors TensorFlow's OptimizerOptions (config.proto): the same switches, the same
// defaults. TensorFlow calls the size limit max_folded_constant_in_bytes there and
// max_constant_size_in_bytes in its ConstantFoldingOptions.
struct GraphOptimizerOptions {
  bool do_common_subexpression_elimination = true;
  bool do_constant_folding = true;
  // Loops do less per iteration: a body's nodes that compute the same value in every
  // iteration run once, before the loop (graph/optimizer/loop_invariant_motion.h).
  // TensorFlow's RewriterConfig.loop_optimization.
  bool do_loop_optimization = true;
  // After placement: Conv2D/MatMul -> BiasAdd [-> Relu] on a CPU become one fused kernel
  // (graph/optimizer/remapper.h), as TensorFlow's grappler remapper does.
  bool do_remapping = true;
  // After remapping: float convolutions and MatMuls on a CPU multiply in bfloat16 where the
  // CPU has bfloat16 units (graph/optimizer/mixed_precision.h; TensorFlow's
  // RewriterConfig.auto_mixed_precision_onednn_bfloat16, OpenVINO's precision hint). Off by
  // default: results then differ from float's by about 1e-2 relative.
  bool bfloat16_products = false;
  // Products in bfloat16 (as bfloat16_products, which it implies) and, where the CPU
  // multiplies bfloat16 natively, the activations between convolutions in bfloat16 too, as
  // OpenVINO's bfloat16 precision keeps them
  // (graph/optimizer/mixed_precision.h, KeepActivationsInBfloat16): half the bytes to move,
  // each layer's output rounded to bfloat16. Off by default.
  bool bfloat16_activations = false;
  // After remapping: float convolutions on a CPU multiply in 8-bit integers, dynamically
  // quantized (the filter per output channel, the input per call), where oneDNN has integer
  // kernels for the CPU (graph/optimizer/mixed_precision.h, kernels/cpu/int8_products.h).
  // An inference option, off by default: results differ from float's by about 1e-2
  // relative per layer (tests/bench/RESULTS.md, issue 54).
  bool int8_products = false;
  // At partitioning: loops of one device that do not depend on each other run on executors
  // of their own, side by side (graph/loop_lanes.h: a bidirectional RNN's two directions).
  bool parallel_loops = true;
  // After remapping: a loop of one CPU device whose body is plain computation runs as one
  // kernel, its iterations one after another (graph/optimizer/sequential_loops.h: an LSTM's
  // iteration without the executor's Merge, Switch and NextIteration nodes).
  bool sequential_loops = true;
  // On the worker: a registered graph that runs again with the variables it only reads
  // unchanged takes their values as constants and folds what it computes from them, until
  // one of them changes (actors/frozen_variables.h: a Keras model's batch normalisation,
  // recomputed from four variables a layer every step otherwise).
  bool freeze_variables = true;
  // A folded value larger than this stays computed at run time.
  int64_t max_constant_size_in_bytes = 10 << 20;
  // When set, constant folding only evaluates nodes it accepts (for instance, only nodes
  // the CPU may compute for the device they are placed on).
  std::function<bool(const Node*)> constant_folding_consider;

  // TensorFlow's opt_level L0: every pass off, the graph runs as written.
  static GraphOptimizerOptions AllOff() {
    GraphOptimizerOptions o;
    o.do_common_subexpression_elimination = false;
    o.do_constant_folding = false;
    o.do_loop_optimization = false;
    o.do_remapping = false;
    o.parallel_loops = false;
    o.sequential_loops = false;
    o.freeze_variables = false;
    return o;
  }
};

// Rounds of folding and merging before OptimizeGraph stops, changed or not (TensorFlow's
// bound too): every round that changes the graph removes or replaces nodes, so real graphs
// settle in two or three.
constexpr int kMaxOptimizerRounds = 10;

// Optimises `graph` in place. `evaluator` computes folded values; nullptr turns constant
// folding off whatever the options say (a graph layer without kernels cannot fold).
// Fails only on invalid options (InvalidArgument); an optimisation that cannot be done is
// skipped, never an error, and nodes on a cycle (a control-flow loop) are left alone.
Status OptimizeGraph(const GraphOptimizerOptions& options, const ConstantEvaluator* evaluator, Graph* graph);

}  // namespace tensoract

#endif  // TENSORACT_GRAPH_OPTIMIZER_GRAPH_OPTIMIZER_H_
