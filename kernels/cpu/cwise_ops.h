// Element-wise kernels with NumPy broadcasting, shared by every cwise op file.
//
// BinaryOp<T, F, Out> computes F(x, y) over Eigen arrays: equal shapes and scalar operands
// take one vectorised pass; other broadcasts loop over the outer dimensions of a
// BroadcastPlan and vectorise the innermost one. UnaryOp<T, F, Out> computes F(x), and
// SimpleBinaryOp<T, F> F(y, dy) over two inputs of as many elements (the *Grad helpers).
//
// A functor takes Eigen array expressions and returns one; it derives from CwiseFunctor and
// may override its traits (cost per element, checks of y for integer division and powers).
// Functors for one op family live in that family's .cc file, so only it instantiates them.
//
// Large tensors are split into chunks over the device's threads by CwiseParallelFor; small
// ones (and kernels run without a device) compute on the calling thread. The output takes
// over an input's buffer when the kernel holds its only reference and it has the output's
// dtype and element count (forward_input_or_allocate_output), as TensorFlow's kernels do.
#ifndef TENSORACT_KERNELS_CPU_CWISE_OPS_H_
#define TENSORACT_KERNELS_CPU_CWISE_OPS_H_

#include <Eigen/Core>
#include <algorithm>
#include <functional>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "base/bfloat16_rounding.h"
#include "base/function_ref.h"
#include "kernels/cpu/broadcast.h"
#include "kernels/kernel_registry.h"

namespace tensoract {

// Runs fn(begin, end) over disjoint ranges covering [0, n): on the calling thread alone when
// n * cost_per_element is small, otherwise also on the device's threads. Returns when every
// range is done. The calling thread takes unclaimed ranges itself rather than waiting for a
// pool thread, so it cannot deadlock when every pool thread is itself inside a kernel (an
// Eigen ThreadPoolDevice::parallelFor would block there: our kernels already run on the pool).
// `fn` is only referred to (FunctionRef): a lambda passed here is not copied or allocated.
void CwiseParallelFor(OpKernelContext* ctx, int64_t n, int64_t cost_per_element,
                      FunctionRef<void(int64_t, int64_t)> fn);

// Converts n elements of From to To: exact when widening, rounded to nearest even when
// narrowing; bfloat16 and float convert as bits, a block at a time (Eigen::bfloat16's
// conversions, one element at a time, were 5-10x slower). ConvertOnDevice splits the work
// over the device's threads. The one place where kernels that compute half or bfloat16 in
// float (ViaFloatOp, reductions, depthwise convolutions) widen and narrow their tensors.
template <class From, class To>
void ConvertElements(const From* from, To* to, int64_t n) {
  if constexpr (std::is_same_v<From, Eigen::bfloat16> && std::is_same_v<To, float>) {
    WidenBfloat16(reinterpret_cast<const uint16_t*>(from), to, n);
  } else if constexpr (std::is_same_v<From, float> && std::is_same_v<To, Eigen::bfloat16>) {
    NarrowToBfloat16(from, reinterpret_cast<uint16_t*>(to), n);
  } else {
    for (int64_t i = 0; i < n; ++i) to[i] = static_cast<To>(from[i]);
  }
}

template <class From, class To>
void ConvertOnDevice(OpKernelContext* ctx, const From* from, To* to, int64_t n) {
  constexpr int64_t kCost = sizeof(To) < sizeof(From) ? 2 : 1;  // narrowing rounds
  CwiseParallelFor(ctx, n, kCost, [&](int64_t b, int64_t e) { ConvertElements(from + b, to + b, e - b); });
}

// "node 'x' (op 'Sub')": the context errors of every cwise kernel carry.
std::string CwiseNodeContext(const OpKernel& kernel);

// SimpleBinaryOp's inputs checked (as many elements in both) and its output, of input 0's
// shape, allocated or taken over from an input.
Status SimpleBinaryOutput(OpKernelContext* ctx, const OpKernel& kernel, Tensor** out);

struct CwiseFunctor {
  static constexpr int kCost = 1;              // rough cycles per element, for CwiseParallelFor
  static constexpr bool kNoZeroDivisor = false;  // integer y must have no zeros (Div, FloorDiv, FloorMod)
  static constexpr bool kNoNegativeExponent = false;  // integer y must have no negatives (Pow)
};

template <class F>
struct InFloat;
// Whether F computes half and bfloat16 in float (InFloat<G>, below).
template <class F>
struct IsInFloat : std::false_type {};
template <class G>
struct IsInFloat<InFloat<G>> : std::true_type {};

// Evaluates an InFloat<G> functor on bfloat16 operands of n elements each (Args: pointers to
// them) into `out`: widened to float kRun elements at a time, G computed on float arrays, the
// results rounded to bfloat16. The same bits as Eigen's expression (an exact widening, G's
// float arithmetic, one rounding to nearest even), without Eigen::bfloat16's conversions
// one element at a time: a broadcasting Mul of squeeze-and-excitation's shape took five
// times float's time through them.
template <class F>
struct WidenedBfloat16 {
  static constexpr int64_t kRun = 256;
  using Float = Eigen::Array<float, Eigen::Dynamic, 1>;
  template <class... Args>
  static void Eval(const F& f, Eigen::bfloat16* out, int64_t n, const Args*... in) {
    EvalEach(f, out, n, std::index_sequence_for<Args...>{}, in...);
  }

 private:
  template <size_t... I, class... Args>
  static void EvalEach(const F& f, Eigen::bfloat16* out, int64_t n, std::index_sequence<I...>, const Args*... in) {
    alignas(64) float widened[sizeof...(Args)][kRun];
    alignas(64) float result[kRun];
    const typename F::InFloatOf& g = f;
    for (int64_t i = 0; i < n; i += kRun) {
      const int64_t len = std::min(kRun, n - i);
      (WidenBfloat16(reinterpret_cast<const uint16_t*>(in + i), widened[I], len), ...);
      Eigen::Map<Float>(result, len) = g(Eigen::Map<const Float>(widened[I], len)...);
      NarrowToBfloat16(result, reinterpret_cast<uint16_t*>(out + i), len);
    }
  }
};

template <class T, class F, class Out = T>
class BinaryOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    // Equal shapes and scalar operands (most calls) need no broadcast plan.
    const TensorShape* out_shape = nullptr;
    if (x.shape() == y.shape() || y.dims() == 0) out_shape = &x.shape();
    else if (x.dims() == 0) out_shape = &y.shape();
    StatusOr<BroadcastPlan> plan = BroadcastPlan();
    if (out_shape == nullptr) {
      plan = MakeBroadcastPlan(x.shape(), y.shape());
      OP_REQUIRES(ctx, plan.ok(), plan.status().WithContext(CwiseNodeContext(*this)));
      out_shape = &plan->output_shape;
    }
    // The output may take over an operand's buffer (each element is read before its own
    // index is written, and an operand with the output's element count is laid out as it is).
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output({0, 1}, 0, *out_shape, &out));
    const T* xp = x.base<T>();
    const T* yp = y.base<T>();
    Out* op = out->base<Out>();
    const int64_t n = out->NumElements();
    if (n == 0) return;
    if constexpr (std::is_integral_v<T> && F::kNoZeroDivisor) {
      bool zero = false;
      for (int64_t i = 0, m = y.NumElements(); i < m; ++i) zero |= yp[i] == T(0);
      OP_REQUIRES(ctx, !zero, errors::InvalidArgument(CwiseNodeContext(*this), ": Integer division by zero"));
    }
    if constexpr (std::is_integral_v<T> && F::kNoNegativeExponent) {
      bool negative = false;
      for (int64_t i = 0, m = y.NumElements(); i < m; ++i) negative |= yp[i] < T(0);
      OP_REQUIRES(ctx, !negative,
                  errors::InvalidArgument(CwiseNodeContext(*this),
                                          ": Integers to negative integer powers are not allowed"));
    }
    F f;
    if (x.NumElements() == n && y.NumElements() == n) {
      CwiseParallelFor(ctx, n, F::kCost, [&](int64_t b, int64_t e) { Eval(f, xp + b, yp + b, op + b, e - b); });
    } else if (y.NumElements() == 1 || x.NumElements() == 1) {
      const bool x_full = y.NumElements() == 1;
      CwiseParallelFor(ctx, n, F::kCost, [&](int64_t b, int64_t e) {
        Runs runs;
        Apply(f, x_full ? xp + b : xp, x_full, x_full ? yp : yp + b, !x_full, op + b, e - b, &runs);
      });
    } else if (const int side = RepeatingSide(*plan, x.NumElements() == n, y.NumElements() == n); side != 0) {
      // One operand full, the other a short row repeated all along it (an image's per-channel
      // mean and deviation over [batch, rows, cols, 3]): rows of 3 took one Eigen expression
      // each (4 ms of EfficientNetB0's step at batch 32). The row tiled to a few hundred
      // elements, and the full operand taken in runs of that length.
      const int64_t inner = plan->dims.back();
      const T* row = side == 1 ? xp : yp;
      const int64_t period = inner * std::max<int64_t>(1, 256 / inner);
      std::unique_ptr<T[]> tiled(new T[period]);  // (not a vector: T may be bool)
      for (int64_t i = 0; i < period; ++i) tiled[i] = row[i % inner];
      CwiseParallelFor(ctx, n, F::kCost, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e;) {
          const int64_t at = i % period, len = std::min(e - i, period - at);
          if (side == 1) Eval(f, tiled.get() + at, yp + i, op + i, len);
          else Eval(f, xp + i, tiled.get() + at, op + i, len);
          i += len;
        }
      });
    } else {
      const BroadcastPlan& p = *plan;
      const int64_t inner = p.dims.back();
      CwiseParallelFor(ctx, n / inner, F::kCost * inner,
                       [&](int64_t b, int64_t e) { Broadcast(p, b, e, xp, yp, op, f); });
    }
  }

 protected:
  using Array = Eigen::Array<T, Eigen::Dynamic, 1>;
  using OutArray = Eigen::Array<Out, Eigen::Dynamic, 1>;
  static Eigen::Map<const Array> In(const T* p, int64_t n) { return Eigen::Map<const Array>(p, n); }
  static Eigen::Map<OutArray> OutMap(Out* p, int64_t n) { return Eigen::Map<OutArray>(p, n); }

  // o[0, n) = f(x[0, n), y[0, n)).
  static void Eval(const F& f, const T* x, const T* y, Out* o, int64_t n) {
    if constexpr (std::is_same_v<T, Eigen::bfloat16> && std::is_same_v<Out, T> && IsInFloat<F>::value) {
      WidenedBfloat16<F>::Eval(f, o, n, x, y);
    } else {
      OutMap(o, n) = f(In(x, n), In(y, n));
    }
  }

  // A scalar operand is read as a run of copies of its value, kRun at a time: every path then
  // evaluates f on two arrays, one Eigen loop to compile for each (T, F) instead of four
  // (array or constant on either side: seconds of compile time in the files that register
  // many), with the same values.
  // The runs live on the stack (a heap buffer cost a malloc and a free at every call with a
  // scalar operand: `h * 0.5` in a loop); T's here are plain values (numbers, bool).
  static constexpr int64_t kRun = 256;
  struct Runs {
    alignas(64) T x[kRun];
    alignas(64) T y[kRun];
  };
  // o[0, n) = f(x, y), where each side is n elements (`*_full`) or the one value it points to.
  static void Apply(const F& f, const T* x, bool x_full, const T* y, bool y_full, Out* o, int64_t n, Runs* runs) {
    if (x_full && y_full) return Eval(f, x, y, o, n);
    const int64_t first = std::min(n, kRun);
    if (!x_full) std::fill(runs->x, runs->x + first, *x);
    if (!y_full) std::fill(runs->y, runs->y + first, *y);
    for (int64_t i = 0; i < n; i += kRun) {
      const int64_t len = std::min(kRun, n - i);
      Eval(f, x_full ? x + i : runs->x, y_full ? y + i : runs->y, o + i, len);
    }
  }

  // 1 when x is one short innermost row repeated over every outer index and y is full, 2
  // for the other way round, 0 otherwise (or when rows are long enough for Broadcast).
  static int RepeatingSide(const BroadcastPlan& plan, bool x_full, bool y_full) {
    const int rank = static_cast<int>(plan.dims.size());
    if (rank < 2 || plan.dims[rank - 1] >= 64) return 0;
    bool x_repeats = plan.x_strides[rank - 1] != 0, y_repeats = plan.y_strides[rank - 1] != 0;
    for (int d = 0; d + 1 < rank; ++d) {
      x_repeats = x_repeats && plan.x_strides[d] == 0;
      y_repeats = y_repeats && plan.y_strides[d] == 0;
    }
    return x_repeats && y_full ? 1 : y_repeats && x_full ? 2 : 0;
  }

  // `to` = the operand's row at `offset` widened to float (`inner` copies of one value where
  // the operand does not vary along the row), unless *widened says it already is.
  static void WidenRow(const T* from, bool varies, int64_t inner, int64_t offset, int64_t* widened, float* to) {
    if (*widened == offset) return;
    *widened = offset;
    if (varies) {
      WidenBfloat16(reinterpret_cast<const uint16_t*>(from), to, inner);
    } else {
      std::fill(to, to + inner, static_cast<float>(*from));
    }
  }

  // Rows [row_begin, row_end) of the collapsed broadcast (a row is the innermost dimension).
  static void Broadcast(const BroadcastPlan& plan, int64_t row_begin, int64_t row_end, const T* xp, const T* yp,
                        Out* op, const F& f) {
    const int rank = static_cast<int>(plan.dims.size());
    const int64_t inner = plan.dims[rank - 1];
    const bool x_inner = plan.x_strides[rank - 1] != 0, y_inner = plan.y_strides[rank - 1] != 0;
    // The odometer's start: row_begin's index in the outer dimensions and both offsets.
    std::vector<int64_t> index(rank, 0);
    int64_t xo = 0, yo = 0;
    int64_t r = row_begin;
    for (int d = rank - 2; d >= 0; --d) {
      index[d] = r % plan.dims[d];
      r /= plan.dims[d];
      xo += index[d] * plan.x_strides[d];
      yo += index[d] * plan.y_strides[d];
    }
    // bfloat16 computed in float: each operand's row widened once and kept while the next
    // row reads the same one (a squeeze-and-excitation gate [batch, 1, 1, channels] along
    // every pixel's row of channels), the results rounded once, as WidenedBfloat16 does.
    constexpr bool kWidened = std::is_same_v<T, Eigen::bfloat16> && std::is_same_v<Out, T> && IsInFloat<F>::value;
    // Eigen's arrays: aligned as its loads and stores assume (vectors 16-byte aligned made
    // the stores of one pass and the loads of the next straddle each other: up to 3x slower).
    using Float = Eigen::Array<float, Eigen::Dynamic, 1>;
    [[maybe_unused]] Float wide_x, wide_y, result;
    [[maybe_unused]] int64_t widened_xo = -1, widened_yo = -1;
    if constexpr (kWidened) {
      wide_x.resize(inner), wide_y.resize(inner), result.resize(inner);
    }
    Runs runs;
    for (int64_t row = row_begin; row < row_end; ++row) {
      if constexpr (kWidened) {
        WidenRow(xp + xo, x_inner, inner, xo, &widened_xo, wide_x.data());
        WidenRow(yp + yo, y_inner, inner, yo, &widened_yo, wide_y.data());
        const typename F::InFloatOf& g = f;
        result = g(wide_x, wide_y);
        NarrowToBfloat16(result.data(), reinterpret_cast<uint16_t*>(op + row * inner), inner);
      } else {
        Apply(f, xp + xo, x_inner, yp + yo, y_inner, op + row * inner, inner, &runs);
      }
      // Odometer over the outer dimensions, keeping both input offsets current.
      for (int d = rank - 2; d >= 0; --d) {
        xo += plan.x_strides[d];
        yo += plan.y_strides[d];
        if (++index[d] < plan.dims[d]) break;
        xo -= plan.x_strides[d] * plan.dims[d];
        yo -= plan.y_strides[d] * plan.dims[d];
        index[d] = 0;
      }
    }
  }
};

template <class T, class F, class Out = T>
class UnaryOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(0, 0, x.shape(), &out));
    const T* xp = x.base<T>();
    Out* op = out->base<Out>();
    F f;
    CwiseParallelFor(ctx, x.NumElements(), F::kCost, [&](int64_t b, int64_t e) {
      if constexpr (std::is_same_v<T, Eigen::bfloat16> && std::is_same_v<Out, T> && IsInFloat<F>::value) {
        WidenedBfloat16<F>::Eval(f, op + b, e - b, xp + b);
      } else {
        Eigen::Map<Eigen::Array<Out, Eigen::Dynamic, 1>>(op + b, e - b) =
            f(Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>(xp + b, e - b));
      }
    });
  }
};

// F(input 0, input 1) where both have as many elements (no broadcasting); the output has
// input 0's shape. TensorFlow's SimpleBinaryOp: the gradient helpers TanhGrad(y, dy), ...
template <class T, class F>
class SimpleBinaryOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, SimpleBinaryOutput(ctx, *this, &out));
    const T* ap = a.base<T>();
    const T* bp = b.base<T>();
    T* op = out->base<T>();
    F f;
    using Array = Eigen::Array<T, Eigen::Dynamic, 1>;
    CwiseParallelFor(ctx, a.NumElements(), F::kCost, [&](int64_t s, int64_t e) {
      Eigen::Map<Array>(op + s, e - s) =
          f(Eigen::Map<const Array>(ap + s, e - s), Eigen::Map<const Array>(bp + s, e - s));
    });
  }
};

// fn(x) in the widest of T and float: half and bfloat16 round their float result once, as
// Eigen's half types compute (the scalar form of InFloat below).
template <class T, class Fn>
T ViaFloat(T x, Fn fn) {
  if constexpr (std::is_same_v<T, Eigen::half> || std::is_same_v<T, Eigen::bfloat16>) {
    return T(fn(static_cast<float>(x)));
  } else {
    return fn(x);
  }
}

// A functor of one element (Scalar()(x)) or two (Scalar()(x, y)) as a cwise functor, for
// functions Eigen has no vectorised form of here (the C library's, Eigen's special
// functions): UnaryOp<T, ScalarUnary<ScalarErf, 20>>, BinaryOp<T, ScalarBinary<F, 20>>.
template <class Scalar, int kCostPerElement>
struct ScalarUnary : CwiseFunctor {
  static constexpr int kCost = kCostPerElement;
  template <class A>
  auto operator()(const A& a) const { return a.unaryExpr(Scalar()); }
};
template <class Scalar, int kCostPerElement>
struct ScalarBinary : CwiseFunctor {
  static constexpr int kCost = kCostPerElement;
  template <class A, class B>
  auto operator()(const A& a, const B& b) const { return a.binaryExpr(b, Scalar()); }
};

// F computed in float for half and bfloat16 operands, each result rounded once to the
// operands' type (a comparison's bool stays bool), as TensorFlow's Eigen computes these
// types: widen, compute, round. Register e.g. BinaryOp<Eigen::half, InFloat<Sub>>; F's
// traits (cost, divisor checks) carry over.
template <class F>
struct InFloat : F {
  using InFloatOf = F;
  template <class A>
  auto operator()(const A& a) const {
    return RoundTo<typename A::Scalar>(F::operator()(a.template cast<float>()));
  }
  template <class A, class B>
  auto operator()(const A& a, const B& b) const {
    return RoundTo<typename A::Scalar>(F::operator()(a.template cast<float>(), b.template cast<float>()));
  }

 private:
  template <class T, class R>
  static auto RoundTo(const R& r) {
    if constexpr (std::is_same_v<typename R::Scalar, bool>) return r;
    else return r.template cast<T>();
  }
};

namespace functor {
struct Add : CwiseFunctor {
  template <class A, class B>
  auto operator()(const A& a, const B& b) const { return a + b; }
};
struct Mul : CwiseFunctor {
  template <class A, class B>
  auto operator()(const A& a, const B& b) const { return a * b; }
};
}  // namespace functor

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_CPU_CWISE_OPS_H_
