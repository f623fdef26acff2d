// What the TensorList kernels share (kernels/cpu/list_ops.cc, the ops on a list's elements;
// kernels/cpu/list_tensor_ops.cc, the ops between lists and tensors): reading a list input,
// TensorFlow's checks and messages, and moving rows between tensors and list elements.
#ifndef TENSORACT_KERNELS_CPU_LIST_KERNEL_UTIL_H_
#define TENSORACT_KERNELS_CPU_LIST_KERNEL_UTIL_H_

#include <cstdint>
#include <vector>

#include "kernels/cpu/strided_copy.h"
#include "kernels/op_kernel.h"
#include "kernels/tensor_list.h"

namespace tensoract {
namespace list_kernels {

// The list at input `i`; fails the kernel (and returns nullptr) when it is not one.
const TensorList* ListInput(OpKernelContext* ctx, int i);

// Output `o` as the list of input `i` (read by ListInput first) for the kernel to change:
// that very list where nothing else holds it, neither its tensor nor its value (a loop's
// list, read last by the op that appends to it; TensorFlow forwards it too), else a copy.
// An update is then O(1) where the copy is O(length): a loop of n appends was O(n^2).
// Check everything that can fail before: the list is changed where it lies.
TensorList* ListToChange(OpKernelContext* ctx, int i, int o);

// The op's element_dtype against the list's.
Status CheckDtype(const OpKernel& op, DataType op_dtype, const TensorList& list);

// Input `t` as an int32 scalar; `what` names it in the message.
StatusOr<int32_t> ScalarInt32(const OpKernel& op, const Tensor& t, const char* what);

// The shape an unset element reads as: the list's element shape merged with the op's
// `element_shape` input and, where that is still partly unknown, with the elements that
// are set (TensorFlow's TensorListGetItem and TensorListStack do the same).
StatusOr<TensorShape> ShapeForUnsetElements(const OpKernel& op, const TensorList& list, const Tensor& element_shape);

// A fully defined shape as a TensorShape.
TensorShape AsTensorShape(const PartialTensorShape& s);

// Resizes `list` to `n` elements, new ones unset. The count comes from a graph's input (a
// reserve of 2^31 elements asks for tens of GiB of slots): ResourceExhausted instead of the
// process ending when they do not fit.
Status ResizeList(const OpKernel& op, TensorList* list, int64_t n);

// Zeros (empty strings) for an unset element's row.
void ZeroRow(Tensor* to, int64_t at, int64_t n);

// `item` fits the list's element shape; `verb` ("append", "set") names the op in the message.
Status CheckElementShape(const OpKernel& op, const TensorList& list, const Tensor& item, const char* verb);

// The kernels of the ops with an `element_dtype` attr.
class ElementTypedOp : public OpKernel {
 public:
  explicit ElementTypedOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("element_dtype", &element_dtype_));
  }

 protected:
  // The list at input `i`, of this op's element dtype; fails the kernel (and returns nullptr)
  // otherwise.
  const TensorList* TypedListInput(OpKernelContext* ctx, int i) const {
    const TensorList* list = ListInput(ctx, i);
    if (list != nullptr) {
      Status s = CheckDtype(*this, element_dtype_, *list);
      if (!s.ok()) {
        ctx->SetStatus(s);
        return nullptr;
      }
    }
    return list;
  }
  DataType element_dtype_ = tensorflow::DT_INVALID;
};

// Element i of `list` (an index already checked), or zeros of the shape its unset elements
// read as (ShapeForUnsetElements, given the op's `element_shape` input).
StatusOr<Tensor> ElementOrZeros(const OpKernel& op, const TensorList& list, int64_t i, const Tensor& element_shape);

// Stack and Gather: elements `indices` of `list` (checked to be in range) stacked into
// output 0, [indices.size()] + their shape, unset ones as zeros. `verb` names the op in
// messages.
void StackElements(OpKernelContext* ctx, const TensorList& list, const std::vector<int64_t>& indices,
                   const Tensor& element_shape, const char* verb);

// FromTensor and Scatter: checks that `t` is at least a vector and gives the shape of its rows.
Status CheckRows(const OpKernel& op, const Tensor& t, TensorShape* row_shape);

// Row k of `t`, of `row_shape`, as a tensor of its own.
StatusOr<Tensor> RowOf(const Tensor& t, int64_t k, const TensorShape& row_shape);

// a + b, element by element, for two tensors of one dtype and shape (InvalidArgument
// otherwise; Unimplemented for a dtype without a sum): how two gradients of a list's or a
// TensorArray's element meet.
StatusOr<Tensor> AddTensors(const Tensor& a, const Tensor& b);

// Gather's and Scatter's `indices`: an int32 vector.
StatusOr<std::vector<int64_t>> IndicesInput(const OpKernel& op, const Tensor& indices);

}  // namespace list_kernels
}  // namespace tensoract

#endif  // TENSORACT_KERNELS_CPU_LIST_KERNEL_UTIL_H_
