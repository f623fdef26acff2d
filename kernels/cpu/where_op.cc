// Where (one input) on the CPU: the coordinates of the input's non-zero elements, one row
// of `rank` int64 values per element, in row-major order. Inputs of rank 1 to 8, as
// TensorFlow's kernel takes. A denormal counts as zero, as it does in TensorFlow: kernels
// run with denormals flushed (kernels/denormal.h), and the comparison sees them as 0.
#include <Eigen/Core>

#include "kernels/cpu/strided_copy.h"
#include "kernels/dtype_dispatch.h"

namespace tensoract {
namespace {

template <class T>
class WhereOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const int rank = input.dims();
    OP_REQUIRES(ctx, rank >= 1 && rank <= 8,
                errors::InvalidArgument(NodePrefix(*this), "WhereOp : Unhandled input dimensions: ", rank));
    const T* x = input.base<T>();
    const int64_t n = input.NumElements();
    int64_t found = 0;
    for (int64_t i = 0; i < n; ++i) found += IsTrue(x[i]);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({found, rank}), &out));
    int64_t* row = out->base<int64_t>();
    std::vector<int64_t> index(rank, 0);  // the multi-index of element i
    for (int64_t i = 0; i < n; ++i) {
      if (IsTrue(x[i])) {
        for (int d = 0; d < rank; ++d) row[d] = index[d];
        row += rank;
      }
      for (int d = rank - 1; d >= 0 && ++index[d] == input.dim_size(d); --d) index[d] = 0;
    }
  }

 private:
  static bool IsTrue(const T& v) { return v != T(0); }
};

template <>
bool WhereOp<bool>::IsTrue(const bool& v) {
  return v;
}

#define TA_REGISTER(T) REGISTER_KERNEL(Name("Where").Device(DEVICE_CPU).TypeConstraint<T>("T"), WhereOp<T>)
TA_REGISTER(bool);
// Half too, where TensorFlow's CPU kernel refuses it (Unimplemented): it has a plain answer.
TA_CALL_NUMBER_TYPES(TA_REGISTER);
#undef TA_REGISTER

}  // namespace
}  // namespace tensoract
