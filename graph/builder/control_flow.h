/// @file
/// Conditionals and loops in the C++ builder: ops::Cond and ops::WhileLoop build the
/// Switch/Merge/Enter/Exit/NextIteration structure TensorFlow 1.x's tf.cond and
/// tf.while_loop build (whitepaper section 4.4), with TensorFlow's node names.
///
/// @code
///   // y = x > 0 ? x * 2 : -x
///   std::vector<Output> y;
///   TA_RETURN_IF_ERROR(ops::Cond(root, ops::Greater(root, x, 0.f),
///       [&](const Scope& s, std::vector<Output>* out) { out->push_back(ops::Mul(s, x, 2.f)); return s.status(); },
///       [&](const Scope& s, std::vector<Output>* out) { out->push_back(ops::Neg(s, x)); return s.status(); },
///       &y));
///
///   // i = 0; a = 1; while (i < n) { i += 1; a *= x; }   (a = x^n)
///   std::vector<Output> r;
///   TA_RETURN_IF_ERROR(ops::WhileLoop(root, {ops::Const(root, 0), ops::Const(root, 1.f)},
///       [&](const Scope& s, const std::vector<Output>& v, Output* pred) {
///         *pred = ops::Less(s, v[0], n); return s.status(); },
///       [&](const Scope& s, const std::vector<Output>& v, std::vector<Output>* next) {
///         *next = {ops::Add(s, v[0], 1), ops::Mul(s, v[1], x)}; return s.status(); },
///       &r));
/// @endcode
///
/// The functions build their nodes in the scope they are given, and may use any tensor of
/// the graph: one made outside the conditional reaches a branch through a Switch on the
/// predicate ("cond/add/Switch", colocated with it), so the untaken branch sees it dead and
/// never runs; one made outside the loop enters it as a loop invariant (a constant Enter,
/// "while/mul/Enter") seen by every iteration. A node the functions make without data
/// inputs (a constant) gets a control input from the branch's or loop's pivot, so it runs
/// in the right branch and iteration. In a loop, control dependencies on nodes outside it
/// move to the loop's Enter nodes. Loops and conditionals nest.
///
/// A loop variable keeps the shape it enters with unless shape_invariants says otherwise
/// (as tf.while_loop's shape_invariants): a body that changes it is an error naming the
/// variable, and an invariant such as [?] lets a vector grow between iterations.
///
/// Errors (also recorded in the scope): no loop variables, a body that returns more or fewer
/// values or other dtypes than it got, branches that return different numbers or dtypes of
/// values, a predicate that is not a bool.
#ifndef TENSORACT_GRAPH_BUILDER_CONTROL_FLOW_H_
#define TENSORACT_GRAPH_BUILDER_CONTROL_FLOW_H_

#include <functional>
#include <string>
#include <vector>

#include "graph/builder/control_flow_ops.h"
#include "graph/builder/scope.h"

namespace tensoract {
namespace ops {

/// A conditional branch for Cond(): builds its nodes in `scope` and appends the branch's result
/// values to `outputs`; a non-OK status aborts the Cond with that error.
using BranchFn = std::function<Status(const Scope& scope, std::vector<Output>* outputs)>;

/// The values of then_fn if pred else of else_fn; only that branch runs. Nodes are named
/// under "cond/" (then "cond_1/", ...) in `scope`. `pred` is a bool scalar; `outputs` is
/// cleared, then gets one Merge output per value the branches return (both must return the same
/// number and dtypes). Returns the scope's status.
Status Cond(const Scope& scope, const Output& pred, const BranchFn& then_fn, const BranchFn& else_fn,
            std::vector<Output>* outputs);

/// A while loop's condition for WhileLoop(): builds, in `scope`, a bool scalar `pred` from the
/// loop variables' values in the current iteration, `vars`.
using CondFn = std::function<Status(const Scope& scope, const std::vector<Output>& vars, Output* pred)>;
/// A while loop's body for WhileLoop(): builds, in `scope`, the loop variables' values for the next
/// iteration, `next`, from their current values `vars` (as many, of the same dtypes).
using BodyFn =
    std::function<Status(const Scope& scope, const std::vector<Output>& vars, std::vector<Output>* next)>;

/// Optional settings of WhileLoop(), as tf.while_loop's arguments.
struct WhileLoopOptions {
  /// How many iterations may run at once (tf.while_loop's default, 10).
  int64_t parallel_iterations = 10;
  /// Empty, or one shape per loop variable that it keeps in every iteration.
  std::vector<PartialTensorShape> shape_invariants;
  std::string name = "while";  ///< the name scope; the frame is `"<scope>/while_context"`
};

/// Runs body on the loop variables while cond holds; `outputs` are their final values.
/// The loop's nodes are named under `options.name` ("while/", then "while_1/", ...) in `scope`;
/// returns the scope's status.
Status WhileLoop(const Scope& scope, const std::vector<Output>& loop_vars, const CondFn& cond, const BodyFn& body,
                 std::vector<Output>* outputs, const WhileLoopOptions& options = {});

}  // namespace ops
}  // namespace tensoract

#endif  // TENSORACT_GRAPH_BUILDER_CONTROL_FLOW_H_
