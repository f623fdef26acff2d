// Gradients of the TensorList ops, as TensorFlow's list_ops.py builds them: a list's
// gradient is a list of its elements' gradients (set where an element's gradient is
// known, unset, reading as zeros, elsewhere), so pushes and pops, sets and gets, stacking
// and unstacking mirror each other.
#include "graph/builder/list_ops.h"
#include "graph/gradients/grad_helpers.h"

namespace tensoract {
namespace grad {
namespace {

DataType ElementDtype(const Node& op) {
  DataType t = tensorflow::DT_INVALID;
  GetNodeAttr(op.def(), "element_dtype", &t).IgnoreError();
  return t;
}

// The shape of x's rows: x's shape without its first dimension.
Output RowShape(const Scope& s, const Output& x) { return ops::Slice(s, ops::Shape(s, x), {1}, {-1}); }

// d(PushBack(list, t)) = PopBack(d): the list's part and t's.
Status PushBackGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  OutputList popped = ops::TensorListPopBack(s, dy[0], ops::Shape(s, InputOf(op, 1)), ElementDtype(op));
  if (!s.ok()) return s.status();
  *dx = {popped[0], popped[1]};
  return s.status();
}

// d(PopBack(list)) = PushBack(d list', d element).
Status PopBackGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  *dx = {ops::TensorListPushBack(s, dy[0], dy[1]), Output()};
  return s.status();
}

// d(SetItem(list, i, item)): the list's gradient with element i zeroed, and element i's.
Status SetItemGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  bool resize = false;
  GetNodeAttr(op.def(), "resize_if_index_out_of_bounds", &resize).IgnoreError();
  const Output index = InputOf(op, 1), item = InputOf(op, 2);
  Output list = ops::TensorListSetItem(s, dy[0], index, ops::ZerosLike(s, item));
  // A set that grew the list: the gradient back to the list's length before it.
  if (resize) list = ops::TensorListResize(s, list, ops::TensorListLength(s, InputOf(op, 0)));
  Output element = ops::TensorListGetItem(s, dy[0], index, ops::Shape(s, item), ElementDtype(op));
  *dx = {list, Output(), element};
  return s.status();
}

// d(GetItem(list, i)): a list as long as `list`, holding d at i and nothing elsewhere.
Status GetItemGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  const Output list = InputOf(op, 0);
  Output reserved = ops::TensorListReserve(s, ops::TensorListElementShape(s, list), ops::TensorListLength(s, list),
                                           ElementDtype(op));
  *dx = {ops::TensorListSetItem(s, reserved, InputOf(op, 1), dy[0]), Output(), Output()};
  return s.status();
}

// d(Stack(list)) = the rows of d as a list.
Status StackGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  Output row_shape = RowShape(s, dy[0]);
  *dx = {ops::TensorListFromTensor(s, dy[0], row_shape), Output()};
  return s.status();
}

// d(FromTensor(t)) = d stacked, in t's shape.
Status FromTensorGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  const Output t = InputOf(op, 0);
  Output row_shape = RowShape(s, t);
  *dx = {ops::TensorListStack(s, dy[0], row_shape, ElementDtype(op)), Output()};
  return s.status();
}

// d(Gather(list, indices)): a list as long as `list` whose element i sums d's rows gathered
// from i. (TensorFlow 2.21 scatters d's rows into a reserved list, so an index gathered twice
// gets one row's gradient, not their sum: the harness lists that difference.)
Status TensorListGatherGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  const Output list = InputOf(op, 0);
  Output sums = ops::UnsortedSegmentSum(s, dy[0], InputOf(op, 1), ops::TensorListLength(s, list));
  Output row_shape = RowShape(s, dy[0]);
  *dx = {ops::TensorListFromTensor(s, sums, row_shape), Output(), Output()};
  return s.status();
}

// d(Scatter(list, t, indices)): the list's gradient with the scattered elements zeroed, and
// those elements' gradients gathered as t's.
Status ScatterGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  const Output t = InputOf(op, 1), indices = InputOf(op, 2);
  Output row_shape = RowShape(s, t);
  Output dt = ops::TensorListGather(s, dy[0], indices, row_shape, ElementDtype(op));
  Output dlist = ops::TensorListScatterIntoExistingList(s, dy[0], ops::ZerosLike(s, t), indices);
  *dx = {dlist, dt, Output()};
  return s.status();
}

// d(ScatterV2(t, indices)): the scattered elements' gradients gathered as t's.
Status NewScatterGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  const Output t = InputOf(op, 0), indices = InputOf(op, 1);
  Output row_shape = RowShape(s, t);
  *dx = {ops::TensorListGather(s, dy[0], indices, row_shape, ElementDtype(op)), Output(), Output()};
  if (op.num_inputs() == 4) dx->push_back(Output());
  return s.status();
}

// d(Concat(list)) = d split back into the elements' lengths.
Status ConcatGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  const Output list = InputOf(op, 0);
  *dx = {ops::TensorListSplit(s, dy[0], ops::TensorListElementShape(s, list), OpOutput(op, 1))};
  if (op.num_inputs() == 3) dx->insert(dx->end(), {Output(), Output()});
  return s.status();
}

// d(Split(t, lengths)) = d's elements joined again (unset ones as zeros of their lengths).
Status SplitGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  const Output t = InputOf(op, 0), lengths = InputOf(op, 2);
  Output element_shape = ops::Concat(s, {ops::Const(s, {-1}), RowShape(s, t)}, 0);
  OutputList joined = ops::TensorListConcat(s, dy[0], element_shape, lengths, ElementDtype(op));
  if (!s.ok()) return s.status();
  *dx = {joined[0], Output(), Output()};
  return s.status();
}

// d(Resize(list, n)): d cut or grown back to the list's length.
Status ResizeGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  *dx = {ops::TensorListResize(s, dy[0], ops::TensorListLength(s, InputOf(op, 0))), Output()};
  return s.status();
}

}  // namespace

REGISTER_GRADIENT_OP("TensorListGather", TensorListGatherGrad);
REGISTER_GRADIENT_OP("TensorListScatterIntoExistingList", ScatterGrad);
REGISTER_GRADIENT_OP("TensorListResize", ResizeGrad);
REGISTER_GRADIENT_OP("TensorListScatter", NewScatterGrad);
REGISTER_GRADIENT_OP("TensorListScatterV2", NewScatterGrad);
REGISTER_GRADIENT_OP("TensorListConcat", ConcatGrad);
REGISTER_GRADIENT_OP("TensorListConcatV2", ConcatGrad);
REGISTER_GRADIENT_OP("TensorListSplit", SplitGrad);
REGISTER_GRADIENT_OP("TensorListPushBack", PushBackGrad);
REGISTER_GRADIENT_OP("TensorListPopBack", PopBackGrad);
REGISTER_GRADIENT_OP("TensorListSetItem", SetItemGrad);
REGISTER_GRADIENT_OP("TensorListGetItem", GetItemGrad);
REGISTER_GRADIENT_OP("TensorListStack", StackGrad);
REGISTER_GRADIENT_OP("TensorListFromTensor", FromTensorGrad);
// Their inputs are shapes and lengths; their outputs say nothing differentiable.
REGISTER_NO_GRADIENT_OP("EmptyTensorList");
REGISTER_NO_GRADIENT_OP("TensorListReserve");
REGISTER_NO_GRADIENT_OP("TensorListLength");
// As TensorFlow: not differentiable.
REGISTER_NO_GRADIENT_OP("TensorListPushBackBatch");
REGISTER_NO_GRADIENT_OP("TensorListConcatLists");
REGISTER_NO_GRADIENT_OP("TensorListElementShape");

}  // namespace grad
}  // namespace tensoract
