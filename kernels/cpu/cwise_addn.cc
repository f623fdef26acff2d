// AddN on the CPU: the sum of N inputs of one shape, in one pass over the output.
#include "kernels/cpu/cwise_ops.h"

namespace tensoract {
namespace {

template <class T>
class AddNOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const int n = ctx->num_inputs();
    const Tensor& first = ctx->input(0);
    for (int i = 1; i < n; ++i) {
      OP_REQUIRES(ctx, ctx->input(i).shape() == first.shape(),
                  errors::InvalidArgument(CwiseNodeContext(*this),
                                          ": Inputs to operation AddN must have the same size and shape.  Input 0: ",
                                          first.shape().DebugString(), " != input ", i, ": ",
                                          ctx->input(i).shape().DebugString()));
    }
    if (n == 1) {
      ctx->set_output(0, first);
      return;
    }
    // Into input 0's or 1's buffer when the kernel holds its only reference: the first pass
    // reads both before writing; a later input's buffer would be overwritten before it is read.
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output({0, 1}, 0, first.shape(), &out));
    T* op = out->base<T>();
    using Array = Eigen::Array<T, Eigen::Dynamic, 1>;
    CwiseParallelFor(ctx, first.NumElements(), n, [&](int64_t b, int64_t e) {
      auto in = [&](int i) { return Eigen::Map<const Array>(ctx->input(i).template base<T>() + b, e - b); };
      Eigen::Map<Array> o(op + b, e - b);
      o = in(0) + in(1);
      for (int i = 2; i < n; ++i) o += in(i);
    });
  }
};

REGISTER_KERNEL(Name("AddN").Device(DEVICE_CPU).TypeConstraint<float>("T"), AddNOp<float>);
REGISTER_KERNEL(Name("AddN").Device(DEVICE_CPU).TypeConstraint<double>("T"), AddNOp<double>);
REGISTER_KERNEL(Name("AddN").Device(DEVICE_CPU).TypeConstraint<int32_t>("T"), AddNOp<int32_t>);
REGISTER_KERNEL(Name("AddN").Device(DEVICE_CPU).TypeConstraint<int64_t>("T"), AddNOp<int64_t>);
// The narrow and unsigned integers wrap; half and bfloat16 round each partial sum to the
// type, as Eigen's half arithmetic and TensorFlow's AddN do.
REGISTER_KERNEL(Name("AddN").Device(DEVICE_CPU).TypeConstraint<int8_t>("T"), AddNOp<int8_t>);
REGISTER_KERNEL(Name("AddN").Device(DEVICE_CPU).TypeConstraint<int16_t>("T"), AddNOp<int16_t>);
REGISTER_KERNEL(Name("AddN").Device(DEVICE_CPU).TypeConstraint<uint8_t>("T"), AddNOp<uint8_t>);
REGISTER_KERNEL(Name("AddN").Device(DEVICE_CPU).TypeConstraint<uint16_t>("T"), AddNOp<uint16_t>);
REGISTER_KERNEL(Name("AddN").Device(DEVICE_CPU).TypeConstraint<uint32_t>("T"), AddNOp<uint32_t>);
REGISTER_KERNEL(Name("AddN").Device(DEVICE_CPU).TypeConstraint<uint64_t>("T"), AddNOp<uint64_t>);
REGISTER_KERNEL(Name("AddN").Device(DEVICE_CPU).TypeConstraint<Eigen::half>("T"), AddNOp<Eigen::half>);
REGISTER_KERNEL(Name("AddN").Device(DEVICE_CPU).TypeConstraint<Eigen::bfloat16>("T"), AddNOp<Eigen::bfloat16>);
// Complex sums add the parts: the same in any vector width.
REGISTER_KERNEL(Name("AddN").Device(DEVICE_CPU).TypeConstraint<complex64>("T"), AddNOp<complex64>);
REGISTER_KERNEL(Name("AddN").Device(DEVICE_CPU).TypeConstraint<complex128>("T"), AddNOp<complex128>);

}  // namespace
}  // namespace tensoract
