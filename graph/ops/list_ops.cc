// TensorLists: TensorFlow 2's TensorArray, and how a While's gradient reads the forward
// loop's intermediates (the forward body pushes them onto accumulators, the gradient body
// pops them). A list is a scalar variant (kernels/tensor_list.h); ops that change one
// output a new list.
#include "graph/common_shape_fns.h"
#include "graph/op_registry.h"

namespace tensoract {
namespace {

using shape_inference::InferenceContext;

// TensorFlow's full type of a list: an array of element_dtype tensors.
tensorflow::FullTypeDef ListType() {
  return FullType(tensorflow::TFT_ARRAY, {FullType(tensorflow::TFT_TENSOR, {FullTypeVar("element_dtype")})});
}

using shape_inference::ShapeAndType;

// An element shape input: a vector of dimensions (-1 unknown), or a scalar that must be a
// constant -1 (an unknown rank), as TensorFlow reads it.
Status ElementShapeInput(InferenceContext* c, int i, PartialTensorShape* out) {
  if (c->input(i).dims() != 0) return c->MakeShapeFromShapeTensor(i, out);
  std::vector<int64_t> values;
  bool known = false;
  TA_RETURN_IF_ERROR(c->GetIntValues(i, &values, &known));
  if (!known) {
    return errors::InvalidArgument("Received a shape scalar with unknown static value.  A static value of '-1' is "
                                   "required to represent an unknown shape.");
  }
  if (values.size() != 1 || values[0] != -1) {
    return errors::InvalidArgument("Received an invalid shape scalar with a static value of ",
                                   values.empty() ? 0 : values[0], ". A static value of '-1' is required to represent "
                                   "an unknown shape.");
  }
  *out = PartialTensorShape();
  return Status::OK();
}

DataType ElementDtype(InferenceContext* c) {
  DataType t = tensorflow::DT_INVALID;
  c->GetAttr("element_dtype", &t).IgnoreError();
  return t;
}

// What is known of the list on input 0 (its element shape and dtype), checked against the
// op's element_dtype; nullptr when nothing is known.
StatusOr<const ShapeAndType*> ListInput(InferenceContext* c) {
  const ShapeAndType* list = c->input_handle_data(0);
  if (list != nullptr && list->dtype != ElementDtype(c)) {
    return errors::InvalidArgument("Expected list with element dtype ", DataTypeString(ElementDtype(c)),
                                   " but got list with element dtype ", DataTypeString(list->dtype));
  }
  return list;
}

// A new list (EmptyTensorList, TensorListReserve) of the element shape on input 0.
Status NewListShape(InferenceContext* c) {
  PartialTensorShape element;
  TA_RETURN_IF_ERROR(ElementShapeInput(c, 0, &element));
  c->set_output(0, InferenceContext::Scalar());
  c->set_output_handle_data(0, {element, ElementDtype(c)});
  return Status::OK();
}

Status FromTensorShape(InferenceContext* c) {
  PartialTensorShape rows, element;
  TA_RETURN_IF_ERROR(c->Subshape(c->input(0), 1, &rows));
  TA_RETURN_IF_ERROR(ElementShapeInput(c, 1, &element));
  TA_RETURN_IF_ERROR(c->Merge(rows, element, &element));
  c->set_output(0, InferenceContext::Scalar());
  c->set_output_handle_data(0, {element, ElementDtype(c)});
  return Status::OK();
}

// PushBack and SetItem: the same list; SetItem's item must fit its element shape.
Status UpdatedListShape(InferenceContext* c) {
  TA_ASSIGN_OR_RETURN(const ShapeAndType* list, ListInput(c));
  c->set_output(0, InferenceContext::Scalar());
  if (list == nullptr) {
    c->set_output_handle_data(0, {PartialTensorShape(), ElementDtype(c)});
    return Status::OK();
  }
  if (c->op_def().name() == "TensorListSetItem") {
    PartialTensorShape merged;
    TA_RETURN_IF_ERROR(c->Merge(c->input(2), list->shape, &merged));
  }
  c->set_output_handle_data(0, *list);
  return Status::OK();
}

Status PopBackShape(InferenceContext* c) {
  TA_ASSIGN_OR_RETURN(const ShapeAndType* list, ListInput(c));
  c->set_output(0, InferenceContext::Scalar());
  c->set_output(1, list ? list->shape : PartialTensorShape());
  if (list) c->set_output_handle_data(0, *list);
  return Status::OK();
}

// GetItem and Stack: the list's element shape merged with the op's element_shape input.
Status ReadElementShape(InferenceContext* c, int element_shape_input, PartialTensorShape* element) {
  TA_ASSIGN_OR_RETURN(const ShapeAndType* list, ListInput(c));
  PartialTensorShape given;
  TA_RETURN_IF_ERROR(ElementShapeInput(c, element_shape_input, &given));
  return c->Merge(list ? list->shape : PartialTensorShape(), given, element);
}

Status GetItemShape(InferenceContext* c) {
  PartialTensorShape element;
  TA_RETURN_IF_ERROR(ReadElementShape(c, 2, &element));
  c->set_output(0, element);
  return Status::OK();
}

Status StackShape(InferenceContext* c) {
  PartialTensorShape element, out;
  TA_RETURN_IF_ERROR(ReadElementShape(c, 1, &element));
  int64_t n = -1;
  c->GetAttr("num_elements", &n).IgnoreError();
  TA_RETURN_IF_ERROR(c->Concatenate(InferenceContext::Vector(n < 0 ? -1 : n), element, &out));
  c->set_output(0, out);
  return Status::OK();
}

Status TensorListGatherShape(InferenceContext* c) {
  PartialTensorShape element, out;
  TA_RETURN_IF_ERROR(ReadElementShape(c, 2, &element));
  TA_RETURN_IF_ERROR(c->Concatenate(c->input(1), element, &out));
  c->set_output(0, out);
  return Status::OK();
}

Status ScatterShape(InferenceContext* c) {
  PartialTensorShape ignored;
  TA_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(1), 1, &ignored));
  TA_RETURN_IF_ERROR(c->WithRank(c->input(2), 1, &ignored));
  TA_ASSIGN_OR_RETURN(const ShapeAndType* list, ListInput(c));
  c->set_output(0, InferenceContext::Scalar());
  c->set_output_handle_data(0, list ? *list : ShapeAndType{PartialTensorShape(), ElementDtype(c)});
  return Status::OK();
}

Status ResizeShape(InferenceContext* c) {
  PartialTensorShape ignored;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, &ignored));
  c->set_output(0, InferenceContext::Scalar());
  if (const ShapeAndType* list = c->input_handle_data(0)) c->set_output_handle_data(0, *list);
  return Status::OK();
}

// A vector as long as the list's element rank (TensorFlow's static answer, though an unknown
// rank reads as the scalar -1 when the op runs).
Status ElementShapeShape(InferenceContext* c) {
  const ShapeAndType* list = c->input_handle_data(0);
  if (list == nullptr) {
    c->set_output(0, InferenceContext::UnknownShape());
  } else {
    c->set_output(0, InferenceContext::Vector(list->shape.unknown_rank() ? -1 : list->shape.dims()));
  }
  return Status::OK();
}

// Concat (v1: element_shape an attr) and ConcatV2: [?] + the element shape after its first
// dimension, and the elements' lengths.
Status ConcatShape(InferenceContext* c) {
  PartialTensorShape element;
  if (c->op_def().name() == "TensorListConcat") {
    TA_RETURN_IF_ERROR(c->GetAttr("element_shape", &element));
  } else {
    TA_RETURN_IF_ERROR(ElementShapeInput(c, 1, &element));
  }
  TA_ASSIGN_OR_RETURN(const ShapeAndType* list, ListInput(c));
  if (list != nullptr) TA_RETURN_IF_ERROR(c->Merge(element, list->shape, &element));
  PartialTensorShape out = InferenceContext::UnknownShape();
  if (!element.unknown_rank()) {
    TA_RETURN_IF_ERROR(c->Concatenate(InferenceContext::Vector(-1), element.WithoutFirstDim(), &out));
  }
  c->set_output(0, out);
  c->set_output(1, InferenceContext::Vector(-1));
  return Status::OK();
}

// Split: a list of the given element shape, whose rows must fit the tensor's.
Status SplitShape(InferenceContext* c) {
  PartialTensorShape ignored, element;
  TA_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, &ignored));
  TA_RETURN_IF_ERROR(c->WithRank(c->input(2), 1, &ignored));
  TA_RETURN_IF_ERROR(ElementShapeInput(c, 1, &element));
  PartialTensorShape slices;
  TA_RETURN_IF_ERROR(c->Concatenate(InferenceContext::Vector(-1), c->input(0).WithoutFirstDim(), &slices));
  TA_RETURN_IF_ERROR(c->Merge(slices, element, &ignored));
  c->set_output(0, InferenceContext::Scalar());
  c->set_output_handle_data(0, {element, ElementDtype(c)});
  return Status::OK();
}

// Scatter and ScatterV2: a new list of the given element shape.
Status NewScatterShape(InferenceContext* c) {
  PartialTensorShape element;
  TA_RETURN_IF_ERROR(ElementShapeInput(c, 2, &element));
  c->set_output(0, InferenceContext::Scalar());
  c->set_output_handle_data(0, {element, ElementDtype(c)});
  return Status::OK();
}

// PushBackBatch: as many lists as the tensor has rows.
Status PushBackBatchShape(InferenceContext* c) {
  PartialTensorShape handles, rows;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, &handles));
  TA_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(1), 1, &rows));
  int64_t batch = -1;
  TA_RETURN_IF_ERROR(c->MergeDim(InferenceContext::Dim(handles, 0), InferenceContext::Dim(rows, 0), &batch));
  TA_ASSIGN_OR_RETURN(const ShapeAndType* list, ListInput(c));
  c->set_output(0, InferenceContext::Vector(batch));
  c->set_output_handle_data(0, list ? *list : ShapeAndType{PartialTensorShape(), ElementDtype(c)});
  return Status::OK();
}

// ConcatLists: lists of both inputs' shape, their element shapes merged.
Status ConcatListsShape(InferenceContext* c) {
  PartialTensorShape out;
  TA_RETURN_IF_ERROR(c->Merge(c->input(0), c->input(1), &out));
  c->set_output(0, out);
  const ShapeAndType* a = c->input_handle_data(0);
  const ShapeAndType* b = c->input_handle_data(1);
  if (a == nullptr && b == nullptr) {
    c->set_output_handle_data(0, {PartialTensorShape(), ElementDtype(c)});
    return Status::OK();
  }
  if (a == nullptr) a = b;
  if (b == nullptr) b = a;
  for (const auto& [what, list] : {std::pair{"input_a", a}, std::pair{"input_b", b}}) {
    if (list->dtype != ElementDtype(c)) {
      return errors::InvalidArgument(what, ".type != element_dtype: ", DataTypeString(list->dtype), " vs. ",
                                     DataTypeString(ElementDtype(c)));
    }
  }
  PartialTensorShape element;
  TA_RETURN_IF_ERROR(c->Merge(a->shape, b->shape, &element));
  c->set_output_handle_data(0, {element, ElementDtype(c)});
  return Status::OK();
}

}  // namespace
}  // namespace tensoract

REGISTER_OP("EmptyTensorList")
    .Input("element_shape: shape_type").Input("max_num_elements: int32").Output("handle: variant")
    .Attr("element_dtype: type").Attr("shape_type: {int32, int64}")
    .SetOutputFullType("handle", tensoract::ListType())
    .SetShapeFn(tensoract::NewListShape)
    .Doc("An empty list of element_dtype tensors of element_shape (-1: unknown), at most max_num_elements (-1: any).");

REGISTER_OP("TensorListReserve")
    .Input("element_shape: shape_type").Input("num_elements: int32").Output("handle: variant")
    .Attr("element_dtype: type").Attr("shape_type: {int32, int64}")
    .SetOutputFullType("handle", tensoract::ListType())
    .SetShapeFn(tensoract::NewListShape)
    .Doc("A list of num_elements unset elements, which read as zeros of element_shape.");

REGISTER_OP("TensorListPushBack")
    .Input("input_handle: variant").Input("tensor: element_dtype").Output("output_handle: variant")
    .Attr("element_dtype: type")
    .SetOutputFullType("output_handle", tensoract::ListType())
    .SetShapeFn(tensoract::UpdatedListShape)
    .Doc("The list with tensor appended.");

REGISTER_OP("TensorListPopBack")
    .Input("input_handle: variant").Input("element_shape: int32")
    .Output("output_handle: variant").Output("tensor: element_dtype")
    .Attr("element_dtype: type")
    .SetShapeFn(tensoract::PopBackShape)
    .Doc("The list without its last element, and that element.");

REGISTER_OP("TensorListSetItem")
    .Input("input_handle: variant").Input("index: int32").Input("item: element_dtype")
    .Output("output_handle: variant")
    .Attr("element_dtype: type").Attr("resize_if_index_out_of_bounds: bool = false")
    .SetOutputFullType("output_handle", tensoract::ListType())
    .SetShapeFn(tensoract::UpdatedListShape)
    .Doc("The list with element index replaced by item.");

REGISTER_OP("TensorListGetItem")
    .Input("input_handle: variant").Input("index: int32").Input("element_shape: Tshape")
    .Output("item: element_dtype")
    .Attr("element_dtype: type").Attr("Tshape: {int32, int64} = DT_INT32")
    .SetShapeFn(tensoract::GetItemShape)
    .Doc("Element index of the list (zeros of element_shape when it is unset).");

REGISTER_OP("TensorListStack")
    .Input("input_handle: variant").Input("element_shape: int32").Output("tensor: element_dtype")
    .Attr("element_dtype: type").Attr("num_elements: int = -1")
    .SetShapeFn(tensoract::StackShape)
    .Doc("The list's elements stacked into one tensor along a new first dimension.");

REGISTER_OP("TensorListFromTensor")
    .Input("tensor: element_dtype").Input("element_shape: shape_type").Output("output_handle: variant")
    .Attr("element_dtype: type").Attr("shape_type: {int32, int64}")
    .SetOutputFullType("output_handle", tensoract::ListType())
    .SetShapeFn(tensoract::FromTensorShape)
    .Doc("A list of the tensor's slices along its first dimension.");

REGISTER_OP("TensorListLength")
    .Input("input_handle: variant").Output("length: int32")
    .SetShapeFn(tensoract::shape_inference::ScalarShape)
    .Doc("The number of elements in the list.");

REGISTER_OP("TensorListElementShape")
    .Input("input_handle: variant").Output("element_shape: shape_type")
    .Attr("shape_type: {int32, int64}")
    .SetShapeFn(tensoract::ElementShapeShape)
    .Doc("The list's element shape: -1 for an unknown rank, else its dimensions with -1 for unknown ones.");

REGISTER_OP("TensorListGather")
    .Input("input_handle: variant").Input("indices: int32").Input("element_shape: int32")
    .Output("values: element_dtype")
    .Attr("element_dtype: type")
    .SetShapeFn(tensoract::TensorListGatherShape)
    .Doc("The elements at indices, stacked (unset ones as zeros of element_shape).");

REGISTER_OP("TensorListScatterIntoExistingList")
    .Input("input_handle: variant").Input("tensor: element_dtype").Input("indices: int32")
    .Output("output_handle: variant")
    .Attr("element_dtype: type")
    .SetOutputFullType("output_handle", tensoract::ListType())
    .SetShapeFn(tensoract::ScatterShape)
    .Doc("The list with row k of tensor as element indices[k].");

REGISTER_OP("TensorListResize")
    .Input("input_handle: variant").Input("size: int32").Output("output_handle: variant")
    .SetShapeFn(tensoract::ResizeShape)
    .Doc("The list cut to size elements, or grown with unset ones.");

REGISTER_OP("TensorListConcat")
    .Input("input_handle: variant").Output("tensor: element_dtype").Output("lengths: int64")
    .Attr("element_dtype: type").Attr("element_shape: shape = { unknown_rank: true }")
    .SetShapeFn(tensoract::ConcatShape)
    .Doc("The elements joined along their first dimension, and each one's length there (the older form of "
         "TensorListConcatV2: unset elements need element_shape's first dimension).");

REGISTER_OP("TensorListConcatV2")
    .Input("input_handle: variant").Input("element_shape: shape_type").Input("leading_dims: int64")
    .Output("tensor: element_dtype").Output("lengths: int64")
    .Attr("element_dtype: type").Attr("shape_type: {int32, int64}")
    .SetShapeFn(tensoract::ConcatShape)
    .Doc("The elements joined along their first dimension, and each one's length there; unset element i reads as "
         "zeros of [leading_dims[i]] + element_shape[1:].");

REGISTER_OP("TensorListSplit")
    .Input("tensor: element_dtype").Input("element_shape: shape_type").Input("lengths: int64")
    .Output("output_handle: variant")
    .Attr("element_dtype: type").Attr("shape_type: {int32, int64}")
    .SetOutputFullType("output_handle", tensoract::ListType())
    .SetShapeFn(tensoract::SplitShape)
    .Doc("A list of consecutive slices of tensor along its first dimension, lengths[i] rows each.");

REGISTER_OP("TensorListScatter")
    .Input("tensor: element_dtype").Input("indices: int32").Input("element_shape: shape_type")
    .Output("output_handle: variant")
    .Attr("element_dtype: type").Attr("shape_type: {int32, int64}")
    .SetOutputFullType("output_handle", tensoract::ListType())
    .SetShapeFn(tensoract::NewScatterShape)
    .Doc("A new list with row k of tensor as element indices[k], as long as the largest index needs.");

REGISTER_OP("TensorListScatterV2")
    .Input("tensor: element_dtype").Input("indices: int32").Input("element_shape: shape_type")
    .Input("num_elements: int32").Output("output_handle: variant")
    .Attr("element_dtype: type").Attr("shape_type: {int32, int64}")
    .SetOutputFullType("output_handle", tensoract::ListType())
    .SetShapeFn(tensoract::NewScatterShape)
    .Doc("A new list of num_elements (-1: as the largest index needs) with row k of tensor as element indices[k].");

REGISTER_OP("TensorListPushBackBatch")
    .Input("input_handles: variant").Input("tensor: element_dtype").Output("output_handles: variant")
    .Attr("element_dtype: type")
    .SetOutputFullType("output_handles", tensoract::ListType())
    .SetShapeFn(tensoract::PushBackBatchShape)
    .Doc("A vector of lists: tensor[b] appended to list b.");

REGISTER_OP("TensorListConcatLists")
    .Input("input_a: variant").Input("input_b: variant").Output("output: variant")
    .Attr("element_dtype: type")
    .SetOutputFullType("output", tensoract::ListType())
    .SetShapeFn(tensoract::ConcatListsShape)
    .Doc("Each list of input_a followed by the elements of the list at the same place in input_b.");
