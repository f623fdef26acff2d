// BiasAdd and BiasAddGrad on the CPU, in both data formats: NHWC (channels last) views the
// value as [rest, C]; NCHW as [N, C, rest] (TensorFlow 1's BiasAddV1, without the attr, is
// BiasAdd in NHWC). Both split their work over the device's threads
// with CwiseParallelFor: BiasAdd by rows, BiasAddGrad into per-block partial sums added at
// the end.
#include <Eigen/Core>
#include <algorithm>
#include <type_traits>
#include <vector>

#include "kernels/cpu/bias_layout.h"
#include "kernels/cpu/cwise_ops.h"

namespace tensoract {
namespace {

using Index = Eigen::DenseIndex;

// Rows summed per block before the block's sum takes them: the float error grows with
// kRowBlock + rows / kRowBlock additions rather than with rows.
constexpr Index kRowBlock = 256;

// out[c] = sum over rows r of in[r * C + c]: NHWC's reduction. The rows are split into a
// few blocks per device thread, each summed (vectorised over the channels) into its own
// partial; the partials are then added in block order.
template <class T>
void SumRows(OpKernelContext* ctx, const T* in, Index rows, Index channels, T* out) {
  using Array = Eigen::Array<T, Eigen::Dynamic, 1>;
  const int threads = ctx->device() == nullptr ? 1 : ctx->device()->num_threads();
  // Blocks of at least ~64K elements each, at most 4 per thread.
  const Index by_size = std::max<Index>(1, rows * channels / (64 * 1024));
  const Index blocks = std::max<Index>(1, std::min<Index>({by_size, Index(4) * threads, rows}));
  const Index per_block = (rows + blocks - 1) / blocks;
  std::vector<T> partial(static_cast<size_t>(blocks * channels), T(0));
  T* pp = partial.data();
  CwiseParallelFor(ctx, blocks, per_block * channels, [=](int64_t first, int64_t last) {
    Array block_sum(channels);
    for (Index b = first; b < last; ++b) {
      const Index r0 = b * per_block, r1 = std::min(rows, r0 + per_block);
      Eigen::Map<Array> sum(pp + b * channels, channels);
      for (Index r = r0; r < r1; r += kRowBlock) {
        const Index r_end = std::min(r1, r + kRowBlock);
        if constexpr (std::is_floating_point_v<T>) {
          block_sum.setZero();
          T* bs = block_sum.data();
          for (Index i = r; i < r_end; ++i) {
            const T* row = in + i * channels;
            for (Index c = 0; c < channels; ++c) bs[c] += row[c];
          }
          sum += block_sum;
        } else {
          T* s = sum.data();
          for (Index i = r; i < r_end; ++i) {
            const T* row = in + i * channels;
            for (Index c = 0; c < channels; ++c) s[c] += row[c];
          }
        }
      }
    }
  });
  Eigen::Map<Array> o(out, channels);
  o = Eigen::Map<const Array>(pp, channels);
  for (Index b = 1; b < blocks; ++b) o += Eigen::Map<const Array>(pp + b * channels, channels);
}

// NCHW's reduction over outer and inner: each [inner] row summed on its own (in parallel),
// then the row sums of each channel added.
template <class T>
void SumInner(OpKernelContext* ctx, const T* in, const BiasLayout& l, T* out) {
  using Array = Eigen::Array<T, Eigen::Dynamic, 1>;
  const Index rows = l.outer * l.channels, inner = l.inner;
  std::vector<T> row_sums(static_cast<size_t>(rows));
  T* rs = row_sums.data();
  CwiseParallelFor(ctx, rows, inner, [=](int64_t first, int64_t last) {
    for (Index r = first; r < last; ++r) rs[r] = Eigen::Map<const Array>(in + r * inner, inner).sum();
  });
  SumRows(ctx, rs, l.outer, l.channels, out);
}

template <class T>
class BiasAddOp : public OpKernel {
 public:
  explicit BiasAddOp(OpKernelConstruction* ctx) : OpKernel(ctx) { OP_REQUIRES_OK(ctx, ReadBiasDataFormat(ctx, &nchw_)); }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& value = ctx->input(0);
    const Tensor& bias = ctx->input(1);
    BiasLayout l;
    OP_REQUIRES_OK(ctx, GetBiasLayout(name(), value.shape(), nchw_, &l));
    OP_REQUIRES(ctx, bias.dims() == 1,
                errors::InvalidArgument("Biases must be 1D: ", bias.shape().DebugString(), " (node '", name(), "')"));
    OP_REQUIRES(ctx, bias.dim_size(0) == l.channels,
                errors::InvalidArgument("Must provide as many biases as the last dimension of the input tensor: ",
                                        bias.shape().DebugString(), " vs. ", value.shape().DebugString(), " (node '",
                                        name(), "')"));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(0, 0, value.shape(), &out));
    if (value.NumElements() == 0) return;
    using Array = Eigen::Array<T, Eigen::Dynamic, 1>;
    const T* ip = value.base<T>();
    const T* bp = bias.base<T>();
    T* op = out->base<T>();
    const Index c = l.channels, inner = l.inner;
    if (inner == 1) {
      // Channels last (NHWC, the dense layers): one vectorised row of C at a time.
      CwiseParallelFor(ctx, l.outer, c, [=](int64_t first, int64_t last) {
        Eigen::Map<const Array> b(bp, c);
        for (Index r = first; r < last; ++r) Eigen::Map<Array>(op + r * c, c) = Eigen::Map<const Array>(ip + r * c, c) + b;
      });
      return;
    }
    // NCHW: rows of `inner` elements, row r adding bias[r % C].
    CwiseParallelFor(ctx, l.outer * c, inner, [=](int64_t first, int64_t last) {
      for (Index r = first; r < last; ++r) {
        Eigen::Map<Array>(op + r * inner, inner) = Eigen::Map<const Array>(ip + r * inner, inner) + bp[r % c];
      }
    });
  }
  bool IsExpensive() const override { return false; }

 private:
  bool nchw_ = false;
};

template <class T>
class BiasAddGradOp : public OpKernel {
 public:
  explicit BiasAddGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) { OP_REQUIRES_OK(ctx, ReadBiasDataFormat(ctx, &nchw_)); }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& grad = ctx->input(0);
    BiasLayout l;
    OP_REQUIRES_OK(ctx, GetBiasLayout(name(), grad.shape(), nchw_, &l));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({l.channels}), &out));
    if (l.channels == 0) return;
    T* op = out->base<T>();
    if (grad.NumElements() == 0) {
      std::fill(op, op + l.channels, T(0));
      return;
    }
    if constexpr (std::is_same_v<T, Eigen::half> || std::is_same_v<T, Eigen::bfloat16>) {
      // Summed in float, each channel's sum rounded once, as TensorFlow's accumulator type:
      // half's 11 bits would lose a batch's gradient after a few thousand terms.
      std::vector<float> wide(static_cast<size_t>(grad.NumElements()));
      const T* gp = grad.base<T>();
      float* wp = wide.data();
      CwiseParallelFor(ctx, grad.NumElements(), 1, [=](int64_t first, int64_t last) {
        for (int64_t i = first; i < last; ++i) wp[i] = static_cast<float>(gp[i]);
      });
      std::vector<float> sums(static_cast<size_t>(l.channels));
      if (l.inner == 1) {
        SumRows(ctx, wp, l.outer, l.channels, sums.data());
      } else {
        SumInner(ctx, static_cast<const float*>(wp), l, sums.data());
      }
      for (Index c = 0; c < l.channels; ++c) op[c] = static_cast<T>(sums[static_cast<size_t>(c)]);
    } else {
      const T* gp = grad.base<T>();
      if (l.inner == 1) {
        SumRows(ctx, gp, l.outer, l.channels, op);
      } else {
        SumInner(ctx, gp, l, op);
      }
    }
  }
  bool IsExpensive() const override { return false; }

 private:
  bool nchw_ = false;
};

#define TA_REGISTER_BIAS(T)                                                                      \
  REGISTER_KERNEL(Name("BiasAdd").Device(DEVICE_CPU).TypeConstraint<T>("T"), BiasAddOp<T>);      \
  REGISTER_KERNEL(Name("BiasAddV1").Device(DEVICE_CPU).TypeConstraint<T>("T"), BiasAddOp<T>);    \
  REGISTER_KERNEL(Name("BiasAddGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"), BiasAddGradOp<T>);
TA_REGISTER_BIAS(float)
TA_REGISTER_BIAS(double)
// half and bfloat16 (mixed precision's Dense and Conv layers): each sum rounded once, as
// TensorFlow's; BiasAddGrad sums in float.
REGISTER_KERNEL(Name("BiasAdd").Device(DEVICE_CPU).TypeConstraint<Eigen::half>("T"), BiasAddOp<Eigen::half>);
REGISTER_KERNEL(Name("BiasAdd").Device(DEVICE_CPU).TypeConstraint<Eigen::bfloat16>("T"), BiasAddOp<Eigen::bfloat16>);
REGISTER_KERNEL(Name("BiasAddGrad").Device(DEVICE_CPU).TypeConstraint<Eigen::half>("T"), BiasAddGradOp<Eigen::half>);
REGISTER_KERNEL(Name("BiasAddGrad").Device(DEVICE_CPU).TypeConstraint<Eigen::bfloat16>("T"),
                BiasAddGradOp<Eigen::bfloat16>);
REGISTER_KERNEL(Name("BiasAddV1").Device(DEVICE_CPU).TypeConstraint<Eigen::half>("T"), BiasAddOp<Eigen::half>);
REGISTER_KERNEL(Name("BiasAddV1").Device(DEVICE_CPU).TypeConstraint<Eigen::bfloat16>("T"), BiasAddOp<Eigen::bfloat16>);
// The integers wrap; complex numbers add their parts.
TA_REGISTER_BIAS(int8_t)
TA_REGISTER_BIAS(int16_t)
TA_REGISTER_BIAS(int32_t)
TA_REGISTER_BIAS(int64_t)
TA_REGISTER_BIAS(uint8_t)
TA_REGISTER_BIAS(uint16_t)
TA_REGISTER_BIAS(uint32_t)
TA_REGISTER_BIAS(uint64_t)
TA_REGISTER_BIAS(complex64)
TA_REGISTER_BIAS(complex128)
#undef TA_REGISTER_BIAS

}  // namespace
}  // namespace tensoract
