// The optimizer updates on the CPU: gradient descent, momentum and Adam, on reference
// variables (Apply*: update in place, output the reference, as Assign does) and on resource
// variables (ResourceApply*: copy-on-write, as AssignAddVariableOp does, so a value a reader
// already took never changes: a variable someone else still holds is updated out of place,
// its new values written straight into a fresh buffer, one pass instead of a copy and then
// the update). The arithmetic is TensorFlow's (training_ops.cc), as
// Eigen array expressions fused into one blocked pass over the tensors, spread over the
// device's threads by CwiseParallelFor when the variable is large.
#include <Eigen/Core>
#include <algorithm>
#include <memory>
#include <mutex>
#include <vector>

#include "kernels/cpu/cwise_ops.h"
#include "kernels/kernel_registry.h"
#include "kernels/resource_handle.h"
#include "kernels/tensor_eigen.h"
#include "kernels/variable.h"

namespace tensoract {
namespace {

// What an update reads besides its variables: the inputs after them, each a scalar or a
// tensor shaped like the variable.
struct InputSpec {
  const char* name;
  bool scalar;
};

// Each update is one fused pass over its tensors: the variable is cut into blocks of kBlock
// elements (the device's threads take ranges of blocks), and a block's Eigen array
// expressions run one after another while its slices of var/accum/grad are in L1.
constexpr int64_t kBlock = 1024;

template <class T>
using Arr = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;
template <class T>
using ConstArr = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;

// A variable's values before (in) and after (out) the update: the same buffer when the
// update is in place.
template <class T>
struct VarSlot {
  const T* in;
  T* out;
};

// Runs fn(begin, length) over [0, n) in blocks, split over the device's threads.
template <class F>
void ForBlocks(OpKernelContext* ctx, int64_t n, int64_t cost_per_element, F fn) {
  CwiseParallelFor(ctx, n, cost_per_element, [&](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; b += kBlock) fn(b, std::min(end, b + kBlock) - b);
  });
}

template <class T>
struct GradientDescent {
  static constexpr int kNumVars = 1;
  static std::vector<const char*> VarNames() { return {"var"}; }
  static std::vector<InputSpec> Inputs() { return {{"alpha", true}, {"delta", false}}; }
  // in: the non-variable inputs, in order.
  static void Apply(OpKernelContext* ctx, const std::vector<VarSlot<T>>& vars, int64_t size,
                    const std::vector<Tensor>& in, bool /*nesterov*/) {
    const T alpha = in[0].base<T>()[0];
    const VarSlot<T> var = vars[0];
    const T* delta = in[1].base<T>();
    ForBlocks(ctx, size, 2, [&](int64_t b, int64_t n) {
      Arr<T>(var.out + b, n) = ConstArr<T>(var.in + b, n) - ConstArr<T>(delta + b, n) * alpha;
    });
  }
};

template <class T>
struct Momentum {
  static constexpr int kNumVars = 2;
  static std::vector<const char*> VarNames() { return {"var", "accum"}; }
  static std::vector<InputSpec> Inputs() { return {{"lr", true}, {"grad", false}, {"momentum", true}}; }
  static void Apply(OpKernelContext* ctx, const std::vector<VarSlot<T>>& vars, int64_t size,
                    const std::vector<Tensor>& in, bool nesterov) {
    const VarSlot<T> var = vars[0], accum = vars[1];
    const T lr = in[0].base<T>()[0], momentum = in[2].base<T>()[0];
    const T* grad = in[1].base<T>();
    ForBlocks(ctx, size, 4, [&](int64_t b, int64_t n) {
      ConstArr<T> v(var.in + b, n), g(grad + b, n);
      Arr<T> a(accum.out + b, n);
      a = ConstArr<T>(accum.in + b, n) * momentum + g;
      if (nesterov) {
        Arr<T>(var.out + b, n) = v - (g * lr + a * (momentum * lr));
      } else {
        Arr<T>(var.out + b, n) = v - a * lr;
      }
    });
  }
};

template <class T>
struct Adam {
  static constexpr int kNumVars = 3;
  static std::vector<const char*> VarNames() { return {"var", "m", "v"}; }
  static std::vector<InputSpec> Inputs() {
    return {{"beta1_power", true}, {"beta2_power", true}, {"lr", true},   {"beta1", true},
            {"beta2", true},       {"epsilon", true},     {"grad", false}};
  }
  static void Apply(OpKernelContext* ctx, const std::vector<VarSlot<T>>& vars, int64_t size,
                    const std::vector<Tensor>& in, bool nesterov) {
    const VarSlot<T> var = vars[0], m = vars[1], v = vars[2];
    const T beta1_power = in[0].base<T>()[0], beta2_power = in[1].base<T>()[0], lr = in[2].base<T>()[0];
    const T beta1 = in[3].base<T>()[0], beta2 = in[4].base<T>()[0], epsilon = in[5].base<T>()[0];
    const T* grad = in[6].base<T>();
    const T alpha = lr * Eigen::numext::sqrt(T(1) - beta2_power) / (T(1) - beta1_power);
    ForBlocks(ctx, size, 16, [&](int64_t b, int64_t n) {
      Arr<T> m_b(m.out + b, n), v_b(v.out + b, n);
      ConstArr<T> g(grad + b, n), var_in(var.in + b, n), m_in(m.in + b, n), v_in(v.in + b, n);
      m_b = m_in + (g - m_in) * (T(1) - beta1);
      v_b = v_in + (g.square() - v_in) * (T(1) - beta2);
      if (nesterov) {
        Arr<T>(var.out + b, n) = var_in - ((g * (T(1) - beta1) + m_b * beta1) * alpha) / (v_b.sqrt() + epsilon);
      } else {
        Arr<T>(var.out + b, n) = var_in - (m_b * alpha) / (v_b.sqrt() + epsilon);
      }
    });
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
      const int first = static_cast<int>(std::find(tensors.begin(), tensors.end(), tensors[i]) - tensors.begin());
      if (first < i) {
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

#define TA_REGISTER_APPLY(T)                                                                                  \
  REGISTER_KERNEL(Name("ApplyGradientDescent").Device(DEVICE_CPU).TypeConstraint<T>("T"),                     \
                  ApplyOp<T, GradientDescent, false>);                                                        \
  REGISTER_KERNEL(Name("ResourceApplyGradientDescent").Device(DEVICE_CPU).TypeConstraint<T>("T"),             \
                  ApplyOp<T, GradientDescent, true>);                                                         \
  REGISTER_KERNEL(Name("ApplyMomentum").Device(DEVICE_CPU).TypeConstraint<T>("T"), ApplyOp<T, Momentum, false>); \
  REGISTER_KERNEL(Name("ResourceApplyMomentum").Device(DEVICE_CPU).TypeConstraint<T>("T"),                    \
                  ApplyOp<T, Momentum, true>);                                                                \
  REGISTER_KERNEL(Name("ApplyAdam").Device(DEVICE_CPU).TypeConstraint<T>("T"), ApplyOp<T, Adam, false>);      \
  REGISTER_KERNEL(Name("ResourceApplyAdam").Device(DEVICE_CPU).TypeConstraint<T>("T"), ApplyOp<T, Adam, true>);
TA_REGISTER_APPLY(float)
TA_REGISTER_APPLY(double)
#undef TA_REGISTER_APPLY

}  // namespace
}  // namespace tensoract
