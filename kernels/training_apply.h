// ApplyOp: the part of the optimizers' update kernels that does not depend on the device.
//
// It finds the variables (resource handles or reference inputs), locks them in address
// order, checks that they are initialised and that every input has the shape the update
// wants, and makes copy-on-write buffers for resource variables someone else still reads;
// then it calls Algo<T>::Apply with the variables' old and new buffers (VarSlot) and the
// other inputs. kernels/cpu/training_ops.cc's algorithms compute on the host,
// kernels/gpu/training_ops.cc's launch CUDA kernels; both use this class.
#ifndef TENSORACT_KERNELS_TRAINING_APPLY_H_
#define TENSORACT_KERNELS_TRAINING_APPLY_H_

#include <algorithm>
#include <memory>
#include <mutex>
#include <vector>

#include "kernels/kernel_registry.h"
#include "kernels/resource_handle.h"
#include "kernels/variable.h"

namespace tensoract {

// What an update reads besides its variables: the inputs after them, each a scalar or a
// tensor shaped like the variable.
struct InputSpec {
  const char* name;
  bool scalar;
};

// A variable's values before (in) and after (out) the update: the same buffer when the
// update is in place.
template <class T>
struct VarSlot {
  const T* in;
  T* out;
};

// What each update reads: its variables, then its other inputs, in the op's order.
struct GradientDescentSpec {
  static constexpr int kNumVars = 1;
  static std::vector<const char*> VarNames() { return {"var"}; }
  static std::vector<InputSpec> Inputs() { return {{"alpha", true}, {"delta", false}}; }
};
struct MomentumSpec {
  static constexpr int kNumVars = 2;
  static std::vector<const char*> VarNames() { return {"var", "accum"}; }
  static std::vector<InputSpec> Inputs() { return {{"lr", true}, {"grad", false}, {"momentum", true}}; }
};
struct AdamSpec {
  static constexpr int kNumVars = 3;
  static std::vector<const char*> VarNames() { return {"var", "m", "v"}; }
  static std::vector<InputSpec> Inputs() {
    return {{"beta1_power", true}, {"beta2_power", true}, {"lr", true},   {"beta1", true},
            {"beta2", true},       {"epsilon", true},     {"grad", false}};
  }
};

template <class T, template <class> class Algo, bool kResource>
class ApplyOp : public OpKernel {
 public:
  explicit ApplyOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    // GradientDescent has no use_nesterov.
    if (!ctx->GetAttr("use_nesterov", &use_nesterov_).ok()) use_nesterov_ = false;
  }

  void Compute(OpKernelContext* ctx) override {
    using A = Algo<T>;
    const std::vector<const char*> var_names = A::VarNames();
    std::vector<std::shared_ptr<Var>> vars(A::kNumVars);
    for (int i = 0; i < A::kNumVars; ++i) {
      if (kResource) {
        const ResourceHandle& h = *ctx->input(i).base<ResourceHandle>();
        auto var = ctx->resource_manager()->Lookup<Var>(h);
        OP_REQUIRES(ctx, var.ok(),
                    errors::FailedPrecondition("Could not find variable ", h.name(), ". This could mean that the "
                                               "variable has been deleted. In TF1, it can also mean the variable is "
                                               "uninitialized. Debug info: container=", h.container(),
                                               ", status error message=", var.status().message(), " (node '",
                                               name(), "')"));
        vars[i] = std::move(var).value();
        OP_REQUIRES(ctx, vars[i]->dtype() == DataTypeToEnum<T>::value,
                    errors::InvalidArgument("Trying to update variable ", vars[i]->name(), " of type ",
                                            DataTypeString(vars[i]->dtype()), " with ",
                                            DataTypeString(DataTypeToEnum<T>::value), " values (node '", name(),
                                            "')"));
      } else {
        vars[i] = ctx->input_ref(i);
        OP_REQUIRES(ctx, vars[i] != nullptr,
                    errors::Internal("node '", name(), "': input ", i, " is not a variable reference"));
      }
    }
    // Locked in address order, each once, so that two updates sharing variables cannot
    // deadlock (TensorFlow's MaybeLockVariableInputMutexesInOrder). Always locked, whatever
    // use_locking says: the race TensorFlow permits buys nothing here.
    std::vector<std::mutex*> mutexes;
    for (const auto& v : vars) mutexes.push_back(v->mu());
    std::sort(mutexes.begin(), mutexes.end());
    mutexes.erase(std::unique(mutexes.begin(), mutexes.end()), mutexes.end());
    std::vector<std::unique_lock<std::mutex>> locks;
    for (std::mutex* mu : mutexes) locks.emplace_back(*mu);

    std::vector<Tensor*> tensors(A::kNumVars);
    for (int i = 0; i < A::kNumVars; ++i) {
      OP_REQUIRES(ctx, vars[i]->is_initialized && vars[i]->tensor()->IsInitialized(),
                  errors::FailedPrecondition("Attempting to use uninitialized value ", vars[i]->name(), " (node '",
                                             name(), "')"));
      tensors[i] = vars[i]->tensor();
      if (i > 0) {
        OP_REQUIRES(ctx, tensors[i]->shape() == tensors[0]->shape(),
                    errors::InvalidArgument("var and ", var_names[i], " do not have the same shape",
                                            tensors[0]->shape().DebugString(), " ",
                                            tensors[i]->shape().DebugString(), " (node '", name(), "')"));
      }
    }
    const std::vector<InputSpec> specs = A::Inputs();
    std::vector<Tensor> in;
    for (size_t j = 0; j < specs.size(); ++j) {
      const Tensor& t = ctx->input(A::kNumVars + static_cast<int>(j));
      if (specs[j].scalar) {
        OP_REQUIRES(ctx, t.dims() == 0,
                    errors::InvalidArgument(specs[j].name, " is not a scalar: ", t.shape().DebugString(), " (node '",
                                            name(), "')"));
      } else {
        OP_REQUIRES(ctx, t.shape() == tensors[0]->shape(),
                    errors::InvalidArgument("var and ", specs[j].name, " do not have the same shape",
                                            tensors[0]->shape().DebugString(), " ", t.shape().DebugString(),
                                            " (node '", name(), "')"));
      }
      in.push_back(t);
    }
    // Copy-on-write: a value a reader already took must not change under it. Such a
    // variable's update reads the old buffer and writes a fresh one, which then replaces it.
    std::vector<VarSlot<T>> slots(A::kNumVars);
    std::vector<Tensor> fresh(A::kNumVars);
    std::vector<bool> replaced(A::kNumVars, false);
    for (int i = 0; i < A::kNumVars; ++i) {
      slots[i] = {tensors[i]->base<T>(), tensors[i]->base<T>()};
      // One variable in two roles gets one slot (and at most one fresh buffer).
      const size_t first = std::find(tensors.begin(), tensors.end(), tensors[i]) - tensors.begin();
      if (first < static_cast<size_t>(i)) {
        slots[i] = slots[first];
        continue;
      }
      if (kResource && !tensors[i]->RefCountIsOne()) {
        auto t = Tensor::Allocate(ctx->device()->allocator(), tensors[i]->dtype(), tensors[i]->shape());
        OP_REQUIRES(ctx, t.ok(), t.status().WithContext(StrCat("copy-on-write of ", vars[i]->name(), " (node '",
                                                               name(), "')")));
        fresh[i] = std::move(t).value();
        slots[i].out = fresh[i].base<T>();
        replaced[i] = true;
      }
    }
    const int64_t size = tensors[0]->NumElements();
    if (size > 0) A::Apply(ctx, slots, size, in, use_nesterov_);
    for (int i = 0; i < A::kNumVars; ++i) {
      if (replaced[i]) *tensors[i] = std::move(fresh[i]);
    }
    locks.clear();
    if (!kResource) ctx->set_output_ref(0, vars[0]);
  }
  bool IsExpensive() const override { return false; }

 private:
  bool use_nesterov_ = false;
};

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_TRAINING_APPLY_H_
