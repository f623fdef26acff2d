// The reduction kernel of Sum, Mean, Prod, Max, Min, All and Any on the CPU, shared by the
// files that register it for a few types each (reduction_ops.cc: float, double, int32, int64,
// bool; reduction_ops_small.cc: the narrow and unsigned integers, half and bfloat16). Max and
// Min propagate NaN, as TensorFlow's do (Eigen's default reducers drop it), on every path.
//
// The input is simplified the way TensorFlow's ReductionHelper does it: dimensions of size
// 1 are dropped and neighbours that are both reduced or both kept are merged. Every
// reduction then is one or more passes of "reduce the middle of [A, B, C]" (the last
// reduced group first), each an Eigen reduction on the device's thread pool. Mean is a
// Sum divided by the count, in T (integer division for integers, as in TensorFlow).
#ifndef TENSORACT_KERNELS_CPU_REDUCTION_OPS_H_
#define TENSORACT_KERNELS_CPU_REDUCTION_OPS_H_

#include <unsupported/Eigen/CXX11/Tensor>

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "kernels/cpu/cwise_ops.h"
#include "kernels/cpu/reduction_plan.h"
#include "kernels/kernel_registry.h"
#include "kernels/tensor_eigen.h"

namespace tensoract {
namespace reduction {

using Index = Eigen::DenseIndex;

// out[a, c] = sum_b in[a, b, c] for floating T and rows c of 16 or more: batch norm's
// moments and their gradients in training (NHWC summed over N, H and W). Eigen reduces a
// dimension that is not the innermost one element by element (3 ms for [8192, 256], where a
// pass over it takes 0.4): here each task adds whole rows of c, vectorised, over its range of
// b. The sum is cascaded (blocks of kBlock rows, then the blocks), which keeps float's error
// at about (kBlock + b / kBlock) roundings instead of b.
template <class T>
void SumMiddleRows(const Eigen::ThreadPoolDevice& d, const T* in, T* out, Index a, Index b, Index c) {
  constexpr Index kBlock = 64;
  // Tasks: each a, its b split in parts while the threads outnumber the a's.
  const Index want = 2 * static_cast<Index>(d.numThreads());
  const Index parts = std::max<Index>(1, std::min((want + a - 1) / a, b / (4 * kBlock)));
  std::vector<T> partial(parts > 1 ? a * parts * c : 0);
  auto task = [&](Index first, Index last) {
    std::vector<T> block(c);
    for (Index t = first; t < last; ++t) {
      const Index ai = t / parts, part = t % parts;
      const Index begin = b * part / parts, end = b * (part + 1) / parts;
      T* __restrict sum = parts > 1 ? partial.data() + t * c : out + ai * c;
      std::fill(sum, sum + c, T(0));
      for (Index r = begin; r < end; r += kBlock) {
        T* __restrict acc = block.data();
        const T* __restrict row = in + (ai * b + r) * c;
        std::copy(row, row + c, acc);
        for (Index k = 1; k < std::min(kBlock, end - r); ++k) {
          row += c;
          for (Index j = 0; j < c; ++j) acc[j] += row[j];
        }
        for (Index j = 0; j < c; ++j) sum[j] += acc[j];
      }
    }
  };
  d.parallelFor(a * parts, Eigen::TensorOpCost(sizeof(T) * b / parts * c, 0, b / parts * c), task);
  if (parts == 1) return;
  for (Index ai = 0; ai < a; ++ai) {
    T* __restrict o = out + ai * c;
    const T* p = partial.data() + ai * parts * c;
    std::copy(p, p + c, o);
    for (Index part = 1; part < parts; ++part) {
      for (Index j = 0; j < c; ++j) o[j] += p[part * c + j];
    }
  }
}

// TensorFlow's Max and Min: NaN wins (Eigen's default reducers drop it).
template <class T>
using MaxPropagatingNaN = Eigen::internal::MaxReducer<T, Eigen::PropagateNaN>;
template <class T>
using MinPropagatingNaN = Eigen::internal::MinReducer<T, Eigen::PropagateNaN>;

// out[a, c] = reduce_b in[a, b, c] for integers and bool, whose sums, products, maxima and
// minima come out the same in any order: rows of c added into their output row, the tasks
// over a and pieces of c. Eigen's reductions (below) take seconds to compile for each type
// and reducer; this takes a fraction of one.
template <class T, class Reducer>
void ReduceMiddleInOrder(const Eigen::ThreadPoolDevice& d, const T* in, T* out, Index a, Index b, Index c) {
  constexpr Index kPiece = 1024;
  const Index pieces = (c + kPiece - 1) / kPiece;
  auto task = [&](Index first, Index last) {
    Reducer reducer;
    for (Index t = first; t < last; ++t) {
      const Index ai = t / pieces, begin = t % pieces * kPiece, end = std::min(c, begin + kPiece);
      T* acc = out + ai * c;
      for (Index j = begin; j < end; ++j) acc[j] = reducer.initialize();
      for (Index bi = 0; bi < b; ++bi) {
        const T* row = in + (ai * b + bi) * c;
        for (Index j = begin; j < end; ++j) reducer.reduce(row[j], &acc[j]);
      }
      for (Index j = begin; j < end; ++j) acc[j] = reducer.finalize(acc[j]);
    }
  };
  d.parallelFor(a * pieces, Eigen::TensorOpCost(sizeof(T) * b * std::min(c, kPiece), 0, b * std::min(c, kPiece)), task);
}

// out[a, c] = reduce_b in[a, b, c].
template <class T, class Reducer>
void ReduceMiddle(const Eigen::ThreadPoolDevice& d, const T* in, T* out, Index a, Index b, Index c) {
  Reducer reducer;
  if (a * c == 0) return;
  if constexpr (std::is_integral_v<T>) {
    return ReduceMiddleInOrder<T, Reducer>(d, in, out, a, b, c);
  }
  // Max and Min of floats along a middle dimension (a global max pooling over time): Eigen
  // takes it element by element; in order, row by row, each element meets the same values in
  // the same order.
  if constexpr (std::is_floating_point_v<T> && (std::is_same_v<Reducer, MaxPropagatingNaN<T>> ||
                                                std::is_same_v<Reducer, MinPropagatingNaN<T>>)) {
    if (c >= 16 && b > 1) return ReduceMiddleInOrder<T, Reducer>(d, in, out, a, b, c);
  }
  if constexpr (std::is_floating_point_v<T> && std::is_same_v<Reducer, Eigen::internal::SumReducer<T>>) {
    if (c >= 16 && b > 1) return SumMiddleRows(d, in, out, a, b, c);
  }
  Eigen::TensorMap<Eigen::Tensor<T, 1, Eigen::RowMajor, Index>> o(out, a * c);
  if (b == 0) {
    o.device(d) = o.constant(reducer.initialize());
  } else if (a == 1 && c == 1) {
    Eigen::TensorMap<Eigen::Tensor<const T, 1, Eigen::RowMajor, Index>> i(in, b);
    Eigen::TensorMap<Eigen::Tensor<T, 0, Eigen::RowMajor, Index>> o0(out);
    o0.device(d) = i.reduce(Eigen::array<Index, 1>{0}, reducer);
  } else if (c == 1) {
    Eigen::TensorMap<Eigen::Tensor<const T, 2, Eigen::RowMajor, Index>> i(in, a, b);
    o.device(d) = i.reduce(Eigen::array<Index, 1>{1}, reducer);
  } else if (a == 1) {
    Eigen::TensorMap<Eigen::Tensor<const T, 2, Eigen::RowMajor, Index>> i(in, b, c);
    o.device(d) = i.reduce(Eigen::array<Index, 1>{0}, reducer);
  } else {
    Eigen::TensorMap<Eigen::Tensor<const T, 3, Eigen::RowMajor, Index>> i(in, a, b, c);
    Eigen::TensorMap<Eigen::Tensor<T, 2, Eigen::RowMajor, Index>> o2(out, a, c);
    o2.device(d) = i.reduce(Eigen::array<Index, 1>{1}, reducer);
  }
}

// `input` (of T) reduced by Reducer over the plan's reduced groups into `out` (the plan's
// out_shape's elements): one ReduceMiddle pass per reduced group, the last one first, kept
// neighbours merged between passes. With no group reduced, `out` is left as it is.
template <class T, class Reducer>
void ReduceGroups(const Eigen::ThreadPoolDevice& d, const Tensor& input, T* out, const ReductionPlan& plan) {
  std::vector<int64_t> groups = plan.groups;
  std::vector<bool> reduced = plan.reduced;
  if (groups.empty()) {  // zero elements somewhere, or every dimension of size 1
    groups = {input.NumElements()};
    reduced = {true};
  }
  Tensor current = input, scratch;
  while (true) {
    int last = -1;
    for (int g = 0; g < static_cast<int>(groups.size()); ++g) {
      if (reduced[g]) last = g;
    }
    if (last < 0) return;
    int64_t a = 1, c = 1;
    for (int g = 0; g < last; ++g) a *= groups[g];
    for (int g = last + 1; g < static_cast<int>(groups.size()); ++g) c *= groups[g];
    bool more = false;
    for (int g = 0; g < last; ++g) more |= reduced[g];
    T* dest = out;
    if (more) {
      scratch = Tensor(DataTypeToEnum<T>::value, TensorShape({a * c}));
      dest = scratch.base<T>();
    }
    ReduceMiddle<T, Reducer>(d, current.base<T>(), dest, a, groups[last], c);
    groups.erase(groups.begin() + last);
    reduced.erase(reduced.begin() + last);
    if (!more) return;
    current = scratch;
    // Kept neighbours are now adjacent; one pass merges them.
    if (last < static_cast<int>(groups.size()) && last > 0 && !reduced[last - 1]) {
      groups[last - 1] *= groups[last];
      groups.erase(groups.begin() + last);
      reduced.erase(reduced.begin() + last);
    }
  }
}

// out[o, i] = the sum over r of in[o, r, i] (in float; T half or bfloat16), reading `in` as
// it is. Each image's rows are cut into chunks summed on their own (spread over the
// device's threads even at batch 1), the chunks' sums then added in order.
template <class T>
Status SumMiddleInFloat(OpKernelContext* ctx, const T* in, int64_t outer, int64_t reduced, int64_t inner,
                        float* out) {
  if (reduced == 0) {  // An empty sum is 0 (and a Mean's division by 0 then makes it NaN).
    std::fill(out, out + outer * inner, 0.f);
    return Status::OK();
  }
  const int64_t chunk_rows = std::max<int64_t>(1, 16384 / std::max<int64_t>(inner, 1));
  const int64_t chunks = (reduced + chunk_rows - 1) / chunk_rows;
  auto partial = Tensor::Allocate(ctx->device()->allocator(), tensorflow::DT_FLOAT, TensorShape({outer * chunks, inner}));
  TA_RETURN_IF_ERROR(partial.status());
  float* sums = partial->base<float>();
  CwiseParallelFor(ctx, outer * chunks, chunk_rows * inner, [&](int64_t begin, int64_t end) {
    for (int64_t task = begin; task < end; ++task) {
      const int64_t o = task / chunks, first = (task % chunks) * chunk_rows;
      const int64_t last = std::min(reduced, first + chunk_rows);
      float* acc = sums + task * inner;
      std::fill(acc, acc + inner, 0.f);
      for (int64_t row = first; row < last; ++row) {
        const T* x = in + (o * reduced + row) * inner;
        if constexpr (std::is_same_v<T, Eigen::bfloat16>) {
          const uint16_t* bits = reinterpret_cast<const uint16_t*>(x);
          for (int64_t i = 0; i < inner; ++i) {
            const uint32_t wide = static_cast<uint32_t>(bits[i]) << 16;
            float v;
            std::memcpy(&v, &wide, sizeof v);
            acc[i] += v;
          }
        } else {
          for (int64_t i = 0; i < inner; ++i) acc[i] += static_cast<float>(x[i]);
        }
      }
    }
  });
  for (int64_t o = 0; o < outer; ++o) {
    float* dst = out + o * inner;
    std::copy(sums + o * chunks * inner, sums + (o * chunks + 1) * inner, dst);
    for (int64_t k = 1; k < chunks; ++k) {
      const float* src = sums + (o * chunks + k) * inner;
      for (int64_t i = 0; i < inner; ++i) dst[i] += src[i];
    }
  }
  return Status::OK();
}

// The floating reductions are instantiated once, in reduction_ops.cc, not again in each file
// that registers a kernel reducing in float or double (half, bfloat16, EuclideanNorm):
// Eigen's expressions for one type and reducer take seconds to compile.
#define TA_REDUCE_GROUPS(T, REDUCER) \
  template void ReduceGroups<T, REDUCER>(const Eigen::ThreadPoolDevice&, const Tensor&, T*, const ReductionPlan&)
#define TA_REDUCE_GROUPS_FLOATING(PREFIX, T)                 \
  PREFIX TA_REDUCE_GROUPS(T, Eigen::internal::SumReducer<T>); \
  PREFIX TA_REDUCE_GROUPS(T, Eigen::internal::ProdReducer<T>); \
  PREFIX TA_REDUCE_GROUPS(T, MaxPropagatingNaN<T>);           \
  PREFIX TA_REDUCE_GROUPS(T, MinPropagatingNaN<T>)
TA_REDUCE_GROUPS_FLOATING(extern, float);
TA_REDUCE_GROUPS_FLOATING(extern, double);

struct NoFinish {
  template <class T>
  void operator()(const Eigen::ThreadPoolDevice&, T*, int64_t, int64_t) const {}
};
// Mean: the sum divided by the count (an empty mean is NaN for floats; integers stay 0).
struct DivideByCount {
  template <class T>
  void operator()(const Eigen::ThreadPoolDevice& d, T* out, int64_t n, int64_t count) const {
    if (count <= 1 || n == 0) return;
    Eigen::TensorMap<Eigen::Tensor<T, 1, Eigen::RowMajor, Index>> o(out, n);
    o.device(d) = o / o.constant(static_cast<T>(count));
  }
};
struct FloatDivideByCount {
  template <class T>
  void operator()(const Eigen::ThreadPoolDevice& d, T* out, int64_t n, int64_t count) const {
    if (count == 1 || n == 0) return;
    Eigen::TensorMap<Eigen::Tensor<T, 1, Eigen::RowMajor, Index>> o(out, n);
    o.device(d) = o / o.constant(static_cast<T>(count));
  }
};

// Acc: the type the reduction runs in (wider than T for int32 Mean).
template <class T, class Reducer, class Finish = NoFinish, class Acc = T>
class ReductionOp : public OpKernel {
 public:
  explicit ReductionOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    Status s = ctx->GetAttr("keep_dims", &keep_dims_);
    if (!s.ok()) ctx->SetStatus(s);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    ReductionPlan plan;
    OP_REQUIRES_OK(ctx, MakeReductionPlan(*this, input, ctx->input(1), keep_dims_, &plan));
    bool any_reduced = false;
    for (bool r : plan.reduced) any_reduced |= r;
    if (!any_reduced && input.NumElements() != 0) {
      // Every reduced dimension has size 1: the values are the input's.
      StatusOr<Tensor> same = input.Reshaped(plan.out_shape);
      OP_REQUIRES_OK(ctx, same.status());
      ctx->set_output(0, *same);
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, plan.out_shape, &out));
    if constexpr (std::is_same_v<Acc, T>) {
      Reduce(ctx, input, out->base<T>(), plan);
    } else {
      // Summed in a wider type, as TensorFlow sums int32 (a mean of large values must not
      // wrap), then narrowed. The widened copy comes from the device's allocator (which keeps
      // large blocks: a fresh one faulted its pages in at every call) and is made on the
      // device's threads; bfloat16 widens and narrows as bits (a squeeze-and-excitation Mean
      // of [32, 56, 56, 144] took 41-55 ms through Eigen::bfloat16, one element at a time).
      Allocator* allocator = ctx->device()->allocator();
      auto wide_out = Tensor::Allocate(allocator, DataTypeToEnum<Acc>::value, plan.out_shape);
      OP_REQUIRES_OK(ctx, wide_out.status());
      int64_t outer = 1, reduced = 0, inner = 0;
      if (SumOverMiddle(plan, &outer, &reduced, &inner)) {
        if constexpr (kSumsNarrowInFloat) {
          OP_REQUIRES_OK(ctx, SumMiddleInFloat(ctx, input.base<T>(), outer, reduced, inner,
                                               wide_out->template base<Acc>()));
          Finish()(*ctx->device()->eigen_cpu_device(), wide_out->template base<Acc>(),
                   plan.out_shape.num_elements(), plan.reduced_count);
        }
      } else {
        auto wide = Tensor::Allocate(allocator, DataTypeToEnum<Acc>::value, input.shape());
        OP_REQUIRES_OK(ctx, wide.status());
        ConvertOnDevice(ctx, input.base<T>(), wide->template base<Acc>(), input.NumElements());
        Reduce(ctx, *wide, wide_out->template base<Acc>(), plan);
      }
      ConvertElements(wide_out->template base<Acc>(), out->base<T>(), out->NumElements());
    }
  }

 private:
  // Whether the plan sums [outer, reduced, inner] over its middle group (an image's rows and
  // columns, NHWC: global pooling and squeeze-and-excitation) into float, from half or
  // bfloat16: then SumMiddleInFloat reads the input as it is, with no widened copy of it.
  static constexpr bool kSumsNarrowInFloat =
      std::is_same_v<Reducer, Eigen::internal::SumReducer<float>> &&
      (std::is_same_v<T, Eigen::bfloat16> || std::is_same_v<T, Eigen::half>);
  static bool SumOverMiddle(const ReductionPlan& plan, int64_t* outer, int64_t* reduced, int64_t* inner) {
    if constexpr (!kSumsNarrowInFloat) {
      return false;
    } else {
      const auto& g = plan.groups;
      const auto& r = plan.reduced;
      if (g.size() == 2 && r[0] && !r[1]) {
        *outer = 1, *reduced = g[0], *inner = g[1];
        return true;
      }
      if (g.size() == 3 && !r[0] && r[1] && !r[2]) {
        *outer = g[0], *reduced = g[1], *inner = g[2];
        return true;
      }
      return false;
    }
  }

  // The passes over `input` (of Acc) into `out_data` (plan.out_shape's elements of Acc).
  void Reduce(OpKernelContext* ctx, const Tensor& input, Acc* out_data, const ReductionPlan& plan) {
    const Eigen::ThreadPoolDevice& d = *ctx->device()->eigen_cpu_device();
    ReduceGroups<Acc, Reducer>(d, input, out_data, plan);
    Finish()(d, out_data, plan.out_shape.num_elements(), plan.reduced_count);
  }

  bool keep_dims_ = false;
};

}  // namespace reduction
}  // namespace tensoract

#endif  // TENSORACT_KERNELS_CPU_REDUCTION_OPS_H_
