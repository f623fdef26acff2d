#include "kernels/cpu/lstm_gates.h"

#include <Eigen/Core>
#include <memory>

#include "kernels/cpu/accurate_exp.h"
#include "kernels/cpu/cwise_ops.h"
#include "kernels/cpu/parallel_gemm.h"
#include "kernels/device.h"
#include "kernels/tensor_list.h"

namespace tensoract {
namespace {

// Rows of a gate (or of a state) as an Eigen array: `units` values in each column, one column
// a batch row, `stride` values from one row to the next.
using ConstGate = Eigen::Map<const Eigen::ArrayXXf, Eigen::Unaligned, Eigen::OuterStride<>>;
using Gate = Eigen::Map<Eigen::ArrayXXf, Eigen::Unaligned, Eigen::OuterStride<>>;

// The `index`-th block of `units` columns, `rows` rows from `z` on, of [rows, 4 * units] gates.
ConstGate Block(const float* z, int64_t units, int index, int64_t rows) {
  return ConstGate(z + index * units, units, rows, Eigen::OuterStride<>(4 * units));
}

void Update(const float* z, const float* c_prev, float* c_out, float* h_out, int64_t units, int64_t rows) {
  const Eigen::OuterStride<> stride(units);
  ConstGate c_before(c_prev, units, rows, stride);
  Gate c_after(c_out, units, rows, stride);
  Gate h_after(h_out, units, rows, stride);
  c_after = Block(z, units, 1, rows).unaryExpr(AccurateLogistic()) * c_before +
            Block(z, units, 0, rows).unaryExpr(AccurateLogistic()) * Block(z, units, 2, rows).tanh();
  h_after = Block(z, units, 3, rows).unaryExpr(AccurateLogistic()) * c_after.tanh();
}

}  // namespace

void LstmGateRows(const float* z, const float* bias, const float* c_prev, float* c_out, float* h_out, int64_t units,
                  int64_t first, int64_t last) {
  const int64_t width = 4 * units;
  z += first * width;
  c_prev += first * units;
  c_out += first * units;
  h_out += first * units;
  if (bias == nullptr) {
    Update(z, c_prev, c_out, h_out, units, last - first);
    return;
  }
  // The gates plus the bias first, into a buffer (added inside the activations' expression,
  // Eigen evaluated them a value at a time), a few rows at a time: on the stack, no
  // allocation a step.
  constexpr int64_t kBuffered = 2048;
  float stack[kBuffered];
  std::unique_ptr<float[]> heap;
  float* biased = stack;
  const int64_t rows_at_once = std::max<int64_t>(1, kBuffered / width);
  if (width > kBuffered) {
    heap.reset(new float[width]);
    biased = heap.get();
  }
  for (int64_t r0 = first; r0 < last; r0 += rows_at_once) {
    const int64_t rows = std::min(rows_at_once, last - r0);
    for (int64_t r = 0; r < rows; ++r) {
      const float* from = z + r * width;
      float* to = biased + r * width;
      for (int64_t j = 0; j < width; ++j) to[j] = from[j] + bias[j];
    }
    Update(biased, c_prev, c_out, h_out, units, rows);
    z += rows * width;
    c_prev += rows * units;
    c_out += rows * units;
    h_out += rows * units;
  }
}

bool RunLstmStep(OpKernelContext* ctx, const LstmStepInputs& in, bool reuse_c, std::vector<float>* z, Tensor* c_out,
                 Tensor* h_out) {
  // TensorListGetItem's operands, as its kernel would take them without complaint.
  if (in.list->dtype() != tensorflow::DT_VARIANT || in.list->dims() != 0) return false;
  const TensorList* list = in.list->base<Variant>()->get<TensorList>();
  if (list == nullptr || list->element_dtype != tensorflow::DT_FLOAT) return false;
  const int32_t index = in.index;
  if (index < 0 || index >= static_cast<int64_t>(list->tensors.size()) || !list->tensors[index]) return false;
  const Tensor& x = *list->tensors[index];
  // The product's and the gates' operands, of the shapes they need no broadcast for.
  const Tensor &h = *in.h, &u = *in.u, &c = *in.c;
  if (h.dtype() != tensorflow::DT_FLOAT || u.dtype() != tensorflow::DT_FLOAT || c.dtype() != tensorflow::DT_FLOAT ||
      x.dtype() != tensorflow::DT_FLOAT || h.dims() != 2 || u.dims() != 2) {
    return false;
  }
  const int64_t batch = h.dim_size(0), units = h.dim_size(1), width = 4 * units;
  if (units == 0 || batch == 0 || u.dim_size(0) != units || u.dim_size(1) != width ||
      x.shape() != TensorShape({batch, width}) || c.shape() != TensorShape({batch, units})) {
    return false;
  }
  const float* bias = nullptr;
  if (in.bias != nullptr) {
    if (in.bias->dtype() != tensorflow::DT_FLOAT || in.bias->shape() != TensorShape({width})) return false;
    bias = in.bias->base<float>();
  }
  z->resize(static_cast<size_t>(batch * width));
  float* zp = z->data();
  const float* xp = x.base<float>();
  Allocator* allocator = ctx->device()->AllocatorFor(tensorflow::DT_FLOAT);
  const TensorShape state({batch, units});
  if (reuse_c && c.RefCountIsOne()) {
    *c_out = c;
  } else {
    auto made = Tensor::Allocate(allocator, tensorflow::DT_FLOAT, state);
    if (!made.ok()) return false;
    *c_out = std::move(made).value();
  }
  auto made_h = Tensor::Allocate(allocator, tensorflow::DT_FLOAT, state);
  if (!made_h.ok()) return false;
  *h_out = std::move(made_h).value();
  const float* hp = h.base<float>();
  const float* up = u.base<float>();
  const float* c_prev = c.base<float>();
  float* c_next = c_out->base<float>();
  float* h_next = h_out->base<float>();
  // Rows [first, last) of the whole step: their product, plus x as _FusedMatMul's Add adds
  // it, then their gates. Each row's values are the same however the rows are split.
  auto rows = [&](int64_t first, int64_t last) {
    float* zr = zp + first * width;
    gemm::Gemm(false, false, last - first, width, units, hp + first * units, units, up, width, zr, width, false);
    const float* addend = xp + first * width;
    for (int64_t j = 0, n = (last - first) * width; j < n; ++j) zr[j] += addend[j];
    LstmGateRows(zp, bias, c_prev, c_next, h_next, units, first, last);
  };
  // A step of many rows goes to the device's threads in one block of rows each (one
  // hand-off a step, not one for the product and one for the gates): about 2 cycles a
  // multiply-add and 40 an element of the state.
  const int threads = ctx->device()->num_threads();
  const int64_t cycles = batch * units * (2 * width + 40);
  const int64_t blocks = cycles < (int64_t{1} << 17) ? 1 : std::min<int64_t>(threads, batch / 8);
  if (blocks <= 1) {
    rows(0, batch);
    return true;
  }
  const int64_t step = (batch + blocks - 1) / blocks;
  CwiseParallelFor(ctx, blocks, int64_t{1} << 40, [&](int64_t first, int64_t last) {
    for (int64_t b = first; b < last; ++b) rows(b * step, std::min(batch, (b + 1) * step));
  });
  return true;
}

}  // namespace tensoract
