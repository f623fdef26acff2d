#include "kernels/cpu/list_kernel_util.h"

#include <algorithm>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "kernels/dtype_dispatch.h"

namespace tensoract {
namespace list_kernels {

// The list at input `i`; fails the kernel (and returns nullptr) when it is not one.
const TensorList* ListInput(OpKernelContext* ctx, int i) {
  auto list = TensorListFrom(ctx->input(i), "the value");
  if (!list.ok()) {  // the node's name only now: a loop body's list ops run every iteration
    ctx->SetStatus(list.status().WithContext(StrCat("node '", ctx->op_kernel().name(), "', input ", i)));
    return nullptr;
  }
  return list.value();
}

TensorList* ListToChange(OpKernelContext* ctx, int i, int o) {
  const Tensor& in = ctx->input(i);
  if (ctx->input_ref(i) == nullptr && in.RefCountIsOne()) {
    if (TensorList* list = in.base<Variant>()->get_if_sole_owner<TensorList>()) {
      ctx->set_output(o, in);
      return list;
    }
  }
  Tensor out = TensorListTensor(*in.base<Variant>()->get<TensorList>());
  TensorList* list = out.base<Variant>()->get_if_sole_owner<TensorList>();
  ctx->set_output(o, out);  // the tensor's handle: its value is still held once
  return list;
}

Status CheckDtype(const OpKernel& op, DataType op_dtype, const TensorList& list) {
  if (op_dtype != list.element_dtype) {
    return errors::InvalidArgument("node '", op.name(), "': Invalid data types; op elements ", DataTypeString(op_dtype),
                                   " but list elements ", DataTypeString(list.element_dtype));
  }
  return Status::OK();
}

StatusOr<int32_t> ScalarInt32(const OpKernel& op, const Tensor& t, const char* what) {
  if (t.dtype() != tensorflow::DT_INT32 || t.dims() != 0) {
    return errors::InvalidArgument("node '", op.name(), "': ", what, " must be an int32 scalar, not a ",
                                   DataTypeString(t.dtype()), " tensor of shape ", t.shape().DebugString());
  }
  return t.base<int32_t>()[0];
}

// The shape an unset element reads as: the list's element shape merged with the op's
// `element_shape` input and, where that is still partly unknown, with the elements that
// are set (TensorFlow's TensorListGetItem and TensorListStack do the same).
StatusOr<TensorShape> ShapeForUnsetElements(const OpKernel& op, const TensorList& list, const Tensor& element_shape) {
  TA_ASSIGN_OR_RETURN(PartialTensorShape given, ElementShapeFromTensor(element_shape));
  TA_ASSIGN_OR_RETURN(PartialTensorShape shape, MergeShapes(list.element_shape, given));
  for (const auto& t : list.tensors) {
    if (shape.IsFullyDefined()) break;
    if (t) {
      TA_ASSIGN_OR_RETURN(shape, MergeShapes(shape, PartialTensorShape(t->shape().dim_sizes())));
    }
  }
  if (!shape.IsFullyDefined()) {
    return errors::InvalidArgument("node '", op.name(), "': Trying to read an uninitialized tensor but element_shape is "
                                   "not fully defined: ", shape.DebugString(), " and no list element is set.");
  }
  return AsTensorShape(shape);
}

TensorShape AsTensorShape(const PartialTensorShape& s) {
  std::vector<int64_t> dims(s.dims());
  for (int d = 0; d < s.dims(); ++d) dims[d] = s.dim_size(d);
  return TensorShape(dims);
}

Status ResizeList(const OpKernel& op, TensorList* list, int64_t n) {
  bool fits = true;
  try {
    list->tensors.resize(static_cast<size_t>(n));
  } catch (const std::bad_alloc&) {
    fits = false;
  } catch (const std::length_error&) {
    fits = false;
  }
  if (!fits) return errors::ResourceExhausted("node '", op.name(), "': a list of ", n, " elements does not fit in memory");
  return Status::OK();
}

// Zeros (empty strings) for an unset element's row.
void ZeroRow(Tensor* to, int64_t at, int64_t n) {
  if (to->dtype() == tensorflow::DT_STRING) {
    std::fill_n(to->base<std::string>() + at, n, std::string());
    return;
  }
  const size_t size = DataTypeSize(to->dtype());
  if (n > 0) std::memset(static_cast<char*>(to->data()) + at * size, 0, n * size);
}

Status CheckElementShape(const OpKernel& op, const TensorList& list, const Tensor& item, const char* verb) {
  if (!list.element_shape.IsCompatibleWith(item.shape())) {
    return errors::InvalidArgument("node '", op.name(), "': Tried to ", verb, " a tensor with incompatible shape to a ",
                                   "list. Op element shape: ", item.shape().DebugString(),
                                   " list shape: ", list.element_shape.DebugString());
  }
  return Status::OK();
}

// Element i of `list` (an index already checked), or zeros of the shape its unset elements
// read as (ShapeForUnsetElements, given the op's `element_shape` input).
StatusOr<Tensor> ElementOrZeros(const OpKernel& op, const TensorList& list, int64_t i, const Tensor& element_shape) {
  if (list.tensors[i]) return *list.tensors[i];
  TA_ASSIGN_OR_RETURN(TensorShape shape, ShapeForUnsetElements(op, list, element_shape));
  return ZerosTensor(list.element_dtype, shape);
}

// Stack and Gather: elements `indices` of `list` (checked to be in range) stacked into
// output 0, [indices.size()] + their shape, unset ones as zeros. `verb` names the op in
// messages.
void StackElements(OpKernelContext* ctx, const TensorList& list, const std::vector<int64_t>& indices,
                   const Tensor& element_shape, const char* verb) {
  const OpKernel& op = ctx->op_kernel();
  OP_REQUIRES(ctx, CanCopyElements(list.element_dtype),
              errors::Unimplemented("node '", op.name(), "': ", verb, "ing a list of ",
                                    DataTypeString(list.element_dtype)));
  auto shape = ShapeForUnsetElements(op, list, element_shape);
  OP_REQUIRES_OK(ctx, shape.status());
  const TensorShape& element = shape.value();
  for (int64_t i : indices) {
    const auto& t = list.tensors[i];
    OP_REQUIRES(ctx, !t || t->shape() == element,
                errors::InvalidArgument("node '", op.name(), "': Tried to ", verb,
                                        " elements of different shapes: element ", i, " has shape ",
                                        t->shape().DebugString(), ", the list's elements ", element.DebugString()));
  }
  TensorShape out_shape({static_cast<int64_t>(indices.size())});
  for (int d = 0; d < element.dims(); ++d) out_shape.AddDim(element.dim_size(d));
  Tensor* out = nullptr;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
  const int64_t row = element.num_elements();
  for (size_t k = 0; k < indices.size(); ++k) {
    const auto& t = list.tensors[indices[k]];
    if (t) {
      CopyElements(*t, 0, out, k * row, row);
    } else {
      ZeroRow(out, k * row, row);
    }
  }
}

// FromTensor and Scatter: checks that `t` is at least a vector and gives the shape of its rows.
Status CheckRows(const OpKernel& op, const Tensor& t, TensorShape* row_shape) {
  if (t.dims() < 1) {
    return errors::InvalidArgument("node '", op.name(), "': Tensor must be at least a vector, but saw shape: ",
                                   t.shape().DebugString());
  }
  if (!CanCopyElements(t.dtype())) {
    return errors::Unimplemented("node '", op.name(), "': a list of the rows of a ", DataTypeString(t.dtype()),
                                 " tensor");
  }
  *row_shape = t.shape().WithoutFirstDim();
  return Status::OK();
}

// Row k of `t`, of `row_shape`, as a tensor of its own.
StatusOr<Tensor> RowOf(const Tensor& t, int64_t k, const TensorShape& row_shape) {
  const int64_t n = row_shape.num_elements();
  // Sharing t's bytes where the row starts aligned (rows of a multiple of 64 bytes: a
  // recurrent layer's [batch, features] float steps when batch * features is a multiple of
  // 16): unstacking a sequence copies nothing.
  auto view = t.View(k * n, row_shape);
  if (view.ok()) return view;
  TA_ASSIGN_OR_RETURN(Tensor row, Tensor::Allocate(cpu_allocator(), t.dtype(), row_shape));
  CopyElements(t, k * n, &row, 0, n);
  return row;
}

// Gather's and Scatter's `indices`: an int32 vector.
StatusOr<std::vector<int64_t>> IndicesInput(const OpKernel& op, const Tensor& indices) {
  if (indices.dtype() != tensorflow::DT_INT32 || indices.dims() != 1) {
    return errors::InvalidArgument("node '", op.name(), "': indices must be an int32 vector, not a ",
                                   DataTypeString(indices.dtype()), " tensor of shape ", indices.shape().DebugString());
  }
  const int32_t* v = indices.base<int32_t>();
  return std::vector<int64_t>(v, v + indices.NumElements());
}

StatusOr<Tensor> AddTensors(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) {
    return errors::InvalidArgument("cannot add list elements of ", DataTypeString(a.dtype()), a.shape().DebugString(),
                                   " and ", DataTypeString(b.dtype()), b.shape().DebugString());
  }
  TA_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(cpu_allocator(), a.dtype(), a.shape()));
  Status s = Status::OK();
  auto add = [&](auto* zero) {
    using T = std::remove_pointer_t<decltype(zero)>;
    const T* x = a.base<T>();
    const T* y = b.base<T>();
    T* z = out.base<T>();
    for (int64_t i = 0; i < a.NumElements(); ++i) z[i] = static_cast<T>(x[i] + y[i]);
  };
  switch (a.dtype()) {
    case tensorflow::DT_FLOAT: add(static_cast<float*>(nullptr)); break;
    case tensorflow::DT_DOUBLE: add(static_cast<double*>(nullptr)); break;
    case tensorflow::DT_HALF: add(static_cast<Eigen::half*>(nullptr)); break;
    case tensorflow::DT_BFLOAT16: add(static_cast<Eigen::bfloat16*>(nullptr)); break;
    case tensorflow::DT_INT32: add(static_cast<int32_t*>(nullptr)); break;
    case tensorflow::DT_INT64: add(static_cast<int64_t*>(nullptr)); break;
    case tensorflow::DT_INT8: add(static_cast<int8_t*>(nullptr)); break;
    case tensorflow::DT_INT16: add(static_cast<int16_t*>(nullptr)); break;
    case tensorflow::DT_UINT8: add(static_cast<uint8_t*>(nullptr)); break;
    case tensorflow::DT_UINT16: add(static_cast<uint16_t*>(nullptr)); break;
    case tensorflow::DT_UINT32: add(static_cast<uint32_t*>(nullptr)); break;
    case tensorflow::DT_UINT64: add(static_cast<uint64_t*>(nullptr)); break;
    case tensorflow::DT_COMPLEX64: add(static_cast<complex64*>(nullptr)); break;
    case tensorflow::DT_COMPLEX128: add(static_cast<complex128*>(nullptr)); break;
    default: s = errors::Unimplemented("adding lists of ", DataTypeString(a.dtype()));
  }
  TA_RETURN_IF_ERROR(s);
  return out;
}

}  // namespace list_kernels
}  // namespace tensoract
