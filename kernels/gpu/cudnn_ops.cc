// Convolutions and pooling on the GPU through cuDNN, in TensorFlow's layouts: NHWC data
// and HWIO filters. cuDNN takes NHWC data but wants filters as OHWI ("KRSC"), so the
// filter is transposed into scratch memory on the way in (and the filter gradient on the
// way out). SAME padding must be symmetric (odd total padding would need a padded copy of
// the input: Unimplemented, naming the node, for now).
#include <cudnn.h>

#include <map>
#include <mutex>
#include <vector>

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
struct PoolDesc {
  cudnnPoolingDescriptor_t d = nullptr;
  PoolDesc() { cudnnCreatePoolingDescriptor(&d); }
  ~PoolDesc() { cudnnDestroyPoolingDescriptor(d); }
};

template <class T>
cudnnDataType_t CudnnType() { return std::is_same_v<T, float> ? CUDNN_DATA_FLOAT : CUDNN_DATA_DOUBLE; }

// TensorFlow's output size and padding before, for one spatial dimension.
struct Window {
  int64_t out = 0, pad = 0;
  bool symmetric = true;
};
Window Spatial(int64_t in, int64_t k, int64_t stride, int64_t dilation, bool same) {
  Window w;
  const int64_t effective = (k - 1) * dilation + 1;
  if (same) {
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
  void Read(OpKernelConstruction* ctx) {
    std::vector<int64_t> strides, dilations = {1, 1, 1, 1};
    std::string padding, format = "NHWC";
    Status s = ctx->GetAttr("strides", &strides);
    if (s.ok()) s = ctx->GetAttr("padding", &padding);
    if (!s.ok()) return ctx->SetStatus(s);
    ctx->GetAttr("dilations", &dilations).IgnoreError();
    ctx->GetAttr("data_format", &format).IgnoreError();
    if (format != "NHWC") {
      return ctx->SetStatus(errors::Unimplemented("node '", ctx->def().name(), "': the GPU convolutions take NHWC, not ",
                                                  format));
    }
    if (strides.size() != 4 || dilations.size() != 4 || (padding != "SAME" && padding != "VALID")) {
      return ctx->SetStatus(errors::InvalidArgument("node '", ctx->def().name(),
                                                    "': strides and dilations need 4 values, padding SAME or VALID"));
    }
    stride_h = strides[1];
    stride_w = strides[2];
    dilation_h = dilations[1];
    dilation_w = dilations[2];
    same = padding == "SAME";
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
  s->wh = Spatial(s->h, s->fh, a.stride_h, a.dilation_h, a.same);
  s->ww = Spatial(s->w, s->fw, a.stride_w, a.dilation_w, a.same);
  if (!s->wh.symmetric || !s->ww.symmetric) {
    return errors::Unimplemented("node '", node, "': SAME padding that is not the same on both sides (input ",
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

// The int32 sizes input (host memory) as a shape.
Status SizesOf(const std::string& node, const Tensor& sizes, TensorShape* shape) {
  if (sizes.dtype() != tensorflow::DT_INT32 || sizes.NumElements() != 4) {
    return errors::InvalidArgument("node '", node, "': sizes must be 4 int32 values, got ", sizes.DebugString());
  }
  std::vector<int64_t> d;
  for (int i = 0; i < 4; ++i) d.push_back(sizes.base<int32_t>()[i]);
  *shape = TensorShape(d);
  return Status::OK();
}

template <class T>
class Conv2DBackpropInputOp : public OpKernel {
 public:
  explicit Conv2DBackpropInputOp(OpKernelConstruction* ctx) : OpKernel(ctx) { attrs_.Read(ctx); }
  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES_OK(ctx, BeginLaunch(ctx));
    TensorShape input_shape;
    OP_REQUIRES_OK(ctx, SizesOf(name(), ctx->input(0), &input_shape));
    const Tensor& filter = ctx->input(1);
    const Tensor& dy = ctx->input(2);
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
    OP_REQUIRES_OK(ctx, SizesOf(name(), ctx->input(1), &filter_shape));
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

// The attrs of MaxPool/AvgPool and their gradients (NHWC, windows over H and W only).
struct PoolAttrs {
  int64_t kh = 1, kw = 1, sh = 1, sw = 1;
  bool same = false;
  void Read(OpKernelConstruction* ctx) {
    std::vector<int64_t> ksize, strides;
    std::string padding, format = "NHWC";
    Status s = ctx->GetAttr("ksize", &ksize);
    if (s.ok()) s = ctx->GetAttr("strides", &strides);
    if (s.ok()) s = ctx->GetAttr("padding", &padding);
    if (!s.ok()) return ctx->SetStatus(s);
    ctx->GetAttr("data_format", &format).IgnoreError();
    if (format != "NHWC" || ksize.size() != 4 || strides.size() != 4 || ksize[0] != 1 || ksize[3] != 1 ||
        strides[0] != 1 || strides[3] != 1) {
      return ctx->SetStatus(errors::Unimplemented("node '", ctx->def().name(),
                                                  "': the GPU pools NHWC windows over height and width only"));
    }
    kh = ksize[1];
    kw = ksize[2];
    sh = strides[1];
    sw = strides[2];
    same = padding == "SAME";
  }
};

template <class T>
struct PoolSetup {
  Tensor4d x, y;
  PoolDesc pool;
  int64_t oh = 0, ow = 0;
};

template <class T>
Status SetUpPool(const std::string& node, const PoolAttrs& a, bool max, const TensorShape& in, PoolSetup<T>* p) {
  if (in.dims() != 4) return errors::InvalidArgument("node '", node, "': input must be 4-D, got ", in.DebugString());
  Window wh = Spatial(in.dim_size(1), a.kh, a.sh, 1, a.same), ww = Spatial(in.dim_size(2), a.kw, a.sw, 1, a.same);
  if (!wh.symmetric || !ww.symmetric) {
    return errors::Unimplemented("node '", node, "': SAME pooling with uneven padding (input ", in.DebugString(),
                                 ") is not on the GPU yet");
  }
  p->oh = wh.out;
  p->ow = ww.out;
  const cudnnDataType_t t = CudnnType<T>();
  cudnnStatus_t st = p->x.SetNhwc(t, in.dim_size(0), in.dim_size(1), in.dim_size(2), in.dim_size(3));
  if (st == CUDNN_STATUS_SUCCESS) st = p->y.SetNhwc(t, in.dim_size(0), wh.out, ww.out, in.dim_size(3));
  if (st == CUDNN_STATUS_SUCCESS) {
    st = cudnnSetPooling2dDescriptor(p->pool.d, max ? CUDNN_POOLING_MAX_DETERMINISTIC : CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING,
                                     CUDNN_NOT_PROPAGATE_NAN, static_cast<int>(a.kh), static_cast<int>(a.kw),
                                     static_cast<int>(wh.pad), static_cast<int>(ww.pad), static_cast<int>(a.sh),
                                     static_cast<int>(a.sw));
  }
  return CudnnStatus(st, node, "describing the pooling");
}

template <class T, bool kMax>
class PoolOp : public OpKernel {
 public:
  explicit PoolOp(OpKernelConstruction* ctx) : OpKernel(ctx) { attrs_.Read(ctx); }
  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES_OK(ctx, BeginLaunch(ctx));
    const Tensor& x = ctx->input(0);
    PoolSetup<T> p;
    OP_REQUIRES_OK(ctx, SetUpPool<T>(name(), attrs_, kMax, x.shape(), &p));
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({x.dim_size(0), p.oh, p.ow, x.dim_size(3)}), &y));
    if (y->NumElements() == 0) return;
    CudnnHandle* h = HandleFor(ContextOf(ctx));
    OP_REQUIRES_OK(ctx, h->status);
    std::lock_guard<std::mutex> lock(h->mu);
    const T one = 1, zero = 0;
    TA_CUDNN(cudnnPoolingForward(h->handle, p.pool.d, &one, p.x.d, x.data(), &zero, p.y.d, y->data()), "pooling");
    OP_REQUIRES_OK(ctx, EndLaunch(ctx));
  }
  bool IsExpensive() const override { return false; }

 private:
  PoolAttrs attrs_;
};

// MaxPoolGrad(orig_input, orig_output, grad) and AvgPoolGrad(orig_input_shape, grad).
template <class T, bool kMax>
class PoolGradOp : public OpKernel {
 public:
  explicit PoolGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) { attrs_.Read(ctx); }
  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES_OK(ctx, BeginLaunch(ctx));
    TensorShape in_shape;
    if (kMax) {
      in_shape = ctx->input(0).shape();
    } else {
      OP_REQUIRES_OK(ctx, SizesOf(name(), ctx->input(0), &in_shape));
    }
    const Tensor& dy = ctx->input(kMax ? 2 : 1);
    PoolSetup<T> p;
    OP_REQUIRES_OK(ctx, SetUpPool<T>(name(), attrs_, kMax, in_shape, &p));
    OP_REQUIRES(ctx, dy.shape() == TensorShape({in_shape.dim_size(0), p.oh, p.ow, in_shape.dim_size(3)}),
                errors::InvalidArgument("node '", name(), "': the gradient's shape ", dy.shape().DebugString(),
                                        " is not the pooling's output shape"));
    Tensor* dx = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in_shape, &dx));
    if (dx->NumElements() == 0) return;
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
  PoolAttrs attrs_;
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
