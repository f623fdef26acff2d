// Select and SelectV2 on the CPU: t where condition is true, else e.
//
// Select takes a scalar condition (all of t or all of e), a vector one over t's first
// dimension (rows), or one of t's shape. SelectV2 broadcasts the three inputs together.
#include <algorithm>
#include <string>

#include "kernels/cpu/cwise_ops.h"

namespace tensoract {
namespace {

template <class T>
class SelectOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& cond = ctx->input(0);
    const Tensor& t = ctx->input(1);
    const Tensor& e = ctx->input(2);
    OP_REQUIRES(ctx, t.shape() == e.shape(),
                errors::InvalidArgument(CwiseNodeContext(*this), ": 'then' and 'else' must have the same size.  but received: ",
                                        t.shape().DebugString(), " vs. ", e.shape().DebugString()));
    if (cond.dims() == 0) {
      ctx->set_output(0, *cond.base<bool>() ? t : e);
      return;
    }
    const bool rows = cond.dims() == 1 && t.dims() > 1;
    if (rows) {
      OP_REQUIRES(ctx, cond.NumElements() == t.dim_size(0),
                  errors::InvalidArgument(CwiseNodeContext(*this),
                                          ": Number of batches of 'then' must match size of 'cond', but saw: ",
                                          t.dim_size(0), " vs. ", cond.NumElements()));
    } else {
      OP_REQUIRES(ctx, cond.shape() == t.shape(),
                  errors::InvalidArgument(CwiseNodeContext(*this),
                                          ": 'cond' and 'then' must have the same shape, or 'cond' must be a "
                                          "scalar or a vector over 'then''s first dimension; got ",
                                          cond.shape().DebugString(), " and ", t.shape().DebugString()));
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, t.shape(), &out));
    const bool* cp = cond.base<bool>();
    const T* tp = t.base<T>();
    const T* ep = e.base<T>();
    T* op = out->base<T>();
    const int64_t n = t.NumElements();
    if (n == 0) return;
    if (rows) {
      const int64_t row = n / t.dim_size(0);
      CwiseParallelFor(ctx, t.dim_size(0), row, [&](int64_t b, int64_t end) {
        for (int64_t r = b; r < end; ++r) std::copy_n((cp[r] ? tp : ep) + r * row, row, op + r * row);
      });
      return;
    }
    CwiseParallelFor(ctx, n, 1, [&](int64_t b, int64_t end) {
      for (int64_t i = b; i < end; ++i) op[i] = cp[i] ? tp[i] : ep[i];
    });
  }
};

template <class T>
class SelectV2Op : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& cond = ctx->input(0);
    const Tensor& t = ctx->input(1);
    const Tensor& e = ctx->input(2);
    StatusOr<TensorShape> te = BroadcastShape(t.shape(), e.shape());
    OP_REQUIRES(ctx, te.ok(), te.status().WithContext(CwiseNodeContext(*this) + ": 'then' and 'else'"));
    StatusOr<TensorShape> shape = BroadcastShape(cond.shape(), *te);
    OP_REQUIRES(ctx, shape.ok(), shape.status().WithContext(CwiseNodeContext(*this) + ": 'cond' and 'then'/'else'"));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
    const int64_t n = out->NumElements();
    if (n == 0) return;
    const bool* cp = cond.base<bool>();
    const T* tp = t.base<T>();
    const T* ep = e.base<T>();
    T* op = out->base<T>();
    if (cond.shape() == *shape && t.shape() == *shape && e.shape() == *shape) {
      CwiseParallelFor(ctx, n, 1, [&](int64_t b, int64_t end) {
        for (int64_t i = b; i < end; ++i) op[i] = cp[i] ? tp[i] : ep[i];
      });
      return;
    }
    // Broadcast: the output as rows of its last dimension. Each operand's offset is worked
    // out once per row from the outer indices; along a row it steps by 1 or stays (0), so
    // the inner loop is a plain select (a GRU's mask [B, 1] against its state [B, units]).
    const int rank = shape->dims();
    const std::vector<int64_t> cs = StridesIn(cond.shape(), *shape), ts = StridesIn(t.shape(), *shape),
                               es = StridesIn(e.shape(), *shape);
    std::vector<int64_t> dims(rank);
    for (int d = 0; d < rank; ++d) dims[d] = shape->dim_size(d);
    const int64_t inner = rank == 0 ? 1 : dims[rank - 1];
    const int64_t c1 = rank == 0 ? 0 : cs[rank - 1], t1 = rank == 0 ? 0 : ts[rank - 1], e1 = rank == 0 ? 0 : es[rank - 1];
    CwiseParallelFor(ctx, n / inner, 2 * inner, [&](int64_t first, int64_t last) {
      for (int64_t row = first; row < last; ++row) {
        int64_t co = 0, to = 0, eo = 0, r = row;
        for (int d = rank - 2; d >= 0; --d) {
          const int64_t index = r % dims[d];
          r /= dims[d];
          co += index * cs[d];
          to += index * ts[d];
          eo += index * es[d];
        }
        T* o = op + row * inner;
        for (int64_t j = 0; j < inner; ++j) o[j] = cp[co + j * c1] ? tp[to + j * t1] : ep[eo + j * e1];
      }
    });
  }
};

#define TA_REGISTER_SELECT(T)                                                                   \
  REGISTER_KERNEL(Name("Select").Device(DEVICE_CPU).TypeConstraint<T>("T"), SelectOp<T>);        \
  REGISTER_KERNEL(Name("SelectV2").Device(DEVICE_CPU).TypeConstraint<T>("T"), SelectV2Op<T>);
TA_REGISTER_SELECT(float)
TA_REGISTER_SELECT(double)
TA_REGISTER_SELECT(int32_t)
TA_REGISTER_SELECT(int64_t)
TA_REGISTER_SELECT(bool)
// The other number types of TensorFlow's CPU kernels: a selection computes nothing, so every
// type takes the same code.
TA_REGISTER_SELECT(Eigen::half)
TA_REGISTER_SELECT(Eigen::bfloat16)
TA_REGISTER_SELECT(int8_t)
TA_REGISTER_SELECT(int16_t)
TA_REGISTER_SELECT(uint8_t)
TA_REGISTER_SELECT(uint16_t)
TA_REGISTER_SELECT(uint32_t)
TA_REGISTER_SELECT(uint64_t)
TA_REGISTER_SELECT(complex64)
TA_REGISTER_SELECT(complex128)
TA_REGISTER_SELECT(std::string)  // TF 1.x Savers choose between two file name constants
#undef TA_REGISTER_SELECT

}  // namespace
}  // namespace tensoract
