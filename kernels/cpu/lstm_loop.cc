#include "kernels/cpu/lstm_loop.h"

#include "kernels/cancellation.h"
#include "kernels/cpu/lstm_gates.h"
#include "kernels/tensor_list.h"
#include "kernels/variant.h"

namespace tensoract {
namespace {

// The scalar an instruction computes, as its kernel would (int32 sums wrap, as TensorFlow's).
int32_t Compute(const ScalarInstruction& in, const std::vector<int32_t>& regs) {
  const int32_t a = regs[in.a], b = regs[in.b];
  switch (in.op) {
    case ScalarOp::kAdd: return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
    case ScalarOp::kLess: return a < b;
    case ScalarOp::kLogicalAnd: return a != 0 && b != 0;
    case ScalarOp::kNone:
    default: return 0;
  }
}

// A scalar tensor of `dtype` (int32 or bool) holding `v`.
Tensor ScalarTensor(DataType dtype, int32_t v) {
  return dtype == tensorflow::DT_BOOL ? Tensor::Scalar<bool>(v != 0) : Tensor::Scalar<int32_t>(v);
}

// The value of a scalar tensor of `dtype` into *v: false where it is not one.
bool ReadScalar(const Tensor& t, DataType dtype, int32_t* v) {
  if (t.dtype() != dtype || t.dims() != 0) return false;
  *v = dtype == tensorflow::DT_BOOL ? int32_t{*t.base<bool>()} : *t.base<int32_t>();
  return true;
}

}  // namespace

LstmLoopEnd RunLstmLoop(OpKernelContext* ctx, const LstmLoopPlan& plan, std::vector<Tensor>* vars,
                        const std::vector<Tensor>& invariants, int64_t* iteration, std::vector<float>* gates,
                        std::chrono::steady_clock::time_point slice_end) {
  std::vector<Tensor>& v = *vars;
  // The registers: the scalar variables and invariants, then the instructions' results.
  std::vector<int32_t> regs(plan.num_values, 0);
  for (int k : plan.register_vars) {
    if (!ReadScalar(v[k], plan.value_dtypes[k], &regs[k])) return LstmLoopEnd::kFallback;
  }
  for (int value : plan.register_invariants) {
    if (!ReadScalar(invariants[value - plan.num_vars], plan.value_dtypes[value], &regs[value])) {
      return LstmLoopEnd::kFallback;
    }
  }
  // Each output list held here alone, so that an item goes into it in place (SetItem's copy
  // of a list held elsewhere, made once).
  for (const LstmLoopPlan::SetItem& set : plan.set_items) {
    Tensor& list = v[set.list_var];
    if (list.dtype() != tensorflow::DT_VARIANT || list.dims() != 0) return LstmLoopEnd::kFallback;
    const TensorList* held = list.base<Variant>()->get<TensorList>();
    if (held == nullptr || held->element_dtype != tensorflow::DT_FLOAT) return LstmLoopEnd::kFallback;
    if (!list.RefCountIsOne() || list.base<Variant>()->get_if_sole_owner<TensorList>() == nullptr) {
      list = TensorListTensor(*held);
    }
  }
  auto tensor_of = [&](int value) -> const Tensor& {
    return value < plan.num_vars ? v[value] : invariants[value - plan.num_vars];
  };
  // The variables' registers written back as tensors: where the general loop goes on, or
  // what leaves the loop.
  auto write_back = [&](LstmLoopEnd end) {
    for (int k : plan.register_vars) v[k] = ScalarTensor(plan.value_dtypes[k], regs[k]);
    return end;
  };
  std::vector<int32_t> next(plan.num_vars, 0);
  for (int n = 1;; ++n) {
    for (const ScalarInstruction& in : plan.condition) regs[in.out] = Compute(in, regs);
    if (regs[plan.pred] == 0) return write_back(LstmLoopEnd::kEnded);
    for (const ScalarInstruction& in : plan.body) regs[in.out] = Compute(in, regs);
    // Every output list takes the new h at its index (SetItem's checks), before anything
    // changes: the general loop then runs this iteration whole.
    const Tensor& h = v[plan.h];
    for (const LstmLoopPlan::SetItem& set : plan.set_items) {
      const TensorList* list = v[set.list_var].base<Variant>()->get<TensorList>();
      const int32_t i = regs[set.index];
      if (i < 0 || i >= static_cast<int64_t>(list->tensors.size()) || !list->element_shape.IsCompatibleWith(h.shape())) {
        return write_back(LstmLoopEnd::kFallback);
      }
    }
    LstmStepInputs step;
    step.list = &tensor_of(plan.list);
    step.index = regs[plan.index];
    step.h = &h;
    step.u = &tensor_of(plan.u);
    step.c = &v[plan.c];
    step.bias = plan.bias >= 0 ? &tensor_of(plan.bias) : nullptr;
    Tensor c_out, h_out;
    // c's buffer is the new c's where only this variable holds it.
    if (!RunLstmStep(ctx, step, /*reuse_c=*/true, gates, &c_out, &h_out)) return write_back(LstmLoopEnd::kFallback);
    for (const LstmLoopPlan::SetItem& set : plan.set_items) {
      v[set.list_var].base<Variant>()->get_if_sole_owner<TensorList>()->tensors[regs[set.index]] = h_out;
    }
    // The next values, all read before any is replaced.
    for (int k : plan.register_vars) next[k] = regs[plan.next[k]];
    for (int k : plan.register_vars) regs[k] = next[k];
    v[plan.c] = std::move(c_out);
    v[plan.h] = std::move(h_out);
    ++*iteration;
    if (n % 8 == 0) {
      CancellationManager* cancellation = ctx->cancellation();
      if (cancellation != nullptr && cancellation->cancelled()) return write_back(LstmLoopEnd::kCancelled);
      if (std::chrono::steady_clock::now() >= slice_end) return write_back(LstmLoopEnd::kSliceOver);
    }
  }
}

}  // namespace tensoract
