// OpDefBuilder: turns TensorFlow's compact op spec strings into an OpDef.
//
//   Attr("T: {float, double}")            type attr with allowed values
//   Attr("transpose_a: bool = false")     typed attr with a default
//   Attr("N: int >= 1")                   minimum
//   Attr("shape: shape = { unknown_rank: true }")   default in AttrValue text form
//   Attr("ksize: list(int) >= 4")         list attr with a minimum length
//   Input("a: T")                         typed by an attr
//   Input("x: float")                     fixed type
//   Input("values: N * T")                N inputs of type T
//   Input("args: Tin")                    a list(type) attr
//   Input("ref: Ref(T)")                  a reference input
//
//   SetShapeFn(shape_inference::UnchangedShape)   how output shapes follow from inputs
//
// Nothing is checked until Finalize, which names the op and the spec that is wrong.
#ifndef TENSORACT_GRAPH_OP_DEF_BUILDER_H_
#define TENSORACT_GRAPH_OP_DEF_BUILDER_H_

#include <functional>
#include <string>
#include <vector>

#include "base/status.h"
#include "messages/op_def.pb.h"

namespace tensoract {

namespace shape_inference {
class InferenceContext;
}  // namespace shape_inference

// Computes a node's output shapes from its input shapes and attrs (graph/shape_inference.h).
// Declared here so that an op's registration can carry it without this header depending
// on the inference machinery.
using ShapeInferenceFn = std::function<Status(shape_inference::InferenceContext*)>;

// What the registry keeps per op: its definition, and how to infer its output shapes
// (empty: every output gets an unknown shape).
struct OpRegistrationData {
  tensorflow::OpDef op_def;
  ShapeInferenceFn shape_inference_fn;
};

class OpDefBuilder {
 public:
  explicit OpDefBuilder(std::string op_name);

  OpDefBuilder& Attr(std::string spec);
  OpDefBuilder& Input(std::string spec);
  OpDefBuilder& Output(std::string spec);
  OpDefBuilder& ControlOutput(std::string name);
  OpDefBuilder& SetIsCommutative();
  OpDefBuilder& SetIsAggregate();
  OpDefBuilder& SetIsStateful();
  OpDefBuilder& SetAllowsUninitializedInput();
  // The op waits on another device or process (_Recv), as TensorFlow flags it.
  OpDefBuilder& SetIsDistributedCommunication();
  OpDefBuilder& Doc(std::string summary);
  OpDefBuilder& SetShapeFn(ShapeInferenceFn fn);
  // The full type TensorFlow's OpDef gives an output (its experimental type inference: a
  // list's element type, a shape tensor), built with FullType() and FullTypeVar().
  OpDefBuilder& SetOutputFullType(std::string output, tensorflow::FullTypeDef type);

  const std::string& op_name() const { return op_def_.name(); }
  Status Finalize(tensorflow::OpDef* op_def) const;
  // The OpDef and the shape function.
  Status Finalize(OpRegistrationData* data) const;

 private:
  tensorflow::OpDef op_def_;
  ShapeInferenceFn shape_fn_;
  std::vector<std::string> attrs_, inputs_, outputs_;
  std::vector<std::pair<std::string, tensorflow::FullTypeDef>> output_full_types_;
};

// A full type `id` of `args`, and a full type variable naming a type attr.
tensorflow::FullTypeDef FullType(tensorflow::FullTypeId id, std::vector<tensorflow::FullTypeDef> args = {});
tensorflow::FullTypeDef FullTypeVar(std::string attr);

}  // namespace tensoract

#endif  // TENSORACT_GRAPH_OP_DEF_BUILDER_H_
