// Convolutions and pooling on the GPU through cuDNN (pooling cuDNN cannot do: our own
// kernels, pool_kernels.cu), in TensorFlow's layouts: NHWC data
// and HWIO filters. cuDNN takes NHWC data but wants filters as OHWI ("KRSC"), so the
// filter is transposed into scratch memory on the way in (and the filter gradient on the
// way out). SAME padding must be symmetric (odd total padding would need a padded copy of
// the input: Unimplemented, naming the node, for now).
#include <cudnn.h>

#include <map>
#include <mutex>
#include <vector>

#include "kernels/cpu/conv_util.h"
#include "kernels/gpu/gpu_op_util.h"

namespace tensoract {
namespace gpu {
namespace {

Status CudnnStatus(cudnnStatus_t s, const std::string& node, const char* what) {
  if (s == CUDNN_STATUS_SUCCESS) return Status::OK();
  return errors::Internal("node '", node, "': cuDNN ", what, " failed: ", cudnnGetErrorString(s));
}

#define TA_CUDNN(expr, what)                                       \
  do {                                                             \
    Status _s = CudnnStatus((expr), name(), what);                 \
    if (!_s.ok()) {                                                \
      ctx->SetStatus(_s);                                          \
      return;                                                      \
    }                                                              \
  } while (0)

// One cuDNN handle per GPU, on its compute stream; calls are serialised (the handle is
// not for two threads at once).
struct CudnnHandle {
  std::mutex mu;
  cudnnHandle_t handle = nullptr;
  Status status;
};

CudnnHandle* HandleFor(GpuContext* gpu) {
  static std::mutex mu;
  static auto* handles = new std::map<GpuContext*, CudnnHandle*>;
  std::lock_guard<std::mutex> lock(mu);
  CudnnHandle*& h = (*handles)[gpu];
  if (h == nullptr) {
    h = new CudnnHandle;
    gpu->Activate();
    cudnnStatus_t s = cudnnCreate(&h->handle);
    if (s == CUDNN_STATUS_SUCCESS) s = cudnnSetStream(h->handle, gpu->compute_stream());
    if (s != CUDNN_STATUS_SUCCESS) h->status = errors::Internal("cudnnCreate: ", cudnnGetErrorString(s));
  }
  return h;
}

// Descriptors freed on scope exit.
struct Tensor4d {
  cudnnTensorDescriptor_t d = nullptr;
  Tensor4d() { cudnnCreateTensorDescriptor(&d); }
  ~Tensor4d() { cudnnDestroyTensorDescriptor(d); }
  cudnnStatus_t SetNhwc(cudnnDataType_t t, int64_t n, int64_t h, int64_t w, int64_t c) {
    return cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NHWC, t, static_cast<int>(n), static_cast<int>(c),
                                      static_cast<int>(h), static_cast<int>(w));
  }
};
struct Filter4d {
  cudnnFilterDescriptor_t d = nullptr;
  Filter4d() { cudnnCreateFilterDescriptor(&d); }
  ~Filter4d() { cudnnDestroyFilterDescriptor(d); }
};
struct ConvDesc {
  cudnnConvolutionDescriptor_t d = nullptr;
  ConvDesc() { cudnnCreateConvolutionDescriptor(&d); }
  ~ConvDesc() { cudnnDestroyConvolutionDescriptor(d); }
};
template <class T>
cudnnDataType_t CudnnType() { return std::is_same_v<T, float> ? CUDNN_DATA_FLOAT : CUDNN_DATA_DOUBLE; }

// TensorFlow's output size and padding before, for one spatial dimension.
struct Window {
  int64_t out = 0, pad = 0;
  bool symmetric = true;
};
Window Spatial(int64_t in, int64_t k, int64_t stride, int64_t dilation, bool same, int64_t before = -1,
               int64_t after = -1) {
  Window w;
  const int64_t effective = (k - 1) * dilation + 1;
  if (before >= 0) {  // EXPLICIT
    w.out = in + before + after >= effective ? (in + before + after - effective) / stride + 1 : 0;
    w.pad = before;
    w.symmetric = before == after;
  } else if (same) {
    w.out = (in + stride - 1) / stride;
    const int64_t total = std::max<int64_t>(0, (w.out - 1) * stride + effective - in);
    w.pad = total / 2;
    w.symmetric = total % 2 == 0;
  } else {
    w.out = in >= effective ? (in - effective) / stride + 1 : 0;
  }
  return w;
}

// The attrs every convolution kernel reads (NHWC only).
struct ConvAttrs {
  int64_t stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  bool same = false;
  std::vector<int64_t> explicit_pads;  // EXPLICIT padding: top, bottom, left, right
  // As the CPU kernels read and check them (kernels/cpu/conv_util.h), so both refuse alike.
  void Read(OpKernelConstruction* ctx) {
    conv::WindowAttrs w;
    Status s = conv::ReadWindowAttrs(ctx, /*has_dilations=*/true, /*has_ksize=*/false, &w);
    if (!s.ok()) return ctx->SetStatus(s);
    stride_h = w.strides[1];
    stride_w = w.strides[2];
    dilation_h = w.dilations[1];
    dilation_w = w.dilations[2];
    same = w.padding == conv::Padding::kSame;
    if (w.padding == conv::Padding::kExplicit) {
      explicit_pads = {w.explicit_paddings[2], w.explicit_paddings[3], w.explicit_paddings[4], w.explicit_paddings[5]};
    }
  }
};

// Shapes of one convolution: input [n,h,w,c], filter [fh,fw,c,o], output [n,oh,ow,o].
struct ConvShape {
  int64_t n, h, w, c, fh, fw, o;
  Window wh, ww;
};

Status MakeConvShape(const std::string& node, const ConvAttrs& a, const TensorShape& input, const TensorShape& filter,
                     ConvShape* s) {
  if (input.dims() != 4 || filter.dims() != 4) {
    return errors::InvalidArgument("node '", node, "': input and filter must be 4-D, got ", input.DebugString(), " and ",
                                   filter.DebugString());
  }
  if (input.dim_size(3) != filter.dim_size(2)) {
    return errors::InvalidArgument("node '", node, "': input depth ", input.dim_size(3), " does not match filter ",
                                   filter.DebugString());
  }
  *s = {input.dim_size(0), input.dim_size(1), input.dim_size(2), input.dim_size(3),
        filter.dim_size(0), filter.dim_size(1), filter.dim_size(3), {}, {}};
  const bool exp = !a.explicit_pads.empty();
  s->wh = Spatial(s->h, s->fh, a.stride_h, a.dilation_h, a.same, exp ? a.explicit_pads[0] : -1,
                  exp ? a.explicit_pads[1] : -1);
  s->ww = Spatial(s->w, s->fw, a.stride_w, a.dilation_w, a.same, exp ? a.explicit_pads[2] : -1,
                  exp ? a.explicit_pads[3] : -1);
  if (!s->wh.symmetric || !s->ww.symmetric) {
    return errors::Unimplemented("node '", node, "': padding that is not the same on both sides (input ",
                                 input.DebugString(), ", filter ", filter.DebugString(), ") is not on the GPU yet");
  }
  return Status::OK();
}

// Descriptors for a ConvShape; filters as OHWI.
template <class T>
cudnnStatus_t Describe(const ConvShape& s, const ConvAttrs& a, Tensor4d* x, Filter4d* f, ConvDesc* conv, Tensor4d* y) {
  const cudnnDataType_t t = CudnnType<T>();
  cudnnStatus_t st = x->SetNhwc(t, s.n, s.h, s.w, s.c);
  if (st == CUDNN_STATUS_SUCCESS) {
    st = cudnnSetFilter4dDescriptor(f->d, t, CUDNN_TENSOR_NHWC, static_cast<int>(s.o), static_cast<int>(s.c),
                                    static_cast<int>(s.fh), static_cast<int>(s.fw));
  }
  if (st == CUDNN_STATUS_SUCCESS) {
    st = cudnnSetConvolution2dDescriptor(conv->d, static_cast<int>(s.wh.pad), static_cast<int>(s.ww.pad),
                                         static_cast<int>(a.stride_h), static_cast<int>(a.stride_w),
                                         static_cast<int>(a.dilation_h), static_cast<int>(a.dilation_w),
                                         CUDNN_CROSS_CORRELATION, t);
  }
  if (st == CUDNN_STATUS_SUCCESS) st = y->SetNhwc(t, s.n, s.wh.out, s.ww.out, s.o);
  return st;
}

// HWIO <-> OHWI through the GPU transpose.
template <class T>
void TransposeFilter(const T* in, T* out, int64_t fh, int64_t fw, int64_t c, int64_t o, bool to_ohwi,
                     cudaStream_t stream) {
  if (to_ohwi) {
    const int64_t dims[4] = {fh, fw, c, o};
    const int perm[4] = {3, 0, 1, 2};
    LaunchTranspose<T>(in, out, 4, dims, perm, stream);
  } else {
    const int64_t dims[4] = {o, fh, fw, c};
    const int perm[4] = {1, 2, 3, 0};
    LaunchTranspose<T>(in, out, 4, dims, perm, stream);
  }
}

constexpr size_t kMaxWorkspace = size_t{256} << 20;

// The first of cuDNN's ranked algorithms that works with at most kMaxWorkspace of scratch.
template <class Perf>
StatusOr<Perf> PickAlgorithm(const std::string& node, const Perf* perf, int found, const char* what) {
  for (int i = 0; i < found; ++i) {
    if (perf[i].status == CUDNN_STATUS_SUCCESS && perf[i].memory <= kMaxWorkspace) return perf[i];
  }
  return errors::Internal("node '", node, "': cuDNN has no ", what, " algorithm for this shape");
}

// GPU scratch of `bytes` (no buffer for 0).
StatusOr<Tensor> Workspace(GpuContext* gpu, size_t bytes) {
  if (bytes == 0) return Tensor();
  return gpu->Scratch(static_cast<int64_t>(bytes));
}

// What the three convolution kernels share: the GPU's cuDNN handle, the filter as OHWI in
// scratch memory (transposed from `hwio` when given: the forward and backward-data
// passes read it, the backward-filter pass writes it), and the descriptors.
template <class T>
struct ConvSetup {
  GpuContext* gpu = nullptr;
  CudnnHandle* handle = nullptr;
  Tensor ohwi;
  Tensor4d x, y;
  Filter4d f;
  ConvDesc conv;

  Status Prepare(OpKernelContext* ctx, const ConvShape& s, const ConvAttrs& a, const T* hwio) {
    gpu = ContextOf(ctx);
    handle = HandleFor(gpu);
    TA_RETURN_IF_ERROR(handle->status);
    TA_ASSIGN_OR_RETURN(ohwi, Tensor::Allocate(gpu->device_allocator(), DataTypeToEnum<T>::value,
                                               TensorShape({s.o, s.fh, s.fw, s.c})));
    if (hwio != nullptr) TransposeFilter<T>(hwio, static_cast<T*>(ohwi.data()), s.fh, s.fw, s.c, s.o, true, StreamOf(ctx));
    return CudnnStatus(Describe<T>(s, a, &x, &f, &conv, &y), ctx->op_kernel().name(), "describing the convolution");
  }
};

// The gradient fed to a backward pass must have the convolution's output shape.
Status CheckOutBackprop(const std::string& node, const ConvShape& s, const Tensor& dy) {
  if (dy.shape() == TensorShape({s.n, s.wh.out, s.ww.out, s.o})) return Status::OK();
  return errors::InvalidArgument("node '", node, "': out_backprop has shape ", dy.shape().DebugString(),
                                 ", the convolution's output would be [", s.n, ",", s.wh.out, ",", s.ww.out, ",", s.o,
                                 "]");
}

template <class T>
class Conv2DOp : public OpKernel {
 public:
  explicit Conv2DOp(OpKernelConstruction* ctx) : OpKernel(ctx) { attrs_.Read(ctx); }
  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES_OK(ctx, BeginLaunch(ctx));
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    ConvShape s;
    OP_REQUIRES_OK(ctx, MakeConvShape(name(), attrs_, input.shape(), filter.shape(), &s));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({s.n, s.wh.out, s.ww.out, s.o}), &out));
    if (out->NumElements() == 0) return;
    ConvSetup<T> c;
    OP_REQUIRES_OK(ctx, c.Prepare(ctx, s, attrs_, In<T>(ctx, 1)));
    std::lock_guard<std::mutex> lock(c.handle->mu);
    cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    int found = 0;
    TA_CUDNN(cudnnGetConvolutionForwardAlgorithm_v7(c.handle->handle, c.x.d, c.f.d, c.conv.d, c.y.d,
                                                    CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &found, perf),
             "choosing an algorithm");
    auto algo = PickAlgorithm(name(), perf, found, "forward");
    OP_REQUIRES_OK(ctx, algo.status());
    auto workspace = Workspace(c.gpu, algo->memory);
    OP_REQUIRES_OK(ctx, workspace.status());
    const T one = 1, zero = 0;
    TA_CUDNN(cudnnConvolutionForward(c.handle->handle, &one, c.x.d, In<T>(ctx, 0), c.f.d, c.ohwi.data(), c.conv.d,
                                     algo->algo, workspace->data(), algo->memory, &zero, c.y.d, out->data()),
             "forward convolution");
    OP_REQUIRES_OK(ctx, EndLaunch(ctx));
  }
  bool IsExpensive() const override { return false; }

 private:
  ConvAttrs attrs_;
};

template <class T>
class Conv2DBackpropInputOp : public OpKernel {
 public:
  explicit Conv2DBackpropInputOp(OpKernelConstruction* ctx) : OpKernel(ctx) { attrs_.Read(ctx); }
  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES_OK(ctx, BeginLaunch(ctx));
    TensorShape input_shape;
    OP_REQUIRES_OK(ctx, conv::ShapeFromSizes(*this, "input_sizes", ctx->input(0), &input_shape));
    const Tensor& filter = ctx->input(1);
    const Tensor& dy = ctx->input(2);
    if (input_shape.dims() == 2 && dy.dims() == 4 && filter.dims() == 4) {
      // Only the spatial sizes given: batch and depth follow out_backprop and the filter (as the CPU's).
      input_shape = TensorShape({dy.dim_size(0), input_shape.dim_size(0), input_shape.dim_size(1), filter.dim_size(2)});
    }
    ConvShape s;
    OP_REQUIRES_OK(ctx, MakeConvShape(name(), attrs_, input_shape, filter.shape(), &s));
    OP_REQUIRES_OK(ctx, CheckOutBackprop(name(), s, dy));
    Tensor* dx = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input_shape, &dx));
    if (dx->NumElements() == 0) return;
    ConvSetup<T> c;
    OP_REQUIRES_OK(ctx, c.Prepare(ctx, s, attrs_, In<T>(ctx, 1)));
    std::lock_guard<std::mutex> lock(c.handle->mu);
    cudnnConvolutionBwdDataAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
    int found = 0;
    TA_CUDNN(cudnnGetConvolutionBackwardDataAlgorithm_v7(c.handle->handle, c.f.d, c.y.d, c.conv.d, c.x.d,
                                                         CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &found, perf),
             "choosing an algorithm");
    auto algo = PickAlgorithm(name(), perf, found, "backward-data");
    OP_REQUIRES_OK(ctx, algo.status());
    auto workspace = Workspace(c.gpu, algo->memory);
    OP_REQUIRES_OK(ctx, workspace.status());
    const T one = 1, zero = 0;
    TA_CUDNN(cudnnConvolutionBackwardData(c.handle->handle, &one, c.f.d, c.ohwi.data(), c.y.d, In<T>(ctx, 2), c.conv.d,
                                          algo->algo, workspace->data(), algo->memory, &zero, c.x.d, dx->data()),
             "backward-data convolution");
    OP_REQUIRES_OK(ctx, EndLaunch(ctx));
  }
  bool IsExpensive() const override { return false; }

 private:
  ConvAttrs attrs_;
};

template <class T>
class Conv2DBackpropFilterOp : public OpKernel {
 public:
  explicit Conv2DBackpropFilterOp(OpKernelConstruction* ctx) : OpKernel(ctx) { attrs_.Read(ctx); }
  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES_OK(ctx, BeginLaunch(ctx));
    const Tensor& input = ctx->input(0);
    TensorShape filter_shape;
    OP_REQUIRES_OK(ctx, conv::ShapeFromSizes(*this, "filter_sizes", ctx->input(1), &filter_shape));
    const Tensor& dy = ctx->input(2);
    ConvShape s;
    OP_REQUIRES_OK(ctx, MakeConvShape(name(), attrs_, input.shape(), filter_shape, &s));
    OP_REQUIRES_OK(ctx, CheckOutBackprop(name(), s, dy));
    Tensor* dw = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, filter_shape, &dw));
    if (dw->NumElements() == 0) return;
    if (input.NumElements() == 0 || dy.NumElements() == 0) {
      LaunchFillConstant<T>(T(0), Out<T>(dw), dw->NumElements(), StreamOf(ctx));
      OP_REQUIRES_OK(ctx, EndLaunch(ctx));
      return;
    }
    ConvSetup<T> c;
    OP_REQUIRES_OK(ctx, c.Prepare(ctx, s, attrs_, nullptr));
    {
      std::lock_guard<std::mutex> lock(c.handle->mu);
      cudnnConvolutionBwdFilterAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
      int found = 0;
      TA_CUDNN(cudnnGetConvolutionBackwardFilterAlgorithm_v7(c.handle->handle, c.x.d, c.y.d, c.conv.d, c.f.d,
                                                             CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &found, perf),
               "choosing an algorithm");
      auto algo = PickAlgorithm(name(), perf, found, "backward-filter");
      OP_REQUIRES_OK(ctx, algo.status());
      auto workspace = Workspace(c.gpu, algo->memory);
      OP_REQUIRES_OK(ctx, workspace.status());
      const T one = 1, zero = 0;
      TA_CUDNN(cudnnConvolutionBackwardFilter(c.handle->handle, &one, c.x.d, In<T>(ctx, 0), c.y.d, In<T>(ctx, 2),
                                              c.conv.d, algo->algo, workspace->data(), algo->memory, &zero, c.f.d,
                                              c.ohwi.data()),
               "backward-filter convolution");
    }
    TransposeFilter<T>(static_cast<const T*>(c.ohwi.data()), Out<T>(dw), s.fh, s.fw, s.c, s.o, false, StreamOf(ctx));
    OP_REQUIRES_OK(ctx, EndLaunch(ctx));
  }
  bool IsExpensive() const override { return false; }

 private:
  ConvAttrs attrs_;
};

// MaxPool, AvgPool and their gradients. The geometry and its checks are the CPU kernels'
// (kernels/cpu/conv_util.h: PoolDims). cuDNN pools windows padded the same on both sides;
// the rest (SAME's uneven padding, explicit padding) and empty tensors, which cuDNN
// refuses, take our own kernels (pool_kernels.cu), computed as the CPU's.
PoolGeometry GeometryOf(const conv::ConvDims& d) {
  PoolGeometry g;
  g.n = d.batch;
  g.h = d.in_rows;
  g.w = d.in_cols;
  g.c = d.in_depth;
  g.oh = d.out_rows;
  g.ow = d.out_cols;
  g.kh = d.filter_rows;
  g.kw = d.filter_cols;
  g.sh = d.stride_rows;
  g.sw = d.stride_cols;
  g.pad_top = d.pad_top;
  g.pad_left = d.pad_left;
  return g;
}

// Whether cuDNN computes this pool: padding the same before and after (the padding after
// that the last window reaches), and something to compute.
bool CudnnPools(const PoolGeometry& g) {
  if (g.n * g.h * g.w * g.c == 0 || g.oh * g.ow == 0) return false;
  const int64_t bottom = std::max<int64_t>(0, (g.oh - 1) * g.sh + g.kh - g.h - g.pad_top);
  const int64_t right = std::max<int64_t>(0, (g.ow - 1) * g.sw + g.kw - g.w - g.pad_left);
  return bottom == g.pad_top && right == g.pad_left;
}

struct PoolDesc {
  cudnnPoolingDescriptor_t d = nullptr;
  PoolDesc() { cudnnCreatePoolingDescriptor(&d); }
  ~PoolDesc() { cudnnDestroyPoolingDescriptor(d); }
};

template <class T>
struct CudnnPool {
  Tensor4d x, y;
  PoolDesc pool;
};

template <class T>
Status DescribePool(const std::string& node, const PoolGeometry& g, bool max, CudnnPool<T>* p) {
  const cudnnDataType_t t = CudnnType<T>();
  cudnnStatus_t st = p->x.SetNhwc(t, g.n, g.h, g.w, g.c);
  if (st == CUDNN_STATUS_SUCCESS) st = p->y.SetNhwc(t, g.n, g.oh, g.ow, g.c);
  if (st == CUDNN_STATUS_SUCCESS) {
    st = cudnnSetPooling2dDescriptor(p->pool.d, max ? CUDNN_POOLING_MAX_DETERMINISTIC : CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING,
                                     CUDNN_NOT_PROPAGATE_NAN, static_cast<int>(g.kh), static_cast<int>(g.kw),
                                     static_cast<int>(g.pad_top), static_cast<int>(g.pad_left), static_cast<int>(g.sh),
                                     static_cast<int>(g.sw));
  }
  return CudnnStatus(st, node, "describing the pooling");
}

template <class T, bool kMax>
class PoolOp : public OpKernel {
 public:
  explicit PoolOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, conv::ReadWindowAttrs(ctx, /*has_dilations=*/false, /*has_ksize=*/true, &attrs_));
  }
  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES_OK(ctx, BeginLaunch(ctx));
    const Tensor& x = ctx->input(0);
    conv::ConvDims d;
    OP_REQUIRES_OK(ctx, conv::PoolDims(*this, attrs_, x.shape(), &d));
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, conv::PoolOutputShape(d), &y));
    if (y->NumElements() == 0) return;
    const PoolGeometry g = GeometryOf(d);
    if (!CudnnPools(g)) {
      LaunchPool<T>(kMax, In<T>(ctx, 0), Out<T>(y), g, StreamOf(ctx));
      OP_REQUIRES_OK(ctx, EndLaunch(ctx));
      return;
    }
    CudnnPool<T> p;
    OP_REQUIRES_OK(ctx, DescribePool<T>(name(), g, kMax, &p));
    CudnnHandle* h = HandleFor(ContextOf(ctx));
    OP_REQUIRES_OK(ctx, h->status);
    std::lock_guard<std::mutex> lock(h->mu);
    const T one = 1, zero = 0;
    TA_CUDNN(cudnnPoolingForward(h->handle, p.pool.d, &one, p.x.d, x.data(), &zero, p.y.d, y->data()), "pooling");
    OP_REQUIRES_OK(ctx, EndLaunch(ctx));
  }
  bool IsExpensive() const override { return false; }

 private:
  conv::WindowAttrs attrs_;
};

// MaxPoolGrad(orig_input, orig_output, grad) and AvgPoolGrad(orig_input_shape, grad).
template <class T, bool kMax>
class PoolGradOp : public OpKernel {
 public:
  explicit PoolGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, conv::ReadWindowAttrs(ctx, /*has_dilations=*/false, /*has_ksize=*/true, &attrs_));
  }
  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES_OK(ctx, BeginLaunch(ctx));
    TensorShape in_shape;
    if (kMax) {
      in_shape = ctx->input(0).shape();
    } else {
      OP_REQUIRES_OK(ctx, conv::PoolInputShape(*this, ctx->input(0), &in_shape));  // int32, in host memory
    }
    conv::ConvDims d;
    OP_REQUIRES_OK(ctx, conv::PoolDims(*this, attrs_, in_shape, &d));
    if (kMax) OP_REQUIRES_OK(ctx, conv::CheckPoolOutputShape(*this, "orig_output", ctx->input(1).shape(), d));
    const Tensor& dy = ctx->input(kMax ? 2 : 1);
    OP_REQUIRES_OK(ctx, conv::CheckPoolOutputShape(*this, "grad", dy.shape(), d));
    Tensor* dx = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in_shape, &dx));
    if (dx->NumElements() == 0) return;
    const PoolGeometry g = GeometryOf(d);
    // Disjoint max windows (the CNN's 2x2 pools): ours, one thread per window, no atomics.
    if (!CudnnPools(g) || (kMax && PoolWindowsDisjoint(g))) {
      if (kMax) LaunchMaxPoolGrad<T>(In<T>(ctx, 0), dy.base<T>(), Out<T>(dx), g, StreamOf(ctx));
      else LaunchAvgPoolGrad<T>(dy.base<T>(), Out<T>(dx), g, StreamOf(ctx));
      OP_REQUIRES_OK(ctx, EndLaunch(ctx));
      return;
    }
    CudnnPool<T> p;
    OP_REQUIRES_OK(ctx, DescribePool<T>(name(), g, kMax, &p));
    CudnnHandle* h = HandleFor(ContextOf(ctx));
    OP_REQUIRES_OK(ctx, h->status);
    std::lock_guard<std::mutex> lock(h->mu);
    const T one = 1, zero = 0;
    // Average pooling's gradient reads neither x nor y; cuDNN still wants pointers.
    const void* x = kMax ? ctx->input(0).data() : dx->data();
    const void* y = kMax ? ctx->input(1).data() : dy.data();
    TA_CUDNN(cudnnPoolingBackward(h->handle, p.pool.d, &one, p.y.d, y, p.y.d, dy.data(), p.x.d, x, &zero, p.x.d,
                                  dx->data()),
             "pooling gradient");
    OP_REQUIRES_OK(ctx, EndLaunch(ctx));
  }
  bool IsExpensive() const override { return false; }

 private:
  conv::WindowAttrs attrs_;
};

#define TA_GPU_CUDNN(T)                                                                                            \
  REGISTER_KERNEL(Name("Conv2D").Device(DEVICE_GPU).TypeConstraint<T>("T"), Conv2DOp<T>);                          \
  REGISTER_KERNEL(Name("Conv2DBackpropInput").Device(DEVICE_GPU).TypeConstraint<T>("T"), Conv2DBackpropInputOp<T>); \
  REGISTER_KERNEL(Name("Conv2DBackpropFilter").Device(DEVICE_GPU).TypeConstraint<T>("T"),                         \
                  Conv2DBackpropFilterOp<T>);                                                                      \
  REGISTER_KERNEL(Name("MaxPool").Device(DEVICE_GPU).TypeConstraint<T>("T"), PoolOp<T, true>);                    \
  REGISTER_KERNEL(Name("AvgPool").Device(DEVICE_GPU).TypeConstraint<T>("T"), PoolOp<T, false>);                   \
  REGISTER_KERNEL(Name("MaxPoolGrad").Device(DEVICE_GPU).TypeConstraint<T>("T"), PoolGradOp<T, true>);            \
  REGISTER_KERNEL(Name("AvgPoolGrad").Device(DEVICE_GPU).TypeConstraint<T>("T"), PoolGradOp<T, false>);
TA_GPU_CUDNN(float)
TA_GPU_CUDNN(double)

}  // namespace
}  // namespace gpu
}  // namespace tensoract
