// Cast on the CPU between every pair of bool, the integer types, half, bfloat16, float,
// double, complex64 and complex128: the kernel, with TensorFlow's conversion rules on
// x86-64 (kernels/cpu/cwise_cast.cc registers the pairs graphs compute in,
// kernels/more_dtypes/cast_more.cc the rest):
//
//  - to bool: x != 0 (NaN is true); from bool: 0 or 1.
//  - between integers: modulo the destination's width (C++'s conversions).
//  - integer to half or bfloat16: through float, then rounded to nearest even (as Eigen's
//    constructors do), so 65520 and above are inf in half.
//  - floating point to integer truncates toward zero; a value out of range (and NaN) gives
//    what TensorFlow's scalar code gives on x86-64, where the conversion instruction
//    returns its "integer indefinite" (the minimum) for anything it cannot represent:
//    int32 and int64 get their minimum; int8, int16, uint8 and uint16 take the low bits of
//    the int32 conversion (300.0 to uint8 is 44, 1e10 is 0); uint32 the low bits of the
//    int64 conversion; uint64 is the int64 conversion of x, or of x - 2^63 with the top bit
//    set for x >= 2^63 (inf and NaN give 2^63). half and bfloat16 convert through float.
//    TensorFlow's own results for such values depend on where the element sits in its
//    tensor (its vectorised loop converts differently from its scalar tail: 300.0 to uint8
//    is 255 there); every element here gets the scalar rule, wherever it sits.
//  - between floating types: rounded to nearest even (double to half and bfloat16 through
//    float, as Eigen does). Truncate=true instead drops the mantissa bits the destination
//    lacks, for float to half and bfloat16 and double to float and half (TensorFlow's
//    pairs; double to bfloat16 and half to bfloat16 round either way). NaN stays NaN.
//  - complex to real takes the real part (NumPy's rule); real to complex has imaginary 0.
// A cast to the same type forwards its input. A Cast marked kReuseUnchangedInputAttr (a
// weight's, graph/optimizer/mixed_precision.h) gives the same output while its input is
// unchanged (kernels/cpu/cast_cache.h).
//
// float <-> bfloat16 is what lossy cross-device transfers use (whitepaper 5.5): bfloat16 is
// the high 16 bits of a float32. A NaN stays a NaN either way (a quiet one with its sign:
// dropping the low bits of a NaN whose payload lives there would give an infinity).
#ifndef TENSORACT_KERNELS_CPU_CAST_OP_H_
#define TENSORACT_KERNELS_CPU_CAST_OP_H_

#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>

#include "base/bfloat16_rounding.h"
#include "graph/node_def_util.h"
#include "graph/optimizer/mixed_precision.h"
#include "kernels/cpu/cast_cache.h"
#include "kernels/cpu/cwise_ops.h"

namespace tensoract {
namespace cast {


template <class T>
constexpr bool kIsComplex = std::is_same_v<T, complex64> || std::is_same_v<T, complex128>;
template <class T>
constexpr bool kIsSmallFloat = std::is_same_v<T, Eigen::half> || std::is_same_v<T, Eigen::bfloat16>;
template <class T>
constexpr bool kIsInteger = std::is_integral_v<T> && !std::is_same_v<T, bool>;

inline uint32_t FloatBits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  return bits;
}

inline uint16_t FloatToBfloat16Bits(float f, bool truncate) {
  const uint32_t bits = FloatBits(f);
  if (truncate && !std::isnan(f)) return static_cast<uint16_t>(bits >> 16);
  return RoundedBfloat16Bits(bits);
}

inline Eigen::bfloat16 ToBfloat16(float f, bool truncate) {
  return Eigen::bfloat16(Eigen::bfloat16_impl::raw_uint16_to_bfloat16(FloatToBfloat16Bits(f, truncate)));
}

// x with its lowest `n` mantissa bits cleared (Truncate=true); NaN untouched.
inline float DropLowBits(float x, int n) {
  if (std::isnan(x)) return x;
  uint32_t bits = FloatBits(x) & ~((1u << n) - 1);
  std::memcpy(&x, &bits, sizeof x);
  return x;
}
inline double DropLowBits(double x, int n) {
  if (std::isnan(x)) return x;
  uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  bits &= ~((uint64_t{1} << n) - 1);
  std::memcpy(&x, &bits, sizeof x);
  return x;
}

// x86-64's truncating conversions (cvttss2si/cvttsd2si): the minimum for NaN and for
// anything whose truncation does not fit. Written out, so the compiler's own choice of
// instructions (or a vectorised loop) cannot change the answer.
template <class F>
int32_t X86ToInt32(F x) {
  const double d = static_cast<double>(x);
  if (!(d > -2147483649.0 && d < 2147483648.0)) return std::numeric_limits<int32_t>::min();
  return static_cast<int32_t>(d);
}
template <class F>
int64_t X86ToInt64(F x) {
  if (!(x >= F(-9223372036854775808.0) && x < F(9223372036854775808.0))) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(x);
}

// A float or double to an integer type, by the rules in the header comment.
template <class Dst, class F>
Dst FloatToInteger(F x) {
  if constexpr (std::is_same_v<Dst, int32_t>) {
    return X86ToInt32(x);
  } else if constexpr (std::is_same_v<Dst, int64_t>) {
    return X86ToInt64(x);
  } else if constexpr (sizeof(Dst) < 4) {
    return static_cast<Dst>(static_cast<uint32_t>(X86ToInt32(x)));
  } else if constexpr (std::is_same_v<Dst, uint32_t>) {
    return static_cast<uint32_t>(static_cast<uint64_t>(X86ToInt64(x)));
  } else {  // uint64_t
    const uint64_t low = static_cast<uint64_t>(X86ToInt64(x));
    const uint64_t high = static_cast<uint64_t>(X86ToInt64(static_cast<F>(x - F(9223372036854775808.0))));
    return low | (high & (low >> 63 ? ~uint64_t{0} : uint64_t{0}));
  }
}

// One element from Src to Dst (neither complex, not equal types).
template <class Src, class Dst>
Dst ConvertReal(Src x, bool truncate) {
  if constexpr (std::is_same_v<Dst, bool>) {
    // Eigen's operator bool of half and bfloat16 tests the bits, so a denormal is true even
    // where the kernels' threads treat denormal floats as zero (DAZ).
    if constexpr (kIsSmallFloat<Src>) return (Eigen::numext::bit_cast<uint16_t>(x) & 0x7fff) != 0;
    else return x != Src(0);
  } else if constexpr (std::is_same_v<Src, bool>) {
    return static_cast<Dst>(x ? 1.0f : 0.0f);
  } else if constexpr (kIsSmallFloat<Src>) {
    // Exactly a float first, then as from a float; TensorFlow truncates no half or
    // bfloat16 source (half to bfloat16 rounds even with Truncate=true).
    return ConvertReal<float, Dst>(static_cast<float>(x), /*truncate=*/false);
  } else if constexpr (std::is_floating_point_v<Src> && kIsInteger<Dst>) {
    return FloatToInteger<Dst>(x);
  } else if constexpr (std::is_same_v<Dst, Eigen::bfloat16>) {
    // Truncate applies to float sources only; a double rounds to float first.
    return ToBfloat16(static_cast<float>(x), truncate && std::is_same_v<Src, float>);
  } else if constexpr (std::is_same_v<Dst, Eigen::half>) {
    if constexpr (std::is_same_v<Src, float>) return Eigen::half(truncate ? DropLowBits(x, 13) : x);
    else if constexpr (std::is_same_v<Src, double>) return Eigen::half(static_cast<float>(truncate ? DropLowBits(x, 42) : x));
    else return Eigen::half(static_cast<float>(x));
  } else if constexpr (std::is_same_v<Src, double> && std::is_same_v<Dst, float>) {
    return static_cast<float>(truncate ? DropLowBits(x, 29) : x);
  } else {
    return static_cast<Dst>(x);  // integer to integer (wrapping), integer or float to float
  }
}

template <class Src, class Dst>
Dst Convert(Src x, bool truncate) {
  if constexpr (kIsComplex<Src> && kIsComplex<Dst>) {
    return Dst(static_cast<typename Dst::value_type>(x.real()), static_cast<typename Dst::value_type>(x.imag()));
  } else if constexpr (kIsComplex<Src>) {
    // The real part alone, to bool too (Eigen's cast of a complex: 16777216i is false).
    return ConvertReal<typename Src::value_type, Dst>(x.real(), truncate);
  } else if constexpr (kIsComplex<Dst>) {
    using R = typename Dst::value_type;
    if constexpr (std::is_same_v<Src, R>) return Dst(x, R(0));
    else return Dst(ConvertReal<Src, R>(x, truncate), R(0));
  } else {
    return ConvertReal<Src, Dst>(x, truncate);
  }
}

template <class Src, class Dst>
class CastOp : public OpKernel {
 public:
  explicit CastOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("Truncate", &truncate_));
    if (AttrIsTrue(ctx->def(), kReuseUnchangedInputAttr)) cache_ = std::make_unique<UnchangedInputCache>();
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    if constexpr (std::is_same_v<Src, Dst>) {
      ctx->set_output(0, x);
    } else {
      uint64_t epoch = 0;
      if (cache_ != nullptr && cache_->Reuse(ctx, x, &epoch)) return;
      Tensor* out = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
      const Src* xp = x.base<Src>();
      Dst* op = out->base<Dst>();
      const bool truncate = truncate_;
      CwiseParallelFor(ctx, x.NumElements(), 1, [&](int64_t b, int64_t e) {
        if constexpr (kIsInteger<Src> && std::is_arithmetic_v<Dst> && !std::is_same_v<Dst, bool>) {
          // From an integer to an integer, float or double every conversion is defined, and
          // the compiler vectorises this loop (uint8 to float: 13.4 -> 4.5 us for a 64-image
          // Fashion-MNIST batch on an AVX-512 Xeon).
          for (int64_t i = b; i < e; ++i) op[i] = static_cast<Dst>(xp[i]);
        } else if constexpr (std::is_same_v<Src, Eigen::bfloat16> && std::is_same_v<Dst, float>) {
          // Where a bfloat16 region of a graph hands its activations back to float.
          WidenBfloat16(reinterpret_cast<const uint16_t*>(xp) + b, op + b, e - b);
        } else {
          for (int64_t i = b; i < e; ++i) op[i] = Convert<Src, Dst>(xp[i], truncate);
        }
      });
      if (cache_ != nullptr) cache_->Keep(x, *out, epoch);
    }
  }

  bool IsExpensive() const override { return !std::is_same_v<Src, Dst>; }

 private:
  bool truncate_ = false;
  std::unique_ptr<UnchangedInputCache> cache_;  // where the node is marked
};

#define TA_REGISTER_CAST(SRC, DST)                                                                         \
  REGISTER_KERNEL(Name("Cast").Device(DEVICE_CPU).TypeConstraint<SRC>("SrcT").TypeConstraint<DST>("DstT"), \
                  ::tensoract::cast::CastOp<SRC, DST>)
// From SRC to each dtype graphs compute in (cwise_cast.cc's), and to each of the others.
#define TA_REGISTER_CASTS_TO_COMMON(SRC)   \
  TA_REGISTER_CAST(SRC, bool);             \
  TA_REGISTER_CAST(SRC, uint8_t);          \
  TA_REGISTER_CAST(SRC, int32_t);          \
  TA_REGISTER_CAST(SRC, int64_t);          \
  TA_REGISTER_CAST(SRC, Eigen::half);      \
  TA_REGISTER_CAST(SRC, Eigen::bfloat16);  \
  TA_REGISTER_CAST(SRC, float);            \
  TA_REGISTER_CAST(SRC, double);
#define TA_REGISTER_CASTS_TO_OTHERS(SRC)  \
  TA_REGISTER_CAST(SRC, uint16_t);        \
  TA_REGISTER_CAST(SRC, uint32_t);        \
  TA_REGISTER_CAST(SRC, uint64_t);        \
  TA_REGISTER_CAST(SRC, int8_t);          \
  TA_REGISTER_CAST(SRC, int16_t);         \
  TA_REGISTER_CAST(SRC, complex64);       \
  TA_REGISTER_CAST(SRC, complex128);

}  // namespace cast
}  // namespace tensoract

#endif  // TENSORACT_KERNELS_CPU_CAST_OP_H_
