// TensorFlow 1.x reference variables: a Variable node owns a tensor that persists across
// steps and outputs a reference to it (Ref(dtype)); Assign and friends write through that
// reference. Definitions are TensorFlow's, so TF 1.x training graphs validate unchanged.
//
// Assign, AssignAdd, AssignSub and IsVariableInitialized allow (or need) an uninitialised
// variable on their ref input, hence SetAllowsUninitializedInput where TensorFlow sets it.
#include "graph/common_shape_fns.h"
#include "graph/op_registry.h"

namespace tensoract {
namespace {

using shape_inference::InferenceContext;

// The legacy Variable cannot tell a scalar `shape` from an unset one, so TensorFlow reads
// a scalar there as unknown.
Status LegacyVariableShape(InferenceContext* c) {
  PartialTensorShape shape;
  TA_RETURN_IF_ERROR(c->GetAttr("shape", &shape));
  if (shape.dims() <= 0) return shape_inference::UnknownShape(c);
  c->set_output(0, shape);
  return Status::OK();
}

// With validate_shape the new value must fit the variable's shape; without, the variable
// takes the value's shape.
Status AssignShape(InferenceContext* c) {
  bool validate_shape = true;
  TA_RETURN_IF_ERROR(c->GetAttr("validate_shape", &validate_shape));
  if (validate_shape) return shape_inference::MergeBothInputsShapeFn(c);
  c->set_output(0, c->input(1));
  return Status::OK();
}

}  // namespace
}  // namespace tensoract

// TensorFlow's number types, in TensorFlow's order (its `numbertype`).
#define TA_NUMBER_TYPES                                                                       \
  "{float, double, int32, uint8, int16, int8, complex64, int64, qint8, quint8, qint32, "     \
  "bfloat16, qint16, quint16, uint16, complex128, half, uint32, uint64}"

REGISTER_OP("VariableV2")
    .Output("ref: Ref(dtype)")
    .Attr("shape: shape")
    .Attr("dtype: type")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .SetIsStateful()
    .SetShapeFn(tensoract::shape_inference::ExplicitShape)
    .Doc("A tensor that persists across steps, output as a reference to read or modify.");

REGISTER_OP("Variable")
    .Output("ref: Ref(dtype)")
    .Attr("shape: shape")
    .Attr("dtype: type")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .SetIsStateful()
    .SetShapeFn(tensoract::LegacyVariableShape)
    .Doc("VariableV2 as first defined, where a scalar `shape` means unknown.");

REGISTER_OP("Assign")
    .Input("ref: Ref(T)")
    .Input("value: T")
    .Output("output_ref: Ref(T)")
    .Attr("T: type")
    .Attr("validate_shape: bool = true")
    .Attr("use_locking: bool = true")
    .SetAllowsUninitializedInput()
    .SetShapeFn(tensoract::AssignShape)
    .Doc("ref = value; outputs ref once the value is written.");

REGISTER_OP("AssignAdd")
    .Input("ref: Ref(T)")
    .Input("value: T")
    .Output("output_ref: Ref(T)")
    .Attr("T: " TA_NUMBER_TYPES)
    .Attr("use_locking: bool = false")
    .SetShapeFn(tensoract::shape_inference::MergeBothInputsShapeFn)
    .Doc("ref += value; outputs ref once updated.");

REGISTER_OP("AssignSub")
    .Input("ref: Ref(T)")
    .Input("value: T")
    .Output("output_ref: Ref(T)")
    .Attr("T: " TA_NUMBER_TYPES)
    .Attr("use_locking: bool = false")
    .SetShapeFn(tensoract::shape_inference::MergeBothInputsShapeFn)
    .Doc("ref -= value; outputs ref once updated.");

REGISTER_OP("IsVariableInitialized")
    .Input("ref: Ref(dtype)")
    .Output("is_initialized: bool")
    .Attr("dtype: type")
    .SetAllowsUninitializedInput()
    .SetShapeFn(tensoract::shape_inference::ScalarShape)
    .Doc("Whether the variable behind ref has been assigned a value.");

#undef TA_NUMBER_TYPES

REGISTER_OP("CountUpTo")
    .Input("ref: Ref(T)")
    .Output("output: T")
    .Attr("limit: int")
    .Attr("T: {int32, int64}")
    .SetShapeFn(tensoract::shape_inference::ScalarShape)
    .Doc("Increments the counter and outputs its value before; OutOfRange once it has reached limit.");

REGISTER_OP("ResourceCountUpTo")
    .Input("resource: resource")
    .Output("output: T")
    .Attr("limit: int")
    .Attr("T: {int32, int64}")
    .SetIsStateful()
    .SetShapeFn(tensoract::shape_inference::ScalarShape)
    .Doc("CountUpTo on a resource variable.");
