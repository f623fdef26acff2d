/// @file
/// Function: a C++ callable traced into a graph, once per input signature (tf.function; the
/// RFC's "functions, not sessions").
///
/// @code
///   Variable w = MakeVariable(ctx->scope(), "w", {1.f, 2.f}).value();
///   Function step(*ctx, "step", [&](const Scope& s, const std::vector<FunctionArg>& args) {
///     Output x = std::get<Output>(args[0]);
///     return std::vector<Output>{ops::Mul(s, x, w.Read(s))};
///   });
///   std::vector<Output> y = step(ctx->scope(), {x}).value();   // eager values
/// @endcode
///
/// The first call with a new signature (each tensor argument's dtype and shape, a list
/// argument's length and its tensors', each other argument's value, the scope's device)
/// runs the callable on a graph scope whose tensor arguments are placeholders, and hands
/// the graph to the context's master, which compiles and registers it with the worker
/// once; every later call with that signature is one step of that graph through the
/// master, worker and executor actors. trace_count() says how many traces ran. An input
/// signature (FunctionOptions) with unknown dimensions makes calls of any matching shape
/// share one trace.
///
/// As in TensorFlow 2:
/// - stateful ops run in program order (each depends on the previous one: automatic control
///   dependencies) and every one of them runs, the outputs depending on all;
/// - variables (MakeVariable, client/eager_variable.h) may be created only during the
///   first trace: they are made eagerly then, and a later trace that tries is
///   FailedPrecondition;
/// - eager values the callable reads (captured) become constants of the graph, variables a
///   VarHandleOp naming the same variable;
/// - a tensor's value is unknown while tracing, so C++ `if` and `for` on one cannot work:
///   ValueOf fails saying to use ops::Cond and ops::WhileLoop, which trace into the graph;
/// - called in a graph scope (one Function calling another while it is traced), the callee
///   is traced into a FunctionDef of the caller's graph library, called by a
///   StatefulPartitionedCall node: the form TensorFlow 2 writes (the runtime inlines it);
/// - a gradient tape records a call as one op whose gradient runs the function's
///   gradient graph (built once from the trace by graph/gradients), so gradients reach the
///   arguments and the variables the function read;
/// - GraphFor gives the traced graph, which runs under a plain Session: feed `args_<i>`,
///   fetch `output_<i>` (R24);
/// - RunOptions and RunMetadata pass through a call to its step (R30).
///
/// Thread-safety: as its context (one thread at a time).
#ifndef TENSORACT_CLIENT_FUNCTION_H_
#define TENSORACT_CLIENT_FUNCTION_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "base/status.h"
#include "client/eager_context.h"
#include "client/session.h"
#include "graph/builder/scope.h"
#include "messages/graph.pb.h"

namespace tensoract {

/// A tensor argument, a list of them (keyed on its length and each element's dtype and
/// shape), or a value that is part of the signature (a new value retraces).
using FunctionArg = std::variant<Output, std::vector<Output>, bool, int64_t, double, std::string>;

/// The dtype and shape a tensor argument of a Function accepts (tf.TensorSpec).
struct TensorSpec {
  /// The argument's element type.
  DataType dtype = tensorflow::DT_INVALID;
  PartialTensorShape shape;  ///< unknown dimensions accept any size
};

/// How a Function traces (tf.function's arguments).
struct FunctionOptions {
  /// tf.function's input_signature: one spec per tensor argument, in order. Empty: each
  /// call's own dtypes and shapes are the signature.
  std::vector<TensorSpec> input_signature;
};

/// What a running trace is (thread-local while a Function traces): for MakeVariable's
/// rule and for captures.
struct TraceState {
  /// The context of the Function being traced, whose root scope makes its variables eagerly.
  EagerContext* context = nullptr;
  /// The traced Function's name, for error messages.
  std::string function_name;
  /// Whether MakeVariable may create a variable now: true only during a Function's first trace.
  bool may_create_variables = false;
  /// The eager values the trace read, each with the node standing for it in the graph.
  std::map<std::pair<const EagerNode*, int>, Output> captured;
  std::vector<std::pair<Output, Output>> captures;  ///< (graph node, eager value), in order
};
/// The trace running on this thread, or nullptr.
TraceState* CurrentTrace();

/// A C++ callable traced into a graph once per input signature and run as one step of that
/// graph per call (tf.function); see function.h for the tracing rules.
class Function {
 public:
  /// The traced callable: builds the function's outputs in `scope` (the trace's graph) from
  /// `args`, whose tensors are the graph's placeholders `args_<i>`.
  using Body = std::function<std::vector<Output>(const Scope& scope, const std::vector<FunctionArg>& args)>;

  /// A function named `name` (its graphs' and error messages' name) running `body` on `ctx`;
  /// nothing is traced before the first call.
  Function(EagerContext& ctx, std::string name, Body body, FunctionOptions options = {});
  ~Function();
  Function(const Function&) = delete;
  Function& operator=(const Function&) = delete;

  /// Calls the function: `scope` is the caller's (eager: a step of the traced graph; a
  /// graph scope: the body is traced into that graph). Returns eager values (in a graph
  /// scope, the outputs of the call's StatefulPartitionedCall node).
  StatusOr<std::vector<Output>> operator()(const Scope& scope, const std::vector<FunctionArg>& args);
  /// The same with the step's RunOptions (trace level, timeout, canceller) and, given
  /// `metadata`, its RunMetadata (step stats, partition graphs), as Session::Run takes them.
  StatusOr<std::vector<Output>> operator()(const Scope& scope, const std::vector<FunctionArg>& args,
                                           const RunOptions& options, RunMetadata* metadata = nullptr);

  /// The graph traced for these arguments (tracing it if no call has yet).
  StatusOr<tensorflow::GraphDef> GraphFor(const Scope& scope, const std::vector<FunctionArg>& args);
  /// The eager values that trace captured (its variables' handles, the tensors it read from
  /// outside), in the order it read them.
  StatusOr<std::vector<Output>> Captures(const Scope& scope, const std::vector<FunctionArg>& args);

  /// Traces so far. Tracing on half the calls or more (after 5 traces) prints a warning
  /// once, as TensorFlow's retracing warning: the signature keeps changing (a new shape
  /// each call, say), and an input signature would help.
  int trace_count() const { return trace_count_; }
  /// Eager calls so far (calls traced into a caller's graph not included).
  int64_t call_count() const { return call_count_; }
  /// The name given at construction.
  const std::string& name() const { return name_; }

 private:
  struct Concrete;
  StatusOr<std::string> SignatureKey(const Scope& scope, const std::vector<FunctionArg>& args) const;
  StatusOr<Concrete*> ConcreteFor(const Scope& scope, const std::vector<FunctionArg>& args);
  StatusOr<std::unique_ptr<Concrete>> Trace(const Scope& scope, const std::vector<FunctionArg>& args);
  // A call while another function traces: a StatefulPartitionedCall of this function's
  // FunctionDef, which joins the caller's library.
  StatusOr<std::vector<Output>> CallInGraph(const Scope& scope, const std::vector<FunctionArg>& args);
  // Runs the body on `graph` (its tensor arguments `traced_args`) under `state`, its
  // results becoming Identity nodes "output_<i>" in `outputs`.
  Status TraceBody(const Scope& graph, const std::string& device, const std::vector<FunctionArg>& traced_args,
                   TraceState* state, std::vector<Output>* outputs);
  // `s` naming the function being traced.
  Status TraceError(const Status& s) const;
  // The gradient graph of `c`, built on first use.
  Status BuildBackward(Concrete* c);

  EagerContext& ctx_;
  std::string name_;
  Body body_;
  FunctionOptions options_;
  int trace_count_ = 0;
  int64_t call_count_ = 0;
  bool warned_retracing_ = false;
  std::map<std::string, std::unique_ptr<Concrete>> concrete_;
};

/// A function made from a graph that exists already (the RFC's NewGraphFunction, TensorFlow's
/// wrap_function(...).prune): calls feed `inputs` and fetch `outputs` (tensor names of
/// `graph`), and run only what the outputs need (stateful nodes off that path are pruned).
/// Eager values in and out, as Function's.
///
/// @code
///   auto square = GraphFunction::New(*ctx, graph_def, {"Square:0"}, {"Square_1:0"}).value();
///   Output y = (*square)(s, {x}).value()[0];
/// @endcode
class GraphFunction {
 public:
  /// Creates `graph` in a session on the context's server, to be fed the tensors named
  /// `inputs` and fetch those named `outputs`; an error of Session::Create (a bad graph) as is.
  static StatusOr<std::unique_ptr<GraphFunction>> New(EagerContext& ctx, const tensorflow::GraphDef& graph,
                                                      std::vector<std::string> inputs, std::vector<std::string> outputs);
  /// Runs the graph with `args` (eager values, one per input, in order) fed and returns the
  /// outputs as eager values in host memory; InvalidArgument when the count differs.
  StatusOr<std::vector<Output>> operator()(const Scope& scope, const std::vector<Output>& args);

 private:
  GraphFunction() = default;
  EagerContext* ctx_ = nullptr;
  std::unique_ptr<Session> session_;
  std::vector<std::string> inputs_, outputs_;
};

}  // namespace tensoract

#endif  // TENSORACT_CLIENT_FUNCTION_H_
