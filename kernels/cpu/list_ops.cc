// The TensorList ops on a list's elements (TensorFlow 2's TensorArray reads and writes; the
// accumulators of a While's gradient), and what the gradients do with lists (AddN and
// ZerosLike of a variant): each makes a new list from its inputs (kernels/tensor_list.h),
// with TensorFlow's checks and messages. The ops between lists and tensors (stack, gather,
// scatter, concat, split) are in kernels/cpu/list_tensor_ops.cc.
//
// An update (push, pop, set) changes the input's list in place where nothing else
// holds it, as TensorFlow's do, and a copy of it otherwise (ListToChange).
#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <type_traits>

#include "kernels/cpu/list_kernel_util.h"
#include "kernels/dtype_dispatch.h"
#include "kernels/kernel_registry.h"
#include "kernels/tensor_list.h"

namespace tensoract {
namespace {

using namespace list_kernels;  // NOLINT: the kernels' shared helpers

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
      OP_REQUIRES_OK(ctx, ResizeList(*this, &list, n.value()));
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
    ListToChange(ctx, 0, 0)->tensors.push_back(item);
  }
  bool IsExpensive() const override { return false; }
};

class PopBackOp : public ElementTypedOp {
 public:
  using ElementTypedOp::ElementTypedOp;
  void Compute(OpKernelContext* ctx) override {
    const TensorList* in = TypedListInput(ctx, 0);
    if (in == nullptr) return;
    OP_REQUIRES(ctx, !in->tensors.empty(),
                errors::InvalidArgument("node '", name(), "': Trying to pop from an empty list."));
    auto last = ElementOrZeros(*this, *in, static_cast<int64_t>(in->tensors.size()) - 1, ctx->input(1));
    OP_REQUIRES_OK(ctx, last.status());
    ListToChange(ctx, 0, 0)->tensors.pop_back();
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
    const TensorList* in = TypedListInput(ctx, 0);
    if (in == nullptr) return;
    auto index = ScalarInt32(*this, ctx->input(1), "index");
    OP_REQUIRES_OK(ctx, index.status());
    const int32_t i = index.value();
    const int64_t size = static_cast<int64_t>(in->tensors.size());
    OP_REQUIRES(ctx, i >= 0 && (i < size || resize_),
                errors::InvalidArgument("node '", name(), "': Trying to modify element ", i, " in a list with ", size,
                                        " elements."));
    const Tensor& item = ctx->input(2);
    OP_REQUIRES_OK(ctx, CheckElementShape(*this, *in, item, "set"));
    if (i >= size) {
      // Resized in a copy: a size too large to allocate leaves the input as it was.
      TensorList out = *in;
      OP_REQUIRES_OK(ctx, ResizeList(*this, &out, int64_t{i} + 1));
      out.tensors[i] = item;
      ctx->set_output(0, TensorListTensor(std::move(out)));
      return;
    }
    ListToChange(ctx, 0, 0)->tensors[i] = item;
  }
  bool IsExpensive() const override { return false; }

 private:
  bool resize_ = false;
};

class GetItemOp : public ElementTypedOp {
 public:
  using ElementTypedOp::ElementTypedOp;
  void Compute(OpKernelContext* ctx) override {
    const TensorList* in = TypedListInput(ctx, 0);
    if (in == nullptr) return;
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
    OP_REQUIRES_OK(ctx, ResizeList(*this, &out, size.value()));
    ctx->set_output(0, TensorListTensor(std::move(out)));
  }
  bool IsExpensive() const override { return false; }
};

// TensorListPushBackBatch: a vector of lists, tensor[b] appended to list b (TensorFlow's
// vectorised push; as there, a list's max_num_elements is not enforced).
class PushBackBatchOp : public ElementTypedOp {
 public:
  using ElementTypedOp::ElementTypedOp;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& t = ctx->input(1);
    OP_REQUIRES(ctx, t.dtype() == element_dtype_,
                errors::InvalidArgument("node '", name(), "': Invalid data types; list elements ",
                                        DataTypeString(element_dtype_), " but tried to append ",
                                        DataTypeString(t.dtype())));
    OP_REQUIRES(ctx, t.dims() >= 1,
                errors::InvalidArgument("node '", name(), "': Expected tensor to be at least a vector, but saw shape: ",
                                        t.shape().DebugString()));
    const Tensor& handles = ctx->input(0);
    OP_REQUIRES(ctx, handles.dtype() == tensorflow::DT_VARIANT && handles.dims() == 1,
                errors::InvalidArgument("node '", name(), "': Expected input_handles to be a vector, but saw shape: ",
                                        handles.shape().DebugString()));
    const int64_t batch = handles.NumElements();
    OP_REQUIRES(ctx, t.dim_size(0) == batch,
                errors::InvalidArgument("node '", name(), "': Expected tensor.shape[0] == input_handles.size, but saw ",
                                        t.dim_size(0), " vs. ", batch));
    TensorShape row_shape;
    OP_REQUIRES_OK(ctx, CheckRows(*this, t, &row_shape));
    std::vector<const TensorList*> lists(batch);
    for (int64_t b = 0; b < batch; ++b) {
      const Variant& v = handles.base<Variant>()[b];
      lists[b] = v.get<TensorList>();
      OP_REQUIRES(ctx, lists[b] != nullptr,
                  errors::InvalidArgument("node '", name(), "': Input handle at index ", b, " is not a list. Saw: '",
                                          v.DebugString(), "'"));
      OP_REQUIRES(ctx, lists[b]->element_shape.IsCompatibleWith(row_shape),
                  errors::InvalidArgument("node '", name(), "': Tried to append a tensor with incompatible shape to a "
                                          "list at index ", b, ". Op element shape: ", row_shape.DebugString(),
                                          " list shape: ", lists[b]->element_shape.DebugString()));
      OP_REQUIRES(ctx, lists[b]->element_dtype == element_dtype_,
                  errors::InvalidArgument("node '", name(), "': Invalid data type at index ", b, "; op elements ",
                                          DataTypeString(element_dtype_), " but list elements ",
                                          DataTypeString(lists[b]->element_dtype)));
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, handles.shape(), &out));
    for (int64_t b = 0; b < batch; ++b) {
      auto row = RowOf(t, b, row_shape);
      OP_REQUIRES_OK(ctx, row.status());
      TensorList list = *lists[b];
      list.tensors.push_back(std::move(row).value());
      out->base<Variant>()[b] = TensorListVariant(std::move(list));
    }
  }
};

// TensorListConcatLists: two variant tensors of one shape holding lists, each list of the
// first followed by the elements of the one at the same place in the second (whose element
// shape must be the same; element shape and max_num_elements come from the first).
class ConcatListsOp : public ElementTypedOp {
 public:
  using ElementTypedOp::ElementTypedOp;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    OP_REQUIRES(ctx, a.shape() == b.shape(),
                errors::InvalidArgument("node '", name(), "': Incompatible input TensorList tensor shapes: ",
                                        a.shape().DebugString(), " vs. ", b.shape().DebugString()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, a.shape(), &out));
    for (int64_t i = 0; i < a.NumElements(); ++i) {
      const TensorList* la = ListAt(ctx, a, i, "input_a");
      const TensorList* lb = la ? ListAt(ctx, b, i, "input_b") : nullptr;
      if (lb == nullptr) return;
      OP_REQUIRES(ctx, SameShape(la->element_shape, lb->element_shape),
                  errors::InvalidArgument("node '", name(), "': input_a and input_b TensorList element shapes are not "
                                          "identical at index ", i, ".  Saw ", la->element_shape.DebugString(), " vs. ",
                                          lb->element_shape.DebugString()));
      TensorList list = *la;
      list.tensors.insert(list.tensors.end(), lb->tensors.begin(), lb->tensors.end());
      out->base<Variant>()[i] = TensorListVariant(std::move(list));
    }
  }

 private:
  // The list at element i of `t` (input `what`) of this op's element dtype; fails the kernel
  // and returns nullptr otherwise.
  const TensorList* ListAt(OpKernelContext* ctx, const Tensor& t, int64_t i, const char* what) const {
    const Variant* v = t.dtype() == tensorflow::DT_VARIANT ? &t.base<Variant>()[i] : nullptr;
    const TensorList* list = v != nullptr ? v->get<TensorList>() : nullptr;
    if (list == nullptr) {
      ctx->SetStatus(errors::InvalidArgument("node '", name(), "': ", what, " is not a TensorList at index ", i,
                                             ".  Saw: '", v != nullptr ? v->DebugString() : "", "'"));
    } else if (list->element_dtype != element_dtype_) {
      ctx->SetStatus(errors::InvalidArgument("node '", name(), "': ", what, "[", i, "].dtype != element_dtype.  Saw: ",
                                             DataTypeString(list->element_dtype), " vs. ",
                                             DataTypeString(element_dtype_)));
      list = nullptr;
    }
    return list;
  }
  // TensorFlow's IsIdenticalTo: the same rank known or not, the same dimensions known or not.
  static bool SameShape(const PartialTensorShape& x, const PartialTensorShape& y) {
    if (x.dims() != y.dims()) return false;
    for (int d = 0; d < x.dims(); ++d) {
      if (x.dim_size(d) != y.dim_size(d)) return false;
    }
    return true;
  }
};

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
REGISTER_KERNEL(Name("TensorListLength").Device(DEVICE_CPU), LengthOp);
REGISTER_KERNEL(Name("TensorListResize").Device(DEVICE_CPU), ResizeOp);
REGISTER_KERNEL(Name("TensorListElementShape").Device(DEVICE_CPU), ElementShapeOp);
REGISTER_KERNEL(Name("TensorListPushBackBatch").Device(DEVICE_CPU), PushBackBatchOp);
REGISTER_KERNEL(Name("TensorListConcatLists").Device(DEVICE_CPU), ConcatListsOp);
REGISTER_KERNEL(Name("AddN").Device(DEVICE_CPU).TypeConstraint("T", tensorflow::DT_VARIANT), AddNListsOp);
REGISTER_KERNEL(Name("ZerosLike").Device(DEVICE_CPU).TypeConstraint("T", tensorflow::DT_VARIANT), ZerosLikeListOp);

}  // namespace
}  // namespace tensoract
