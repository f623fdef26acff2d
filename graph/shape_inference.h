// Shape inference: the shapes a node's outputs will have, decided when the graph is built.
//
// Every op registers a shape function (REGISTER_OP(...).SetShapeFn(fn), graph/op_registry.h).
// When a node is added to a graph (ImportGraphDef, or Scope::AddOp in the builder) its
// function runs on the shapes already inferred for its inputs, and the result is stored on
// the node (Node::output_shape), where later passes and the runtime read it. A function
// that finds its inputs incompatible returns InvalidArgument, and the graph is refused
// with that message prefixed by the node, its op and its input shapes, as TensorFlow does:
//
//   node 'mm' (op 'MatMul') with input shapes [2,3], [4,5]: MatMul's inner dimensions ...
//
// Shapes are partial: the rank may be unknown, and so may any dimension (-1, kUnknownDim).
// Unknown means "anything": inference must never refuse a graph TensorFlow accepts, so a
// shape function fails only on what is certainly wrong, and answers "unknown" whenever it
// cannot tell. An op registered without a function gets unknown output shapes.
//
// A shape function, here for a matrix times a vector:
//
//   Status MatVecShape(InferenceContext* c) {
//     PartialTensorShape a, x;
//     TA_RETURN_IF_ERROR(c->WithRank(c->input(0), 2, &a));
//     TA_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &x));
//     int64_t inner;
//     TA_RETURN_IF_ERROR(c->MergeDim(c->Dim(a, 1), c->Dim(x, 0), &inner));
//     c->set_output(0, c->Vector(c->Dim(a, 0)));
//     return Status::OK();
//   }
//
// Ready-made functions (UnchangedShape, BroadcastBinaryOpShape, MatMulShape, ...) are in
// graph/common_shape_fns.h.
//
// Why plain values (PartialTensorShape, int64_t dimensions) and not TensorFlow's handles:
// TensorFlow's ShapeHandle/DimensionHandle give every unknown dimension an identity, so
// that two unknown dimensions known to be the same one can be told equal. That only ever
// makes inference more precise; it never makes it refuse more. Values read like arithmetic
// on vectors, can be stored on nodes and copied freely, and nothing dangles when a context
// goes away. Where TensorFlow would know that two unknown dimensions are one, we infer
// "unknown", which is always allowed.
//
// Thread-safety: an InferenceContext is used by one thread, for one node, for the duration
// of one shape function call.
#ifndef TENSORACT_GRAPH_SHAPE_INFERENCE_H_
#define TENSORACT_GRAPH_SHAPE_INFERENCE_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/status.h"
#include "base/tensor_shape.h"
#include "base/types.h"
#include "graph/node_def_util.h"
#include "messages/op_def.pb.h"
#include "messages/tensor.pb.h"

namespace tensoract {

class Graph;
class Node;

namespace shape_inference {

constexpr int64_t kUnknownDim = -1;

// What a resource handle (DT_RESOURCE) refers to: a variable's dtype and shape, carried
// from VarHandleOp to the ReadVariableOps and assigns that use the handle. dtype is
// DT_INVALID when nothing is known.
struct ShapeAndType {
  PartialTensorShape shape;
  DataType dtype = tensorflow::DT_INVALID;
};

class InferenceContext {
 public:
  // The runner (InferNodeShapes) builds contexts; tests and passes may build one directly.
  // `input_tensors` and `input_handle_data` may be shorter than the inputs (missing ones
  // are unknown); their pointers must outlive the context. `graph_def_version` is the
  // producer version of the graph, which a few ops' legacy behaviour depends on.
  InferenceContext(const NodeDef* node_def, const tensorflow::OpDef* op_def, int graph_def_version,
                   DataTypeVector input_types, DataTypeVector output_types,
                   std::vector<PartialTensorShape> input_shapes,
                   std::vector<const tensorflow::TensorProto*> input_tensors = {},
                   std::vector<const ShapeAndType*> input_handle_data = {});

  const NodeDef& node_def() const { return *node_def_; }
  const tensorflow::OpDef& op_def() const { return *op_def_; }
  int graph_def_version() const { return graph_def_version_; }

  // ---- Inputs ------------------------------------------------------------------------
  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  // The shape inferred for input i. An index out of range gives an unknown shape and makes
  // the function's call fail (a bug in the function, reported, never a crash).
  const PartialTensorShape& input(int i) const;
  DataType input_type(int i) const;
  // The value of input i when it is known when the graph is built (a Const, the Shape of
  // a known shape, or a small constant subgraph: graph/eval_const_tensor.h), else nullptr.
  // Reshape, Fill, Pad and reductions read their shape, paddings or axis arguments from
  // it. Lives as long as the context.
  const tensorflow::TensorProto* input_tensor(int i) const;
  // Where input_tensor(i) looks, once, for a value the constructor was not given: the
  // runner evaluates constant subgraphs only for the inputs a shape function asks about.
  void set_input_tensor_fn(std::function<const tensorflow::TensorProto*(int)> fn) { input_tensor_fn_ = std::move(fn); }
  // Where MakeShapeFromShapeTensor looks when input i's value is not wholly known: the
  // elements that are (TensorFlow's ConstantPartialShape: Keras' Tensordot reshapes by
  // ConcatV2(GatherV2(Shape(x), ...), [units]), whose last element is a constant).
  void set_input_partial_shape_fn(std::function<bool(int, PartialTensorShape*)> fn) {
    input_partial_shape_fn_ = std::move(fn);
  }
  // What the resource handle on input i refers to, when known; else nullptr.
  const ShapeAndType* input_handle_data(int i) const;
  // The inputs of a list argument ("values: N * T"): [*start, *end) in input indices.
  // InvalidArgument when the op has no such input argument.
  Status InputRange(const std::string& arg_name, int* start, int* end) const;
  // The shapes of the inputs of argument `arg_name`.
  Status input(const std::string& arg_name, std::vector<PartialTensorShape>* shapes) const;

  // ---- Outputs -----------------------------------------------------------------------
  int num_outputs() const { return static_cast<int>(outputs_.size()); }
  DataType output_type(int i) const;
  // Outputs never set stay unknown.
  void set_output(int i, PartialTensorShape shape);
  const PartialTensorShape& output(int i) const;
  void set_output_handle_data(int i, ShapeAndType data);
  const ShapeAndType* output_handle_data(int i) const;
  Status OutputRange(const std::string& arg_name, int* start, int* end) const;

  // ---- Attributes: GetNodeAttr on the node (graph/node_def_util.h) ---------------------
  template <class T>
  Status GetAttr(const std::string& name, T* value) const {
    return GetNodeAttr(*node_def_, name, value);
  }

  // ---- Making shapes -----------------------------------------------------------------
  static PartialTensorShape Scalar() { return PartialTensorShape(std::vector<int64_t>{}); }
  static PartialTensorShape Vector(int64_t n) { return PartialTensorShape(std::vector<int64_t>{n}); }
  static PartialTensorShape Matrix(int64_t rows, int64_t cols) {
    return PartialTensorShape(std::vector<int64_t>{rows, cols});
  }
  static PartialTensorShape MakeShape(std::vector<int64_t> dims) { return PartialTensorShape(std::move(dims)); }
  static PartialTensorShape UnknownShape() { return PartialTensorShape(); }
  static PartialTensorShape UnknownShapeOfRank(int rank);

  // ---- Reading shapes ----------------------------------------------------------------
  static bool RankKnown(const PartialTensorShape& s) { return !s.unknown_rank(); }
  static int Rank(const PartialTensorShape& s) { return s.dims(); }  // -1 when unknown
  static bool FullyDefined(const PartialTensorShape& s) { return s.IsFullyDefined(); }
  static bool ValueKnown(int64_t dim) { return dim >= 0; }
  // Dimension i, counted from the end when negative; unknown when the rank is unknown or i
  // is out of range (use WithRank first where the rank matters).
  static int64_t Dim(const PartialTensorShape& s, int i);
  static std::vector<int64_t> Dims(const PartialTensorShape& s);  // {} for unknown rank
  // The element count, or kUnknownDim.
  static int64_t NumElements(const PartialTensorShape& s);
  // Same rank and same dimensions, unknown ones included (not "compatible").
  static bool SameShape(const PartialTensorShape& a, const PartialTensorShape& b);
  // True when some fully defined shape matches both.
  static bool Compatible(const PartialTensorShape& a, const PartialTensorShape& b);

  // ---- Checking and combining: InvalidArgument naming the shapes when incompatible ----
  // `s` with rank `rank`: an unknown rank becomes `rank` unknown dimensions.
  Status WithRank(const PartialTensorShape& s, int rank, PartialTensorShape* out) const;
  Status WithRankAtLeast(const PartialTensorShape& s, int rank, PartialTensorShape* out) const;
  Status WithRankAtMost(const PartialTensorShape& s, int rank, PartialTensorShape* out) const;
  // `dim` is `value` (or unknown, then it becomes `value`).
  Status WithValue(int64_t dim, int64_t value, int64_t* out) const;
  // The more specific of two compatible dimensions or shapes: [?,3] and [2,?] give [2,3].
  Status MergeDim(int64_t a, int64_t b, int64_t* out) const;
  Status Merge(const PartialTensorShape& a, const PartialTensorShape& b, PartialTensorShape* out) const;
  // a's dimensions then b's; unknown rank if either is.
  Status Concatenate(const PartialTensorShape& a, const PartialTensorShape& b, PartialTensorShape* out) const;
  // Dimensions [start, end) as Python slices them: negative counts from the end, and
  // `end` is clamped to the rank (kSliceToEnd for "to the end"). With an unknown rank the
  // result is unknown, except Subshape(s, 0, kSliceToEnd) which is s.
  static constexpr int64_t kSliceToEnd = INT64_MAX;
  Status Subshape(const PartialTensorShape& s, int64_t start, PartialTensorShape* out) const {
    return Subshape(s, start, kSliceToEnd, out);
  }
  Status Subshape(const PartialTensorShape& s, int64_t start, int64_t end, PartialTensorShape* out) const;
  // `s` with dimension `index` (negative from the end) replaced by `dim`.
  Status ReplaceDim(const PartialTensorShape& s, int index, int64_t dim, PartialTensorShape* out) const;

  // ---- Dimension arithmetic: unknown in, unknown out --------------------------------
  static int64_t Add(int64_t a, int64_t b);
  static int64_t Multiply(int64_t a, int64_t b);  // 0 times unknown is 0
  // InvalidArgument when the result would be negative.
  Status Subtract(int64_t a, int64_t b, int64_t* out) const;
  // InvalidArgument on a zero divisor, or when `evenly` and it does not divide.
  Status Divide(int64_t a, int64_t b, bool evenly, int64_t* out) const;

  // ---- Shapes written as tensors (Reshape's `shape`, Fill's `dims`) -------------------
  // Input `i`, a vector of int32/int64 sizes (-1 for unknown), as a shape. Not constant: as
  // many unknown dimensions as the vector is long, or unknown rank. InvalidArgument when the
  // input is not a vector or a size is below -1.
  Status MakeShapeFromShapeTensor(int i, PartialTensorShape* out) const;
  // The values of input i when it is a constant integer tensor (any integer dtype): *known
  // says whether it is.
  Status GetIntValues(int i, std::vector<int64_t>* values, bool* known) const;
  // The same for a float, double, half or bfloat16 constant, each value exactly as a double.
  Status GetRealValues(int i, std::vector<double>* values, bool* known) const;

  // A description of the shapes for messages: "[2,3], [?,4]".
  std::string InputShapesString() const;

  // The first misuse recorded by a call (an index out of range), or OK. The runner returns
  // it after the function.
  const Status& usage_status() const { return usage_status_; }

 private:
  void Misuse(const std::string& what) const;

  const NodeDef* node_def_;
  const tensorflow::OpDef* op_def_;
  int graph_def_version_;
  DataTypeVector input_types_, output_types_;
  std::vector<PartialTensorShape> inputs_;
  mutable std::vector<const tensorflow::TensorProto*> input_tensors_;
  std::function<const tensorflow::TensorProto*(int)> input_tensor_fn_;
  std::function<bool(int, PartialTensorShape*)> input_partial_shape_fn_;
  mutable std::vector<bool> input_tensor_asked_;
  std::vector<const ShapeAndType*> input_handle_data_;
  std::vector<PartialTensorShape> outputs_;
  std::vector<ShapeAndType> output_handle_data_;
  mutable Status usage_status_;
};

// The values of an integer TensorProto (int32, int64, or a narrower or unsigned type), flattened (TensorFlow's compact forms
// included: tensor_content, and a short value list whose last value repeats).
// InvalidArgument when it is another dtype or malformed.
Status TensorProtoToInt64s(const tensorflow::TensorProto& proto, std::vector<int64_t>* values);

// Runs the shape function of `node` (in `graph`) on the shapes its inputs' producers have,
// and stores its output shapes (and handle data) on the node. Inputs that are not connected
// count as unknown. Errors are the function's, prefixed with the node, the op and the input
// shapes; the node's shapes are then left unknown.
Status InferNodeShapes(const Graph& graph, Node* node);

// InferNodeShapes on every op node, producers before consumers. The graph must be acyclic.
Status InferGraphShapes(Graph* graph);

}  // namespace shape_inference
}  // namespace tensoract

#endif  // TENSORACT_GRAPH_SHAPE_INFERENCE_H_
