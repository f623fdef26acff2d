// Resource variables (TensorFlow 2's, and TF 1.x's use_resource=True): VarHandleOp outputs
// a handle (a DT_RESOURCE scalar) naming the variable in its worker's resource container;
// reads and assigns take that handle. Definitions are TensorFlow 2.21's.
//
// Shapes: the handle itself is a scalar, but what it refers to (the variable's dtype and
// declared shape) travels with it as handle data, through Identity too, so that a
// ReadVariableOp knows its output shape and an assign of a value of the wrong shape is
// refused when the graph is built, exactly where TensorFlow refuses it.
#include "graph/common_shape_fns.h"
#include "graph/op_registry.h"

namespace tensoract {
namespace {

using shape_inference::InferenceContext;
using shape_inference::ShapeAndType;

Status VarHandleShape(InferenceContext* c) {
  c->set_output(0, InferenceContext::Scalar());
  ShapeAndType variable;
  TA_RETURN_IF_ERROR(c->GetAttr("dtype", &variable.dtype));
  TA_RETURN_IF_ERROR(c->GetAttr("shape", &variable.shape));
  c->set_output_handle_data(0, variable);
  return Status::OK();
}

// What input 0's handle refers to: unknown shape when nothing is known (a handle fed or
// from a function argument); an error when the variable's dtype is not the op's `dtype`.
Status VariableOfHandle(InferenceContext* c, ShapeAndType* variable) {
  const ShapeAndType* data = c->input_handle_data(0);
  if (data == nullptr) {
    *variable = ShapeAndType();
    return Status::OK();
  }
  DataType dtype;
  TA_RETURN_IF_ERROR(c->GetAttr("dtype", &dtype));
  if (data->dtype != dtype) {
    return errors::InvalidArgument("the variable holds ", DataTypeString(data->dtype), " but the op's dtype is ",
                                   DataTypeString(dtype));
  }
  *variable = *data;
  return Status::OK();
}

Status ReadVariableShape(InferenceContext* c) {
  ShapeAndType variable;
  TA_RETURN_IF_ERROR(VariableOfHandle(c, &variable));
  c->set_output(0, variable.shape);
  return Status::OK();
}

// The value must fit the variable's declared shape. TensorFlow checks this whatever
// AssignVariableOp's validate_shape says, so we do too.
Status AssignVariableShape(InferenceContext* c) {
  ShapeAndType variable;
  TA_RETURN_IF_ERROR(VariableOfHandle(c, &variable));
  PartialTensorShape unused;
  Status s = c->Merge(variable.shape, c->input(1), &unused);
  if (!s.ok()) {
    return errors::InvalidArgument("the value's shape ", c->input(1).DebugString(),
                                   " does not fit the variable's shape ", variable.shape.DebugString(), " (",
                                   s.message(), ")");
  }
  return Status::OK();
}

}  // namespace
}  // namespace tensoract

REGISTER_OP("VarHandleOp")
    .Output("resource: resource")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .Attr("debug_name: string = ''")
    .Attr("dtype: type")
    .Attr("shape: shape")
    .Attr("allowed_devices: list(string) = []")
    .SetIsStateful()
    .SetShapeFn(tensoract::VarHandleShape)
    .Doc("A handle to the variable named shared_name (or the node's name) in container.");

REGISTER_OP("ReadVariableOp")
    .Input("resource: resource")
    .Output("value: dtype")
    .Attr("dtype: type")
    .SetIsStateful()
    .SetShapeFn(tensoract::ReadVariableShape)
    .Doc("The variable's current value, a copy later writes do not change.");

// tf.shape of a resource variable (a Keras RNN's gradient asks it of its weights).
REGISTER_OP("VariableShape")
    .Input("input: resource")
    .Output("output: out_type")
    .Attr("out_type: {int32, int64} = DT_INT32")
    .SetIsStateful()
    .SetShapeFn([](tensoract::shape_inference::InferenceContext* c) {
      tensoract::shape_inference::ShapeAndType variable;
      const int rank = tensoract::VariableOfHandle(c, &variable).ok() && !variable.shape.unknown_rank()
                           ? variable.shape.dims()
                           : -1;
      c->set_output(0, tensoract::PartialTensorShape({rank < 0 ? tensoract::shape_inference::kUnknownDim : rank}));
      return tensoract::Status::OK();
    })
    .Doc("The shape of the variable the handle names, as a vector of out_type.");

REGISTER_OP("AssignVariableOp")
    .Input("resource: resource")
    .Input("value: dtype")
    .Attr("dtype: type")
    .Attr("validate_shape: bool = false")
    .SetIsStateful()
    .SetShapeFn(tensoract::AssignVariableShape)
    .Doc("Sets the variable to value.");

REGISTER_OP("AssignAddVariableOp")
    .Input("resource: resource")
    .Input("value: dtype")
    .Attr("dtype: type")
    .SetIsStateful()
    .SetShapeFn(tensoract::AssignVariableShape)
    .Doc("Adds value to the variable.");

REGISTER_OP("AssignSubVariableOp")
    .Input("resource: resource")
    .Input("value: dtype")
    .Attr("dtype: type")
    .SetIsStateful()
    .SetShapeFn(tensoract::AssignVariableShape)
    .Doc("Subtracts value from the variable.");

REGISTER_OP("VarIsInitializedOp")
    .Input("resource: resource")
    .Output("is_initialized: bool")
    .SetIsStateful()
    .SetShapeFn(tensoract::shape_inference::ScalarShape)
    .Doc("Whether the variable behind the handle has been assigned a value.");

REGISTER_OP("DestroyResourceOp")
    .Input("resource: resource")
    .Attr("ignore_lookup_error: bool = true")
    .SetIsStateful()
    .SetShapeFn(tensoract::shape_inference::NoOutputs)
    .Doc("Deletes the resource behind the handle.");

// TF 2.13+ SavedModel save functions put one before each SaveV2, to stop a variable in
// copy-on-read mode from copying its buffer for every read during the save.
REGISTER_OP("DisableCopyOnRead")
    .Input("resource: resource")
    .SetIsStateful()
    .SetShapeFn(tensoract::shape_inference::NoOutputs)
    .Doc("Turns off the variable's copy-on-read mode (tensoract's variables have none).");
