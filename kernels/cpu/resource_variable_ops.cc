// Resource variables: VarHandleOp makes a handle naming a Var in the device's
// ResourceMgr; ReadVariableOp, AssignVariableOp, AssignAdd/SubVariableOp,
// VarIsInitializedOp, DestroyResourceOp and DisableCopyOnRead use it. Unlike reference
// variables, a value once read never changes: writers update in place only when nobody
// else holds the buffer, and copy it otherwise.
//
// None of these kernels touches a tensor's elements except through the device
// (Device::CopyOnDevice), so the same kernels serve the GPU: the variable's value stays in
// the GPU's memory, its handle in host memory.
#include <limits>

#include "kernels/cpu/dense_update.h"
#include "kernels/kernel_registry.h"
#include "kernels/variable.h"

namespace tensoract {
namespace {

class VarHandleOp : public OpKernel {
 public:
  explicit VarHandleOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string container, shared_name;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("container", &container));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("shared_name", &shared_name));
    if (shared_name.empty()) shared_name = name();
    // The handle never changes: made once, shared by every step.
    handle_ = Tensor(tensorflow::DT_RESOURCE, TensorShape());
    *handle_.base<ResourceHandle>() = ctx->device()->resource_manager()->MakeHandle<Var>(container, shared_name);
  }
  void Compute(OpKernelContext* ctx) override { ctx->set_output(0, handle_); }
  bool IsExpensive() const override { return false; }

 private:
  Tensor handle_;
};

REGISTER_KERNEL(Name("VarHandleOp").Device(DEVICE_CPU), VarHandleOp);
// On a GPU: the variables its kernels update (the optimizers' Apply* kernels).
REGISTER_KERNEL(Name("VarHandleOp").Device(DEVICE_GPU).TypeConstraint("dtype", {tensorflow::DT_FLOAT, tensorflow::DT_DOUBLE}),
                VarHandleOp);

const ResourceHandle& HandleInput(OpKernelContext* ctx) { return *ctx->input(0).base<ResourceHandle>(); }

// The variable the handle in input 0 names, or FailedPrecondition in TensorFlow's words.
StatusOr<std::shared_ptr<Var>> LookupVar(OpKernelContext* ctx) {
  const ResourceHandle& h = HandleInput(ctx);
  auto var = ctx->resource_manager()->Lookup<Var>(h);
  if (errors::IsNotFound(var.status())) {
    return errors::FailedPrecondition("Could not find variable ", h.name(), ". This could mean that the variable "
                                      "has been deleted. In TF1, it can also mean the variable is uninitialized. "
                                      "Debug info: container=", h.container(), ", status error message=",
                                      var.status().message());
  }
  return var;
}

class ReadVariableOp : public OpKernel {
 public:
  explicit ReadVariableOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
  }
  void Compute(OpKernelContext* ctx) override {
    auto var = LookupVar(ctx);
    OP_REQUIRES_OK(ctx, var.status());
    OP_REQUIRES(ctx, var.value()->dtype() == dtype_,
                errors::InvalidArgument("Trying to read variable ", var.value()->name(), " with wrong dtype. Expected ",
                                        DataTypeString(dtype_), " got ", DataTypeString(var.value()->dtype())));
    auto value = var.value()->Read();
    OP_REQUIRES_OK(ctx, value.status());
    ctx->set_output(0, value.value());
  }
  bool IsExpensive() const override { return false; }

 private:
  DataType dtype_ = tensorflow::DT_INVALID;
};

REGISTER_KERNEL(Name("ReadVariableOp").Device(DEVICE_CPU), ReadVariableOp);
REGISTER_KERNEL(Name("ReadVariableOp").Device(DEVICE_GPU).TypeConstraint("dtype", {tensorflow::DT_FLOAT, tensorflow::DT_DOUBLE}),
                ReadVariableOp);

// The variable's shape (TensorFlow's VariableShape), in int32 or int64; an int32 too small for
// a dimension is InvalidArgument.
class VariableShapeOp : public OpKernel {
 public:
  explicit VariableShapeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("out_type", &out_type_));
  }
  void Compute(OpKernelContext* ctx) override {
    auto var = LookupVar(ctx);
    OP_REQUIRES_OK(ctx, var.status());
    auto value = var.value()->Read();
    OP_REQUIRES_OK(ctx, value.status());
    const TensorShape& shape = value.value().shape();
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({shape.dims()}), &out));
    for (int i = 0; i < shape.dims(); ++i) {
      if (out_type_ == tensorflow::DT_INT64) {
        out->base<int64_t>()[i] = shape.dim_size(i);
      } else {
        OP_REQUIRES(ctx, shape.dim_size(i) <= std::numeric_limits<int32_t>::max(),
                    errors::InvalidArgument("variable ", var.value()->name(), "'s dimension ", i, " (",
                                            shape.dim_size(i), ") does not fit in int32"));
        out->base<int32_t>()[i] = static_cast<int32_t>(shape.dim_size(i));
      }
    }
  }
  bool IsExpensive() const override { return false; }

 private:
  DataType out_type_ = tensorflow::DT_INT32;
};

REGISTER_KERNEL(Name("VariableShape").Device(DEVICE_CPU), VariableShapeOp);

class AssignVariableOp : public OpKernel {
 public:
  explicit AssignVariableOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
    // Older graphs lack the attr; TensorFlow's default is false.
    if (!ctx->GetAttr("validate_shape", &validate_shape_).ok()) validate_shape_ = false;
  }
  void Compute(OpKernelContext* ctx) override {
    const ResourceHandle& h = HandleInput(ctx);
    const Tensor& value = ctx->input(1);
    OP_REQUIRES(ctx, value.dtype() == dtype_,
                errors::InvalidArgument("node '", name(), "' assigns a ", DataTypeString(value.dtype()),
                                        " value but declares dtype ", DataTypeString(dtype_)));
    auto var = ctx->resource_manager()->LookupOrCreate<Var>(
        h.container(), h.name(), [&]() -> StatusOr<std::shared_ptr<Var>> { return std::make_shared<Var>(dtype_, h.name()); });
    OP_REQUIRES_OK(ctx, var.status());
    Var& v = *var.value();
    OP_REQUIRES(ctx, v.dtype() == dtype_,
                errors::InvalidArgument("Trying to assign variable with wrong dtype. Expected ",
                                        DataTypeString(v.dtype()), " got ", DataTypeString(dtype_), " (variable ",
                                        v.name(), ")"));
    std::lock_guard<std::mutex> lock(*v.mu());
    Tensor* lhs = v.tensor();
    const bool same_shape = v.is_initialized && lhs->shape() == value.shape();
    OP_REQUIRES(ctx, !validate_shape_ || !v.is_initialized || same_shape,
                errors::InvalidArgument("Trying to assign to variable ", v.name(), " with shape ",
                                        lhs->shape().DebugString(), " a value of shape ", value.shape().DebugString()));
    if (value.RefCountIsOne()) {
      // This step's last user of the value (an optimizer's update, mostly): the variable
      // adopts its buffer instead of copying it, as TensorFlow's forward_input does. A
      // training step of ResNet50 copied its 25M weights here: 29 of ~620 ms.
      *lhs = value;
    } else if (same_shape && lhs->RefCountIsOne() && ctx->device()->allocator()->IsHostMemory()) {
      OP_REQUIRES_OK(ctx, ApplyDenseUpdate(DenseUpdate::kAssign, value, lhs, v.name()));
    } else {
      auto copy = ctx->device()->CopyOnDevice(value);  // readers keep the old buffer
      OP_REQUIRES_OK(ctx, copy.status());
      *lhs = std::move(copy).value();
    }
    v.is_initialized = true;
  }
  bool IsExpensive() const override { return false; }

 private:
  DataType dtype_ = tensorflow::DT_INVALID;
  bool validate_shape_ = false;
};

REGISTER_KERNEL(Name("AssignVariableOp").Device(DEVICE_CPU), AssignVariableOp);
REGISTER_KERNEL(Name("AssignVariableOp").Device(DEVICE_GPU).TypeConstraint("dtype", {tensorflow::DT_FLOAT, tensorflow::DT_DOUBLE}),
                AssignVariableOp);

template <DenseUpdate kOp>
class AssignUpdateVariableOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    auto var = LookupVar(ctx);
    OP_REQUIRES_OK(ctx, var.status());
    Var& v = *var.value();
    std::lock_guard<std::mutex> lock(*v.mu());
    OP_REQUIRES(ctx, v.is_initialized, errors::FailedPrecondition("Attempting to use uninitialized value ", v.name()));
    // Copy-on-write: a value a reader already took must not change under it.
    if (!v.tensor()->RefCountIsOne()) *v.tensor() = v.tensor()->DeepCopy(ctx->device()->allocator());
    OP_REQUIRES_OK(ctx, ApplyDenseUpdate(kOp, ctx->input(1), v.tensor(), v.name()));
  }
  bool IsExpensive() const override { return false; }
};

REGISTER_KERNEL(Name("AssignAddVariableOp").Device(DEVICE_CPU), AssignUpdateVariableOp<DenseUpdate::kAdd>);
REGISTER_KERNEL(Name("AssignSubVariableOp").Device(DEVICE_CPU), AssignUpdateVariableOp<DenseUpdate::kSub>);

class VarIsInitializedOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    auto var = ctx->resource_manager()->Lookup<Var>(HandleInput(ctx));
    bool initialized = false;
    if (var.ok()) {
      std::lock_guard<std::mutex> lock(*var.value()->mu());
      initialized = var.value()->is_initialized;
    }
    ctx->set_output(0, Tensor::Scalar<bool>(initialized));
  }
  bool IsExpensive() const override { return false; }
};

REGISTER_KERNEL(Name("VarIsInitializedOp").Device(DEVICE_CPU), VarIsInitializedOp);

class DestroyResourceOp : public OpKernel {
 public:
  explicit DestroyResourceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("ignore_lookup_error", &ignore_lookup_error_));
  }
  void Compute(OpKernelContext* ctx) override {
    const ResourceHandle& h = HandleInput(ctx);
    Status s = ctx->resource_manager()->Delete<Var>(h.container(), h.name());
    OP_REQUIRES(ctx, s.ok() || (ignore_lookup_error_ && errors::IsNotFound(s)), s);
  }
  bool IsExpensive() const override { return false; }

 private:
  bool ignore_lookup_error_ = true;
};

REGISTER_KERNEL(Name("DestroyResourceOp").Device(DEVICE_CPU), DestroyResourceOp);

// TensorFlow's variables have a copy-on-read mode (its sparse kernels, ResourceGather and
// the ResourceScatter ops, switch it on) that this op turns off before a SavedModel save;
// ours always copy on write instead, so there is nothing to turn off. What remains is TensorFlow's check that the handle names a
// variable, failing as it fails: FailedPrecondition for a missing variable and for a
// handle to another kind of resource alike.
class DisableCopyOnReadOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& handle = ctx->input(0);
    OP_REQUIRES(ctx, handle.dtype() == tensorflow::DT_RESOURCE && handle.NumElements() == 1,
                errors::InvalidArgument("node '", name(), "': input 0 is not a variable handle"));
    const ResourceHandle& h = *handle.base<ResourceHandle>();
    auto var = ctx->resource_manager()->Lookup<Var>(h);
    OP_REQUIRES(ctx, var.ok(),
                errors::FailedPrecondition("Could not find variable ", h.name(), ". This could mean that the variable "
                                           "has been deleted. In TF1, it can also mean the variable is uninitialized. "
                                           "Debug info: container=", h.container(), ", status error message=",
                                           var.status().message()));
  }
  bool IsExpensive() const override { return false; }
};

REGISTER_KERNEL(Name("DisableCopyOnRead").Device(DEVICE_CPU), DisableCopyOnReadOp);

}  // namespace
}  // namespace tensoract
