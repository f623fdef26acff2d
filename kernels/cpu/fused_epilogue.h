// What _FusedConv2D, _FusedDepthwiseConv2dNative and _FusedMatMul (graph/optimizer/
// remapper.h) do after their product: a per-channel affine map and, when fused_ops says so,
// an activation, on rows of the output right after a thread computed them (still in its
// cache), instead of more passes over the whole tensor. Conv2D and MatMul themselves have
// no epilogue.
//
// fused_ops is a list of per-channel steps, then at most one activation. The steps, each
// taking its args (vectors of the output depth: [n] or any shape of n elements, such as
// Keras' [1, 1, 1, n]) in order:
//   BiasAdd          x + b                      1 arg (TensorFlow's)
//   ChannelMul       x * m                      1 arg (tensoract's: Keras 3's batch norm
//                                               is Mul and AddV2 of per-channel vectors)
//   FusedBatchNorm   (x - mean) * scale / sqrt(variance + epsilon) + offset, inference
//                    form; 4 args: scale, offset, mean, variance (TensorFlow's)
//   Add              x + y, y a tensor of the output's shape (a residual connection), after
//                    any per-channel steps; 1 arg (TensorFlow's)
// TensorFlow's own forms (["BiasAdd"], ["BiasAdd", A], ["FusedBatchNorm", A], ["BiasAdd",
// "Add", A]) are special cases. The per-channel steps compose into one scale and shift per
// channel, computed once per run (n values), so the rows see one multiply-add: values equal
// the unfused ops' up to float rounding.
//
// The activations are those TensorFlow 2.21's CPU kernels fuse (its Eigen kernels: Relu,
// Relu6, Elu, LeakyRelu with leakyrelu_alpha, Tanh, Sigmoid; its default oneDNN build also
// GeluApproximate, GeluExact and _MklSwish: x * sigmoid(x), Keras' silu), each computed as
// the unfused ops would be: in float, Sigmoid, Swish and Tanh vectorised as TensorFlow's own
// Sigmoid and Tanh kernels compute them (Eigen's logistic and tanh), the others element by
// element (the C library's exp and erfc, or the vectorised erfc of erfc_float.h).
#ifndef TENSORACT_KERNELS_CPU_FUSED_EPILOGUE_H_
#define TENSORACT_KERNELS_CPU_FUSED_EPILOGUE_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include <Eigen/Core>

#include "base/bfloat16_rounding.h"
#include "kernels/cpu/erfc_float.h"
#include "kernels/cpu/logistic_bfloat16.h"
#include "kernels/kernel_registry.h"

namespace tensoract {

// One run's epilogue values: out = out * scale + shift + addend (scale nullptr: 1; shift,
// addend nullptr: 0). scale and shift hold a value per channel, addend one per output
// element, laid out as the output that starts at `out`.
template <class T>
struct ChannelAffine {
  const T* scale = nullptr;
  const T* shift = nullptr;
  const T* addend = nullptr;
  const T* out = nullptr;
  std::vector<T> scale_storage, shift_storage;  // when the steps had to be composed
};

class FusedEpilogue {
 public:
  enum Activation { kNone, kRelu, kRelu6, kElu, kLeakyRelu, kTanh, kSigmoid, kGeluApproximate, kGeluExact, kSwish };

  // Reads fused_ops (and num_args, epsilon, leakyrelu_alpha) of a _Fused* node (or
  // _MklNativeFusedConv2D, the bfloat16 convolution of graph/optimizer/mixed_precision.h); no
  // epilogue for other ops. Anything but the forms above is Unimplemented, naming the node.
  Status Init(OpKernelConstruction* ctx) {
    const NodeDef& def = ctx->def();
    if (def.op().rfind("_Fused", 0) != 0 && def.op() != "_MklNativeFusedConv2D") return Status::OK();
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
    static const char* const kActivations[] = {"",        "Relu",           "Relu6",    "Elu",  "LeakyRelu",
                                               "Tanh",    "Sigmoid",        "GeluApproximate",  "GeluExact",
                                               "_MklSwish"};
    int args = 0;
    bool known = !ops.empty();
    for (size_t i = 0; i < ops.size() && known; ++i) {
      if (ops[i] == "Add" && (steps_.empty() || steps_.back() != kAdd)) {  // once, after the steps
        steps_.push_back(kAdd);
        ++args;
        continue;
      }
      if ((ops[i] == "BiasAdd" || ops[i] == "ChannelMul" || ops[i] == "FusedBatchNorm") &&
          (steps_.empty() || steps_.back() != kAdd)) {
        steps_.push_back(ops[i] == "BiasAdd" ? kBias : ops[i] == "ChannelMul" ? kMul : kBatchNorm);
        args += ops[i] == "FusedBatchNorm" ? 4 : 1;
        continue;
      }
      known = i + 1 == ops.size() && !steps_.empty();  // the activation comes last, after a step
      bool named = false;
      for (int a = 1; a < static_cast<int>(sizeof kActivations / sizeof kActivations[0]); ++a) {
        if (ops[i] == kActivations[a]) {
          activation_ = static_cast<Activation>(a);
          named = true;
        }
      }
      known = known && named;
    }
    if (!known || args != num_args) {
      return errors::Unimplemented("node '", def.name(), "' (op '", def.op(), "'): fused_ops [", joined, "] with ",
                                   num_args, " args; the CPU kernel fuses BiasAdd, ChannelMul and FusedBatchNorm "
                                   "(1, 1 and 4 args), then Add (1), followed by at most one of Relu, Relu6, Elu, "
                                   "LeakyRelu, Tanh, Sigmoid, GeluApproximate, GeluExact, _MklSwish");
    }
    if (activation_ == kLeakyRelu) {
      auto alpha = def.attr().find("leakyrelu_alpha");
      if (alpha != def.attr().end()) leakyrelu_alpha_ = alpha->second.f();
    }
    auto eps = def.attr().find("epsilon");
    if (eps != def.attr().end()) epsilon_ = eps->second.f();
    num_args_ = args;
    active_ = true;
    return Status::OK();
  }

  bool active() const { return active_; }
  // Whether the steps end with an Add of a tensor of the output's shape (its last arg).
  bool adds() const { return !steps_.empty() && steps_.back() == kAdd; }
  int num_args() const { return num_args_; }
  Activation activation() const { return activation_; }
  float leakyrelu_alpha() const { return leakyrelu_alpha_; }

  // The values of args ctx->input(first_arg ...) for `output` (allocated, its last
  // dimension the channels); InvalidArgument when a per-channel arg is not one value per
  // channel or an Add's is not of the output's shape. Per-channel args of another type A
  // than the output's T (_MklNativeFusedConv2D in bfloat16 with float args): `affine` holds
  // them composed in A, the Add's operand (of type T) goes to *addend and affine->out is
  // unset.
  template <class A, class T = A>
  Status Channels(const OpKernel& kernel, OpKernelContext* ctx, int first_arg, const Tensor& output,
                  ChannelAffine<A>* affine, const T** addend = nullptr) const {
    const int64_t n = output.dims() == 0 ? 1 : output.dim_size(output.dims() - 1);
    if constexpr (std::is_same_v<T, A>) affine->out = output.base<T>();
    std::vector<const A*> args;
    for (int i = 0; i < num_args_; ++i) {
      const Tensor& arg = ctx->input(first_arg + i);
      if (i == num_args_ - 1 && steps_.back() == kAdd) {
        if (arg.shape() != output.shape()) {
          return errors::InvalidArgument("node '", kernel.name(), "' (op '", kernel.type_string(),
                                         "'): the fused Add's operand must have the output's shape ",
                                         output.shape().DebugString(), ", got ", arg.shape().DebugString());
        }
        if constexpr (std::is_same_v<T, A>) affine->addend = arg.base<T>();
        else *addend = arg.base<T>();
        continue;
      }
      if (arg.NumElements() != n || (arg.dims() > 1 && arg.dim_size(arg.dims() - 1) != n)) {
        return errors::InvalidArgument("node '", kernel.name(), "' (op '", kernel.type_string(), "'): fused arg ",
                                       i, " must hold one value per output channel (", n, "), got shape ",
                                       arg.shape().DebugString());
      }
      args.push_back(arg.base<A>());
    }
    const size_t channel_steps = steps_.size() - (steps_.back() == kAdd ? 1 : 0);
    if (channel_steps == 0) return Status::OK();  // the Add alone
    if (channel_steps == 1 && steps_[0] == kBias) {  // TensorFlow's common case: no copy
      affine->shift = args[0];
      return Status::OK();
    }
    // Composed in float at least (half types), rounded once.
    using F = std::conditional_t<std::is_floating_point_v<A>, A, float>;
    std::vector<F> scale(n, F(1)), shift(n, F(0));
    const A* const* arg = args.data();
    for (Step step : steps_) {
      if (step == kAdd) break;
      for (int64_t c = 0; c < n; ++c) {
        switch (step) {
          case kBias: shift[c] += F(arg[0][c]); break;
          case kMul: scale[c] *= F(arg[0][c]); shift[c] *= F(arg[0][c]); break;
          case kBatchNorm: {
            const F s = F(arg[0][c]) / std::sqrt(F(arg[3][c]) + F(epsilon_));
            scale[c] *= s;
            shift[c] = (shift[c] - F(arg[2][c])) * s + F(arg[1][c]);
            break;
          }
          case kAdd: break;
        }
      }
      arg += step == kBatchNorm ? 4 : 1;
    }
    affine->scale_storage.resize(n);
    affine->shift_storage.resize(n);
    for (int64_t c = 0; c < n; ++c) {
      affine->scale_storage[c] = static_cast<A>(scale[c]);
      affine->shift_storage[c] = static_cast<A>(shift[c]);
    }
    affine->scale = affine->scale_storage.data();
    affine->shift = affine->shift_storage.data();
    return Status::OK();
  }

  // rows x n values at out (within affine.out), each row `ld` apart, channels
  // [first_channel, first_channel + n): out = out * scale + shift + addend, then the
  // activation. `rounded_products`: out is a product of operands rounded to bfloat16, where
  // exact GELU is computed in float (GeluExactFast) rather than to the ulp.
  template <class T>
  void Apply(T* out, int64_t rows, int64_t n, int64_t ld, const ChannelAffine<T>& affine,
             int64_t first_channel = 0, bool rounded_products = false) const {
    if (!active_) return;
    const T* scale = affine.scale == nullptr ? nullptr : affine.scale + first_channel;
    const T* shift = affine.shift == nullptr ? nullptr : affine.shift + first_channel;
    const T* addend = affine.addend == nullptr ? nullptr : affine.addend + (out - affine.out);
    for (int64_t r = 0; r < rows; ++r, out += ld) {
      if (scale != nullptr) {
        for (int64_t j = 0; j < n; ++j) out[j] = static_cast<T>(out[j] * scale[j] + shift[j]);
      } else if (shift != nullptr) {
        for (int64_t j = 0; j < n; ++j) out[j] += shift[j];
      }
      if (addend != nullptr) {
        for (int64_t j = 0; j < n; ++j) out[j] += addend[j];
        addend += ld;
      }
      ActivateRow(out, n, rounded_products);
    }
  }

  // The activation alone, on `count` contiguous values: what a oneDNN convolution leaves to
  // the kernel (OnednnConv: oneDNN 2.6's exponential post-ops are slow). bfloat16, as bits,
  // is widened a chunk at a time, activated in float and rounded once; Sigmoid and Swish in
  // registers where the build has AVX-512 (logistic_bfloat16.h).
  void ActivateFloat(float* x, int64_t count) const { ActivateRow(x, count, false); }
  void ActivateBfloat16Bits(uint16_t* x, int64_t count) const {
    if ((activation_ == kSwish || activation_ == kSigmoid) &&
        LogisticBfloat16Bits(x, count, activation_ == kSwish)) {
      return;
    }
    constexpr int64_t kChunk = 1024;
    alignas(64) float wide[kChunk];
    for (int64_t i = 0; i < count; i += kChunk) {
      const int64_t len = std::min(kChunk, count - i);
      WidenBfloat16(x + i, wide, len);
      ActivateRow(wide, len, false);
      NarrowToBfloat16(wide, x + i, len);
    }
  }

 private:
  template <class T>
  void ActivateRow(T* out, int64_t n, bool rounded_products) const {
    if constexpr (std::is_same_v<T, float>) {  // the activations float computes a row at a time
      Eigen::Map<Eigen::ArrayXf> x(out, n);
      switch (activation_) {
        case kSigmoid: x = x.logistic(); return;
        case kSwish: x = x * x.logistic(); return;
        case kTanh: x = x.tanh(); return;
        case kGeluExact:
          if (rounded_products) GeluExactFast(out, n);
          else GeluExactFloat(out, n);
          return;
        case kGeluApproximate: GeluApproximateFloat(out, n); return;
        default: break;
      }
    }
    switch (activation_) {
      case kNone: return;
      case kRelu:
        for (int64_t j = 0; j < n; ++j) out[j] = std::max(out[j], T(0));
        return;
      default:
        for (int64_t j = 0; j < n; ++j) out[j] = Activate(out[j]);
    }
  }

  enum Step { kBias, kMul, kBatchNorm, kAdd };

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
        case kSigmoid: return Sigmoid(x);
        case kSwish: return x * Sigmoid(x);
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
  // 0.5 x erfc(-x / sqrt 2) over a row of floats, in the operations and order of the
  // unfused ops (Neg, Mul, Erfc, Mul, Mul: the remapper's match), with their vectorised erfc.
  static void GeluExactFloat(float* x, int64_t n) {
    constexpr int64_t kChunk = 256;
    float u[kChunk];
    for (int64_t j0 = 0; j0 < n; j0 += kChunk) {
      const int64_t len = std::min(kChunk, n - j0);
      for (int64_t j = 0; j < len; ++j) u[j] = -x[j0 + j] * static_cast<float>(0.7071067811865476);
      ErfcFloat(u, u, len);
      for (int64_t j = 0; j < len; ++j) x[j0 + j] = 0.5f * x[j0 + j] * u[j];
    }
  }
  // Activate's kGeluApproximate over a row of floats, its exp vectorised (Eigen's).
  static void GeluApproximateFloat(float* x, int64_t n) {
    constexpr int64_t kChunk = 256;
    float e[kChunk];
    for (int64_t j0 = 0; j0 < n; j0 += kChunk) {
      const int64_t len = std::min(kChunk, n - j0);
      float* v = x + j0;
      for (int64_t j = 0; j < len; ++j) {
        const float u = 0.7978845608028654f * (v[j] + 0.044715f * v[j] * v[j] * v[j]);
        e[j] = -2.f * std::abs(u);
      }
      Eigen::Map<Eigen::ArrayXf> exp(e, len);
      exp = exp.exp();
      // u has x's sign: x sigmoid(2u) = x / (1 + e) for u >= 0, x e / (1 + e) below.
      for (int64_t j = 0; j < len; ++j) v[j] = (v[j] >= 0.f ? v[j] : v[j] * e[j]) / (1.f + e[j]);
    }
  }
  template <class T>
  static T Sigmoid(T x) {
    const T e = std::exp(-std::abs(x));  // never overflows
    return x >= T(0) ? T(1) / (T(1) + e) : e / (T(1) + e);
  }

  bool active_ = false;
  std::vector<Step> steps_;
  int num_args_ = 0;
  Activation activation_ = kNone;
  float leakyrelu_alpha_ = 0.2f;
  float epsilon_ = 0.0001f;
};

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_CPU_FUSED_EPILOGUE_H_
