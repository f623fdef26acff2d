// ConcatOffset on the CPU: given the shapes of the inputs of a concatenation along
// concat_dim, where each input starts in the result (zeros but along concat_dim, where the
// sizes before it add up). ConcatV2's gradient in TensorFlow's graphs slices with these.
#include "kernels/cpu/strided_copy.h"

namespace tensoract {
namespace {

template <class T>
class ConcatOffsetOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  bool IsExpensive() const override { return false; }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& concat_dim = ctx->input(0);
    OP_REQUIRES(ctx, concat_dim.dims() == 0,
                errors::InvalidArgument(NodePrefix(*this), "Concat dim tensor should be a scalar integer, but got shape ",
                                        concat_dim.shape().DebugString()));
    for (int i = 1; i < ctx->num_inputs(); ++i) {
      OP_REQUIRES(ctx, ctx->input(i).dims() == 1,
                  errors::InvalidArgument(NodePrefix(*this), "input ", i, " should be a vector, but got shape ",
                                          ctx->input(i).shape().DebugString()));
    }
    const int n = ctx->num_inputs() - 1;
    const T* shape0 = ctx->input(1).base<T>();
    const int64_t dims = ctx->input(1).NumElements();
    const int64_t cdim = concat_dim.base<int32_t>()[0];
    const int64_t axis = cdim < 0 ? cdim + dims : cdim;
    OP_REQUIRES(ctx, axis >= 0 && axis < dims,
                errors::InvalidArgument(NodePrefix(*this), "Concat dim is out of range: ", cdim, " vs. ", dims));
    T offset = 0;
    for (int i = 0; i < n; ++i) {
      const Tensor& shape = ctx->input(1 + i);
      OP_REQUIRES(ctx, shape.NumElements() == dims,
                  errors::InvalidArgument(NodePrefix(*this), "input ", i, " should contain ", dims,
                                          " elements, but got ", shape.NumElements()));
      const T* s = shape.base<T>();
      Tensor* out = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(i, TensorShape({dims}), &out));
      T* o = out->base<T>();
      for (int64_t j = 0; j < dims; ++j) {
        if (j == axis) {
          o[j] = offset;
          offset += s[j];
          continue;
        }
        OP_REQUIRES(ctx, s[j] == shape0[j],
                    errors::InvalidArgument(NodePrefix(*this), "All dimensions except ", axis, " must match. Input ", i,
                                            " has shape [", Join(s, dims), "] and doesn't match input 0 with shape [",
                                            Join(shape0, dims), "]."));
        o[j] = 0;
      }
    }
  }

 private:
  static std::string Join(const T* v, int64_t n) {
    std::string s;
    for (int64_t i = 0; i < n; ++i) s += (i ? " " : "") + std::to_string(v[i]);
    return s;
  }
};

REGISTER_KERNEL(Name("ConcatOffset").Device(DEVICE_CPU).TypeConstraint<int32_t>("shape_type"), ConcatOffsetOp<int32_t>);
REGISTER_KERNEL(Name("ConcatOffset").Device(DEVICE_CPU).TypeConstraint<int64_t>("shape_type"), ConcatOffsetOp<int64_t>);

}  // namespace
}  // namespace tensoract
