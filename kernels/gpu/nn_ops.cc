// Neural-network OpKernels on the GPU: MatMul and BatchMatMulV2 (cuBLAS), BiasAdd and
// BiasAddGrad, the reductions Sum/Mean/Max/Min/Prod, Softmax, LogSoftmax and
// SparseSoftmaxCrossEntropyWithLogits.
#include <vector>

#include "kernels/cpu/bias_layout.h"
#include "kernels/cpu/reduction_plan.h"
#include "kernels/gpu/gpu_op_util.h"

namespace tensoract {
namespace gpu {
namespace {

// Row-major C[m,n] = op(A) op(B) through column-major cuBLAS: C^T = op(B)^T op(A)^T.
template <class T>
cublasStatus_t Gemm(cublasHandle_t h, bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, const T* b, T* c,
                    int64_t batch, int64_t stride_a, int64_t stride_b, int64_t stride_c) {
  const T one = 1, zero = 0;
  const cublasOperation_t op_a = ta ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_b = tb ? CUBLAS_OP_T : CUBLAS_OP_N;
  const int lda = static_cast<int>(ta ? m : k), ldb = static_cast<int>(tb ? k : n);
  if constexpr (std::is_same_v<T, float>) {
    if (batch == 1) return cublasSgemm(h, op_b, op_a, n, m, k, &one, b, ldb, a, lda, &zero, c, n);
    return cublasSgemmStridedBatched(h, op_b, op_a, n, m, k, &one, b, ldb, stride_b, a, lda, stride_a, &zero, c, n,
                                     stride_c, batch);
  } else {
    if (batch == 1) return cublasDgemm(h, op_b, op_a, n, m, k, &one, b, ldb, a, lda, &zero, c, n);
    return cublasDgemmStridedBatched(h, op_b, op_a, n, m, k, &one, b, ldb, stride_b, a, lda, stride_a, &zero, c, n,
                                     stride_c, batch);
  }
}

template <class T>
class MatMulOp : public OpKernel {
 public:
  explicit MatMulOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_a", &ta_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_b", &tb_));
  }
  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES_OK(ctx, BeginLaunch(ctx));
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    OP_REQUIRES(ctx, a.dims() == 2 && b.dims() == 2,
                errors::InvalidArgument("node '", name(), "': MatMul takes matrices, got ", a.shape().DebugString(),
                                        " and ", b.shape().DebugString()));
    const int64_t m = a.dim_size(ta_ ? 1 : 0), k = a.dim_size(ta_ ? 0 : 1);
    const int64_t k2 = b.dim_size(tb_ ? 1 : 0), n = b.dim_size(tb_ ? 0 : 1);
    OP_REQUIRES(ctx, k == k2,
                errors::InvalidArgument("node '", name(), "': Matrix size-incompatible: In[0]: ", a.shape().DebugString(),
                                        ", In[1]: ", b.shape().DebugString()));
    Tensor* c = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({m, n}), &c));
    if (m * n == 0) return;
    if (k == 0) {
      LaunchFillConstant<T>(T(0), Out<T>(c), m * n, StreamOf(ctx));
      OP_REQUIRES_OK(ctx, EndLaunch(ctx));
      return;
    }
    OP_REQUIRES_OK(ctx, ContextOf(ctx)->WithCublas(name(), [&](cublasHandle_t h) {
      return Gemm<T>(h, ta_, tb_, m, n, k, In<T>(ctx, 0), In<T>(ctx, 1), Out<T>(c), 1, 0, 0, 0);
    }));
  }
  bool IsExpensive() const override { return false; }

 private:
  bool ta_ = false, tb_ = false;
};

// BatchMatMulV2 where the batch dimensions agree, or one side has none (or all 1s).
template <class T>
class BatchMatMulOp : public OpKernel {
 public:
  explicit BatchMatMulOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("adj_x", &ta_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("adj_y", &tb_));
  }
  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES_OK(ctx, BeginLaunch(ctx));
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    OP_REQUIRES(ctx, a.dims() >= 2 && b.dims() >= 2,
                errors::InvalidArgument("node '", name(), "': BatchMatMul takes tensors of rank 2 or more, got ",
                                        a.shape().DebugString(), " and ", b.shape().DebugString()));
    const int64_t m = a.dim_size(a.dims() - (ta_ ? 1 : 2)), k = a.dim_size(a.dims() - (ta_ ? 2 : 1));
    const int64_t k2 = b.dim_size(b.dims() - (tb_ ? 1 : 2)), n = b.dim_size(b.dims() - (tb_ ? 2 : 1));
    OP_REQUIRES(ctx, k == k2,
                errors::InvalidArgument("node '", name(), "': Matrix size-incompatible: In[0]: ", a.shape().DebugString(),
                                        ", In[1]: ", b.shape().DebugString()));
    std::vector<int64_t> batch_a = a.shape().dim_sizes(), batch_b = b.shape().dim_sizes();
    batch_a.resize(batch_a.size() - 2);
    batch_b.resize(batch_b.size() - 2);
    auto count = [](const std::vector<int64_t>& d) {
      int64_t n = 1;
      for (int64_t x : d) n *= x;
      return n;
    };
    const int64_t na = count(batch_a), nb = count(batch_b);
    OP_REQUIRES(ctx, batch_a == batch_b || na == 1 || nb == 1,
                errors::Unimplemented("node '", name(), "': the GPU BatchMatMul broadcasts only a batch of one; got ",
                                      a.shape().DebugString(), " and ", b.shape().DebugString()));
    std::vector<int64_t> out_dims = na >= nb ? batch_a : batch_b;
    out_dims.push_back(m);
    out_dims.push_back(n);
    Tensor* c = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(out_dims), &c));
    const int64_t batch = std::max(na, nb);
    if (c->NumElements() == 0) return;
    if (k == 0) {
      LaunchFillConstant<T>(T(0), Out<T>(c), c->NumElements(), StreamOf(ctx));
      OP_REQUIRES_OK(ctx, EndLaunch(ctx));
      return;
    }
    OP_REQUIRES_OK(ctx, ContextOf(ctx)->WithCublas(name(), [&](cublasHandle_t h) {
      return Gemm<T>(h, ta_, tb_, m, n, k, In<T>(ctx, 0), In<T>(ctx, 1), Out<T>(c), batch, na == 1 ? 0 : m * k,
                     nb == 1 ? 0 : k * n, m * n);
    }));
  }
  bool IsExpensive() const override { return false; }

 private:
  bool ta_ = false, tb_ = false;
};

// Reduces x, seen as [outer, reduced, inner], into y, with the scratch memory long rows and
// tall columns need (launchers.h).
template <class T>
Status Reduce(OpKernelContext* ctx, ReduceKind op, const T* x, T* y, int64_t outer, int64_t reduced, int64_t inner) {
  Tensor scratch;
  const int64_t elements = ReduceScratchElements(outer, reduced, inner);
  if (elements > 0) {
    TA_ASSIGN_OR_RETURN(scratch, ContextOf(ctx)->Scratch(elements * static_cast<int64_t>(sizeof(T))));
  }
  LaunchReduce<T>(op, x, y, outer, reduced, inner, elements > 0 ? static_cast<T*>(scratch.data()) : nullptr,
                  StreamOf(ctx));
  return EndLaunch(ctx);
}

// Reduces x, seen as `groups` of merged dimensions (reduced[g]: group g is reduced), into
// y: one pass of "reduce the middle of [A, B, C]" per reduced group, the last first, into a
// temporary until the last pass (freed, stream-ordered, at the end); a mean divides in each
// pass. At least one group is reduced.
template <class T>
Status ReduceGroups(OpKernelContext* ctx, ReduceKind op, const T* x, std::vector<int64_t> groups,
                    const std::vector<bool>& reduced, DataType dtype, T* y) {
  std::vector<size_t> passes;
  for (size_t g = 0; g < groups.size(); ++g) {
    if (reduced[g]) passes.insert(passes.begin(), g);
  }
  const T* in = x;
  std::vector<Tensor> temps;
  for (size_t p = 0; p < passes.size(); ++p) {
    const size_t g = passes[p];
    int64_t a = 1, c = 1;
    for (size_t i = 0; i < g; ++i) a *= groups[i];
    for (size_t i = g + 1; i < groups.size(); ++i) c *= groups[i];
    T* out = y;
    if (p + 1 < passes.size()) {
      TA_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(ctx->device()->allocator(), dtype, TensorShape({a * c})));
      temps.push_back(std::move(t));
      out = Out<T>(&temps.back());
    }
    TA_RETURN_IF_ERROR(Reduce<T>(ctx, op, in, out, a, groups[g], c));
    groups[g] = 1;
    in = out;
  }
  return Status::OK();
}

// BiasAdd and BiasAddGrad in both data formats, with the CPU kernels' view of the value
// (kernels/cpu/bias_layout.h).
template <class T>
class BiasAddOp : public OpKernel {
 public:
  explicit BiasAddOp(OpKernelConstruction* ctx) : OpKernel(ctx) { OP_REQUIRES_OK(ctx, ReadBiasDataFormat(ctx, &nchw_)); }
  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES_OK(ctx, BeginLaunch(ctx));
    const Tensor& x = ctx->input(0);
    const Tensor& bias = ctx->input(1);
    BiasLayout l;
    OP_REQUIRES_OK(ctx, GetBiasLayout(name(), x.shape(), nchw_, &l));
    OP_REQUIRES(ctx, bias.dims() == 1 && bias.dim_size(0) == l.channels,
                errors::InvalidArgument("node '", name(), "': Must provide as many biases as the last dimension of the "
                                        "input tensor: ", bias.shape().DebugString(), " vs. ", x.shape().DebugString()));
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(0, 0, x.shape(), &y));
    LaunchBiasAdd<T>(In<T>(ctx, 0), In<T>(ctx, 1), Out<T>(y), x.NumElements(), l.channels, l.inner, StreamOf(ctx));
    OP_REQUIRES_OK(ctx, EndLaunch(ctx));
  }
  bool IsExpensive() const override { return false; }

 private:
  bool nchw_ = false;
};

template <class T>
class BiasAddGradOp : public OpKernel {
 public:
  explicit BiasAddGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ReadBiasDataFormat(ctx, &nchw_));
  }
  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES_OK(ctx, BeginLaunch(ctx));
    const Tensor& dy = ctx->input(0);
    BiasLayout l;
    OP_REQUIRES_OK(ctx, GetBiasLayout(name(), dy.shape(), nchw_, &l));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({l.channels}), &out));
    if (l.channels == 0) return;
    if (dy.NumElements() == 0) {
      LaunchFillConstant<T>(T(0), Out<T>(out), l.channels, StreamOf(ctx));
      OP_REQUIRES_OK(ctx, EndLaunch(ctx));
      return;
    }
    if (l.inner == 1) {
      OP_REQUIRES_OK(ctx, Reduce<T>(ctx, ReduceKind::kSum, In<T>(ctx, 0), Out<T>(out), 1, l.outer, l.channels));
      return;
    }
    // NCHW: [outer, C, inner] summed over outer and inner.
    OP_REQUIRES_OK(ctx, ReduceGroups<T>(ctx, ReduceKind::kSum, In<T>(ctx, 0), {l.outer, l.channels, l.inner},
                                        {true, false, true}, dy.dtype(), Out<T>(out)));
  }
  bool IsExpensive() const override { return false; }

 private:
  bool nchw_ = false;
};

template <class T, ReduceKind kOp>
class ReduceOp : public OpKernel {
 public:
  explicit ReduceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("keep_dims", &keep_dims_));
  }
  // The CPU's plan (kernels/cpu/reduction_plan.h): the same refusals, and the input as
  // groups of kept and reduced dimensions, reduced a group per pass (ReduceGroups).
  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES_OK(ctx, BeginLaunch(ctx));
    const Tensor& x = ctx->input(0);
    reduction::ReductionPlan plan;
    OP_REQUIRES_OK(ctx, reduction::MakeReductionPlan(*this, x, ctx->input(1), keep_dims_, &plan));
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, plan.out_shape, &y));
    if (y->NumElements() == 0) return;
    if (x.NumElements() == 0) {  // an empty input: the identity of the reduction (NaN for a mean)
      LaunchReduce<T>(kOp, In<T>(ctx, 0), Out<T>(y), y->NumElements(), 0, 1, nullptr, StreamOf(ctx));
      OP_REQUIRES_OK(ctx, EndLaunch(ctx));
      return;
    }
    bool any_reduced = false;
    for (bool r : plan.reduced) any_reduced = any_reduced || r;
    if (!any_reduced) {  // nothing to combine: every output is its one input element
      OP_REQUIRES_OK(ctx, Reduce<T>(ctx, kOp, In<T>(ctx, 0), Out<T>(y), x.NumElements(), 1, 1));
      return;
    }
    OP_REQUIRES_OK(ctx, ReduceGroups<T>(ctx, kOp, In<T>(ctx, 0), plan.groups, plan.reduced, x.dtype(), Out<T>(y)));
  }
  bool IsExpensive() const override { return false; }

 private:
  bool keep_dims_ = false;
};

template <class T, bool kLog>
class SoftmaxOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES_OK(ctx, BeginLaunch(ctx));
    const Tensor& logits = ctx->input(0);
    OP_REQUIRES(ctx, logits.dims() >= 1,
                errors::InvalidArgument("node '", name(), "': logits must have >= 1 dimension, got ",
                                        logits.shape().DebugString()));
    const int64_t classes = logits.dim_size(logits.dims() - 1);
    const int64_t batch = classes == 0 ? 0 : logits.NumElements() / classes;
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, logits.shape(), &out));
    LaunchSoftmax<T>(In<T>(ctx, 0), Out<T>(out), batch, classes, kLog, StreamOf(ctx));
    OP_REQUIRES_OK(ctx, EndLaunch(ctx));
  }
  bool IsExpensive() const override { return false; }
};

template <class T, class L>
class SparseXentOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES_OK(ctx, BeginLaunch(ctx));
    const Tensor& logits = ctx->input(0);
    const Tensor& labels = ctx->input(1);
    OP_REQUIRES(ctx, logits.dims() == 2,
                errors::InvalidArgument("node '", name(), "': logits must be 2-D, but got shape ",
                                        logits.shape().DebugString()));
    OP_REQUIRES(ctx, labels.dims() == 1 && labels.dim_size(0) == logits.dim_size(0),
                errors::InvalidArgument("node '", name(), "': logits and labels must have the same first dimension, got "
                                        "logits shape ", logits.shape().DebugString(), " and labels shape ",
                                        labels.shape().DebugString()));
    const int64_t batch = logits.dim_size(0), classes = logits.dim_size(1);
    Tensor labels_on_gpu = labels;
    if (IsHostMemoryType(labels.dtype())) {
      // int32 labels are in host memory: check them here, as the CPU kernel does, and copy.
      for (int64_t i = 0; i < batch; ++i) {
        const int64_t l = labels.base<L>()[i];
        OP_REQUIRES(ctx, l >= 0 && l < classes,
                    errors::InvalidArgument("node '", name(), "': Received a label value of ", l,
                                            " which is outside the valid range of [0, ", classes, ").  Label values: ",
                                            labels.SummarizeValue(10)));
      }
      auto copy = Tensor::Allocate(ctx->device()->allocator(), labels.dtype(), labels.shape());
      OP_REQUIRES_OK(ctx, copy.status());
      labels_on_gpu = std::move(copy).value();
      OP_REQUIRES_OK(ctx, ContextOf(ctx)->CopyToDevice(labels, labels_on_gpu));
    }
    Tensor *loss = nullptr, *backprop = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({batch}), &loss));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, logits.shape(), &backprop));
    LaunchSparseXent<T, L>(In<T>(ctx, 0), static_cast<const L*>(labels_on_gpu.data()), Out<T>(loss), Out<T>(backprop),
                           batch, classes, StreamOf(ctx));
    OP_REQUIRES_OK(ctx, EndLaunch(ctx));
  }
  bool IsExpensive() const override { return false; }
};

#define TA_GPU_NN(T)                                                                                             \
  REGISTER_KERNEL(Name("MatMul").Device(DEVICE_GPU).TypeConstraint<T>("T"), MatMulOp<T>);                      \
  REGISTER_KERNEL(Name("BatchMatMulV2").Device(DEVICE_GPU).TypeConstraint<T>("T"), BatchMatMulOp<T>);          \
  REGISTER_KERNEL(Name("BatchMatMul").Device(DEVICE_GPU).TypeConstraint<T>("T"), BatchMatMulOp<T>);            \
  REGISTER_KERNEL(Name("BiasAdd").Device(DEVICE_GPU).TypeConstraint<T>("T"), BiasAddOp<T>);                    \
  REGISTER_KERNEL(Name("BiasAddV1").Device(DEVICE_GPU).TypeConstraint<T>("T"), BiasAddOp<T>);                  \
  REGISTER_KERNEL(Name("BiasAddGrad").Device(DEVICE_GPU).TypeConstraint<T>("T"), BiasAddGradOp<T>);            \
  REGISTER_KERNEL(Name("Sum").Device(DEVICE_GPU).TypeConstraint<T>("T").TypeConstraint<int32_t>("Tidx"),       \
                  ReduceOp<T, ReduceKind::kSum>);                                                              \
  REGISTER_KERNEL(Name("Mean").Device(DEVICE_GPU).TypeConstraint<T>("T").TypeConstraint<int32_t>("Tidx"),      \
                  ReduceOp<T, ReduceKind::kMean>);                                                             \
  REGISTER_KERNEL(Name("Max").Device(DEVICE_GPU).TypeConstraint<T>("T").TypeConstraint<int32_t>("Tidx"),       \
                  ReduceOp<T, ReduceKind::kMax>);                                                              \
  REGISTER_KERNEL(Name("Min").Device(DEVICE_GPU).TypeConstraint<T>("T").TypeConstraint<int32_t>("Tidx"),       \
                  ReduceOp<T, ReduceKind::kMin>);                                                              \
  REGISTER_KERNEL(Name("Prod").Device(DEVICE_GPU).TypeConstraint<T>("T").TypeConstraint<int32_t>("Tidx"),      \
                  ReduceOp<T, ReduceKind::kProd>);                                                             \
  REGISTER_KERNEL(Name("Softmax").Device(DEVICE_GPU).TypeConstraint<T>("T"), SoftmaxOp<T, false>);             \
  REGISTER_KERNEL(Name("LogSoftmax").Device(DEVICE_GPU).TypeConstraint<T>("T"), SoftmaxOp<T, true>);           \
  REGISTER_KERNEL(Name("SparseSoftmaxCrossEntropyWithLogits")                                                   \
                      .Device(DEVICE_GPU).TypeConstraint<T>("T").TypeConstraint<int32_t>("Tlabels"),           \
                  SparseXentOp<T, int32_t>);                                                                   \
  REGISTER_KERNEL(Name("SparseSoftmaxCrossEntropyWithLogits")                                                   \
                      .Device(DEVICE_GPU).TypeConstraint<T>("T").TypeConstraint<int64_t>("Tlabels"),           \
                  SparseXentOp<T, int64_t>);
TA_GPU_NN(float)
TA_GPU_NN(double)

}  // namespace
}  // namespace gpu
}  // namespace tensoract
