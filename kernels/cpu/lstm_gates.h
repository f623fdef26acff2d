// A Keras LSTM cell's arithmetic on the CPU, float, shared by the _FusedLstmGates kernel
// (kernels/cpu/recurrent_gates_op.cc) and _SequentialLoop's fused LSTM step
// (kernels/cpu/sequential_loop_op.cc), so both give the same bits.
//
// Keras' cell (graph/optimizer/recurrent_gates_fusion.h): z = x W + h U + b, four blocks of
// `units` columns i, f, g, o, then
//   c = sigmoid(f) * c_prev + sigmoid(i) * tanh(g),   h = sigmoid(o) * tanh(c).
#ifndef TENSORACT_KERNELS_CPU_LSTM_GATES_H_
#define TENSORACT_KERNELS_CPU_LSTM_GATES_H_

#include <cstdint>
#include <vector>

#include "kernels/op_kernel.h"
#include "kernels/tensor.h"

namespace tensoract {

// Rows [first, last) of the cell's state update from gates z [batch, 4 * units] (plus `bias`,
// 4 * units values, where not null: added first, rounded as BiasAdd rounds), c_prev and the
// new c and h [batch, units]. c_out may be c_prev (each element is read before it is
// written). The functions are the unfused kernels': the accurate logistic function for
// Sigmoid, Eigen's vectorised tanh for Tanh.
void LstmGateRows(const float* z, const float* bias, const float* c_prev, float* c_out, float* h_out, int64_t units,
                  int64_t first, int64_t last);

// The operands of one LSTM step inside a loop's body: `list` holds the step's row x of the
// input product (TensorListGetItem's list, element `index`), h [batch, units] the state
// before, u [units, 4 * units] the recurrent kernel, c [batch, units] the cell's state before
// and `bias` (null: none) the gates' bias.
struct LstmStepInputs {
  const Tensor* list = nullptr;
  int32_t index = 0;
  const Tensor* h = nullptr;
  const Tensor* u = nullptr;
  const Tensor* c = nullptr;
  const Tensor* bias = nullptr;
};

// The step as TensorListGetItem, _FusedMatMul (h u + x) and _FusedLstmGates compute it, in
// one call on the loop kernel's context `ctx` (its device's threads): the product in the
// buffer *z (resized, reused from step to step), the new state in *c_out (c's own buffer
// where `reuse_c` and nothing else holds it) and *h_out. False, with nothing written,
// where the operands are not such a step's (a list of another dtype, an index out of
// range, an unset element, shapes that differ or broadcast): the three kernels then run
// and say what is wrong.
bool RunLstmStep(OpKernelContext* ctx, const LstmStepInputs& in, bool reuse_c, std::vector<float>* z, Tensor* c_out,
                 Tensor* h_out);

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_CPU_LSTM_GATES_H_
