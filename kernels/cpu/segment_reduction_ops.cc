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

// The unsorted ops' checks and output, the same for every type and reducer (compiled once,
// not for each of the ~110 kernels). Sets `inner` (elements a row) and `num_segments`; false
// on an error.
bool PrepareUnsorted(OpKernelContext* ctx, const OpKernel& k, Tensor** out, int64_t* inner, int64_t* num_segments) {
  const Tensor& data = ctx->input(0);
  const Tensor& ids_t = ctx->input(1);
  const Tensor& n_t = ctx->input(2);
  if (n_t.dims() != 0) {
    ctx->SetStatus(errors::InvalidArgument(NodePrefix(k), "num_segments should be a scalar, not shape ",
                                           n_t.shape().DebugString()));
    return false;
  }
  bool prefix = ids_t.dims() <= data.dims();
  for (int i = 0; prefix && i < ids_t.dims(); ++i) prefix = ids_t.dim_size(i) == data.dim_size(i);
  if (!prefix) {
    ctx->SetStatus(errors::InvalidArgument(NodePrefix(k), "data.shape = ", data.shape().DebugString(),
                                           " does not start with segment_ids.shape = ", ids_t.shape().DebugString()));
    return false;
  }
  *num_segments = IndexValues(n_t)[0];
  if (*num_segments < 0) {
    ctx->SetStatus(errors::InvalidArgument(NodePrefix(k), "Input num_segments == ", *num_segments,
                                           " must not be negative."));
    return false;
  }
  std::vector<int64_t> dims{*num_segments};
  *inner = 1;
  for (int i = ids_t.dims(); i < data.dims(); ++i) {
    dims.push_back(data.dim_size(i));
    *inner *= data.dim_size(i);
  }
  Status s = ctx->allocate_output(0, TensorShape(dims), out);
  if (!s.ok()) ctx->SetStatus(s);
  return s.ok();
}

// The unsorted ops' ids, each checked below num_segments (negative ones are dropped); false
// (the error set) at the first out of range.
bool ReadUnsortedIds(OpKernelContext* ctx, const OpKernel& k, int64_t num_segments, std::vector<int64_t>* ids) {
  const Tensor& ids_t = ctx->input(1);
  *ids = IndexValues(ids_t);
  for (size_t i = 0; i < ids->size(); ++i) {
    const int64_t id = (*ids)[i];
    if (id >= num_segments) {
      ctx->SetStatus(errors::InvalidArgument(NodePrefix(k), "segment_ids", IdPosition(ids_t.shape(), i), " = ", id,
                                             " is out of range [0, ", num_segments, ")"));
      return false;
    }
  }
  return true;
}

template <class T, class Reducer>
class UnsortedSegmentReductionOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    Tensor* out = nullptr;
    int64_t inner = 0, num_segments = 0;
    if (!PrepareUnsorted(ctx, *this, &out, &inner, &num_segments)) return;
    T* o = out->base<T>();
    const T start = Reducer::template Start<T>(false);
    for (int64_t i = 0, n = out->NumElements(); i < n; ++i) o[i] = start;
    // TensorFlow looks at the ids only when there is data to place.
    const Tensor& data = ctx->input(0);
    if (data.NumElements() == 0) return;
    std::vector<int64_t> ids;
    if (!ReadUnsortedIds(ctx, *this, num_segments, &ids)) return;
    const T* d = data.base<T>();
    for (size_t i = 0; i < ids.size(); ++i) {
      if (ids[i] < 0) continue;
      T* row = o + ids[i] * inner;
      const T* src = d + i * inner;
      for (int64_t k = 0; k < inner; ++k) Reducer::Combine(row[k], src[k]);
    }
  }
};

// A run of equal sorted ids: data rows [begin, end) reduce into output row `id`.
struct Segment {
  int64_t id, begin, end;
};

// The sorted ops' checks (TensorFlow's, in its order and words), output and segments, the
// same for every type and reducer. Sets `inner` (elements a row); false on an error or when
// there is nothing to reduce.
bool PrepareSorted(OpKernelContext* ctx, const OpKernel& k, Tensor** out, std::vector<Segment>* segments,
                   int64_t* inner) {
  const Tensor& data = ctx->input(0);
  const Tensor& ids_t = ctx->input(1);
  if (data.dims() < 1) {
    ctx->SetStatus(errors::InvalidArgument(NodePrefix(k), "input must be at least rank 1"));
    return false;
  }
  if (ids_t.dims() != 1) {
    ctx->SetStatus(errors::InvalidArgument(NodePrefix(k), "segment_ids should be a vector."));
    return false;
  }
  const int64_t n = ids_t.NumElements();
  if (n != data.dim_size(0)) {
    ctx->SetStatus(
        errors::InvalidArgument(NodePrefix(k), "segment_ids should be the same size as dimension 0 of input."));
    return false;
  }
  const std::vector<int64_t> ids = IndexValues(ids_t);
  const int64_t rows = n > 0 ? ids[n - 1] + 1 : 0;
  if (rows < 0) {
    ctx->SetStatus(errors::InvalidArgument(NodePrefix(k), "segment ids must be >= 0"));
    return false;
  }
  std::vector<int64_t> dims = data.shape().dim_sizes();
  dims[0] = rows;
  Status s = ctx->allocate_output(0, TensorShape(dims), out);
  if (!s.ok()) {
    ctx->SetStatus(s);
    return false;
  }
  if (n == 0) return false;
  if (rows <= 0) {
    ctx->SetStatus(errors::InvalidArgument(NodePrefix(k), "segment ids must be >= 0"));
    return false;
  }
  *inner = data.NumElements() / n;
  for (int64_t begin = 0; begin < n;) {
    const int64_t id = ids[begin];
    int64_t end = begin + 1;
    while (end < n && ids[end] == id) ++end;
    // The next segment must start higher; checked before this one's range, as there.
    if (end != n && !(id < ids[end])) {
      ctx->SetStatus(errors::InvalidArgument(NodePrefix(k), "segment ids are not increasing"));
      return false;
    }
    if (id < 0 || id >= rows) {
      ctx->SetStatus(errors::InvalidArgument(NodePrefix(k), "Segment id ", id, " out of range [0, ", rows,
                                             "), possibly because 'segment_ids' input is not sorted."));
      return false;
    }
    segments->push_back({id, begin, end});
    begin = end;
  }
  return true;
}

template <class T, class Reducer>
class SegmentReductionOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    Tensor* out = nullptr;
    std::vector<Segment> segments;
    int64_t inner = 0;
    if (!PrepareSorted(ctx, *this, &out, &segments, &inner)) return;
    const T* d = ctx->input(0).base<T>();
    T* o = out->base<T>();
    const T gap = std::is_same_v<Reducer, ProdReducer> ? T(1) : T(0);
    int64_t filled = 0;  // output rows below this one are written
    for (const Segment& seg : segments) {
      for (int64_t k = filled * inner; k < seg.id * inner; ++k) o[k] = gap;
      T* row = o + seg.id * inner;
      const T start = Reducer::template Start<T>(true);
      for (int64_t k = 0; k < inner; ++k) row[k] = start;
      for (int64_t r = seg.begin; r < seg.end; ++r) {
        const T* src = d + r * inner;
        for (int64_t k = 0; k < inner; ++k) Reducer::Combine(row[k], src[k]);
      }
      if constexpr (std::is_same_v<Reducer, MeanReducer>) {
        const T count = static_cast<T>(seg.end - seg.begin);
        // Where the count converts to a zero T (256 rows of int8), TensorFlow's integer
        // division traps; the sum is left undivided here rather than end the process.
        if (count != T(0)) {
          for (int64_t k = 0; k < inner; ++k) row[k] = row[k] / count;
        }
      }
      filled = seg.id + 1;
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
