// Roll on the CPU, for every type TensorFlow's CPU kernel takes (less resources and
// variants). Along a dimension of size n rolled by s (0 < s < n), input [0, n - s) lands at
// [s, n) and input [n - s, n) at [0, s): the output is at most 2^k boxes for k rolled
// dimensions, each one StridedCopy.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "kernels/cpu/strided_copy.h"

namespace tensoract {
namespace {

DataTypeVector RollTypes() {
  namespace tf = ::tensorflow;
  return {tf::DT_FLOAT,  tf::DT_DOUBLE, tf::DT_HALF,   tf::DT_BFLOAT16,  tf::DT_INT8,      tf::DT_INT16,
          tf::DT_INT32,  tf::DT_INT64,  tf::DT_UINT8,  tf::DT_UINT16,    tf::DT_UINT32,    tf::DT_UINT64,
          tf::DT_BOOL,   tf::DT_COMPLEX64, tf::DT_COMPLEX128, tf::DT_STRING};
}

class RollOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& shift_t = ctx->input(1);
    const Tensor& axis_t = ctx->input(2);
    OP_REQUIRES(ctx, input.dims() >= 1, errors::InvalidArgument(NodePrefix(*this), "input must be 1-D or higher"));
    OP_REQUIRES(ctx, shift_t.dims() <= 1,
                errors::InvalidArgument(NodePrefix(*this), "shift must be a scalar or a 1-D vector. Found: ",
                                        shift_t.shape().DebugString()));
    OP_REQUIRES(ctx, axis_t.dims() <= 1,
                errors::InvalidArgument(NodePrefix(*this), "axis must be a scalar or a 1-D vector. Found: ",
                                        axis_t.shape().DebugString()));
    OP_REQUIRES(ctx, shift_t.shape() == axis_t.shape(),
                errors::InvalidArgument(NodePrefix(*this), "shift and axis must have the same size"));
    const int rank = input.dims();
    const std::vector<int64_t> shifts = IndexValues(shift_t), axes = IndexValues(axis_t);
    // Each dimension's total shift, modulo its size. TensorFlow reads shifts and axes as
    // 32-bit ints (an int64 shift of 2^33 + 1 rolls by 1), and so do we.
    std::vector<int64_t> total(rank, 0);
    for (size_t i = 0; i < shifts.size(); ++i) {
      int64_t axis = static_cast<int32_t>(axes[i]);
      if (axis < 0) axis += rank;
      OP_REQUIRES(ctx, axis >= 0 && axis < rank,
                  errors::InvalidArgument(NodePrefix(*this), "axis ", axis, " is out of range"));
      const int64_t n = std::max<int64_t>(input.dim_size(static_cast<int>(axis)), 1);
      const int64_t sum = total[axis] + static_cast<int32_t>(shifts[i]);
      total[axis] = (sum % n + n) % n;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    if (input.NumElements() == 0) return;
    const std::vector<int64_t> strides = RowMajorStrides(input.shape());
    std::vector<int> rolled;
    for (int d = 0; d < rank; ++d) {
      if (total[d] != 0) rolled.push_back(d);
    }
    std::vector<int64_t> box = input.shape().dim_sizes();
    for (uint64_t pick = 0; pick < (uint64_t{1} << rolled.size()); ++pick) {
      StridedView src{0, strides}, dst{0, strides};
      for (size_t k = 0; k < rolled.size(); ++k) {
        const int d = rolled[k];
        const int64_t n = input.dim_size(d), s = total[d];
        if ((pick >> k) & 1) {  // the tail [n - s, n) to the front
          box[d] = s;
          src.base += (n - s) * strides[d];
        } else {  // the head [0, n - s) to [s, n)
          box[d] = n - s;
          dst.base += s * strides[d];
        }
      }
      StridedCopy(ctx, input, src, out, dst, box);
    }
  }
};

REGISTER_KERNEL(Name("Roll").Device(DEVICE_CPU).TypeConstraint("T", RollTypes()), RollOp);

}  // namespace
}  // namespace tensoract
