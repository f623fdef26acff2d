// ArgMax and ArgMin on the CPU: Eigen's index reductions over the middle of [A, B, C]
// (B is the `dimension` axis), on the device's thread pool. The reduction is compiled once
// per input type, into int64 indices; a narrower output_type narrows them after (each
// reduction instantiated for every output type took four times the compile for nothing).
// ArgMax's int16 and uint16 output_types wrap an index past their range, as TensorFlow's
// cast<Tout> of Eigen's index does.
#include <unsupported/Eigen/CXX11/Tensor>

#include <algorithm>
#include <vector>

#include "kernels/kernel_registry.h"
#include "kernels/tensor_eigen.h"

namespace tensoract {
namespace {

using Index = Eigen::DenseIndex;

template <class T, bool kMax>
class ArgOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& dim = ctx->input(1);
    OP_REQUIRES(ctx, dim.NumElements() == 1 && dim.dims() <= 1,
                errors::InvalidArgument("node '", name(), "' (", type_string(),
                                        "): dim must be a scalar, but received tensor of shape: ",
                                        dim.shape().DebugString()));
    int64_t axis = 0;
    switch (dim.dtype()) {
      case tensorflow::DT_INT16: axis = dim.base<int16_t>()[0]; break;
      case tensorflow::DT_INT32: axis = dim.base<int32_t>()[0]; break;
      default: axis = dim.base<int64_t>()[0]; break;
    }
    const int rank = input.dims();
    OP_REQUIRES(ctx, axis >= -rank && axis < rank,
                errors::InvalidArgument("node '", name(), "' (", type_string(),
                                        "): Expected dimension in the range [", -rank, ", ", rank,
                                        "), but got ", axis));
    if (axis < 0) axis += rank;
    OP_REQUIRES(ctx, input.dim_size(static_cast<int>(axis)) > 0,
                errors::InvalidArgument("node '", name(), "' (", type_string(), "): Reduction axis ", axis,
                                        " is empty in shape ", input.shape().DebugString()));
    std::vector<int64_t> out_dims;
    Index a = 1, c = 1;
    for (int d = 0; d < rank; ++d) {
      if (d == axis) continue;
      out_dims.push_back(input.dim_size(d));
      (d < axis ? a : c) *= input.dim_size(d);
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(out_dims), &out));
    if (out->NumElements() == 0) return;
    Eigen::TensorMap<Eigen::Tensor<const T, 3, Eigen::RowMajor, Index>> in(input.base<T>(), a,
                                                                            input.dim_size(static_cast<int>(axis)), c);
    const bool wide = out->dtype() == tensorflow::DT_INT64;
    std::vector<int64_t> narrowed(wide ? 0 : out->NumElements());
    Eigen::TensorMap<Eigen::Tensor<int64_t, 2, Eigen::RowMajor, Index>> o(
        wide ? out->base<int64_t>() : narrowed.data(), a, c);
    const Eigen::ThreadPoolDevice& d = *ctx->device()->eigen_cpu_device();
    if (kMax) o.device(d) = in.argmax(1).template cast<int64_t>();
    else o.device(d) = in.argmin(1).template cast<int64_t>();
    switch (out->dtype()) {
      case tensorflow::DT_INT32: Narrow<int32_t>(narrowed, out); break;
      case tensorflow::DT_INT16: Narrow<int16_t>(narrowed, out); break;
      case tensorflow::DT_UINT16: Narrow<uint16_t>(narrowed, out); break;
      default: break;
    }
  }

 private:
  template <class Tout>
  static void Narrow(const std::vector<int64_t>& from, Tensor* out) {
    std::transform(from.begin(), from.end(), out->base<Tout>(),
                   [](int64_t i) { return static_cast<Tout>(i); });
  }
};

// ArgMax takes TensorFlow's int16 and uint16 output_types too; ArgMin's op has only these two.
#define TA_REGISTER_ARG(T)                                                                                 \
  REGISTER_KERNEL(Name("ArgMax").Device(DEVICE_CPU).TypeConstraint<T>("T").TypeConstraint(                        \
                      "output_type", DataTypeVector{::tensorflow::DT_INT16, ::tensorflow::DT_UINT16,             \
                                                    ::tensorflow::DT_INT32, ::tensorflow::DT_INT64}),           \
                  ArgOp<T, true>);                                                                             \
  REGISTER_KERNEL(Name("ArgMin").Device(DEVICE_CPU).TypeConstraint<T>("T").TypeConstraint(                        \
                      "output_type", DataTypeVector{::tensorflow::DT_INT32, ::tensorflow::DT_INT64}),           \
                  ArgOp<T, false>);
TA_REGISTER_ARG(float)
TA_REGISTER_ARG(double)
TA_REGISTER_ARG(int32_t)
TA_REGISTER_ARG(int64_t)
// The other types TensorFlow's CPU kernels take (its TF_CALL_REAL_NUMBER_TYPES and bool).
TA_REGISTER_ARG(Eigen::half)
TA_REGISTER_ARG(Eigen::bfloat16)
TA_REGISTER_ARG(int8_t)
TA_REGISTER_ARG(int16_t)
TA_REGISTER_ARG(uint8_t)
TA_REGISTER_ARG(uint16_t)
TA_REGISTER_ARG(uint32_t)
TA_REGISTER_ARG(uint64_t)
TA_REGISTER_ARG(bool)
#undef TA_REGISTER_ARG

}  // namespace
}  // namespace tensoract
