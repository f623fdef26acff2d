// _FusedLstmGates and _FusedGruGates on the CPU, float: the gate activations and state
// update of Keras' LSTM and GRU cells, as the remapper fuses them
// (graph/optimizer/recurrent_gates_fusion.h). The unfused cells split or slice the gates into
// new tensors and run each activation, product and sum as a kernel writing a tensor of its
// own; here each row of gates is read where it lies and the new state is written once.
//
// The functions are the unfused kernels' (kernels/cpu/cwise_unary.cc): the accurate
// logistic function for Sigmoid, Eigen's vectorised tanh for Tanh, so the values are the
// unfused graph's up to float rounding (the compiler may contract a product and a sum into
// one multiply-add, where the unfused Mul and AddV2 round each). The LSTM's arithmetic is
// kernels/cpu/lstm_gates.h's, which _SequentialLoop's fused step computes with too.
#include <vector>

#include "kernels/cpu/accurate_exp.h"
#include "kernels/cpu/broadcast.h"
#include "kernels/cpu/cwise_ops.h"
#include "kernels/cpu/lstm_gates.h"
#include "kernels/kernel_registry.h"

namespace tensoract {
namespace {

// Rows of a gate (or of a state) as an Eigen array: `units` values in each column, one column
// a batch row, `stride` values from one row to the next.
using ConstGate = Eigen::Map<const Eigen::ArrayXXf, Eigen::Unaligned, Eigen::OuterStride<>>;
using Gate = Eigen::Map<Eigen::ArrayXXf, Eigen::Unaligned, Eigen::OuterStride<>>;

// The gates' `index`-th block of `units` columns, rows [first, first + rows), of a
// [batch, blocks * units] tensor.
ConstGate GateBlock(const float* gates, int64_t blocks, int64_t units, int index, int64_t first, int64_t rows) {
  return ConstGate(gates + first * blocks * units + index * units, units, rows, Eigen::OuterStride<>(blocks * units));
}

// Input `index` as the unfused Add or Mul would broadcast it into `shape` (rank 2): the input
// itself, or a copy written out whole; an error where it would widen `shape`.
Status BroadcastInput(OpKernelContext* ctx, const OpKernel& kernel, int index, const char* what,
                      const TensorShape& shape, Tensor* out) {
  const Tensor& given = ctx->input(index);
  *out = given;
  if (given.shape() == shape) return Status::OK();
  const StatusOr<TensorShape> broadcast = BroadcastShape(given.shape(), shape);
  if (!broadcast.ok() || *broadcast != shape) {
    return errors::InvalidArgument(CwiseNodeContext(kernel), ": ", what, " (input ", index, ") of shape ",
                                   given.shape().DebugString(), " does not broadcast into the gates' ",
                                   shape.DebugString());
  }
  *out = Tensor(tensorflow::DT_FLOAT, shape);
  const std::vector<int64_t> strides = StridesIn(given.shape(), shape);  // 0 along a broadcast dimension
  const float* v = given.base<float>();
  float* to = out->base<float>();
  for (int64_t r = 0; r < shape.dim_size(0); ++r) {
    for (int64_t u = 0; u < shape.dim_size(1); ++u) *to++ = v[r * strides[0] + u * strides[1]];
  }
  return Status::OK();
}

// gates must be [batch, blocks * units]; *state = [batch, units].
Status GatesShape(const OpKernel& kernel, const Tensor& gates, int blocks, TensorShape* state) {
  if (gates.dims() != 2 || gates.dim_size(1) % blocks != 0) {
    return errors::InvalidArgument(CwiseNodeContext(kernel), ": gates must be [batch, ", blocks, " * units], got ",
                                   gates.shape().DebugString());
  }
  *state = TensorShape({gates.dim_size(0), gates.dim_size(1) / blocks});
  return Status::OK();
}

class FusedLstmGatesOp : public OpKernel {
 public:
  explicit FusedLstmGatesOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& gates = ctx->input(0);
    TensorShape state;
    OP_REQUIRES_OK(ctx, GatesShape(*this, gates, 4, &state));
    // The bias the remapper took from a BiasAdd (or Add) before the gates: BiasAdd's check.
    const float* bias = nullptr;
    if (ctx->num_inputs() > 2) {
      const Tensor& b = ctx->input(2);
      OP_REQUIRES(ctx, b.dims() == 1 && b.dim_size(0) == gates.dim_size(1),
                  errors::InvalidArgument(CwiseNodeContext(*this), ": the gates' bias must be a vector of ",
                                          gates.dim_size(1), " values, one per column of the gates, got shape ",
                                          b.shape().DebugString()));
      bias = b.base<float>();
    }
    Tensor c_prev;
    OP_REQUIRES_OK(ctx, BroadcastInput(ctx, *this, 1, "the previous state", state, &c_prev));
    Tensor *c = nullptr, *h = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output({1}, 0, state, &c));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, state, &h));
    if (state.num_elements() == 0) return;
    const int64_t units = state.dim_size(1);
    const float* z = gates.base<float>();
    const float* c_in = c_prev.base<float>();
    float* c_out = c->base<float>();
    float* h_out = h->base<float>();
    // About 40 cycles an element: three logistic functions and two tanh.
    CwiseParallelFor(ctx, state.dim_size(0), 40 * units, [&](int64_t first, int64_t last) {
      LstmGateRows(z, bias, c_in, c_out, h_out, units, first, last);
    });
  }
};

class FusedGruGatesOp : public OpKernel {
 public:
  explicit FusedGruGatesOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x_gates = ctx->input(0);
    TensorShape state;
    OP_REQUIRES_OK(ctx, GatesShape(*this, x_gates, 3, &state));
    Tensor h_gates, h_prev;
    OP_REQUIRES_OK(ctx, BroadcastInput(ctx, *this, 1, "the recurrent gates", x_gates.shape(), &h_gates));
    OP_REQUIRES_OK(ctx, BroadcastInput(ctx, *this, 2, "the previous state", state, &h_prev));
    Tensor* h = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output({2}, 0, state, &h));
    if (state.num_elements() == 0) return;
    const int64_t units = state.dim_size(1);
    const float* x = x_gates.base<float>();
    const float* q = h_gates.base<float>();
    const float* h_in = h_prev.base<float>();
    float* h_out = h->base<float>();
    // About 30 cycles an element: two logistic functions and a tanh.
    CwiseParallelFor(ctx, state.dim_size(0), 30 * units, [&](int64_t first, int64_t last) {
      const int64_t rows = last - first;
      const Eigen::OuterStride<> stride(units);
      // The update gate is read twice: computed once, into a buffer of the range's rows.
      Eigen::ArrayXXf update = (GateBlock(x, 3, units, 0, first, rows) + GateBlock(q, 3, units, 0, first, rows))
                                   .unaryExpr(AccurateLogistic());
      Eigen::ArrayXXf candidate =
          (GateBlock(x, 3, units, 2, first, rows) +
           (GateBlock(x, 3, units, 1, first, rows) + GateBlock(q, 3, units, 1, first, rows)).unaryExpr(AccurateLogistic()) *
               GateBlock(q, 3, units, 2, first, rows))
              .tanh();
      ConstGate h_before(h_in + first * units, units, rows, stride);
      Gate h_after(h_out + first * units, units, rows, stride);
      // h_out may be h_prev's buffer (forwarded): each element is read before it is written.
      h_after = update * h_before + (1.f - update) * candidate;
    });
  }
};

REGISTER_KERNEL(Name("_FusedLstmGates").Device(DEVICE_CPU).TypeConstraint<float>("T"), FusedLstmGatesOp);
REGISTER_KERNEL(Name("_FusedGruGates").Device(DEVICE_CPU).TypeConstraint<float>("T"), FusedGruGatesOp);

}  // namespace
}  // namespace tensoract
