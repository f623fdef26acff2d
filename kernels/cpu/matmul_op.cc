// MatMul on the CPU: gemm::Gemm (our packed AVX-512 GEMM for float, Eigen's for double)
// over the tensors' row-major buffers, no copies. A large product is cut into one block of
// rows (or columns) per device thread, each its own GEMM. int32 and int64 by loops that
// wrap around as TensorFlow's; half and bfloat16 through a float GEMM; complex by Eigen's. A float product whose
// session asked for products in bfloat16 runs on oneDNN's bfloat16 kernels
// (kernels/cpu/onednn_matmul.h) where the CPU has them and the product is large enough; one
// by constant weights (graph/optimizer/constant_weights.h) on oneDNN's float kernels in
// AVX-512 builds, where they beat our GEMM: on a Zen 4, alternating, ConvNeXtTiny (37 dense
// layers of 2^23-2^26 multiply-adds at batch 1) 66.4 -> 63.8 ms a step at batch 1 (medians,
// faster in 4 of 5), 1919 -> 1846 ms at batch 32 (3 of 3); the zoo's transformer and ViT
// within the noise.
#include <Eigen/Core>
#include <type_traits>
#include <vector>

#include "kernels/cpu/gemm.h"

#include "graph/node_def_util.h"
#include "graph/optimizer/constant_weights.h"
#include "kernels/cpu/bfloat16_products.h"
#include "kernels/cpu/cwise_ops.h"
#include "kernels/cpu/fused_epilogue.h"
#include "kernels/cpu/integer_gemm.h"
#include "kernels/cpu/onednn_matmul.h"
#include "kernels/cpu/parallel_gemm.h"
#include "kernels/cpu/small_float_gemm.h"
#include "kernels/device.h"
#include "kernels/kernel_registry.h"

namespace tensoract {
namespace {

// Both inputs matrices whose inner dimensions agree: m, k, n of op(a) [m, k] x op(b) [k, n].
Status CheckMatMulShapes(const OpKernel& kernel, const Tensor& a, const Tensor& b, bool transpose_a, bool transpose_b,
                         int64_t* m, int64_t* k, int64_t* n) {
  if (a.dims() != 2 || b.dims() != 2) {
    return errors::InvalidArgument("node '", kernel.name(), "' (MatMul): both inputs must be matrices, got shapes ",
                                   a.shape().DebugString(), " and ", b.shape().DebugString());
  }
  *m = a.dim_size(transpose_a ? 1 : 0);
  *k = a.dim_size(transpose_a ? 0 : 1);
  const int64_t kb = b.dim_size(transpose_b ? 1 : 0);
  *n = b.dim_size(transpose_b ? 0 : 1);
  if (*k != kb) {
    return errors::InvalidArgument("node '", kernel.name(), "' (MatMul): matrix size-incompatible: In[0]: ",
                                   a.shape().DebugString(), ", In[1]: ", b.shape().DebugString(),
                                   (transpose_a ? " (a transposed)" : ""), (transpose_b ? " (b transposed)" : ""),
                                   "; the inner dimensions ", *k, " and ", kb, " differ");
  }
  return Status::OK();
}

template <class T>
class MatMulOp : public OpKernel {
 public:
  explicit MatMulOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    Status s = ctx->GetAttr("transpose_a", &transpose_a_);
    if (s.ok()) s = ctx->GetAttr("transpose_b", &transpose_b_);
    if (s.ok()) s = epilogue_.Init(ctx);
    if (!s.ok()) ctx->SetStatus(s);
    if constexpr (std::is_same_v<T, float>) {
      bfloat16_ = WantsBfloat16Products(ctx);
      float_onednn_ = kOnednnFloatOverOurs && !bfloat16_ && AttrIsTrue(ctx->def(), kConstantWeightsAttr);
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    OP_REQUIRES(ctx, a.dims() == 2 && b.dims() == 2,
                errors::InvalidArgument("node '", name(), "' (MatMul): both inputs must be matrices, got shapes ",
                                        a.shape().DebugString(), " and ", b.shape().DebugString()));
    const int64_t m = a.dim_size(transpose_a_ ? 1 : 0), k = a.dim_size(transpose_a_ ? 0 : 1);
    const int64_t kb = b.dim_size(transpose_b_ ? 1 : 0), n = b.dim_size(transpose_b_ ? 0 : 1);
    OP_REQUIRES(ctx, k == kb,
                errors::InvalidArgument("node '", name(), "' (MatMul): matrix size-incompatible: In[0]: ",
                                        a.shape().DebugString(), ", In[1]: ", b.shape().DebugString(),
                                        (transpose_a_ ? " (a transposed)" : ""), (transpose_b_ ? " (b transposed)" : ""),
                                        "; the inner dimensions ", k, " and ", kb, " differ"));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({m, n}), &out));
    ChannelAffine<T> affine;
    if (epilogue_.active()) OP_REQUIRES_OK(ctx, epilogue_.Channels(*this, ctx, 2, *out, &affine));
    const T* ap = a.base<T>();
    const T* bp = b.base<T>();
    T* cp = out->base<T>();
    const int64_t lda = a.dim_size(1), ldb = b.dim_size(1);
    auto after = [&](T* block, int64_t rows, int64_t cols, int64_t first_column) {
      epilogue_.Apply(block, rows, cols, n, affine, first_column);
    };
    if constexpr (std::is_same_v<T, float>) {
      auto after_rounded = [&](T* block, int64_t rows, int64_t cols, int64_t first_column) {
        epilogue_.Apply(block, rows, cols, n, affine, first_column, /*rounded_products=*/true);
      };
      if (bfloat16_ && m * n * k >= OnednnMatMul::kMinMultiplyAdds &&
          bfloat16_matmul_.Run(ctx, transpose_a_, transpose_b_, m, n, k, ap, lda, b, cp, after_rounded)) {
        return;
      }
      if (float_onednn_ && m * n * k >= OnednnMatMul::kMinMultiplyAdds &&
          float_matmul_.Run(ctx, transpose_a_, transpose_b_, m, n, k, ap, lda, b, cp, after)) {
        return;
      }
    }
    ParallelGemm(ctx, transpose_a_, transpose_b_, m, n, k, ap, lda, bp, ldb, cp, after);
  }

 private:
  FusedEpilogue epilogue_;  // _FusedMatMul's per-channel steps and activation
  bool transpose_a_ = false, transpose_b_ = false;
  bool bfloat16_ = false;  // products in bfloat16 (kernels/cpu/bfloat16_products.h)
  OnednnMatMul bfloat16_matmul_;
  bool float_onednn_ = false;  // constant weights, an AVX-512 build: float_matmul_
  OnednnMatMul float_matmul_{/*float_products=*/true};
};

// A MatMul kernel's transpose_a and transpose_b, read once, and its product's output.
class TransposingMatMul : public OpKernel {
 public:
  explicit TransposingMatMul(OpKernelConstruction* ctx) : OpKernel(ctx) {
    Status s = ctx->GetAttr("transpose_a", &transpose_a_);
    if (s.ok()) s = ctx->GetAttr("transpose_b", &transpose_b_);
    if (!s.ok()) ctx->SetStatus(s);
  }

 protected:
  // op(a) [m, k] x op(b) [k, n] checked and the [m, n] output allocated.
  Status AllocateProduct(OpKernelContext* ctx, int64_t* m, int64_t* k, int64_t* n, Tensor** out) {
    TA_RETURN_IF_ERROR(CheckMatMulShapes(*this, ctx->input(0), ctx->input(1), transpose_a_, transpose_b_, m, k, n));
    return ctx->allocate_output(0, TensorShape({*m, *n}), out);
  }

  bool transpose_a_ = false, transpose_b_ = false;
};

// Integer MatMul: kernels/cpu/integer_gemm.h, rows split over the threads.
template <class T>
class IntMatMulOp : public TransposingMatMul {
 public:
  using TransposingMatMul::TransposingMatMul;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    int64_t m, k, n;
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, AllocateProduct(ctx, &m, &k, &n, &out));
    CwiseParallelFor(ctx, m, k * n + 1, [&](int64_t first, int64_t last) {
      IntegerGemmRows(transpose_a_, transpose_b_, first, last, n, k, a.base<T>(), a.dim_size(1), b.base<T>(),
                      b.dim_size(1), out->base<T>(), n);
    });
  }
};

// complex64 and complex128 MatMul: Eigen's complex GEMM over the row-major buffers, as
// TensorFlow's Eigen contraction (sums in its own order; the harness bounds them).
template <class T>
class ComplexMatMulOp : public TransposingMatMul {
 public:
  using TransposingMatMul::TransposingMatMul;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    int64_t m, k, n;
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, AllocateProduct(ctx, &m, &k, &n, &out));
    using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    Eigen::Map<const Matrix> am(a.base<T>(), a.dim_size(0), a.dim_size(1));
    Eigen::Map<const Matrix> bm(b.base<T>(), b.dim_size(0), b.dim_size(1));
    Eigen::Map<Matrix> cm(out->base<T>(), m, n);
    if (m * n == 0) return;
    if (transpose_a_ && transpose_b_) cm.noalias() = am.transpose() * bm.transpose();
    else if (transpose_a_) cm.noalias() = am.transpose() * bm;
    else if (transpose_b_) cm.noalias() = am * bm.transpose();
    else cm.noalias() = am * bm;
  }
};

// half and bfloat16 MatMul: the operands widened to float, one float GEMM, the products
// narrowed once, as TensorFlow's (kernels/cpu/small_float_gemm.h, shared with BatchMatMul).
template <class T>
class SmallFloatMatMulOp : public TransposingMatMul {
 public:
  using TransposingMatMul::TransposingMatMul;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    int64_t m, k, n;
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, AllocateProduct(ctx, &m, &k, &n, &out));
    if (out->NumElements() == 0) return;
    SmallFloatGemm(transpose_a_, transpose_b_, m, n, k, a.base<T>(), a.dim_size(1), b.base<T>(), b.dim_size(1),
                   out->base<T>());
  }
};

REGISTER_KERNEL(Name("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T"), MatMulOp<float>);
REGISTER_KERNEL(Name("MatMul").Device(DEVICE_CPU).TypeConstraint<double>("T"), MatMulOp<double>);
REGISTER_KERNEL(Name("MatMul").Device(DEVICE_CPU).TypeConstraint<int32_t>("T"), IntMatMulOp<int32_t>);
REGISTER_KERNEL(Name("MatMul").Device(DEVICE_CPU).TypeConstraint<int64_t>("T"), IntMatMulOp<int64_t>);
REGISTER_KERNEL(Name("MatMul").Device(DEVICE_CPU).TypeConstraint<int16_t>("T"), IntMatMulOp<int16_t>);
REGISTER_KERNEL(Name("MatMul").Device(DEVICE_CPU).TypeConstraint<complex64>("T"), ComplexMatMulOp<complex64>);
REGISTER_KERNEL(Name("MatMul").Device(DEVICE_CPU).TypeConstraint<complex128>("T"), ComplexMatMulOp<complex128>);
REGISTER_KERNEL(Name("MatMul").Device(DEVICE_CPU).TypeConstraint<Eigen::half>("T"), SmallFloatMatMulOp<Eigen::half>);
REGISTER_KERNEL(Name("MatMul").Device(DEVICE_CPU).TypeConstraint<Eigen::bfloat16>("T"),
                SmallFloatMatMulOp<Eigen::bfloat16>);
REGISTER_KERNEL(Name("_FusedMatMul").Device(DEVICE_CPU).TypeConstraint<float>("T"), MatMulOp<float>);

}  // namespace
}  // namespace tensoract
