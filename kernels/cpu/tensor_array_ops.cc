// TensorFlow 1's TensorArrays (graph/ops/tensor_array_ops.cc): a resource in its step's
// container (StepContainerName), so it goes with the step or with TensorArrayCloseV3, as a
// stack does (stack_ops.cc). Elements are written once and, where the array clears after
// reads (TensorFlow's default), read once. Messages are TensorFlow's. Rows move with the
// TensorList kernels' helpers (list_kernel_util.h). A gradient array (TensorArrayGradV3, one
// per forward array and gradient `source`) adds up the writes to an element, and reads an
// element nothing wrote as zeros of the forward element's shape, as TensorFlow's does.
#include <atomic>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "kernels/cpu/list_kernel_util.h"
#include "kernels/kernel_registry.h"
#include "kernels/resource_input.h"
#include "kernels/resource_mgr.h"

namespace tensoract {
namespace {

using list_kernels::AddTensors;
using list_kernels::AsTensorShape;
using list_kernels::CheckRows;
using list_kernels::IndicesInput;
using list_kernels::RowOf;
using list_kernels::ScalarInt32;

class TensorArray : public ResourceBase {
 public:
  TensorArray(std::string name, DataType dtype, PartialTensorShape element_shape, int32_t size, bool dynamic_size,
              bool clear_after_read, bool identical_element_shapes, bool aggregate_writes = false)
      : name_(std::move(name)), dtype_(dtype), element_shape_(std::move(element_shape)),
        dynamic_size_(dynamic_size), clear_after_read_(clear_after_read),
        identical_element_shapes_(identical_element_shapes), aggregate_writes_(aggregate_writes), elements_(size) {}

  // The gradient array for `source`, made (and registered in `container` under its own name)
  // the first time: as long as this one, its elements' shapes this one's written ones.
  StatusOr<std::string> GradientArray(ResourceMgr* rm, const std::string& container, const std::string& source) {
    std::lock_guard<std::mutex> lock(mu_);
    TA_RETURN_IF_ERROR(CheckOpen());
    const std::string grad_name = StrCat(name_, "@", source);
    if (grads_.insert(source).second) {
      auto grad = std::make_shared<TensorArray>(grad_name, dtype_, element_shape_, size(), false, true,
                                                identical_element_shapes_, true);
      for (size_t i = 0; i < elements_.size(); ++i) grad->elements_[i].shape = elements_[i].shape;
      TA_RETURN_IF_ERROR(rm->Create<TensorArray>(container, grad_name, grad));
    }
    return grad_name;
  }

  Status Write(int32_t index, const Tensor& value) {
    std::lock_guard<std::mutex> lock(mu_);
    TA_RETURN_IF_ERROR(CheckOpen());
    if (value.dtype() != dtype_) {
      return errors::InvalidArgument("TensorArray dtype is ", DataTypeString(dtype_), " but Op is trying to write dtype ",
                                     DataTypeString(value.dtype()), ".");
    }
    if (index < 0) return errors::InvalidArgument("Tried to write to index ", index, " but array size is: ", size());
    if (index >= size()) {
      if (!dynamic_size_) {
        return errors::InvalidArgument("TensorArray ", name_, ": Tried to write to index ", index,
                                       " but array is not resizeable and size is: ", size());
      }
      elements_.resize(static_cast<size_t>(index) + 1);
    }
    Element& e = elements_[index];
    if (e.written() && aggregate_writes_) return Aggregate(index, e, value);
    if (e.written()) {
      return errors::InvalidArgument("TensorArray ", name_, ": Could not write to TensorArray index ", index,
                                     " because it has already been written to.");
    }
    if (!element_shape_.IsCompatibleWith(value.shape())) {
      return errors::InvalidArgument("TensorArray ", name_, ": Could not write to TensorArray index ", index,
                                     " because the value shape is ", value.shape().DebugString(),
                                     " which is incompatible with the TensorArray's inferred element shape: ",
                                     element_shape_.DebugString(), " (consider setting infer_shape=False).");
    }
    if (identical_element_shapes_ && !element_shape_.IsFullyDefined()) {
      element_shape_ = PartialTensorShape(value.shape().dim_sizes());
    }
    e.value = value;
    e.shape = value.shape();
    return Status::OK();
  }

  // Element `index`; an unwritten one reads as zeros where the element shape is known.
  StatusOr<Tensor> Read(int32_t index) {
    std::lock_guard<std::mutex> lock(mu_);
    TA_RETURN_IF_ERROR(CheckOpen());
    if (index < 0 || index >= size()) {
      return errors::InvalidArgument("TensorArray ", name_, ": Tried to read from index ", index,
                                     " but array size is: ", size());
    }
    Element& e = elements_[index];
    if (e.cleared) {
      return errors::InvalidArgument("TensorArray ", name_, ": Could not read index ", index,
                                     " twice because it was cleared after a previous read (perhaps try setting "
                                     "clear_after_read = false?).");
    }
    if (!e.written() && e.shape) return ZerosTensor(dtype_, *e.shape);  // a gradient nothing reached
    if (!e.written()) {
      if (!element_shape_.IsFullyDefined()) {
        return errors::InvalidArgument("TensorArray ", name_, ": Could not read from TensorArray index ", index,
                                       ".  Furthermore, the element shape is not fully defined: ",
                                       element_shape_.DebugString(),
                                       ".  It is possible you are working with a resizeable TensorArray and "
                                       "stop_gradients is not allowing the gradients to be written.  If you set the "
                                       "full element_shape property on the forward TensorArray, the proper all-zeros "
                                       "tensor will be returned instead of incurring this error.");
      }
      return ZerosTensor(dtype_, AsTensorShape(element_shape_));
    }
    Tensor value = *e.value;
    if (clear_after_read_) {
      e.value.reset();
      e.cleared = true;
    }
    return value;
  }

  int32_t Size() {
    std::lock_guard<std::mutex> lock(mu_);
    return size();
  }
  void Close() {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
    elements_.clear();
  }
  Status CheckDtype(DataType requested) const {
    if (requested != dtype_) {
      return errors::InvalidArgument("TensorArray dtype is ", DataTypeString(dtype_), " but Op requested dtype ",
                                     DataTypeString(requested), ".");
    }
    return Status::OK();
  }
  PartialTensorShape element_shape() {
    std::lock_guard<std::mutex> lock(mu_);
    return element_shape_;
  }
  bool dynamic_size() const { return dynamic_size_; }
  std::string DebugString() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return StrCat("TensorArray ", name_, " of ", elements_.size(), " ", DataTypeString(dtype_),
                  closed_ ? ", closed" : "");
  }

 private:
  struct Element {
    std::optional<Tensor> value;
    std::optional<TensorShape> shape;  // the written value's, kept after a read clears it
    bool cleared = false;
    bool written() const { return value.has_value() || cleared; }
  };

  // A gradient array's second write to an element: the sum of the two.
  Status Aggregate(int32_t index, Element& e, const Tensor& value) {
    if (!e.value || e.value->shape() != value.shape()) {
      return errors::InvalidArgument("TensorArray ", name_, ": Could not aggregate to TensorArray index ", index,
                                     e.value ? StrCat(" because the existing shape is ", e.value->shape().DebugString(),
                                                      " but the new input shape is ", value.shape().DebugString())
                                             : std::string(" because it was cleared after a read"),
                                     ".");
    }
    TA_ASSIGN_OR_RETURN(e.value, AddTensors(*e.value, value));
    return Status::OK();
  }
  int32_t size() const { return static_cast<int32_t>(elements_.size()); }
  Status CheckOpen() const {
    return closed_ ? errors::InvalidArgument("TensorArray ", name_, " has already been closed.") : Status::OK();
  }

  const std::string name_;
  const DataType dtype_;
  PartialTensorShape element_shape_;
  const bool dynamic_size_, clear_after_read_, identical_element_shapes_, aggregate_writes_;
  mutable std::mutex mu_;
  std::vector<Element> elements_;
  std::set<std::string> grads_;  // the sources whose gradient arrays exist
  bool closed_ = false;
};

StatusOr<std::shared_ptr<TensorArray>> TensorArrayInput(OpKernelContext* ctx) {
  return LookupResourceInput<TensorArray>(ctx, 0, "TensorArray");
}

// Input 0's array for an op that reads elements out as its output 0's dtype; `verb` (Gather,
// Concat) for an op that copies them into one tensor, which needs a dtype CopyElements moves.
StatusOr<std::shared_ptr<TensorArray>> TensorArrayToRead(OpKernelContext* ctx, const char* verb = nullptr) {
  TA_ASSIGN_OR_RETURN(std::shared_ptr<TensorArray> array, TensorArrayInput(ctx));
  const DataType dtype = ctx->op_kernel().output_types()[0];
  TA_RETURN_IF_ERROR(array->CheckDtype(dtype));
  if (verb != nullptr && !CanCopyElements(dtype)) {
    return errors::Unimplemented("node '", ctx->op_kernel().name(), "': ", verb, " a TensorArray of ",
                                 DataTypeString(dtype));
  }
  return array;
}

// The flow input passed on: it only orders the ops on one array.
void PassTensorArrayFlow(OpKernelContext* ctx, int flow_input) { ctx->set_output(0, ctx->input(flow_input)); }

class TensorArrayOp : public OpKernel {
 public:
  explicit TensorArrayOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("element_shape", &element_shape_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dynamic_size", &dynamic_size_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("clear_after_read", &clear_after_read_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("identical_element_shapes", &identical_element_shapes_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("tensor_array_name", &array_name_));
    if (array_name_.empty()) array_name_ = name();
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& size = ctx->input(0);
    OP_REQUIRES(ctx, size.dtype() == tensorflow::DT_INT32 && size.dims() == 0,
                errors::InvalidArgument("node '", name(), "': TensorArray size must be scalar, but had shape: ",
                                        size.shape().DebugString()));
    const int32_t n = size.base<int32_t>()[0];
    OP_REQUIRES(ctx, n >= 0, errors::InvalidArgument("node '", name(), "': Size should be >= 0."));
    // A new array every time the node runs (in every iteration of a loop around it).
    static std::atomic<int64_t> counter{0};
    const std::string unique = StrCat(array_name_, "_", counter++);
    const std::string container = StepContainerName(ctx->step_id());
    ResourceMgr* rm = ctx->resource_manager();
    OP_REQUIRES_OK(ctx, rm->Create<TensorArray>(container, unique,
                                                std::make_shared<TensorArray>(unique, dtype_, element_shape_, n,
                                                                              dynamic_size_, clear_after_read_,
                                                                              identical_element_shapes_)));
    Tensor handle(tensorflow::DT_RESOURCE, TensorShape());
    *handle.base<ResourceHandle>() = rm->MakeHandle<TensorArray>(container, unique);
    ctx->set_output(0, handle);
    ctx->set_output(1, Tensor::Scalar<float>(0));
  }
  bool IsExpensive() const override { return false; }

 private:
  DataType dtype_ = tensorflow::DT_INVALID;
  PartialTensorShape element_shape_;
  bool dynamic_size_ = false, clear_after_read_ = true, identical_element_shapes_ = false;
  std::string array_name_;
};

class TensorArrayWriteOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    auto array = TensorArrayInput(ctx);
    OP_REQUIRES_OK(ctx, array.status());
    auto index = ScalarInt32(*this, ctx->input(1), "index");
    OP_REQUIRES_OK(ctx, index.status());
    OP_REQUIRES_OK(ctx, array.value()->Write(index.value(), ctx->input(2)));
    PassTensorArrayFlow(ctx, 3);
  }
  bool IsExpensive() const override { return false; }
};

class TensorArrayReadOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    auto array = TensorArrayToRead(ctx);
    OP_REQUIRES_OK(ctx, array.status());
    auto index = ScalarInt32(*this, ctx->input(1), "index");
    OP_REQUIRES_OK(ctx, index.status());
    auto value = array.value()->Read(index.value());
    OP_REQUIRES_OK(ctx, value.status());
    ctx->set_output(0, value.value());
  }
  bool IsExpensive() const override { return false; }
};

// Elements stacked (Gather) or joined (Concat) along a new or their first dimension into
// output 0 of `shape`.
void WriteTensorArrayElements(OpKernelContext* ctx, const std::vector<Tensor>& elements, const TensorShape& shape) {
  Tensor* out = nullptr;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
  int64_t at = 0;
  for (const Tensor& e : elements) {
    CopyElements(e, 0, out, at, e.NumElements());
    at += e.NumElements();
  }
}

class TensorArrayGatherOp : public OpKernel {
 public:
  explicit TensorArrayGatherOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("element_shape", &element_shape_));
  }
  void Compute(OpKernelContext* ctx) override {
    auto array = TensorArrayToRead(ctx, "gathering");
    OP_REQUIRES_OK(ctx, array.status());
    auto indices = IndicesInput(*this, ctx->input(1));
    OP_REQUIRES_OK(ctx, indices.status());
    std::vector<Tensor> elements;
    for (int64_t i : indices.value()) {
      auto value = array.value()->Read(static_cast<int32_t>(i));
      OP_REQUIRES_OK(ctx, value.status());
      if (!elements.empty() && value->shape() != elements[0].shape()) {
        ctx->SetStatus(errors::InvalidArgument("TensorArray has inconsistent shapes.  Index 0 has shape: ",
                                               elements[0].shape().DebugString(), " but index ", elements.size(),
                                               " has shape: ", value->shape().DebugString()));
        return;
      }
      elements.push_back(std::move(value).value());
    }
    std::vector<int64_t> dims = {static_cast<int64_t>(elements.size())};
    if (!elements.empty()) {
      for (int d = 0; d < elements[0].dims(); ++d) dims.push_back(elements[0].dim_size(d));
    } else {
      // No element to take a shape from: the op's, else the array's, must be known.
      PartialTensorShape shape = element_shape_.IsFullyDefined() ? element_shape_ : array.value()->element_shape();
      OP_REQUIRES(ctx, shape.IsFullyDefined(),
                  errors::Unimplemented("TensorArray has size zero, but element shape ", shape.DebugString(),
                                        " is not fully defined. Currently only static shapes are supported when "
                                        "packing zero-size TensorArrays."));
      for (int d = 0; d < shape.dims(); ++d) dims.push_back(shape.dim_size(d));
    }
    WriteTensorArrayElements(ctx, elements, TensorShape(dims));
  }
  bool IsExpensive() const override { return false; }

 private:
  PartialTensorShape element_shape_;
};

class TensorArrayScatterOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    auto array = TensorArrayInput(ctx);
    OP_REQUIRES_OK(ctx, array.status());
    auto indices = IndicesInput(*this, ctx->input(1));
    OP_REQUIRES_OK(ctx, indices.status());
    const Tensor& value = ctx->input(2);
    TensorShape row;
    OP_REQUIRES_OK(ctx, CheckRows(*this, value, &row));
    OP_REQUIRES(ctx, static_cast<int64_t>(indices->size()) == value.dim_size(0),
                errors::InvalidArgument("Expected len(indices) == values.shape[0], but saw: ", indices->size(),
                                        " vs. ", value.dim_size(0)));
    for (size_t i = 0; i < indices->size(); ++i) {
      auto element = RowOf(value, static_cast<int64_t>(i), row);
      OP_REQUIRES_OK(ctx, element.status());
      OP_REQUIRES_OK(ctx, array.value()->Write(static_cast<int32_t>((*indices)[i]), element.value()));
    }
    PassTensorArrayFlow(ctx, 3);
  }
  bool IsExpensive() const override { return false; }
};

class TensorArrayConcatOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    auto array = TensorArrayToRead(ctx, "concatenating");
    OP_REQUIRES_OK(ctx, array.status());
    const int32_t n = array.value()->Size();
    std::vector<Tensor> elements;
    Tensor lengths(tensorflow::DT_INT64, TensorShape({n}));
    int64_t rows = 0;
    for (int32_t i = 0; i < n; ++i) {
      auto value = array.value()->Read(i);
      OP_REQUIRES_OK(ctx, value.status());
      OP_REQUIRES(ctx, value->dims() > 0,
                  errors::InvalidArgument("Concat saw a scalar shape at index ", i,
                                          " but requires at least vectors.  Did you mean to call stack instead?"));
      if (!elements.empty()) {
        const TensorShape& first = elements[0].shape();
        bool same = first.dims() == value->dims();
        for (int d = 1; same && d < first.dims(); ++d) same = first.dim_size(d) == value->dim_size(d);
        OP_REQUIRES(ctx, same,
                    errors::InvalidArgument("TensorArray has inconsistent shapes.  Index 0 has (excepting dimension 0) "
                                            "shape: ", first.WithoutFirstDim().DebugString(), " but index ", i,
                                            " has (excepting dimension 0) shape: ",
                                            value->shape().WithoutFirstDim().DebugString()));
      }
      lengths.base<int64_t>()[i] = value->dim_size(0);
      rows += value->dim_size(0);
      elements.push_back(std::move(value).value());
    }
    OP_REQUIRES(ctx, !elements.empty(),
                errors::Unimplemented("TensorArray has size zero, but element shape <unknown> is not fully defined. "
                                      "Currently only static shapes are supported when concatenating zero-size "
                                      "TensorArrays."));
    std::vector<int64_t> dims = {rows};
    for (int d = 1; d < elements[0].dims(); ++d) dims.push_back(elements[0].dim_size(d));
    WriteTensorArrayElements(ctx, elements, TensorShape(dims));
    ctx->set_output(1, lengths);
  }
  bool IsExpensive() const override { return false; }
};

class TensorArraySplitOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    auto array = TensorArrayInput(ctx);
    OP_REQUIRES_OK(ctx, array.status());
    const Tensor& value = ctx->input(1);
    const Tensor& lengths = ctx->input(2);
    OP_REQUIRES(ctx, lengths.dtype() == tensorflow::DT_INT64 && lengths.dims() == 1,
                errors::InvalidArgument("Expected lengths to be a vector, received shape: ",
                                        lengths.shape().DebugString()));
    OP_REQUIRES(ctx, value.dims() > 0,
                errors::InvalidArgument("Expected value to be at least a vector, but received shape: ",
                                        value.shape().DebugString()));
    const int64_t* l = lengths.base<int64_t>();
    int64_t total = 0;
    for (int64_t i = 0; i < lengths.NumElements(); ++i) {
      OP_REQUIRES(ctx, l[i] >= 0, errors::InvalidArgument("node '", name(), "': length ", i, " is negative: ", l[i]));
      total += l[i];
    }
    OP_REQUIRES(ctx, total == value.dim_size(0),
                errors::InvalidArgument("Expected sum of lengths to be equal to values.shape[0], but sum of lengths "
                                        "is ", total, " and value's shape is: ", value.shape().DebugString()));
    const int32_t size = array.value()->Size();
    OP_REQUIRES(ctx, array.value()->dynamic_size() || size == lengths.NumElements(),
                errors::InvalidArgument("TensorArray's size is not equal to the size of lengths (",
                                        lengths.NumElements(), " vs. ", size,
                                        "), and the TensorArray is not marked as dynamically resizeable"));
    const TensorShape row = value.shape().WithoutFirstDim();
    const int64_t per_row = row.num_elements();
    int64_t first = 0;
    for (int64_t i = 0; i < lengths.NumElements(); ++i) {
      std::vector<int64_t> dims = {l[i]};
      for (int d = 0; d < row.dims(); ++d) dims.push_back(row.dim_size(d));
      const TensorShape shape(dims);
      auto piece = value.View(first * per_row, shape);
      if (!piece.ok()) {
        auto copy = Tensor::Allocate(cpu_allocator(), value.dtype(), shape);
        OP_REQUIRES_OK(ctx, copy.status());
        CopyElements(value, first * per_row, &copy.value(), 0, shape.num_elements());
        piece = std::move(copy);
      }
      OP_REQUIRES_OK(ctx, array.value()->Write(static_cast<int32_t>(i), piece.value()));
      first += l[i];
    }
    PassTensorArrayFlow(ctx, 3);
  }
  bool IsExpensive() const override { return false; }
};

// TensorArrayGradV3: the gradient array of input 0's array for `source` (the same one on
// every call with that source), and the flow passed on.
class TensorArrayGradOp : public OpKernel {
 public:
  explicit TensorArrayGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("source", &source_));
  }
  void Compute(OpKernelContext* ctx) override {
    auto array = TensorArrayInput(ctx);
    OP_REQUIRES_OK(ctx, array.status());
    const ResourceHandle& forward = *ctx->input(0).base<ResourceHandle>();
    ResourceMgr* rm = ctx->resource_manager();
    auto grad = array.value()->GradientArray(rm, forward.container(), source_);
    OP_REQUIRES_OK(ctx, grad.status());
    Tensor handle(tensorflow::DT_RESOURCE, TensorShape());
    *handle.base<ResourceHandle>() = rm->MakeHandle<TensorArray>(forward.container(), grad.value());
    ctx->set_output(0, handle);
    ctx->set_output(1, ctx->input(1));
  }
  bool IsExpensive() const override { return false; }

 private:
  std::string source_;
};

class TensorArraySizeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    auto array = TensorArrayInput(ctx);
    OP_REQUIRES_OK(ctx, array.status());
    ctx->set_output(0, Tensor::Scalar<int32_t>(array.value()->Size()));
  }
  bool IsExpensive() const override { return false; }
};

class TensorArrayCloseOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    auto array = TensorArrayInput(ctx);
    OP_REQUIRES_OK(ctx, array.status());
    array.value()->Close();
    const ResourceHandle& h = *ctx->input(0).base<ResourceHandle>();
    ctx->resource_manager()->Delete<TensorArray>(h.container(), h.name()).IgnoreError();
  }
  bool IsExpensive() const override { return false; }
};

REGISTER_KERNEL(Name("TensorArrayV3").Device(DEVICE_CPU), TensorArrayOp);
REGISTER_KERNEL(Name("TensorArrayWriteV3").Device(DEVICE_CPU), TensorArrayWriteOp);
REGISTER_KERNEL(Name("TensorArrayReadV3").Device(DEVICE_CPU), TensorArrayReadOp);
REGISTER_KERNEL(Name("TensorArrayGatherV3").Device(DEVICE_CPU), TensorArrayGatherOp);
REGISTER_KERNEL(Name("TensorArrayScatterV3").Device(DEVICE_CPU), TensorArrayScatterOp);
REGISTER_KERNEL(Name("TensorArrayConcatV3").Device(DEVICE_CPU), TensorArrayConcatOp);
REGISTER_KERNEL(Name("TensorArraySplitV3").Device(DEVICE_CPU), TensorArraySplitOp);
REGISTER_KERNEL(Name("TensorArraySizeV3").Device(DEVICE_CPU), TensorArraySizeOp);
REGISTER_KERNEL(Name("TensorArrayGradV3").Device(DEVICE_CPU), TensorArrayGradOp);
REGISTER_KERNEL(Name("TensorArrayCloseV3").Device(DEVICE_CPU), TensorArrayCloseOp);

}  // namespace
}  // namespace tensoract
