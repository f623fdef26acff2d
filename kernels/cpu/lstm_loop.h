// Keras' LSTM layer's loop run as a loop of its own: the loop kernel (_SequentialLoop,
// kernels/cpu/sequential_loop_op.cc) finds a body that is nothing but int32 and bool scalar
// steps (the counters and the condition), one fused LSTM step (kernels/cpu/lstm_gates.h)
// and TensorListSetItems of its h into list variables (the outputs), and runs its
// iterations here: the scalars as plain integers, the cell by RunLstmStep, each h put into
// its lists in place. No kernel call, context or scalar tensor an iteration: an LSTM of
// 32 units at batch 1 spent 1.6 us an iteration in the general loop, most of it there.
//
// Values are numbered as the loop kernel's references: the loop variables first, then the
// invariants, then its steps' output slots.
#ifndef TENSORACT_KERNELS_CPU_LSTM_LOOP_H_
#define TENSORACT_KERNELS_CPU_LSTM_LOOP_H_

#include <chrono>
#include <cstdint>
#include <vector>

#include "kernels/op_kernel.h"
#include "kernels/tensor.h"

namespace tensoract {

// The loop's own bookkeeping on int32 and bool scalars (its counters and condition).
enum class ScalarOp { kNone, kAdd, kLess, kLogicalAnd };

struct ScalarInstruction {
  ScalarOp op = ScalarOp::kNone;
  int a = 0, b = 0, out = 0;  // values
};

struct LstmLoopPlan {
  int num_vars = 0, num_invariants = 0, num_values = 0;
  std::vector<DataType> value_dtypes;  // of every value that is a scalar register; DT_INVALID else
  std::vector<int> register_vars;      // the variables that are int32 or bool scalars
  std::vector<int> register_invariants;  // the invariants the scalars read (values)
  std::vector<ScalarInstruction> condition, body;  // in order; the condition's last is `pred`
  int pred = -1;
  // The LSTM step's operands (values: invariants and variables) and where it writes.
  int list = -1, index = -1, h = -1, u = -1, c = -1, bias = -1;
  int h_out = -1, c_out = -1;
  struct SetItem {
    int list_var = -1, index = -1;
  };
  std::vector<SetItem> set_items;  // each list_var's next value is its SetItem's
  std::vector<int> next;           // by variable: the value it takes (set items': their list var)
};

enum class LstmLoopEnd {
  kEnded,      // the condition was false: *vars are the loop's exit values
  kFallback,   // operands the plan does not take: the general loop runs the next iteration
  kSliceOver,  // `slice_end` passed
  kCancelled,
};

// Runs iterations of `plan` over the loop's variables `vars` (updated) and `invariants`,
// counting them in *iteration, until one of LstmLoopEnd's. *gates: the product's buffer.
LstmLoopEnd RunLstmLoop(OpKernelContext* ctx, const LstmLoopPlan& plan, std::vector<Tensor>* vars,
                        const std::vector<Tensor>& invariants, int64_t* iteration, std::vector<float>* gates,
                        std::chrono::steady_clock::time_point slice_end);

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_CPU_LSTM_LOOP_H_
