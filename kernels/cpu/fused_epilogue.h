// What _FusedConv2D and _FusedMatMul (graph/optimizer/remapper.h) do after their product:
// add the bias (input 2) to every row and, when fused_ops says so, apply an activation, on
// rows of the output right after a thread computed them (still in its cache), instead of two
// more passes over the whole tensor. Conv2D and MatMul themselves have no epilogue.
//
// The activations are those TensorFlow 2.21's CPU kernels fuse after a BiasAdd (its Eigen
// kernels: Relu, Relu6, Elu, LeakyRelu with leakyrelu_alpha, Tanh, Sigmoid; its default
// oneDNN build also GeluApproximate and GeluExact), each computed as the unfused op would
// be, element by element (the C library's exp, tanh and erfc).
#ifndef TENSORACT_KERNELS_CPU_FUSED_EPILOGUE_H_
#define TENSORACT_KERNELS_CPU_FUSED_EPILOGUE_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/kernel_registry.h"

namespace tensoract {

class FusedEpilogue {
 public:
  // Reads fused_ops of a _Fused* node; no epilogue for other ops. Accepts ["BiasAdd"] and
  // ["BiasAdd", A] for the activations above, with one arg; anything else is
  // Unimplemented, naming the node.
  Status Init(OpKernelConstruction* ctx) {
    const NodeDef& def = ctx->def();
    if (def.op().rfind("_Fused", 0) != 0) return Status::OK();
    std::vector<std::string> ops;
    std::string joined;
    auto it = def.attr().find("fused_ops");
    if (it != def.attr().end()) {
      for (const std::string& op : it->second.list().s()) {
        ops.push_back(op);
        joined += (joined.empty() ? "" : ",") + op;
      }
    }
    int64_t num_args = 0;
    TA_RETURN_IF_ERROR(ctx->GetAttr("num_args", &num_args));
    static const char* const kNames[] = {"", "Relu", "Relu6", "Elu", "LeakyRelu", "Tanh", "Sigmoid",
                                         "GeluApproximate", "GeluExact"};
    bool known = false;
    if (num_args == 1 && !ops.empty() && ops.size() <= 2 && ops[0] == "BiasAdd") {
      const std::string activation = ops.size() == 2 ? ops[1] : "";
      for (int a = 0; a < static_cast<int>(sizeof kNames / sizeof kNames[0]); ++a) {
        if (activation == kNames[a]) {
          activation_ = static_cast<Activation>(a);
          known = true;
        }
      }
    }
    if (!known) {
      return errors::Unimplemented("node '", def.name(), "' (op '", def.op(), "'): fused_ops [", joined, "] with ",
                                   num_args, " args; the CPU kernel fuses BiasAdd, alone or followed by one of Relu, "
                                   "Relu6, Elu, LeakyRelu, Tanh, Sigmoid, GeluApproximate, GeluExact, with 1");
    }
    if (activation_ == kLeakyRelu) {
      auto alpha = def.attr().find("leakyrelu_alpha");
      if (alpha != def.attr().end()) leakyrelu_alpha_ = alpha->second.f();
    }
    active_ = true;
    return Status::OK();
  }

  bool active() const { return active_; }

  // The bias must be a vector of the output's last dimension.
  Status CheckBias(const OpKernel& kernel, const Tensor& bias, int64_t n) const {
    if (bias.dims() != 1 || bias.dim_size(0) != n) {
      return errors::InvalidArgument("node '", kernel.name(), "' (op '", kernel.type_string(),
                                     "'): the bias must be a vector of the output depth ", n, ", got shape ",
                                     bias.shape().DebugString());
    }
    return Status::OK();
  }

  // rows x n values at out, each row `ld` apart: out += bias, then the activation.
  template <class T>
  void Apply(T* out, int64_t rows, int64_t n, int64_t ld, const T* bias) const {
    if (!active_) return;
    for (int64_t r = 0; r < rows; ++r, out += ld) {
      switch (activation_) {
        case kNone:
          for (int64_t j = 0; j < n; ++j) out[j] += bias[j];
          break;
        case kRelu:
          for (int64_t j = 0; j < n; ++j) out[j] = std::max(out[j] + bias[j], T(0));
          break;
        default:
          for (int64_t j = 0; j < n; ++j) out[j] = Activate(static_cast<T>(out[j] + bias[j]));
      }
    }
  }

 private:
  enum Activation { kNone, kRelu, kRelu6, kElu, kLeakyRelu, kTanh, kSigmoid, kGeluApproximate, kGeluExact };

  // The activations other than Relu, one element (half types computed in float).
  template <class T>
  T Activate(T x) const {
    if constexpr (!std::is_floating_point_v<T>) {
      return T(Activate(static_cast<float>(x)));
    } else {
      switch (activation_) {
        case kRelu6: return std::min(std::max(x, T(0)), T(6));
        case kElu: return x < T(0) ? std::exp(x) - T(1) : x;
        case kLeakyRelu: return x > T(0) ? x : x * static_cast<T>(leakyrelu_alpha_);
        case kTanh: return std::tanh(x);
        case kSigmoid: {
          const T e = std::exp(-std::abs(x));  // never overflows
          return x >= T(0) ? T(1) / (T(1) + e) : e / (T(1) + e);
        }
        // Written without 1 + tanh(u) or 1 + erf(u), which cancel for negative x: x sigmoid(2u)
        // and x erfc(-u) / 2 are the same functions, accurate in the tails too (TensorFlow's
        // oneDNN Gelu is off by up to ~0.5% below x = -3).
        case kGeluApproximate: {
          const T u = static_cast<T>(0.7978845608028654) * (x + T(0.044715) * x * x * x);
          const T e = std::exp(-T(2) * std::abs(u));
          return u >= T(0) ? x / (T(1) + e) : x * e / (T(1) + e);
        }
        case kGeluExact: return T(0.5) * x * std::erfc(-x * static_cast<T>(0.7071067811865476));
        default: return std::max(x, T(0));
      }
    }
  }

  bool active_ = false;
  Activation activation_ = kNone;
  float leakyrelu_alpha_ = 0.2f;
};

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_CPU_FUSED_EPILOGUE_H_
