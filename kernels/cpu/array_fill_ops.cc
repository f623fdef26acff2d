// Fill, ZerosLike and OnesLike on the CPU: one value written over a new buffer, by
// element size (a float and an int32 fill the same way), on the device's thread pool.
#include <unsupported/Eigen/CXX11/Tensor>

#include <complex>
#include <cstring>
#include <vector>

#include "kernels/kernel_registry.h"

namespace tensoract {
namespace {

using Index = Eigen::DenseIndex;

template <class U>
void FillWith(const Eigen::ThreadPoolDevice& d, void* out, int64_t n, const void* value) {
  U v;
  std::memcpy(&v, value, sizeof(U));
  Eigen::TensorMap<Eigen::Tensor<U, 1, Eigen::RowMajor, Index>> o(static_cast<U*>(out), n);
  o.device(d) = o.constant(v);
}

// Writes the element at `value` (DataTypeSize(t.dtype()) bytes) over every element of `t`.
void FillBytes(const Eigen::ThreadPoolDevice& d, Tensor* t, const void* value) {
  const int64_t n = t->NumElements();
  if (n == 0) return;
  void* out = t->data();
  switch (DataTypeSize(t->dtype())) {
    case 1: FillWith<uint8_t>(d, out, n, value); break;
    case 2: FillWith<uint16_t>(d, out, n, value); break;
    case 4: FillWith<uint32_t>(d, out, n, value); break;
    case 8: FillWith<uint64_t>(d, out, n, value); break;
    default: {
      const size_t size = DataTypeSize(t->dtype());
      char* p = static_cast<char*>(out);
      for (int64_t i = 0; i < n; ++i) std::memcpy(p + i * size, value, size);
    }
  }
}

class FillOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& dims_t = ctx->input(0);
    const Tensor& value = ctx->input(1);
    OP_REQUIRES(ctx, dims_t.dims() <= 1,
                errors::InvalidArgument(KernelWhere(*this), "dims must represent a vector, got shape ",
                                        dims_t.shape().DebugString()));
    OP_REQUIRES(ctx, value.dims() == 0,
                errors::InvalidArgument(KernelWhere(*this), "value must represent a scalar, got shape ",
                                        value.shape().DebugString()));
    std::vector<int64_t> dims(dims_t.NumElements());
    for (int64_t i = 0; i < dims_t.NumElements(); ++i) {
      dims[i] = dims_t.dtype() == tensorflow::DT_INT32 ? dims_t.base<int32_t>()[i] : dims_t.base<int64_t>()[i];
      OP_REQUIRES(ctx, dims[i] >= 0,
                  errors::InvalidArgument(KernelWhere(*this), "Dimension ", dims[i], " must be >= 0"));
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(dims), &out));
    if (value.dtype() == tensorflow::DT_STRING) {
      for (int64_t i = 0; i < out->NumElements(); ++i) out->base<std::string>()[i] = value.base<std::string>()[0];
      return;
    }
    FillBytes(*ctx->device()->eigen_cpu_device(), out, value.data());
  }
};

// ZerosLike (kOne false) and OnesLike.
template <class T, bool kOne>
class ConstantLikeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, ctx->input(0).shape(), &out));
    const T value = kOne ? T(1) : T(0);
    FillBytes(*ctx->device()->eigen_cpu_device(), out, &value);
  }
};

REGISTER_KERNEL(Name("Fill").Device(DEVICE_CPU).TypeConstraint(
                    "T", {tensorflow::DT_FLOAT, tensorflow::DT_DOUBLE, tensorflow::DT_INT32, tensorflow::DT_INT64,
                          tensorflow::DT_BOOL, tensorflow::DT_UINT8, tensorflow::DT_INT8, tensorflow::DT_INT16,
                          tensorflow::DT_UINT16, tensorflow::DT_UINT32, tensorflow::DT_UINT64, tensorflow::DT_HALF,
                          tensorflow::DT_BFLOAT16, tensorflow::DT_COMPLEX64, tensorflow::DT_COMPLEX128,
                          tensorflow::DT_STRING}),
                FillOp);

#define TA_REGISTER_LIKE(T)                                                                              \
  REGISTER_KERNEL(Name("ZerosLike").Device(DEVICE_CPU).TypeConstraint<T>("T"), ConstantLikeOp<T, false>); \
  REGISTER_KERNEL(Name("OnesLike").Device(DEVICE_CPU).TypeConstraint<T>("T"), ConstantLikeOp<T, true>);
TA_REGISTER_LIKE(float)
TA_REGISTER_LIKE(double)
TA_REGISTER_LIKE(int32_t)
TA_REGISTER_LIKE(int64_t)
TA_REGISTER_LIKE(bool)
TA_REGISTER_LIKE(uint8_t)
TA_REGISTER_LIKE(int8_t)
TA_REGISTER_LIKE(int16_t)
TA_REGISTER_LIKE(uint16_t)
TA_REGISTER_LIKE(uint32_t)
TA_REGISTER_LIKE(uint64_t)
TA_REGISTER_LIKE(Eigen::half)
TA_REGISTER_LIKE(Eigen::bfloat16)
TA_REGISTER_LIKE(complex64)
TA_REGISTER_LIKE(complex128)
#undef TA_REGISTER_LIKE

}  // namespace
}  // namespace tensoract
