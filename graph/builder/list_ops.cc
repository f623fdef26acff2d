#include "graph/builder/list_ops.h"

#include "graph/builder/attr_util.h"

namespace tensoract {
namespace ops {
namespace {

Output First(Node* node) { return node ? Output(node, 0) : Output(); }

Output NewList(const Scope& scope, const std::string& op, const Input& element_shape, const Input& n,
               DataType element_dtype) {
  return First(scope.AddOp(op, op, {element_shape, n},
                           {{"element_dtype", TypeAttr(element_dtype)}, {"shape_type", TypeAttr(TypeOf(element_shape))}}));
}

}  // namespace

Output EmptyTensorList(const Scope& scope, const Input& element_shape, const Input& max_num_elements,
                       DataType element_dtype) {
  return NewList(scope, "EmptyTensorList", element_shape, max_num_elements, element_dtype);
}

Output TensorListReserve(const Scope& scope, const Input& element_shape, const Input& num_elements,
                         DataType element_dtype) {
  return NewList(scope, "TensorListReserve", element_shape, num_elements, element_dtype);
}

Output TensorListFromTensor(const Scope& scope, const Input& tensor, const Input& element_shape) {
  return First(scope.AddOp("TensorListFromTensor", "TensorListFromTensor", {tensor, element_shape},
                           {{"element_dtype", TypeAttr(TypeOf(tensor))},
                            {"shape_type", TypeAttr(TypeOf(element_shape))}}));
}

Output TensorListPushBack(const Scope& scope, const Input& list, const Input& tensor) {
  return First(scope.AddOp("TensorListPushBack", "TensorListPushBack", {list, tensor},
                           {{"element_dtype", TypeAttr(TypeOf(tensor))}}));
}

OutputList TensorListPopBack(const Scope& scope, const Input& list, const Input& element_shape,
                             DataType element_dtype) {
  Node* node = scope.AddOp("TensorListPopBack", "TensorListPopBack", {list, element_shape},
                           {{"element_dtype", TypeAttr(element_dtype)}});
  return node ? AllOutputs(node) : OutputList{};
}

Output TensorListSetItem(const Scope& scope, const Input& list, const Input& index, const Input& item,
                         bool resize_if_index_out_of_bounds) {
  return First(scope.AddOp("TensorListSetItem", "TensorListSetItem", {list, index, item},
                           {{"element_dtype", TypeAttr(TypeOf(item))},
                            {"resize_if_index_out_of_bounds", BoolAttr(resize_if_index_out_of_bounds)}}));
}

Output TensorListGetItem(const Scope& scope, const Input& list, const Input& index, const Input& element_shape,
                         DataType element_dtype) {
  return First(scope.AddOp("TensorListGetItem", "TensorListGetItem", {list, index, element_shape},
                           {{"element_dtype", TypeAttr(element_dtype)}, {"Tshape", TypeAttr(TypeOf(element_shape))}}));
}

Output TensorListStack(const Scope& scope, const Input& list, const Input& element_shape, DataType element_dtype,
                       int64_t num_elements) {
  return First(scope.AddOp("TensorListStack", "TensorListStack", {list, element_shape},
                           {{"element_dtype", TypeAttr(element_dtype)}, {"num_elements", IntAttr(num_elements)}}));
}

Output TensorListGather(const Scope& scope, const Input& list, const Input& indices, const Input& element_shape,
                        DataType element_dtype) {
  return First(scope.AddOp("TensorListGather", "TensorListGather", {list, indices, element_shape},
                           {{"element_dtype", TypeAttr(element_dtype)}}));
}

Output TensorListScatterIntoExistingList(const Scope& scope, const Input& list, const Input& tensor,
                                         const Input& indices) {
  return First(scope.AddOp("TensorListScatterIntoExistingList", "TensorListScatterIntoExistingList",
                           {list, tensor, indices}, {{"element_dtype", TypeAttr(TypeOf(tensor))}}));
}

Output TensorListScatter(const Scope& scope, const Input& tensor, const Input& indices, const Input& element_shape,
                         const Input& num_elements) {
  return First(scope.AddOp("TensorListScatterV2", "TensorListScatterV2", {tensor, indices, element_shape, num_elements},
                           {{"element_dtype", TypeAttr(TypeOf(tensor))},
                            {"shape_type", TypeAttr(TypeOf(element_shape))}}));
}

OutputList TensorListConcat(const Scope& scope, const Input& list, const Input& element_shape,
                            const Input& leading_dims, DataType element_dtype) {
  Node* node = scope.AddOp("TensorListConcatV2", "TensorListConcatV2", {list, element_shape, leading_dims},
                           {{"element_dtype", TypeAttr(element_dtype)},
                            {"shape_type", TypeAttr(TypeOf(element_shape))}});
  return node ? AllOutputs(node) : OutputList{};
}

Output TensorListSplit(const Scope& scope, const Input& tensor, const Input& element_shape, const Input& lengths) {
  return First(scope.AddOp("TensorListSplit", "TensorListSplit", {tensor, element_shape, lengths},
                           {{"element_dtype", TypeAttr(TypeOf(tensor))},
                            {"shape_type", TypeAttr(TypeOf(element_shape))}}));
}

Output TensorListPushBackBatch(const Scope& scope, const Input& lists, const Input& tensor) {
  return First(scope.AddOp("TensorListPushBackBatch", "TensorListPushBackBatch", {lists, tensor},
                           {{"element_dtype", TypeAttr(TypeOf(tensor))}}));
}

Output TensorListConcatLists(const Scope& scope, const Input& a, const Input& b, DataType element_dtype) {
  return First(scope.AddOp("TensorListConcatLists", "TensorListConcatLists", {a, b},
                           {{"element_dtype", TypeAttr(element_dtype)}}));
}

Output TensorListResize(const Scope& scope, const Input& list, const Input& size) {
  return First(scope.AddOp("TensorListResize", "TensorListResize", {list, size}, {}));
}

Output TensorListLength(const Scope& scope, const Input& list) {
  return First(scope.AddOp("TensorListLength", "TensorListLength", {list}, {}));
}

Output TensorListElementShape(const Scope& scope, const Input& list, DataType shape_type) {
  return First(scope.AddOp("TensorListElementShape", "TensorListElementShape", {list},
                           {{"shape_type", TypeAttr(shape_type)}}));
}

}  // namespace ops
}  // namespace tensoract
