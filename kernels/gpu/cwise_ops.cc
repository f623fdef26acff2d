// Element-wise OpKernels on the GPU: unary and binary arithmetic (NumPy broadcasting),
// activation gradients, comparisons, logical ops, Cast, Select, AddN, Fill, ZerosLike,
// OnesLike. Each checks shapes on the host, allocates (forwarding an operand's buffer
// when it can) and enqueues one kernel.
#include "kernels/gpu/gpu_op_util.h"

namespace tensoract {
namespace gpu {
namespace {

template <class T, UnaryKind kOp>
class UnaryOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES_OK(ctx, BeginLaunch(ctx));
    const Tensor& x = ctx->input(0);
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(0, 0, x.shape(), &y));
    LaunchUnary<T>(kOp, In<T>(ctx, 0), Out<T>(y), x.NumElements(), StreamOf(ctx));
    OP_REQUIRES_OK(ctx, EndLaunch(ctx));
  }
  bool IsExpensive() const override { return false; }
};

// A binary op over NumPy-broadcast inputs: kLaunch(kOp, x, y, z, n, index, stream). An
// output of the inputs' type may take over an input's buffer (forward_input_or_allocate
// allocates when the dtypes differ, as for comparisons).
template <class Kind, Kind kOp, class I, class O,
          void (*kLaunch)(Kind, const I*, const I*, O*, int64_t, const BroadcastIndex&, cudaStream_t)>
class BroadcastOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES_OK(ctx, BeginLaunch(ctx));
    auto plan = MakeBroadcastPlan(ctx->input(0).shape(), ctx->input(1).shape());
    OP_REQUIRES(ctx, plan.ok(), errors::InvalidArgument(plan.status().message(), " (node '", name(), "')"));
    auto index = IndexOf(plan.value());
    OP_REQUIRES_OK(ctx, index.status());
    Tensor* z = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output({0, 1}, 0, plan->output_shape, &z));
    kLaunch(kOp, In<I>(ctx, 0), In<I>(ctx, 1), Out<O>(z), plan->output_shape.num_elements(), index.value(),
            StreamOf(ctx));
    OP_REQUIRES_OK(ctx, EndLaunch(ctx));
  }
  bool IsExpensive() const override { return false; }
};

template <class T, BinaryKind kOp>
using BinaryOp = BroadcastOp<BinaryKind, kOp, T, T, LaunchBinary<T>>;
template <class T, CompareKind kOp>
using CompareOp = BroadcastOp<CompareKind, kOp, T, bool, LaunchCompare<T>>;
template <LogicalKind kOp>
using LogicalOp = BroadcastOp<LogicalKind, kOp, bool, bool, LaunchLogical>;

class LogicalNotOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES_OK(ctx, BeginLaunch(ctx));
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(0, 0, ctx->input(0).shape(), &y));
    LaunchLogicalNot(In<bool>(ctx, 0), Out<bool>(y), ctx->input(0).NumElements(), StreamOf(ctx));
    OP_REQUIRES_OK(ctx, EndLaunch(ctx));
  }
  bool IsExpensive() const override { return false; }
};

// Cast between the types that live in the GPU's memory.
class CastOp : public OpKernel {
 public:
  explicit CastOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("SrcT", &src_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("DstT", &dst_));
  }
  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES_OK(ctx, BeginLaunch(ctx));
    const Tensor& x = ctx->input(0);
    if (src_ == dst_) return ctx->set_output(0, x);
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    const int64_t n = x.NumElements();
    cudaStream_t s = StreamOf(ctx);
    bool ok = Dispatch(x.data(), y->data(), n, s);
    OP_REQUIRES(ctx, ok, errors::Unimplemented("node '", name(), "': no GPU Cast from ", DataTypeString(src_), " to ",
                                               DataTypeString(dst_)));
    OP_REQUIRES_OK(ctx, EndLaunch(ctx));
  }
  bool IsExpensive() const override { return false; }

 private:
  template <class S>
  bool To(const void* x, void* y, int64_t n, cudaStream_t s) {
    switch (dst_) {
      case tensorflow::DT_FLOAT: LaunchCast(static_cast<const S*>(x), static_cast<float*>(y), n, s); return true;
      case tensorflow::DT_DOUBLE: LaunchCast(static_cast<const S*>(x), static_cast<double*>(y), n, s); return true;
      case tensorflow::DT_INT64: LaunchCast(static_cast<const S*>(x), static_cast<int64_t*>(y), n, s); return true;
      case tensorflow::DT_BOOL: LaunchCast(static_cast<const S*>(x), static_cast<bool*>(y), n, s); return true;
      default: return false;
    }
  }
  bool Dispatch(const void* x, void* y, int64_t n, cudaStream_t s) {
    switch (src_) {
      case tensorflow::DT_FLOAT: return To<float>(x, y, n, s);
      case tensorflow::DT_DOUBLE: return To<double>(x, y, n, s);
      case tensorflow::DT_INT64: return To<int64_t>(x, y, n, s);
      case tensorflow::DT_BOOL: return To<bool>(x, y, n, s);
      default: return false;
    }
  }
  DataType src_ = tensorflow::DT_INVALID, dst_ = tensorflow::DT_INVALID;
};

// Select(cond, a, b): a and b of one shape, cond of that shape, a scalar, or a vector
// choosing rows (TensorFlow 1's); SelectV2: all three broadcast, with the CPU kernel's
// shape rules (kernels/cpu/broadcast.h).
template <class T, bool kV2>
class SelectOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES_OK(ctx, BeginLaunch(ctx));
    const Tensor& c = ctx->input(0);
    const Tensor& a = ctx->input(1);
    const Tensor& b = ctx->input(2);
    TensorShape cond_shape = c.shape(), out = a.shape();
    if (kV2) {
      StatusOr<TensorShape> ab = BroadcastShape(a.shape(), b.shape());
      OP_REQUIRES(ctx, ab.ok(), ab.status().WithContext(StrCat("node '", name(), "': 'then' and 'else'")));
      StatusOr<TensorShape> shape = BroadcastShape(c.shape(), *ab);
      OP_REQUIRES(ctx, shape.ok(), shape.status().WithContext(StrCat("node '", name(), "': 'cond' and 'then'/'else'")));
      out = *shape;
    } else {
      OP_REQUIRES(ctx, a.shape() == b.shape(),
                  errors::InvalidArgument("node '", name(), "': 'then' and 'else' must have the same shape: ",
                                          a.shape().DebugString(), " vs ", b.shape().DebugString()));
      const bool rows = c.dims() == 1 && a.dims() > 1 && c.dim_size(0) == a.dim_size(0);
      OP_REQUIRES(ctx, c.dims() == 0 || c.shape() == a.shape() || rows,
                  errors::InvalidArgument("node '", name(), "': the condition ", c.shape().DebugString(),
                                          " must be a scalar, ", a.shape().DebugString(), " or a vector of its rows"));
      if (rows) {  // [n] chooses rows: [n, 1, ..., 1]
        std::vector<int64_t> dims(a.dims(), 1);
        dims[0] = c.dim_size(0);
        cond_shape = TensorShape(dims);
      }
    }
    OP_REQUIRES(ctx, out.dims() <= kMaxBroadcastDims,
                errors::Unimplemented("node '", name(), "': the GPU selects over up to ", kMaxBroadcastDims,
                                      " dimensions"));
    SelectIndex index;
    index.ndims = out.dims();
    const std::vector<int64_t> cs = StridesIn(cond_shape, out), as = StridesIn(a.shape(), out),
                               bs = StridesIn(b.shape(), out);
    for (int d = 0; d < index.ndims; ++d) {
      index.dims[d] = out.dim_size(d);
      index.c_strides[d] = cs[d];
      index.a_strides[d] = as[d];
      index.b_strides[d] = bs[d];
    }
    Tensor* result = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out, &result));
    LaunchSelect<T>(In<bool>(ctx, 0), In<T>(ctx, 1), In<T>(ctx, 2), Out<T>(result), result->NumElements(), index,
                    StreamOf(ctx));
    OP_REQUIRES_OK(ctx, EndLaunch(ctx));
  }
  bool IsExpensive() const override { return false; }
};

// The activation gradients take no broadcasting, as the CPU's: ReluGrad and Relu6Grad
// (kSameShape) need one shape; the others as many elements, the output shaped as input 0.
template <class T, BinaryKind kOp, bool kSameShape>
class GradOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES_OK(ctx, BeginLaunch(ctx));
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    OP_REQUIRES(ctx, kSameShape ? x.shape() == y.shape() : x.NumElements() == y.NumElements(),
                errors::InvalidArgument("Inputs to operation ", name(), " of type ", type_string(),
                                        " must have the same size and shape.  Input 0: ", x.shape().DebugString(),
                                        " != input 1: ", y.shape().DebugString()));
    Tensor* z = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output({0, 1}, 0, x.shape(), &z));
    LaunchBinary<T>(kOp, In<T>(ctx, 0), In<T>(ctx, 1), Out<T>(z), x.NumElements(), BroadcastIndex(), StreamOf(ctx));
    OP_REQUIRES_OK(ctx, EndLaunch(ctx));
  }
  bool IsExpensive() const override { return false; }
};

template <class T>
class AddNOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES_OK(ctx, BeginLaunch(ctx));
    const Tensor& first = ctx->input(0);
    for (int i = 1; i < ctx->num_inputs(); ++i) {
      OP_REQUIRES(ctx, ctx->input(i).shape() == first.shape(),
                  errors::InvalidArgument("node '", name(), "': inputs must have the same shape: ",
                                          first.shape().DebugString(), " vs ", ctx->input(i).shape().DebugString()));
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, first.shape(), &out));
    const T* inputs[kMaxAddN];
    for (int begin = 0; begin < ctx->num_inputs(); begin += kMaxAddN) {
      int count = 0;
      for (int i = begin; i < ctx->num_inputs() && count < kMaxAddN; ++i) inputs[count++] = In<T>(ctx, i);
      LaunchAddN<T>(inputs, count, begin > 0, Out<T>(out), first.NumElements(), StreamOf(ctx));
    }
    OP_REQUIRES_OK(ctx, EndLaunch(ctx));
  }
  bool IsExpensive() const override { return false; }
};

// Fill(dims, value): dims in host memory (int32), value in the GPU's.
template <class T>
class FillOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES_OK(ctx, BeginLaunch(ctx));
    const Tensor& dims = ctx->input(0);
    OP_REQUIRES(ctx, dims.dims() <= 1 && ctx->input(1).NumElements() == 1,
                errors::InvalidArgument("node '", name(), "': Fill takes a vector of dims and a scalar value"));
    std::vector<int64_t> sizes;
    for (int64_t i = 0; i < dims.NumElements(); ++i) {
      const int64_t d = dims.base<int32_t>()[i];
      OP_REQUIRES(ctx, d >= 0, errors::InvalidArgument("node '", name(), "': dimension ", i, " is negative: ", d));
      sizes.push_back(d);
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(sizes), &out));
    LaunchFill<T>(In<T>(ctx, 1), Out<T>(out), out->NumElements(), StreamOf(ctx));
    OP_REQUIRES_OK(ctx, EndLaunch(ctx));
  }
  bool IsExpensive() const override { return false; }
};

template <class T, int kValue>
class FillLikeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES_OK(ctx, BeginLaunch(ctx));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(0, 0, ctx->input(0).shape(), &out));
    LaunchFillConstant<T>(T(kValue), Out<T>(out), out->NumElements(), StreamOf(ctx));
    OP_REQUIRES_OK(ctx, EndLaunch(ctx));
  }
  bool IsExpensive() const override { return false; }
};

#define TA_GPU_UNARY(NAME, KIND)                                                                            \
  REGISTER_KERNEL(Name(NAME).Device(DEVICE_GPU).TypeConstraint<float>("T"), UnaryOp<float, UnaryKind::KIND>); \
  REGISTER_KERNEL(Name(NAME).Device(DEVICE_GPU).TypeConstraint<double>("T"), UnaryOp<double, UnaryKind::KIND>);
TA_GPU_UNARY("Neg", kNeg)
TA_GPU_UNARY("Abs", kAbs)
TA_GPU_UNARY("Exp", kExp)
TA_GPU_UNARY("Log", kLog)
TA_GPU_UNARY("Sqrt", kSqrt)
TA_GPU_UNARY("Rsqrt", kRsqrt)
TA_GPU_UNARY("Square", kSquare)
TA_GPU_UNARY("Tanh", kTanh)
TA_GPU_UNARY("Sigmoid", kSigmoid)
TA_GPU_UNARY("Relu", kRelu)
TA_GPU_UNARY("Relu6", kRelu6)
TA_GPU_UNARY("Reciprocal", kReciprocal)
TA_GPU_UNARY("Inv", kReciprocal)
TA_GPU_UNARY("Log1p", kLog1p)
TA_GPU_UNARY("Sign", kSign)
TA_GPU_UNARY("Floor", kFloor)
TA_GPU_UNARY("Ceil", kCeil)
TA_GPU_UNARY("Sin", kSin)
TA_GPU_UNARY("Cos", kCos)
TA_GPU_UNARY("Softplus", kSoftplus)

#define TA_GPU_BINARY(NAME, KIND)                                                                              \
  REGISTER_KERNEL(Name(NAME).Device(DEVICE_GPU).TypeConstraint<float>("T"), BinaryOp<float, BinaryKind::KIND>); \
  REGISTER_KERNEL(Name(NAME).Device(DEVICE_GPU).TypeConstraint<double>("T"), BinaryOp<double, BinaryKind::KIND>);
TA_GPU_BINARY("Add", kAdd)
TA_GPU_BINARY("AddV2", kAdd)
TA_GPU_BINARY("Sub", kSub)
TA_GPU_BINARY("Mul", kMul)
TA_GPU_BINARY("RealDiv", kDiv)
TA_GPU_BINARY("Div", kDiv)
TA_GPU_BINARY("Maximum", kMaximum)
TA_GPU_BINARY("Minimum", kMinimum)
TA_GPU_BINARY("SquaredDifference", kSquaredDifference)
TA_GPU_BINARY("Pow", kPow)

#define TA_GPU_GRAD(NAME, KIND, SAME_SHAPE)                                                             \
  REGISTER_KERNEL(Name(NAME).Device(DEVICE_GPU).TypeConstraint<float>("T"),                            \
                  GradOp<float, BinaryKind::KIND, SAME_SHAPE>);                                        \
  REGISTER_KERNEL(Name(NAME).Device(DEVICE_GPU).TypeConstraint<double>("T"),                           \
                  GradOp<double, BinaryKind::KIND, SAME_SHAPE>);
TA_GPU_GRAD("ReluGrad", kReluGrad, true)
TA_GPU_GRAD("Relu6Grad", kRelu6Grad, true)
TA_GPU_GRAD("SigmoidGrad", kSigmoidGrad, false)
TA_GPU_GRAD("TanhGrad", kTanhGrad, false)
TA_GPU_GRAD("SqrtGrad", kSqrtGrad, false)
TA_GPU_GRAD("RsqrtGrad", kRsqrtGrad, false)
TA_GPU_GRAD("ReciprocalGrad", kReciprocalGrad, false)
TA_GPU_GRAD("InvGrad", kReciprocalGrad, false)

#define TA_GPU_COMPARE_T(NAME, KIND, T) \
  REGISTER_KERNEL(Name(NAME).Device(DEVICE_GPU).TypeConstraint<T>("T"), CompareOp<T, CompareKind::KIND>);
#define TA_GPU_COMPARE(NAME, KIND)       \
  TA_GPU_COMPARE_T(NAME, KIND, float)    \
  TA_GPU_COMPARE_T(NAME, KIND, double)   \
  TA_GPU_COMPARE_T(NAME, KIND, int64_t)
TA_GPU_COMPARE("Equal", kEqual)
TA_GPU_COMPARE("NotEqual", kNotEqual)
TA_GPU_COMPARE("Less", kLess)
TA_GPU_COMPARE("LessEqual", kLessEqual)
TA_GPU_COMPARE("Greater", kGreater)
TA_GPU_COMPARE("GreaterEqual", kGreaterEqual)

REGISTER_KERNEL(Name("LogicalAnd").Device(DEVICE_GPU), LogicalOp<LogicalKind::kAnd>);
REGISTER_KERNEL(Name("LogicalOr").Device(DEVICE_GPU), LogicalOp<LogicalKind::kOr>);
REGISTER_KERNEL(Name("LogicalNot").Device(DEVICE_GPU), LogicalNotOp);

const DataTypeVector kCastTypes = {tensorflow::DT_FLOAT, tensorflow::DT_DOUBLE, tensorflow::DT_INT64, tensorflow::DT_BOOL};
REGISTER_KERNEL(Name("Cast").Device(DEVICE_GPU).TypeConstraint("SrcT", kCastTypes).TypeConstraint("DstT", kCastTypes),
                CastOp);

#define TA_GPU_VALUE_OPS(T)                                                                           \
  REGISTER_KERNEL(Name("Select").Device(DEVICE_GPU).TypeConstraint<T>("T"), SelectOp<T, false>);      \
  REGISTER_KERNEL(Name("SelectV2").Device(DEVICE_GPU).TypeConstraint<T>("T"), SelectOp<T, true>);     \
  REGISTER_KERNEL(Name("Fill").Device(DEVICE_GPU).TypeConstraint<T>("T").TypeConstraint<int32_t>("index_type"), \
                  FillOp<T>);                                                                         \
  REGISTER_KERNEL(Name("ZerosLike").Device(DEVICE_GPU).TypeConstraint<T>("T"), FillLikeOp<T, 0>);     \
  REGISTER_KERNEL(Name("OnesLike").Device(DEVICE_GPU).TypeConstraint<T>("T"), FillLikeOp<T, 1>);
TA_GPU_VALUE_OPS(float)
TA_GPU_VALUE_OPS(double)
TA_GPU_VALUE_OPS(int64_t)
REGISTER_KERNEL(Name("AddN").Device(DEVICE_GPU).TypeConstraint<float>("T"), AddNOp<float>);
REGISTER_KERNEL(Name("AddN").Device(DEVICE_GPU).TypeConstraint<double>("T"), AddNOp<double>);

}  // namespace
}  // namespace gpu
}  // namespace tensoract
