// The segment reductions on the CPU: SegmentSum/Mean/Prod/Max/Min (sorted ids) and
// UnsortedSegmentSum/Prod/Max/Min, one loop each over a reducer that says how two values
// combine, where an accumulator starts and how a segment's result is finished.
//
// The results are TensorFlow 2.21's (its segment_reduction_ops_impl.h), quirks included:
//   * Max and Min combine as acc = (x < acc) ? acc : x (its std::max(x, acc)): a NaN is kept
//     until a later number replaces it. TensorFlow's sorted kernels vectorise columns in
//     packets that drop NaN instead; here every column follows the scalar rule.
//   * An empty unsorted segment is the reduction's identity: 0, 1, lowest() for Max (so
//     UnsortedSegmentMax of one -inf is lowest(), as there), highest() for Min. A sorted
//     segment starts from -inf/+inf for Max/Min, and the rows between ids are filled with 0
//     (1 for SegmentProd).
//   * SegmentMean sums in T and divides by the count converted to T (an int8 mean of 200
//     ones is 200 -> -56, divided by -56: 1).
#include <cmath>
#include <limits>
#include <type_traits>

#include <Eigen/Core>

#include "kernels/cpu/strided_copy.h"
#include "kernels/dtype_dispatch.h"

namespace tensoract {
namespace {

template <class T>
constexpr bool kIsFloat = std::is_floating_point_v<T> || std::is_same_v<T, Eigen::half> ||
                          std::is_same_v<T, Eigen::bfloat16>;

// Signed integers wrap, as two's complement hardware (and TensorFlow) does, without the
// undefined behaviour of overflowing int32/int64 arithmetic.
template <class T>
using Wide = std::conditional_t<std::is_integral_v<T> && std::is_signed_v<T>,
                                std::make_unsigned_t<std::conditional_t<std::is_integral_v<T>, T, int>>, T>;

struct SumReducer {
  template <class T>
  static T Start(bool) { return T(0); }
  template <class T>
  static void Combine(T& acc, const T& x) { acc = static_cast<T>(static_cast<Wide<T>>(acc) + static_cast<Wide<T>>(x)); }
};
struct ProdReducer {
  template <class T>
  static T Start(bool) { return T(1); }
  template <class T>
  static void Combine(T& acc, const T& x) {
    if constexpr (std::is_integral_v<T>) {
      // Unsigned products of the narrow types promote to int and could overflow it.
      using U = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
      acc = static_cast<T>(static_cast<U>(acc) * static_cast<U>(x));
    } else {
      acc = acc * x;
    }
  }
};
struct MaxReducer {
  template <class T>
  static T Start(bool sorted) {
    if constexpr (kIsFloat<T>) {
      if (sorted) return -Eigen::NumTraits<T>::infinity();
    }
    return Eigen::NumTraits<T>::lowest();
  }
  template <class T>
  static void Combine(T& acc, const T& x) { acc = (x < acc) ? acc : x; }
};
struct MinReducer {
  template <class T>
  static T Start(bool sorted) {
    if constexpr (kIsFloat<T>) {
      if (sorted) return Eigen::NumTraits<T>::infinity();
    }
    return Eigen::NumTraits<T>::highest();
  }
  template <class T>
  static void Combine(T& acc, const T& x) { acc = (acc < x) ? acc : x; }
};
struct MeanReducer : SumReducer {};

// segment_ids[i, j] as TensorFlow prints a position in the ids ("segment_ids = 2" for a
// scalar id).
std::string IdPosition(const TensorShape& shape, int64_t flat) {
  if (shape.dims() == 0) return "";
  std::vector<int64_t> index(shape.dims());
  for (int d = shape.dims() - 1; d >= 0; --d) {
    index[d] = flat % shape.dim_size(d);
    flat /= shape.dim_size(d);
  }
  std::string out = "[";
  for (int d = 0; d < shape.dims(); ++d) out += (d ? "," : "") + std::to_string(index[d]);
  return out + "]";
}

template <class T, class Reducer>
class UnsortedSegmentReductionOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& data = ctx->input(0);
    const Tensor& ids_t = ctx->input(1);
    const Tensor& n_t = ctx->input(2);
    OP_REQUIRES(ctx, n_t.dims() == 0,
                errors::InvalidArgument(NodePrefix(*this), "num_segments should be a scalar, not shape ",
                                        n_t.shape().DebugString()));
    bool prefix = ids_t.dims() <= data.dims();
    for (int i = 0; prefix && i < ids_t.dims(); ++i) prefix = ids_t.dim_size(i) == data.dim_size(i);
    OP_REQUIRES(ctx, prefix,
                errors::InvalidArgument(NodePrefix(*this), "data.shape = ", data.shape().DebugString(),
                                        " does not start with segment_ids.shape = ", ids_t.shape().DebugString()));
    const int64_t num_segments = IndexValues(n_t)[0];
    OP_REQUIRES(ctx, num_segments >= 0,
                errors::InvalidArgument(NodePrefix(*this), "Input num_segments == ", num_segments,
                                        " must not be negative."));
    std::vector<int64_t> dims{num_segments};
    int64_t inner = 1;
    for (int i = ids_t.dims(); i < data.dims(); ++i) {
      dims.push_back(data.dim_size(i));
      inner *= data.dim_size(i);
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(dims), &out));
    T* o = out->base<T>();
    const T start = Reducer::template Start<T>(false);
    for (int64_t i = 0, n = out->NumElements(); i < n; ++i) o[i] = start;
    // TensorFlow looks at the ids only when there is data to place.
    if (data.NumElements() == 0) return;
    const std::vector<int64_t> ids = IndexValues(ids_t);
    const T* d = data.base<T>();
    for (size_t i = 0; i < ids.size(); ++i) {
      const int64_t id = ids[i];
      if (id < 0) continue;
      OP_REQUIRES(ctx, id < num_segments,
                  errors::InvalidArgument(NodePrefix(*this), "segment_ids", IdPosition(ids_t.shape(), i), " = ", id,
                                          " is out of range [0, ", num_segments, ")"));
      T* row = o + id * inner;
      const T* src = d + i * inner;
      for (int64_t k = 0; k < inner; ++k) Reducer::Combine(row[k], src[k]);
    }
  }
};

template <class T, class Reducer>
class SegmentReductionOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& data = ctx->input(0);
    const Tensor& ids_t = ctx->input(1);
    // TensorFlow's checks, in its order and words.
    OP_REQUIRES(ctx, data.dims() >= 1,
                errors::InvalidArgument(NodePrefix(*this), "input must be at least rank 1"));
    OP_REQUIRES(ctx, ids_t.dims() == 1,
                errors::InvalidArgument(NodePrefix(*this), "segment_ids should be a vector."));
    const int64_t n = ids_t.NumElements();
    OP_REQUIRES(ctx, n == data.dim_size(0),
                errors::InvalidArgument(NodePrefix(*this),
                                        "segment_ids should be the same size as dimension 0 of input."));
    const std::vector<int64_t> ids = IndexValues(ids_t);
    const int64_t rows = n > 0 ? ids[n - 1] + 1 : 0;
    OP_REQUIRES(ctx, rows >= 0, errors::InvalidArgument(NodePrefix(*this), "segment ids must be >= 0"));
    std::vector<int64_t> dims = data.shape().dim_sizes();
    dims[0] = rows;
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(dims), &out));
    if (n == 0) return;
    OP_REQUIRES(ctx, rows > 0, errors::InvalidArgument(NodePrefix(*this), "segment ids must be >= 0"));
    const int64_t inner = n > 0 ? data.NumElements() / n : 0;
    const T* d = data.base<T>();
    T* o = out->base<T>();
    const T gap = std::is_same_v<Reducer, ProdReducer> ? T(1) : T(0);
    int64_t filled = 0;  // output rows below this one are written
    for (int64_t begin = 0; begin < n;) {
      const int64_t id = ids[begin];
      int64_t end = begin + 1;
      while (end < n && ids[end] == id) ++end;
      // The next segment must start higher; checked before this one's range, as there.
      OP_REQUIRES(ctx, end == n || id < ids[end],
                  errors::InvalidArgument(NodePrefix(*this), "segment ids are not increasing"));
      OP_REQUIRES(ctx, id >= 0 && id < rows,
                  errors::InvalidArgument(NodePrefix(*this), "Segment id ", id, " out of range [0, ", rows,
                                          "), possibly because 'segment_ids' input is not sorted."));
      for (int64_t k = filled * inner; k < id * inner; ++k) o[k] = gap;
      T* row = o + id * inner;
      const T start = Reducer::template Start<T>(true);
      for (int64_t k = 0; k < inner; ++k) row[k] = start;
      for (int64_t r = begin; r < end; ++r) {
        const T* src = d + r * inner;
        for (int64_t k = 0; k < inner; ++k) Reducer::Combine(row[k], src[k]);
      }
      if constexpr (std::is_same_v<Reducer, MeanReducer>) {
        const T count = static_cast<T>(end - begin);
        // Where the count converts to a zero T (256 rows of int8), TensorFlow's integer
        // division traps; the sum is left undivided here rather than end the process.
        if (count != T(0)) {
          for (int64_t k = 0; k < inner; ++k) row[k] = row[k] / count;
        }
      }
      filled = id + 1;
      begin = end;
    }
  }
};

#define TA_REGISTER_SORTED(NAME, REDUCER, T) \
  REGISTER_KERNEL(Name(NAME).Device(DEVICE_CPU).TypeConstraint<T>("T"), SegmentReductionOp<T, REDUCER>)
#define TA_REGISTER_UNSORTED(NAME, REDUCER, T) \
  REGISTER_KERNEL(Name(NAME).Device(DEVICE_CPU).TypeConstraint<T>("T"), UnsortedSegmentReductionOp<T, REDUCER>)
#define TA_REGISTER_NUMBER(T)                                  \
  TA_REGISTER_SORTED("SegmentSum", SumReducer, T);             \
  TA_REGISTER_SORTED("SegmentMean", MeanReducer, T);           \
  TA_REGISTER_SORTED("SegmentProd", ProdReducer, T);           \
  TA_REGISTER_UNSORTED("UnsortedSegmentSum", SumReducer, T);   \
  TA_REGISTER_UNSORTED("UnsortedSegmentProd", ProdReducer, T)
#define TA_REGISTER_REAL(T)                                    \
  TA_REGISTER_SORTED("SegmentMax", MaxReducer, T);             \
  TA_REGISTER_SORTED("SegmentMin", MinReducer, T);             \
  TA_REGISTER_UNSORTED("UnsortedSegmentMax", MaxReducer, T);   \
  TA_REGISTER_UNSORTED("UnsortedSegmentMin", MinReducer, T)

TA_CALL_NUMBER_TYPES(TA_REGISTER_NUMBER);
TA_REGISTER_REAL(float);
TA_REGISTER_REAL(double);
TA_REGISTER_REAL(Eigen::half);
TA_REGISTER_REAL(Eigen::bfloat16);
TA_REGISTER_REAL(int8_t);
TA_REGISTER_REAL(int16_t);
TA_REGISTER_REAL(int32_t);
TA_REGISTER_REAL(int64_t);
TA_REGISTER_REAL(uint8_t);
TA_REGISTER_REAL(uint16_t);
TA_REGISTER_REAL(uint32_t);
TA_REGISTER_REAL(uint64_t);

}  // namespace
}  // namespace tensoract
