// Transpose on the CPU. The permutation is first simplified (dimensions of size 1
// dropped, runs of dimensions that stay adjacent merged), so most transposes become a
// rank-2 or rank-3 shuffle; that shuffle runs with Eigen on the device's thread pool, by
// element size, so one instantiation serves float and int32 alike. Other cases (rank > 4
// after simplifying, strings) take an index loop.
#include <unsupported/Eigen/CXX11/Tensor>

#include <algorithm>
#include <cstring>
#include <vector>

#include "kernels/cpu/strided_copy.h"
#include "kernels/cpu/transpose_perm.h"
#include "kernels/kernel_registry.h"

namespace tensoract {
namespace {

using Index = Eigen::DenseIndex;

template <class U, int N>
void Shuffle(const Eigen::ThreadPoolDevice& d, const void* in, void* out, const std::vector<int64_t>& dims,
             const std::vector<int>& perm) {
  Eigen::array<Index, N> in_dims, out_dims;
  Eigen::array<int, N> p;
  for (int i = 0; i < N; ++i) {
    in_dims[i] = dims[i];
    p[i] = perm[i];
    out_dims[i] = dims[perm[i]];
  }
  Eigen::TensorMap<Eigen::Tensor<const U, N, Eigen::RowMajor, Index>> x(static_cast<const U*>(in), in_dims);
  Eigen::TensorMap<Eigen::Tensor<U, N, Eigen::RowMajor, Index>> y(static_cast<U*>(out), out_dims);
  y.device(d) = x.shuffle(p);
}

template <class U>
bool ShuffleBySize(const Eigen::ThreadPoolDevice& d, const void* in, void* out, const std::vector<int64_t>& dims,
                   const std::vector<int>& perm) {
  switch (dims.size()) {
    case 2: Shuffle<U, 2>(d, in, out, dims, perm); return true;
    case 3: Shuffle<U, 3>(d, in, out, dims, perm); return true;
    case 4: Shuffle<U, 4>(d, in, out, dims, perm); return true;
    default: return false;
  }
}

// out[i] = in[j] over the permuted index, for any element type.
template <class T>
void TransposeLoop(const T* in, T* out, const std::vector<int64_t>& dims, const std::vector<int>& perm) {
  const int rank = static_cast<int>(dims.size());
  std::vector<int64_t> in_strides(rank, 1);
  for (int i = rank - 2; i >= 0; --i) in_strides[i] = in_strides[i + 1] * dims[i + 1];
  std::vector<int64_t> out_dims(rank), strides(rank), index(rank, 0);
  for (int i = 0; i < rank; ++i) {
    out_dims[i] = dims[perm[i]];
    strides[i] = in_strides[perm[i]];
  }
  int64_t total = 1;
  for (int64_t s : dims) total *= s;
  int64_t offset = 0;
  for (int64_t o = 0; o < total; ++o) {
    out[o] = in[offset];
    for (int i = rank - 1; i >= 0; --i) {
      offset += strides[i];
      if (++index[i] < out_dims[i]) break;
      offset -= strides[i] * out_dims[i];
      index[i] = 0;
    }
  }
}

class TransposeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const int rank = input.dims();
    std::vector<int> perm;
    OP_REQUIRES_OK(ctx, ReadTransposePerm(*this, ctx->input(1), rank, &perm));
    std::vector<int64_t> out_dims(rank);
    for (int i = 0; i < rank; ++i) out_dims[i] = input.dim_size(perm[i]);

    // Simplify: drop size-1 dimensions, then merge input dimensions that stay in order.
    std::vector<int> kept_index(rank, -1);
    std::vector<int64_t> dims;
    for (int i = 0; i < rank; ++i) {
      if (input.dim_size(i) != 1) {
        kept_index[i] = static_cast<int>(dims.size());
        dims.push_back(input.dim_size(i));
      }
    }
    std::vector<int> p;
    for (int i = 0; i < rank; ++i) {
      if (kept_index[perm[i]] >= 0) p.push_back(kept_index[perm[i]]);
    }
    // Merge runs p[i+1] == p[i] + 1.
    std::vector<std::vector<int>> runs;
    for (int x : p) {
      if (!runs.empty() && runs.back().back() + 1 == x) runs.back().push_back(x);
      else runs.push_back({x});
    }
    // Each run becomes one dimension, numbered by the order of its first input dimension.
    std::vector<int> order(runs.size());
    for (size_t i = 0; i < runs.size(); ++i) order[i] = static_cast<int>(i);
    std::sort(order.begin(), order.end(), [&](int a, int b) { return runs[a][0] < runs[b][0]; });
    std::vector<int64_t> merged_dims(runs.size());
    std::vector<int> merged_perm(runs.size());
    for (size_t k = 0; k < order.size(); ++k) {
      int64_t size = 1;
      for (int x : runs[order[k]]) size *= dims[x];
      merged_dims[k] = size;
      merged_perm[order[k]] = static_cast<int>(k);
    }

    if (merged_dims.size() <= 1 || input.NumElements() == 0) {  // the order of the elements is unchanged
      StatusOr<Tensor> same = input.Reshaped(TensorShape(out_dims));
      OP_REQUIRES_OK(ctx, same.status());
      ctx->set_output(0, *same);
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(out_dims), &out));
    if (input.dtype() == tensorflow::DT_STRING) {
      TransposeLoop(input.base<std::string>(), out->base<std::string>(), merged_dims, merged_perm);
      return;
    }
    const Eigen::ThreadPoolDevice& d = *ctx->device()->eigen_cpu_device();
    bool done = false;
    switch (DataTypeSize(input.dtype())) {
      case 1: done = ShuffleBySize<uint8_t>(d, input.data(), out->data(), merged_dims, merged_perm); break;
      case 2: done = ShuffleBySize<uint16_t>(d, input.data(), out->data(), merged_dims, merged_perm); break;
      case 4: done = ShuffleBySize<uint32_t>(d, input.data(), out->data(), merged_dims, merged_perm); break;
      case 8: done = ShuffleBySize<uint64_t>(d, input.data(), out->data(), merged_dims, merged_perm); break;
      default: break;
    }
    if (done) return;
    switch (DataTypeSize(input.dtype())) {
      case 1: TransposeLoop(static_cast<const uint8_t*>(input.data()), static_cast<uint8_t*>(out->data()), merged_dims, merged_perm); break;
      case 2: TransposeLoop(static_cast<const uint16_t*>(input.data()), static_cast<uint16_t*>(out->data()), merged_dims, merged_perm); break;
      case 4: TransposeLoop(static_cast<const uint32_t*>(input.data()), static_cast<uint32_t*>(out->data()), merged_dims, merged_perm); break;
      case 8: TransposeLoop(static_cast<const uint64_t*>(input.data()), static_cast<uint64_t*>(out->data()), merged_dims, merged_perm); break;
      case 16: TransposeLoop(static_cast<const Bytes16*>(input.data()), static_cast<Bytes16*>(out->data()), merged_dims, merged_perm); break;
      default:
        OP_REQUIRES(ctx, false, errors::Unimplemented("node '", name(), "' (Transpose): no transpose for ",
                                                     DataTypeString(input.dtype())));
    }
  }
};

REGISTER_KERNEL(Name("Transpose").Device(DEVICE_CPU), TransposeOp);

}  // namespace
}  // namespace tensoract
