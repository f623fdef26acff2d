// The TensorList ops (TensorFlow 2's TensorArray, its gather and scatter included; the accumulators of a While's gradient)
// and what the gradients do with lists (AddN and ZerosLike of a variant): each makes a new
// list from its inputs (kernels/tensor_list.h), with TensorFlow's checks and messages.
//
// A list "update" copies the vector of element handles, O(length): TensorFlow updates a
// list in place when nothing else holds it. Loops here push a few thousand elements at most;
// if a long loop shows this, forwarding a list held once is the fix.
#include <algorithm>
#include <cstring>
#include <optional>
#include <type_traits>

#include "kernels/dtype_dispatch.h"
#include "kernels/kernel_registry.h"
#include "kernels/tensor_list.h"

namespace tensoract {
namespace {

// The list at input `i`; fails the kernel (and returns nullptr) when it is not one.
const TensorList* ListInput(OpKernelContext* ctx, int i) {
  auto list = TensorListFrom(ctx->input(i), StrCat("node '", ctx->op_kernel().name(), "': input ", i));
  if (!list.ok()) {
    ctx->SetStatus(list.status());
    return nullptr;
  }
  return list.value();
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
  return TensorShape(shape.unknown_rank() ? std::vector<int64_t>() : [&] {
    std::vector<int64_t> dims(shape.dims());
    for (int i = 0; i < shape.dims(); ++i) dims[i] = shape.dim_size(i);
    return dims;
  }());
}

// Stack and FromTensor move rows of fixed-size elements or strings.
bool CanCopyRows(DataType t) { return DataTypeIsFixedSize(t) || t == tensorflow::DT_STRING; }

// `n` elements of `from` starting at element `from_at`, into `to` at element `to_at`.
void CopyRow(const Tensor& from, int64_t from_at, Tensor* to, int64_t to_at, int64_t n) {
  if (from.dtype() == tensorflow::DT_STRING) {
    std::copy_n(from.base<std::string>() + from_at, n, to->base<std::string>() + to_at);
    return;
  }
  const size_t size = DataTypeSize(from.dtype());
  if (n > 0) std::memcpy(static_cast<char*>(to->data()) + to_at * size, static_cast<const char*>(from.data()) + from_at * size, n * size);
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

// The kernels of the ops with an `element_dtype` attr.
class ElementTypedOp : public OpKernel {
 public:
  explicit ElementTypedOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("element_dtype", &element_dtype_));
  }

 protected:
  DataType element_dtype_ = tensorflow::DT_INVALID;
};

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
  OP_REQUIRES(ctx, CanCopyRows(list.element_dtype),
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
      CopyRow(*t, 0, out, k * row, row);
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
  if (!CanCopyRows(t.dtype())) {
    return errors::Unimplemented("node '", op.name(), "': a list of the rows of a ", DataTypeString(t.dtype()),
                                 " tensor");
  }
  std::vector<int64_t> dims = t.shape().dim_sizes();
  dims.erase(dims.begin());
  *row_shape = TensorShape(dims);
  return Status::OK();
}

// Row k of `t`, of `row_shape`, as a tensor of its own.
StatusOr<Tensor> RowOf(const Tensor& t, int64_t k, const TensorShape& row_shape) {
  TA_ASSIGN_OR_RETURN(Tensor row, Tensor::Allocate(cpu_allocator(), t.dtype(), row_shape));
  const int64_t n = row_shape.num_elements();
  CopyRow(t, k * n, &row, 0, n);
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

// EmptyTensorList and TensorListReserve: a new list of 0 or `num_elements` unset elements.
class NewListOp : public ElementTypedOp {
 public:
  explicit NewListOp(OpKernelConstruction* ctx) : ElementTypedOp(ctx) {
    reserve_ = type_string() == "TensorListReserve";
  }
  void Compute(OpKernelContext* ctx) override {
    TensorList list;
    list.element_dtype = element_dtype_;
    auto shape = ElementShapeFromTensor(ctx->input(0));
    OP_REQUIRES_OK(ctx, shape.status());
    list.element_shape = std::move(shape).value();
    auto n = ScalarInt32(*this, ctx->input(1), reserve_ ? "num_elements" : "max_num_elements");
    OP_REQUIRES_OK(ctx, n.status());
    if (reserve_) {
      OP_REQUIRES(ctx, n.value() >= 0,
                  errors::InvalidArgument("node '", name(), "': The num_elements to reserve must be a non negative "
                                          "number, but got ", n.value()));
      list.tensors.resize(n.value());
    } else {
      OP_REQUIRES(ctx, n.value() >= -1,
                  errors::InvalidArgument("node '", name(), "': max_num_elements expected to be -1 or >= 0, got ",
                                          n.value()));
      list.max_num_elements = n.value();
    }
    ctx->set_output(0, TensorListTensor(std::move(list)));
  }
  bool IsExpensive() const override { return false; }

 private:
  bool reserve_ = false;
};

class PushBackOp : public ElementTypedOp {
 public:
  using ElementTypedOp::ElementTypedOp;
  void Compute(OpKernelContext* ctx) override {
    const TensorList* in = ListInput(ctx, 0);
    if (in == nullptr) return;
    const Tensor& item = ctx->input(1);
    OP_REQUIRES(ctx, item.dtype() == in->element_dtype,
                errors::InvalidArgument("node '", name(), "': Invalid data types; list elements ",
                                        DataTypeString(in->element_dtype), " but tried to append ",
                                        DataTypeString(item.dtype())));
    OP_REQUIRES_OK(ctx, CheckElementShape(*this, *in, item, "append"));
    OP_REQUIRES(ctx, in->max_num_elements < 0 || static_cast<int64_t>(in->tensors.size()) < in->max_num_elements,
                errors::InvalidArgument("node '", name(), "': Tried to push item into a full list list size: ",
                                        in->tensors.size(), " max_num_elements: ", in->max_num_elements));
    TensorList out = *in;
    out.tensors.push_back(item);
    ctx->set_output(0, TensorListTensor(std::move(out)));
  }
  bool IsExpensive() const override { return false; }
};

class PopBackOp : public ElementTypedOp {
 public:
  using ElementTypedOp::ElementTypedOp;
  void Compute(OpKernelContext* ctx) override {
    const TensorList* in = ListInput(ctx, 0);
    if (in == nullptr) return;
    OP_REQUIRES_OK(ctx, CheckDtype(*this, element_dtype_, *in));
    OP_REQUIRES(ctx, !in->tensors.empty(),
                errors::InvalidArgument("node '", name(), "': Trying to pop from an empty list."));
    auto last = ElementOrZeros(*this, *in, static_cast<int64_t>(in->tensors.size()) - 1, ctx->input(1));
    OP_REQUIRES_OK(ctx, last.status());
    TensorList out = *in;
    out.tensors.pop_back();
    ctx->set_output(0, TensorListTensor(std::move(out)));
    ctx->set_output(1, last.value());
  }
  bool IsExpensive() const override { return false; }
};

class SetItemOp : public ElementTypedOp {
 public:
  explicit SetItemOp(OpKernelConstruction* ctx) : ElementTypedOp(ctx) {
    if (!ctx->GetAttr("resize_if_index_out_of_bounds", &resize_).ok()) resize_ = false;
  }
  void Compute(OpKernelContext* ctx) override {
    const TensorList* in = ListInput(ctx, 0);
    if (in == nullptr) return;
    OP_REQUIRES_OK(ctx, CheckDtype(*this, element_dtype_, *in));
    auto index = ScalarInt32(*this, ctx->input(1), "index");
    OP_REQUIRES_OK(ctx, index.status());
    const int32_t i = index.value();
    const int64_t size = static_cast<int64_t>(in->tensors.size());
    OP_REQUIRES(ctx, i >= 0 && (i < size || resize_),
                errors::InvalidArgument("node '", name(), "': Trying to modify element ", i, " in a list with ", size,
                                        " elements."));
    const Tensor& item = ctx->input(2);
    OP_REQUIRES_OK(ctx, CheckElementShape(*this, *in, item, "set"));
    TensorList out = *in;
    if (i >= size) out.tensors.resize(i + 1);
    out.tensors[i] = item;
    ctx->set_output(0, TensorListTensor(std::move(out)));
  }
  bool IsExpensive() const override { return false; }

 private:
  bool resize_ = false;
};

class GetItemOp : public ElementTypedOp {
 public:
  using ElementTypedOp::ElementTypedOp;
  void Compute(OpKernelContext* ctx) override {
    const TensorList* in = ListInput(ctx, 0);
    if (in == nullptr) return;
    OP_REQUIRES_OK(ctx, CheckDtype(*this, element_dtype_, *in));
    auto index = ScalarInt32(*this, ctx->input(1), "index");
    OP_REQUIRES_OK(ctx, index.status());
    const int32_t i = index.value();
    OP_REQUIRES(ctx, i >= 0 && i < static_cast<int64_t>(in->tensors.size()),
                errors::InvalidArgument("node '", name(), "': Trying to access element ", i, " in a list with ",
                                        in->tensors.size(), " elements."));
    auto item = ElementOrZeros(*this, *in, i, ctx->input(2));
    OP_REQUIRES_OK(ctx, item.status());
    ctx->set_output(0, item.value());
  }
  bool IsExpensive() const override { return false; }
};

// TensorListStack: the elements as one tensor, [length] + element shape.
class StackOp : public ElementTypedOp {
 public:
  explicit StackOp(OpKernelConstruction* ctx) : ElementTypedOp(ctx) {
    if (!ctx->GetAttr("num_elements", &num_elements_).ok()) num_elements_ = -1;
  }
  void Compute(OpKernelContext* ctx) override {
    const TensorList* in = ListInput(ctx, 0);
    if (in == nullptr) return;
    OP_REQUIRES_OK(ctx, CheckDtype(*this, element_dtype_, *in));
    const int64_t n = static_cast<int64_t>(in->tensors.size());
    OP_REQUIRES(ctx, num_elements_ == -1 || num_elements_ == n,
                errors::InvalidArgument("node '", name(), "': Operation expected a list with ", num_elements_,
                                        " elements but got a list with ", n, " elements."));
    std::vector<int64_t> all(n);
    for (int64_t i = 0; i < n; ++i) all[i] = i;
    StackElements(ctx, *in, all, ctx->input(1), "stack");
  }

 private:
  int64_t num_elements_ = -1;
};

// TensorListFromTensor: a list of the tensor's rows.
class FromTensorOp : public ElementTypedOp {
 public:
  using ElementTypedOp::ElementTypedOp;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& t = ctx->input(0);
    TensorShape row_shape;
    OP_REQUIRES_OK(ctx, CheckRows(*this, t, &row_shape));
    auto given = ElementShapeFromTensor(ctx->input(1));
    OP_REQUIRES_OK(ctx, given.status());
    OP_REQUIRES(ctx, given.value().IsCompatibleWith(row_shape),
                errors::InvalidArgument("node '", name(), "': Specified a list with shape ", given.value().DebugString(),
                                        " from a tensor with shape ", t.shape().DebugString()));
    TensorList list;
    list.element_dtype = element_dtype_;
    list.element_shape = given.value();
    list.tensors.reserve(t.dim_size(0));
    for (int64_t i = 0; i < t.dim_size(0); ++i) {
      auto row = RowOf(t, i, row_shape);
      OP_REQUIRES_OK(ctx, row.status());
      list.tensors.emplace_back(std::move(row).value());
    }
    ctx->set_output(0, TensorListTensor(std::move(list)));
  }
};

class LengthOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const TensorList* in = ListInput(ctx, 0);
    if (in == nullptr) return;
    ctx->set_output(0, Tensor::Scalar<int32_t>(static_cast<int32_t>(in->tensors.size())));
  }
  bool IsExpensive() const override { return false; }
};

// TensorListElementShape: -1 for an unknown rank, else the dimensions (-1 unknown).
class ElementShapeOp : public OpKernel {
 public:
  explicit ElementShapeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("shape_type", &shape_type_));
  }
  void Compute(OpKernelContext* ctx) override {
    const TensorList* in = ListInput(ctx, 0);
    if (in == nullptr) return;
    const PartialTensorShape& s = in->element_shape;
    const bool scalar = s.unknown_rank();
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, scalar ? TensorShape() : TensorShape({s.dims()}), &out));
    for (int64_t i = 0; i < (scalar ? 1 : s.dims()); ++i) {
      const int64_t d = scalar ? -1 : s.dim_size(static_cast<int>(i));
      if (shape_type_ == tensorflow::DT_INT32) {
        out->base<int32_t>()[i] = static_cast<int32_t>(d);
      } else {
        out->base<int64_t>()[i] = d;
      }
    }
  }
  bool IsExpensive() const override { return false; }

 private:
  DataType shape_type_ = tensorflow::DT_INT32;
};

// TensorListGather: the elements at `indices`, stacked (unset ones as zeros).
class GatherOp : public ElementTypedOp {
 public:
  using ElementTypedOp::ElementTypedOp;
  void Compute(OpKernelContext* ctx) override {
    const TensorList* in = ListInput(ctx, 0);
    if (in == nullptr) return;
    OP_REQUIRES_OK(ctx, CheckDtype(*this, element_dtype_, *in));
    auto indices = IndicesInput(*this, ctx->input(1));
    OP_REQUIRES_OK(ctx, indices.status());
    const int64_t size = static_cast<int64_t>(in->tensors.size());
    for (int64_t i : indices.value()) {
      OP_REQUIRES(ctx, i >= 0 && i < size,
                  errors::InvalidArgument("node '", name(), "': Trying to gather element ", i, " in a list with ", size,
                                          " elements."));
    }
    StackElements(ctx, *in, indices.value(), ctx->input(2), "gather");
  }
};

// TensorListScatterIntoExistingList: row k of `tensor` becomes element indices[k] (the
// list grows to hold the largest index).
class ScatterOp : public ElementTypedOp {
 public:
  using ElementTypedOp::ElementTypedOp;
  void Compute(OpKernelContext* ctx) override {
    const TensorList* in = ListInput(ctx, 0);
    if (in == nullptr) return;
    OP_REQUIRES_OK(ctx, CheckDtype(*this, element_dtype_, *in));
    const Tensor& t = ctx->input(1);
    TensorShape row_shape;
    OP_REQUIRES_OK(ctx, CheckRows(*this, t, &row_shape));
    auto indices = IndicesInput(*this, ctx->input(2));
    OP_REQUIRES_OK(ctx, indices.status());
    OP_REQUIRES(ctx, static_cast<int64_t>(indices.value().size()) == t.dim_size(0),
                errors::InvalidArgument("node '", name(), "': Invalid number of rows in input tensor. Expected: ",
                                        indices.value().size(), " Actual: ", t.dim_size(0)));
    OP_REQUIRES(ctx, in->element_shape.IsCompatibleWith(row_shape),
                errors::InvalidArgument("node '", name(), "': Tried to scatter rows of shape ", row_shape.DebugString(),
                                        " into a list of elements of shape ", in->element_shape.DebugString()));
    TensorList out = *in;
    for (size_t k = 0; k < indices.value().size(); ++k) {
      const int64_t i = indices.value()[k];
      OP_REQUIRES(ctx, i >= 0, errors::InvalidArgument("node '", name(), "': Indices in TensorListScatter must all be "
                                                       "non-negative, but saw ", i));
      // Past the end the list grows, the elements between unset (TensorFlow's scatter).
      if (i >= static_cast<int64_t>(out.tensors.size())) out.tensors.resize(i + 1);
      auto row = RowOf(t, static_cast<int64_t>(k), row_shape);
      OP_REQUIRES_OK(ctx, row.status());
      out.tensors[i] = std::move(row).value();
    }
    ctx->set_output(0, TensorListTensor(std::move(out)));
  }
};

// TensorListResize: the first `size` elements, or all of them and unset ones after.
class ResizeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const TensorList* in = ListInput(ctx, 0);
    if (in == nullptr) return;
    auto size = ScalarInt32(*this, ctx->input(1), "size");
    OP_REQUIRES_OK(ctx, size.status());
    OP_REQUIRES(ctx, size.value() >= 0,
                errors::InvalidArgument("node '", name(), "': TensorListSlice expects size to be non-negative. Got: ",
                                        size.value()));
    TensorList out = *in;
    out.tensors.resize(size.value());
    ctx->set_output(0, TensorListTensor(std::move(out)));
  }
  bool IsExpensive() const override { return false; }
};

// a + b, element by element, for two tensors of one dtype and shape.
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

// The sum of two lists of one dtype and length, element by element; an unset element adds
// as zeros (TensorFlow's TensorListBinaryAdd): how the gradients of two uses of a list
// meet.
StatusOr<TensorList> AddLists(const TensorList& a, const TensorList& b) {
  if (a.element_dtype != b.element_dtype) {
    return errors::InvalidArgument("Trying to add two lists of tensors of different dtypes. One is ",
                                   DataTypeString(a.element_dtype), " and the other is ", DataTypeString(b.element_dtype));
  }
  if (a.tensors.size() != b.tensors.size()) {
    return errors::InvalidArgument("Trying to add two lists of tensors with different lengths. One is ",
                                   a.tensors.size(), " and the other is ", b.tensors.size());
  }
  TensorList out = a;
  TA_ASSIGN_OR_RETURN(out.element_shape, MergeShapes(a.element_shape, b.element_shape));
  for (size_t i = 0; i < a.tensors.size(); ++i) {
    if (!b.tensors[i]) continue;
    if (!a.tensors[i]) {
      out.tensors[i] = b.tensors[i];
      continue;
    }
    TA_ASSIGN_OR_RETURN(Tensor sum, AddTensors(*a.tensors[i], *b.tensors[i]));
    out.tensors[i] = std::move(sum);
  }
  return out;
}

class AddNListsOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const TensorList* first = ListInput(ctx, 0);
    if (first == nullptr) return;
    TensorList sum = *first;
    for (int i = 1; i < ctx->num_inputs(); ++i) {
      const TensorList* next = ListInput(ctx, i);
      if (next == nullptr) return;
      auto added = AddLists(sum, *next);
      if (!added.ok()) return ctx->SetStatus(errors::InvalidArgument("node '", name(), "': ", added.status().message()));
      sum = std::move(added).value();
    }
    ctx->set_output(0, TensorListTensor(std::move(sum)));
  }
};

// ZerosLike of a list: the same list with every set element zeros of its shape.
class ZerosLikeListOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const TensorList* in = ListInput(ctx, 0);
    if (in == nullptr) return;
    TensorList out = *in;
    for (auto& t : out.tensors) {
      if (!t) continue;
      auto zeros = ZerosTensor(t->dtype(), t->shape());
      OP_REQUIRES_OK(ctx, zeros.status());
      t = std::move(zeros).value();
    }
    ctx->set_output(0, TensorListTensor(std::move(out)));
  }
};

REGISTER_KERNEL(Name("EmptyTensorList").Device(DEVICE_CPU), NewListOp);
REGISTER_KERNEL(Name("TensorListReserve").Device(DEVICE_CPU), NewListOp);
REGISTER_KERNEL(Name("TensorListPushBack").Device(DEVICE_CPU), PushBackOp);
REGISTER_KERNEL(Name("TensorListPopBack").Device(DEVICE_CPU), PopBackOp);
REGISTER_KERNEL(Name("TensorListSetItem").Device(DEVICE_CPU), SetItemOp);
REGISTER_KERNEL(Name("TensorListGetItem").Device(DEVICE_CPU), GetItemOp);
REGISTER_KERNEL(Name("TensorListStack").Device(DEVICE_CPU), StackOp);
REGISTER_KERNEL(Name("TensorListFromTensor").Device(DEVICE_CPU), FromTensorOp);
REGISTER_KERNEL(Name("TensorListLength").Device(DEVICE_CPU), LengthOp);
REGISTER_KERNEL(Name("TensorListGather").Device(DEVICE_CPU), GatherOp);
REGISTER_KERNEL(Name("TensorListScatterIntoExistingList").Device(DEVICE_CPU), ScatterOp);
REGISTER_KERNEL(Name("TensorListResize").Device(DEVICE_CPU), ResizeOp);
REGISTER_KERNEL(Name("TensorListElementShape").Device(DEVICE_CPU), ElementShapeOp);
REGISTER_KERNEL(Name("AddN").Device(DEVICE_CPU).TypeConstraint("T", tensorflow::DT_VARIANT), AddNListsOp);
REGISTER_KERNEL(Name("ZerosLike").Device(DEVICE_CPU).TypeConstraint("T", tensorflow::DT_VARIANT), ZerosLikeListOp);

}  // namespace
}  // namespace tensoract
