/// @file
/// Builder functions for the TensorList ops (graph/ops/list_ops.cc): TensorFlow 2's
/// TensorArray in C++. Conventions as in graph/builder/ops.h. An element shape is an int32
/// tensor: -1 for an unknown rank, or the dimensions with -1 for unknown ones.
///
/// @code
///   Output list = ops::TensorListFromTensor(s, xs, {3});          // xs's rows
///   Output row = ops::TensorListGetItem(s, list, i, DT_FLOAT);
///   Output out = ops::TensorListReserve(s, {3}, 5, DT_FLOAT);
///   out = ops::TensorListSetItem(s, out, i, row);
///   Output ys = ops::TensorListStack(s, out, {3}, DT_FLOAT);       // [5, 3]
/// @endcode
#ifndef TENSORACT_GRAPH_BUILDER_LIST_OPS_H_
#define TENSORACT_GRAPH_BUILDER_LIST_OPS_H_

#include "graph/builder/scope.h"

namespace tensoract {
namespace ops {

/// An empty list of `element_dtype` tensors of `element_shape`, which may hold at most
/// `max_num_elements` (an int32 scalar; -1: any number).
Output EmptyTensorList(const Scope& scope, const Input& element_shape, const Input& max_num_elements,
                       DataType element_dtype);
/// A list of `num_elements` (an int32 scalar) unset elements, which read as zeros of `element_shape`
/// until set.
Output TensorListReserve(const Scope& scope, const Input& element_shape, const Input& num_elements,
                         DataType element_dtype);
/// A list of the slices of `tensor` along its first dimension; `element_shape` must be compatible
/// with the slices' shape.
Output TensorListFromTensor(const Scope& scope, const Input& tensor, const Input& element_shape);
/// The list with `tensor` appended.
Output TensorListPushBack(const Scope& scope, const Input& list, const Input& tensor);
/// The list without its last element, and that element.
OutputList TensorListPopBack(const Scope& scope, const Input& list, const Input& element_shape,
                             DataType element_dtype);
/// The list with element `index` replaced by `item`.
/// With `resize_if_index_out_of_bounds`, an index past the end grows the list to hold it.
Output TensorListSetItem(const Scope& scope, const Input& list, const Input& index, const Input& item,
                         bool resize_if_index_out_of_bounds = false);
/// Element `index` of the list (zeros of `element_shape` when it is unset).
Output TensorListGetItem(const Scope& scope, const Input& list, const Input& index, const Input& element_shape,
                         DataType element_dtype);
/// The list's elements stacked into one tensor along a new first dimension.
/// `num_elements`: the length the list must have, -1 for any.
Output TensorListStack(const Scope& scope, const Input& list, const Input& element_shape, DataType element_dtype,
                       int64_t num_elements = -1);
/// The elements at `indices` stacked (unset ones as zeros of `element_shape`).
Output TensorListGather(const Scope& scope, const Input& list, const Input& indices, const Input& element_shape,
                        DataType element_dtype);
/// The list with row k of `tensor` as element indices[k].
Output TensorListScatterIntoExistingList(const Scope& scope, const Input& list, const Input& tensor,
                                         const Input& indices);
/// A new list with row k of `tensor` as element indices[k], `num_elements` long (-1: as the
/// largest index needs): TensorListScatterV2.
Output TensorListScatter(const Scope& scope, const Input& tensor, const Input& indices, const Input& element_shape,
                         const Input& num_elements);
/// The elements joined along their first dimension (an unset element i as zeros of
/// [leading_dims[i]] + element_shape[1:]), and each one's length there: TensorListConcatV2.
OutputList TensorListConcat(const Scope& scope, const Input& list, const Input& element_shape,
                            const Input& leading_dims, DataType element_dtype);
/// A list of consecutive slices of `tensor`, lengths[i] (int64) rows each.
Output TensorListSplit(const Scope& scope, const Input& tensor, const Input& element_shape, const Input& lengths);
/// A vector of lists: tensor[b] appended to lists[b].
Output TensorListPushBackBatch(const Scope& scope, const Input& lists, const Input& tensor);
/// Each list of `a` followed by the elements of the list at the same place in `b`.
Output TensorListConcatLists(const Scope& scope, const Input& a, const Input& b, DataType element_dtype);
/// The list cut to `size` (an int32 scalar) elements, or grown to it with unset ones.
Output TensorListResize(const Scope& scope, const Input& list, const Input& size);
/// The number of elements in the list, an int32 scalar.
Output TensorListLength(const Scope& scope, const Input& list);
/// The list's element shape as a `shape_type` (int32 or int64) tensor: -1 for an unknown rank, else
/// its dimensions with -1 for unknown ones.
Output TensorListElementShape(const Scope& scope, const Input& list, DataType shape_type = tensorflow::DT_INT32);

}  // namespace ops
}  // namespace tensoract

#endif  // TENSORACT_GRAPH_BUILDER_LIST_OPS_H_
