// BatchMatMul, BatchMatMulV2 and BatchMatMulV3 on the CPU: one GEMM per output matrix
// (float and double: MatMul's packed GEMM; half and bfloat16 MatMul's float GEMM,
// kernels/cpu/small_float_gemm.h; integers a plain loop; complex Eigen's), over the broadcast batch
// dimensions (a batch dimension of 1 on either side
// repeats its matrix), spread over the device's threads by matrix. BatchMatMul (v1) takes
// no broadcasting: both sides have the same rank and batch dimensions. BatchMatMulV3's
// sides may be of other types than its output (TensorFlow's CPU kernels: all three the
// same, int8/uint8 sides and an int32 output, or a bfloat16 side and an int8/uint8 one with
// a bfloat16 output); they are converted to it first.
#include <algorithm>
#include <type_traits>

#include <Eigen/Core>

#include "kernels/cpu/broadcast.h"
#include "kernels/cpu/cwise_ops.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/integer_gemm.h"
#include "kernels/cpu/parallel_gemm.h"
#include "kernels/cpu/small_float_gemm.h"
#include "kernels/cpu/strided_copy.h"

namespace tensoract {
namespace {

template <class Ta, class Tb, class T, bool kBroadcast>
class BatchMatMulOp : public OpKernel {
 public:
  explicit BatchMatMulOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    Status s = ctx->GetAttr("adj_x", &adj_x_);
    if (s.ok()) s = ctx->GetAttr("adj_y", &adj_y_);
    if (!s.ok()) ctx->SetStatus(s);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    if (!kBroadcast) {  // TensorFlow's v1 checks, in its order and words
      OP_REQUIRES(ctx, x.dims() == y.dims(),
                  errors::InvalidArgument(NodePrefix(*this), "In[0] and In[1] has different ndims: ",
                                          x.shape().DebugString(), " vs. ", y.shape().DebugString()));
      OP_REQUIRES(ctx, x.dims() >= 2,
                  errors::InvalidArgument(NodePrefix(*this), "In[0] and In[1] ndims must be >= 2: ", x.dims()));
      for (int i = 0; i < x.dims() - 2; ++i) {
        OP_REQUIRES(ctx, x.dim_size(i) == y.dim_size(i),
                    errors::InvalidArgument(NodePrefix(*this), "In[0].dim(", i, ") and In[1].dim(", i,
                                            ") must be the same: ", x.shape().DebugString(), " vs ",
                                            y.shape().DebugString()));
      }
    }
    OP_REQUIRES(ctx, x.dims() >= 2, errors::InvalidArgument(NodePrefix(*this), "In[0] ndims must be >= 2: ", x.dims()));
    OP_REQUIRES(ctx, y.dims() >= 2, errors::InvalidArgument(NodePrefix(*this), "In[1] ndims must be >= 2: ", y.dims()));
    const int xr = x.dims(), yr = y.dims();
    const int64_t m = x.dim_size(adj_x_ ? xr - 1 : xr - 2), k = x.dim_size(adj_x_ ? xr - 2 : xr - 1);
    const int64_t ky = y.dim_size(adj_y_ ? yr - 1 : yr - 2), n = y.dim_size(adj_y_ ? yr - 2 : yr - 1);
    // The batch dimensions, right-aligned and broadcast.
    const int br = std::max(xr, yr) - 2;
    std::vector<int64_t> batch(br), xb(br, 1), yb(br, 1);
    for (int i = 0; i < br; ++i) {
      const int xi = i - (br - (xr - 2)), yi = i - (br - (yr - 2));
      if (xi >= 0) xb[i] = x.dim_size(xi);
      if (yi >= 0) yb[i] = y.dim_size(yi);
      OP_REQUIRES(ctx, xb[i] == yb[i] || xb[i] == 1 || yb[i] == 1,
                  errors::InvalidArgument(NodePrefix(*this), "In[0] and In[1] must have compatible batch dimensions: ",
                                          x.shape().DebugString(), " vs. ", y.shape().DebugString()));
      batch[i] = std::max(xb[i], yb[i]);
      if (xb[i] == 0 || yb[i] == 0) batch[i] = 0;
    }
    // TensorFlow checks the batch dimensions first.
    OP_REQUIRES(ctx, k == ky,
                errors::InvalidArgument(NodePrefix(*this), "Matrix size-incompatible: In[0]: ",
                                        x.shape().DebugString(), ", In[1]: ", y.shape().DebugString()));
    std::vector<int64_t> out_dims = batch;
    out_dims.push_back(m);
    out_dims.push_back(n);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(out_dims), &out));
    int64_t count = 1;
    for (int64_t b : batch) count *= b;
    if (out->NumElements() == 0) return;
    // Each side's matrix index for output matrix i (strides 0 where that side broadcasts).
    std::vector<int64_t> xs(br, 0), ys(br, 0);
    for (int i = br - 1, sx = 1, sy = 1; i >= 0; --i) {
      if (xb[i] != 1) xs[i] = sx;
      if (yb[i] != 1) ys[i] = sy;
      sx *= xb[i];
      sy *= yb[i];
    }
    const int64_t xrows = x.dim_size(xr - 2), xcols = x.dim_size(xr - 1);
    const int64_t yrows = y.dim_size(yr - 2), ycols = y.dim_size(yr - 1);
    if constexpr (std::is_same_v<Ta, T> && std::is_same_v<Tb, T> &&
                  (std::is_same_v<T, float> || std::is_same_v<T, double>)) {
      if (k > 0) {
        // One y for every x (a Dense layer on tokens, as Keras' EinsumDense exports): the
        // x matrices, consecutive, are the rows of one product [count * m, k] x [k, n].
        const bool y_shared = std::all_of(yb.begin(), yb.end(), [](int64_t d) { return d == 1; });
        if (y_shared && !adj_x_ && xb == batch) {
          ParallelGemm(ctx, false, adj_y_, count * m, n, k, x.base<T>(), xcols, y.base<T>(), ycols, out->base<T>(),
                       [](T*, int64_t, int64_t, int64_t) {});
          return;
        }
      }
    }
    using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    using MatrixA = Eigen::Matrix<Ta, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    using MatrixB = Eigen::Matrix<Tb, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    CwiseParallelFor(ctx, count, std::max<int64_t>(1, m * n * k), [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        int64_t xi = 0, yi = 0, rest = i;
        for (int d = br - 1; d >= 0; --d) {
          const int64_t idx = rest % batch[d];
          rest /= batch[d];
          xi += idx * xs[d];
          yi += idx * ys[d];
        }
        Eigen::Map<const MatrixA> ma(x.base<Ta>() + xi * xrows * xcols, xrows, xcols);
        Eigen::Map<const MatrixB> mb(y.base<Tb>() + yi * yrows * ycols, yrows, ycols);
        Eigen::Map<Matrix> c(out->base<T>() + i * m * n, m, n);
        if (k == 0) {
          c.setZero();
        } else if constexpr (std::is_same_v<Ta, T> && std::is_same_v<Tb, T> &&
                             (std::is_same_v<T, float> || std::is_same_v<T, double>)) {
          gemm::Gemm(adj_x_, adj_y_, m, n, k, x.base<T>() + xi * xrows * xcols, xcols,
                     y.base<T>() + yi * yrows * ycols, ycols, c.data(), n, false);
        } else if constexpr (std::is_same_v<Ta, T> && std::is_same_v<Tb, T> &&
                             (std::is_same_v<T, Eigen::half> || std::is_same_v<T, Eigen::bfloat16>)) {
          SmallFloatGemm(adj_x_, adj_y_, m, n, k, x.base<T>() + xi * xrows * xcols, xcols,
                         y.base<T>() + yi * yrows * ycols, ycols, c.data());
        } else if constexpr (std::is_integral_v<T>) {
          IntegerGemmRows(adj_x_, adj_y_, 0, m, n, k, ma.data(), xcols, mb.data(), ycols, c.data(), n);
        } else if constexpr (std::is_same_v<Ta, T> && std::is_same_v<Tb, T>) {
          Multiply(ma, mb, &c);
        } else {
          const Matrix a = ma.template cast<T>(), b = mb.template cast<T>();
          Multiply(a, b, &c);
        }
      }
    });
  }

 private:
  template <class A, class B, class C>
  void Multiply(const A& a, const B& b, C* c) const {
    if (!adj_x_ && !adj_y_) c->noalias() = a * b;
    else if (adj_x_ && !adj_y_) c->noalias() = a.adjoint() * b;
    else if (!adj_x_) c->noalias() = a * b.adjoint();
    else c->noalias() = a.adjoint() * b.adjoint();
  }

  bool adj_x_ = false, adj_y_ = false;
};

#define TA_REGISTER(T)                                                                                       \
  REGISTER_KERNEL(Name("BatchMatMul").Device(DEVICE_CPU).TypeConstraint<T>("T"), BatchMatMulOp<T, T, T, false>); \
  REGISTER_KERNEL(Name("BatchMatMulV2").Device(DEVICE_CPU).TypeConstraint<T>("T"), BatchMatMulOp<T, T, T, true>); \
  TA_REGISTER_V3(T, T, T)
#define TA_REGISTER_V3(Ta, Tb, Tout)                                                                            \
  REGISTER_KERNEL(Name("BatchMatMulV3").Device(DEVICE_CPU).TypeConstraint<Ta>("Ta").TypeConstraint<Tb>("Tb")     \
                      .TypeConstraint<Tout>("Tout"),                                                             \
                  BatchMatMulOp<Ta, Tb, Tout, true>)
TA_REGISTER(float);
TA_REGISTER(double);
TA_REGISTER(int32_t);
TA_REGISTER(int64_t);
TA_REGISTER(int16_t);
// Complex: Eigen's complex products; adj_x and adj_y conjugate as well as transpose.
TA_REGISTER(complex64);
TA_REGISTER(complex128);
TA_REGISTER_V3(int8_t, int8_t, int32_t);
TA_REGISTER_V3(int8_t, uint8_t, int32_t);
TA_REGISTER_V3(uint8_t, int8_t, int32_t);
TA_REGISTER_V3(uint8_t, uint8_t, int32_t);
// TensorFlow has no BatchMatMulV3 of half; its bfloat16 one takes 8-bit integer sides too,
// converted to bfloat16 and multiplied in bfloat16 (its Eigen contraction, as here).
REGISTER_KERNEL(Name("BatchMatMul").Device(DEVICE_CPU).TypeConstraint<Eigen::half>("T"),
                BatchMatMulOp<Eigen::half, Eigen::half, Eigen::half, false>);
REGISTER_KERNEL(Name("BatchMatMulV2").Device(DEVICE_CPU).TypeConstraint<Eigen::half>("T"),
                BatchMatMulOp<Eigen::half, Eigen::half, Eigen::half, true>);
TA_REGISTER(Eigen::bfloat16);
TA_REGISTER_V3(Eigen::bfloat16, int8_t, Eigen::bfloat16);
TA_REGISTER_V3(Eigen::bfloat16, uint8_t, Eigen::bfloat16);
TA_REGISTER_V3(int8_t, Eigen::bfloat16, Eigen::bfloat16);
TA_REGISTER_V3(uint8_t, Eigen::bfloat16, Eigen::bfloat16);
#undef TA_REGISTER_V3
#undef TA_REGISTER

}  // namespace
}  // namespace tensoract
