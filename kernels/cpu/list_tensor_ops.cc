// The TensorList ops between lists and tensors (TensorFlow 2's TensorArray stack, unstack,
// gather, scatter, concat and split): a list of a tensor's rows or slices, or a tensor of a
// list's elements, with TensorFlow's checks and messages. Unset elements read as zeros of the
// shape the list and the op's element_shape give them.
#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>
#include <vector>

#include "kernels/cpu/list_kernel_util.h"
#include "kernels/kernel_registry.h"
#include "kernels/tensor_list.h"

namespace tensoract {
namespace {

using namespace list_kernels;  // NOLINT: the kernels' shared helpers

// TensorListStack: the elements as one tensor, [length] + element shape.
class StackOp : public ElementTypedOp {
 public:
  explicit StackOp(OpKernelConstruction* ctx) : ElementTypedOp(ctx) {
    if (!ctx->GetAttr("num_elements", &num_elements_).ok()) num_elements_ = -1;
  }
  void Compute(OpKernelContext* ctx) override {
    const TensorList* in = TypedListInput(ctx, 0);
    if (in == nullptr) return;
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

// TensorListGather: the elements at `indices`, stacked (unset ones as zeros).
class GatherOp : public ElementTypedOp {
 public:
  using ElementTypedOp::ElementTypedOp;
  void Compute(OpKernelContext* ctx) override {
    const TensorList* in = TypedListInput(ctx, 0);
    if (in == nullptr) return;
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
    const TensorList* in = TypedListInput(ctx, 0);
    if (in == nullptr) return;
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
      if (i >= static_cast<int64_t>(out.tensors.size())) OP_REQUIRES_OK(ctx, ResizeList(*this, &out, i + 1));
      auto row = RowOf(t, static_cast<int64_t>(k), row_shape);
      OP_REQUIRES_OK(ctx, row.status());
      out.tensors[i] = std::move(row).value();
    }
    ctx->set_output(0, TensorListTensor(std::move(out)));
  }
};


// TensorListConcat and TensorListConcatV2: the elements (each at least a vector) joined along
// their first dimension, and each one's length there. An unset element reads as zeros of
// [its leading_dims entry, else the element shape's first dimension] + the rest of the
// element shape, as TensorFlow's kernel (the v1 op refuses unset elements without a known
// first dimension). Unlike TensorFlow 2.21, set elements are always checked against the
// element shape: its v1 op with a first dimension in `element_shape` that the elements do
// not have returns uninitialised memory.
class ConcatOp : public ElementTypedOp {
 public:
  explicit ConcatOp(OpKernelConstruction* ctx) : ElementTypedOp(ctx) {
    v1_ = type_string() == "TensorListConcat";
    if (v1_) OP_REQUIRES_OK(ctx, ctx->GetAttr("element_shape", &attr_shape_));
  }
  void Compute(OpKernelContext* ctx) override {
    PartialTensorShape rest;  // the element shape without its first dimension
    if (!attr_shape_.unknown_rank()) {
      OP_REQUIRES(ctx, attr_shape_.dims() > 0,
                  errors::InvalidArgument("node '", name(), "': element_shape must not be empty"));
      rest = attr_shape_.WithoutFirstDim();
    }
    const TensorList* in = TypedListInput(ctx, 0);
    if (in == nullptr) return;
    int64_t first_dim = -1;
    if (!v1_) {
      auto given = ElementShapeFromTensor(ctx->input(1));
      OP_REQUIRES_OK(ctx, given.status());
      auto shape = MergeShapes(given.value(), in->element_shape);
      OP_REQUIRES_OK(ctx, Named(shape.status()));
      const PartialTensorShape& element = shape.value();
      OP_REQUIRES(ctx, element.unknown_rank() || element.dims() >= 1,
                  errors::InvalidArgument("node '", name(), "': Concat requires elements to be at least vectors, "
                                          "found scalars instead."));
      if (!element.unknown_rank()) first_dim = element.dim_size(0);
      rest = element.WithoutFirstDim();
    }
    const int64_t n = static_cast<int64_t>(in->tensors.size());
    OP_REQUIRES(ctx, n > 0 || rest.IsFullyDefined(),
                errors::InvalidArgument("node '", name(), "': All except the first dimension must be fully defined "
                                        "when concating an empty tensor list. element_shape: ", rest.DebugString()));
    // TensorFlow learns the rest of the shape, and a first dimension all elements share,
    // from the set elements only when the list's element shape leaves something unknown.
    const bool infer = !in->element_shape.IsFullyDefined();
    int64_t inferred = first_dim;
    bool first_seen = false;
    for (int64_t i = 0; i < n; ++i) {
      const auto& t = in->tensors[i];
      if (!t) continue;
      OP_REQUIRES(ctx, t->dims() >= 1,
                  errors::InvalidArgument("node '", name(), "': Concat saw a scalar shape at index ", i,
                                          " but requires at least vectors."));
      const TensorShape t_rest = t->shape().WithoutFirstDim();
      if (!infer) {
        OP_REQUIRES(ctx, rest.IsCompatibleWith(t_rest),
                    errors::InvalidArgument("node '", name(), "': element ", i, " of shape ", t->shape().DebugString(),
                                            " does not fit the element shape's ", rest.DebugString()));
        continue;
      }
      auto merged = MergeShapes(rest, PartialTensorShape(t_rest.dim_sizes()));
      OP_REQUIRES_OK(ctx, Named(merged.status()));
      rest = merged.value();
      OP_REQUIRES(ctx, first_dim == -1 || first_dim == t->dim_size(0),
                  errors::InvalidArgument("node '", name(), "': First entry of element_shape input does not match "
                                          "the first dim of list element at index: ", i, " Expected: ", first_dim,
                                          " Actual: ", t->dim_size(0)));
      if (first_dim == -1) {
        if (!first_seen) inferred = t->dim_size(0);
        else if (inferred != t->dim_size(0)) inferred = -1;
        first_seen = true;
      }
    }
    if (infer && first_dim == -1) first_dim = inferred;
    OP_REQUIRES(ctx, rest.IsFullyDefined(),
                errors::InvalidArgument("node '", name(), "': Trying to concat list with only uninitialized tensors "
                                        "but element_shape_except_first_dim is not fully defined: ",
                                        rest.DebugString()));
    OP_REQUIRES(ctx, CanCopyElements(element_dtype_),
                errors::Unimplemented("node '", name(), "': concatenating a list of ", DataTypeString(element_dtype_)));
    const Tensor* leading = v1_ ? nullptr : &ctx->input(2);
    OP_REQUIRES(ctx, leading == nullptr || leading->dims() == 1,
                errors::InvalidArgument("node '", name(), "': leading_dims must be a vector, not a tensor of shape ",
                                        leading->shape().DebugString()));
    Tensor* lengths = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({n}), &lengths));
    int64_t total = 0;
    for (int64_t i = 0; i < n; ++i) {
      int64_t dim = first_dim;
      if (in->tensors[i]) {
        dim = in->tensors[i]->dim_size(0);
      } else if (leading != nullptr && i < leading->NumElements()) {
        dim = leading->base<int64_t>()[i];
        OP_REQUIRES(ctx, dim >= 0,
                    errors::InvalidArgument("node '", name(), "': leading_dims[", i, "] is negative: ", dim));
      } else if (dim == -1) {
        OP_REQUIRES(ctx, !v1_,
                    errors::InvalidArgument("node '", name(), "': Concating lists with uninitialized tensors is not "
                                            "supported in this version of TensorListConcat. Consider updating your "
                                            "GraphDef to run the newer version."));
        ctx->SetStatus(errors::InvalidArgument("node '", name(), "': List contains uninitialized tensor at index ", i,
                                               " but leading_dims has only ", leading->NumElements(), " elements."));
        return;
      }
      lengths->base<int64_t>()[i] = dim;
      OP_REQUIRES(ctx, dim <= std::numeric_limits<int64_t>::max() - total,
                  errors::InvalidArgument("node '", name(), "': the elements' lengths overflow int64"));
      total += dim;
    }
    std::vector<int64_t> out_dims = {total};
    for (int d = 0; d < rest.dims(); ++d) out_dims.push_back(rest.dim_size(d));
    auto out_shape = TensorShape::FromDims(out_dims);  // leading_dims come from outside: no overflow
    OP_REQUIRES_OK(ctx, out_shape.status());
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape.value(), &out));
    const int64_t row = AsTensorShape(rest).num_elements();
    int64_t at = 0;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t count = lengths->base<int64_t>()[i] * row;
      if (in->tensors[i]) {
        CopyElements(*in->tensors[i], 0, out, at, count);
      } else {
        ZeroRow(out, at, count);
      }
      at += count;
    }
  }

 private:
  Status Named(const Status& s) const {
    return s.ok() ? s : errors::InvalidArgument("node '", name(), "': ", s.message());
  }
  bool v1_ = false;
  PartialTensorShape attr_shape_;  // v1's element_shape attr; unknown rank for V2
};

// TensorListSplit: a list of consecutive slices of `tensor` along its first dimension,
// lengths[i] rows each, all of them used.
class SplitOp : public ElementTypedOp {
 public:
  using ElementTypedOp::ElementTypedOp;
  void Compute(OpKernelContext* ctx) override {
    auto given = ElementShapeFromTensor(ctx->input(1));
    OP_REQUIRES_OK(ctx, given.status());
    const PartialTensorShape& element = given.value();
    OP_REQUIRES(ctx, element.unknown_rank() || element.dims() >= 1,
                errors::InvalidArgument("node '", name(), "': TensorListSplit requires element_shape to be at least "
                                        "of rank 1, but saw: ", element.DebugString()));
    const Tensor& t = ctx->input(0);
    TensorShape row_shape;
    OP_REQUIRES_OK(ctx, CheckRows(*this, t, &row_shape));
    OP_REQUIRES(ctx, element.WithoutFirstDim().IsCompatibleWith(row_shape),
                errors::InvalidArgument("node '", name(), "': tensor shape ", t.shape().DebugString(),
                                        " is not compatible with element_shape ", element.DebugString()));
    const Tensor& lengths = ctx->input(2);
    OP_REQUIRES(ctx, lengths.dims() == 1,
                errors::InvalidArgument("node '", name(), "': Expected lengths to be a vector, received shape: ",
                                        lengths.shape().DebugString()));
    TensorList list;
    list.element_dtype = t.dtype();
    list.element_shape = element;
    list.tensors.reserve(lengths.NumElements());
    const int64_t rows = t.dim_size(0), row = row_shape.num_elements();
    int64_t start = 0;
    for (int64_t i = 0; i < lengths.NumElements(); ++i) {
      const int64_t length = lengths.base<int64_t>()[i];
      OP_REQUIRES(ctx, length >= 0,
                  errors::InvalidArgument("node '", name(), "': Invalid value in lengths: ", length));
      OP_REQUIRES(ctx, length <= rows - start,
                  errors::InvalidArgument("node '", name(), "': Attempting to slice [", start, ", ", start + length,
                                          "] from tensor with length ", rows));
      TensorShape slice_shape({length});
      for (int d = 0; d < row_shape.dims(); ++d) slice_shape.AddDim(row_shape.dim_size(d));
      auto slice = Tensor::Allocate(cpu_allocator(), t.dtype(), slice_shape);
      OP_REQUIRES_OK(ctx, slice.status());
      CopyElements(t, start * row, &slice.value(), 0, length * row);
      list.tensors.emplace_back(std::move(slice).value());
      start += length;
    }
    OP_REQUIRES(ctx, start == rows,
                errors::InvalidArgument("node '", name(), "': Unused values in tensor. Length of tensor: ", rows,
                                        " Values used: ", start));
    ctx->set_output(0, TensorListTensor(std::move(list)));
  }
};

// TensorListScatter and TensorListScatterV2: a new list with row k of `tensor` as element
// indices[k] (the last of repeated indices wins), as long as the largest index needs or
// V2's num_elements; elements no index names are unset.
class NewScatterOp : public ElementTypedOp {
 public:
  using ElementTypedOp::ElementTypedOp;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& shape_input = ctx->input(2);
    OP_REQUIRES(ctx, shape_input.dims() <= 1,
                errors::InvalidArgument("node '", name(), "': TensorListScatter: element_shape must be at most rank 1 "
                                        "but has the shape of ", shape_input.shape().DebugString()));
    auto given = ElementShapeFromTensor(shape_input);
    OP_REQUIRES_OK(ctx, given.status());
    int64_t num_elements = -1;
    if (ctx->num_inputs() >= 4) {
      auto n = ScalarInt32(*this, ctx->input(3), "num_elements");
      OP_REQUIRES_OK(ctx, n.status());
      num_elements = n.value();
    }
    OP_REQUIRES(ctx, num_elements >= -1,
                errors::InvalidArgument("node '", name(), "': TensorListScatter expects num_elements >= -1, found: ",
                                        num_elements));
    const Tensor& t = ctx->input(0);
    TensorShape row_shape;
    OP_REQUIRES_OK(ctx, CheckRows(*this, t, &row_shape));
    OP_REQUIRES(ctx, given.value().IsCompatibleWith(row_shape),
                errors::InvalidArgument("node '", name(), "': Specified a list with shape ",
                                        given.value().DebugString(), " from a tensor with shape ",
                                        row_shape.DebugString()));
    const Tensor& indices = ctx->input(1);
    OP_REQUIRES(ctx, indices.dtype() == tensorflow::DT_INT32,
                errors::InvalidArgument("node '", name(), "': indices must be int32, not ",
                                        DataTypeString(indices.dtype())));
    OP_REQUIRES(ctx, indices.NumElements() == t.dim_size(0),
                errors::InvalidArgument("node '", name(), "': Invalid number of rows in input tensor. Expected: ",
                                        indices.NumElements(), " Actual: ", t.dim_size(0)));
    const int32_t* index = indices.base<int32_t>();
    int64_t highest = -1;
    for (int64_t k = 0; k < indices.NumElements(); ++k) {
      OP_REQUIRES(ctx, index[k] >= 0,
                  errors::InvalidArgument("node '", name(), "': Indices in TensorListScatter must all be "
                                          "non-negative."));
      OP_REQUIRES(ctx, num_elements == -1 || index[k] < num_elements,
                  errors::InvalidArgument("node '", name(), "': TensorListScatter: Trying to scatter at index ",
                                          index[k], " in list with size ", num_elements));
      highest = std::max<int64_t>(highest, index[k]);
    }
    TensorList list;
    list.element_dtype = t.dtype();
    list.element_shape = given.value();
    OP_REQUIRES_OK(ctx, ResizeList(*this, &list, std::max(highest + 1, num_elements)));
    for (int64_t k = 0; k < indices.NumElements(); ++k) {
      auto row = RowOf(t, k, row_shape);
      OP_REQUIRES_OK(ctx, row.status());
      list.tensors[index[k]] = std::move(row).value();
    }
    ctx->set_output(0, TensorListTensor(std::move(list)));
  }
};

REGISTER_KERNEL(Name("TensorListStack").Device(DEVICE_CPU), StackOp);
REGISTER_KERNEL(Name("TensorListFromTensor").Device(DEVICE_CPU), FromTensorOp);
REGISTER_KERNEL(Name("TensorListGather").Device(DEVICE_CPU), GatherOp);
REGISTER_KERNEL(Name("TensorListScatterIntoExistingList").Device(DEVICE_CPU), ScatterOp);

REGISTER_KERNEL(Name("TensorListConcat").Device(DEVICE_CPU), ConcatOp);
REGISTER_KERNEL(Name("TensorListConcatV2").Device(DEVICE_CPU), ConcatOp);
REGISTER_KERNEL(Name("TensorListSplit").Device(DEVICE_CPU), SplitOp);
REGISTER_KERNEL(Name("TensorListScatter").Device(DEVICE_CPU), NewScatterOp);
REGISTER_KERNEL(Name("TensorListScatterV2").Device(DEVICE_CPU), NewScatterOp);
}  // namespace
}  // namespace tensoract
