// _FusedLstmGates on the CPU, float: a Keras LSTM cell's gate activations and state update,
// as the remapper fuses them (graph/optimizer/lstm_gates_fusion.h). The unfused cell splits
// the gates into four new tensors, runs five activations and three products and a sum, each
// a kernel writing a tensor of its own; here each row of gates is read where it lies and c
// and h are written once.
//
// The functions are the unfused kernels' (kernels/cpu/cwise_unary.cc): the accurate
// logistic function for Sigmoid, Eigen's vectorised tanh for Tanh, so the values are the
// unfused graph's up to float rounding (the compiler may contract a product and a sum into
// one multiply-add, where the unfused Mul and AddV2 round each).
#include "kernels/cpu/accurate_exp.h"
#include "kernels/cpu/cwise_ops.h"
#include "kernels/kernel_registry.h"

namespace tensoract {
namespace {

// Rows of a gate (or of c, h) as an Eigen array: `units` values in each column, one column a
// batch row, `stride` values from one row to the next.
using ConstGate = Eigen::Map<const Eigen::ArrayXXf, Eigen::Unaligned, Eigen::OuterStride<>>;
using Gate = Eigen::Map<Eigen::ArrayXXf, Eigen::Unaligned, Eigen::OuterStride<>>;

// `from` (rank 2 at most) broadcasts into `to` ([batch, units]) without widening it.
bool BroadcastsInto(const TensorShape& from, const TensorShape& to) {
  if (from.dims() > 2) return false;
  for (int d = 0; d < from.dims(); ++d) {
    const int64_t have = from.dim_size(d), want = to.dim_size(2 - from.dims() + d);
    if (have != 1 && have != want) return false;
  }
  return true;
}

// `from` (as BroadcastsInto allows) written out as [batch, units] into `to`.
void Expand(const Tensor& from, int64_t batch, int64_t units, float* to) {
  const int64_t rows = from.dims() == 2 ? from.dim_size(0) : 1;
  const int64_t cols = from.dims() >= 1 ? from.dim_size(from.dims() - 1) : 1;
  const float* v = from.base<float>();
  for (int64_t r = 0; r < batch; ++r) {
    for (int64_t u = 0; u < units; ++u) to[r * units + u] = v[(rows == 1 ? 0 : r) * cols + (cols == 1 ? 0 : u)];
  }
}

class FusedLstmGatesOp : public OpKernel {
 public:
  explicit FusedLstmGatesOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& gates = ctx->input(0);
    const Tensor& c_given = ctx->input(1);
    OP_REQUIRES(ctx, gates.dims() == 2 && gates.dim_size(1) % 4 == 0,
                errors::InvalidArgument(CwiseNodeContext(*this), ": gates must be [batch, 4 * units], got ",
                                        gates.shape().DebugString()));
    const int64_t batch = gates.dim_size(0), units = gates.dim_size(1) / 4;
    const TensorShape state({batch, units});
    // c_prev as the unfused Mul would broadcast it into [batch, units]; it may not widen it.
    Tensor c_prev = c_given;
    if (c_given.shape() != state) {
      OP_REQUIRES(ctx, BroadcastsInto(c_given.shape(), state),
                  errors::InvalidArgument(CwiseNodeContext(*this), ": c_prev of shape ", c_given.shape().DebugString(),
                                          " does not broadcast into the gates' ", state.DebugString()));
      c_prev = Tensor(tensorflow::DT_FLOAT, state);
      Expand(c_given, batch, units, c_prev.base<float>());
    }
    Tensor *c = nullptr, *h = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output({1}, 0, state, &c));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, state, &h));
    if (state.num_elements() == 0) return;
    const float* z = gates.base<float>();
    const float* c_in = c_prev.base<float>();
    float* c_out = c->base<float>();
    float* h_out = h->base<float>();
    // About 40 cycles an element: three logistic functions and two tanh.
    CwiseParallelFor(ctx, batch, 40 * units, [&](int64_t first, int64_t last) {
      const int64_t rows = last - first;
      const float* row = z + first * 4 * units;
      const Eigen::OuterStride<> gate_stride(4 * units), state_stride(units);
      ConstGate i(row, units, rows, gate_stride), f(row + units, units, rows, gate_stride),
          g(row + 2 * units, units, rows, gate_stride), o(row + 3 * units, units, rows, gate_stride);
      ConstGate c_before(c_in + first * units, units, rows, state_stride);
      Gate c_after(c_out + first * units, units, rows, state_stride);
      Gate h_after(h_out + first * units, units, rows, state_stride);
      // c_out may be c_prev's buffer (forwarded): each element is read before it is written.
      c_after = f.unaryExpr(AccurateLogistic()) * c_before + i.unaryExpr(AccurateLogistic()) * g.tanh();
      h_after = o.unaryExpr(AccurateLogistic()) * c_after.tanh();
    });
  }
};

REGISTER_KERNEL(Name("_FusedLstmGates").Device(DEVICE_CPU).TypeConstraint<float>("T"), FusedLstmGatesOp);

}  // namespace
}  // namespace tensoract
