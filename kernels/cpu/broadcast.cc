#include "kernels/cpu/broadcast.h"

#include <algorithm>

namespace tensoract {

StatusOr<BroadcastPlan> MakeBroadcastPlan(const TensorShape& x, const TensorShape& y) {
  const int rank = std::max(x.dims(), y.dims());
  auto padded = [rank](const TensorShape& s) {
    std::vector<int64_t> d(rank - s.dims(), 1);
    const std::vector<int64_t> dims = s.dim_sizes();
    d.insert(d.end(), dims.begin(), dims.end());
    return d;
  };
  std::vector<int64_t> xd = padded(x), yd = padded(y);
  BroadcastPlan plan;
  std::vector<int64_t> out(rank);
  // Per dimension of the output: does x / y vary along it?
  std::vector<std::pair<bool, bool>> varies;
  std::vector<int64_t> sizes;
  for (int i = 0; i < rank; ++i) {
    if (xd[i] != yd[i] && xd[i] != 1 && yd[i] != 1) {
      return errors::InvalidArgument("Incompatible shapes: ", x.DebugString(), " vs. ", y.DebugString());
    }
    out[i] = xd[i] == 1 ? yd[i] : xd[i];
    if (out[i] == 1) continue;  // a size-1 output dimension needs no loop
    std::pair<bool, bool> v{xd[i] != 1, yd[i] != 1};
    if (!varies.empty() && varies.back() == v) {
      sizes.back() *= out[i];
    } else {
      varies.push_back(v);
      sizes.push_back(out[i]);
    }
  }
  plan.output_shape = TensorShape(out);
  if (sizes.empty()) {  // every dimension has size 1 (or both are scalars)
    sizes.push_back(1);
    varies.push_back({true, true});
  }
  plan.dims = sizes;
  const int n = static_cast<int>(sizes.size());
  plan.x_strides.assign(n, 0);
  plan.y_strides.assign(n, 0);
  int64_t xs = 1, ys = 1;
  for (int i = n - 1; i >= 0; --i) {
    if (varies[i].first) {
      plan.x_strides[i] = xs;
      xs *= sizes[i];
    }
    if (varies[i].second) {
      plan.y_strides[i] = ys;
      ys *= sizes[i];
    }
  }
  return plan;
}

// The broadcast output shape of `a` and `b` (right-aligned), or InvalidArgument.
StatusOr<TensorShape> BroadcastShape(const TensorShape& a, const TensorShape& b) {
  const int rank = std::max(a.dims(), b.dims());
  std::vector<int64_t> dims(rank);
  for (int i = 0; i < rank; ++i) {
    const int ia = a.dims() - rank + i, ib = b.dims() - rank + i;
    const int64_t da = ia >= 0 ? a.dim_size(ia) : 1, db = ib >= 0 ? b.dim_size(ib) : 1;
    if (da != db && da != 1 && db != 1) {
      return errors::InvalidArgument("Incompatible shapes: ", a.DebugString(), " vs. ", b.DebugString());
    }
    dims[i] = da == 1 ? db : da;
  }
  return TensorShape(dims);
}

// Element strides of `s` over an output of `rank` dimensions (0 along broadcast ones).
std::vector<int64_t> StridesIn(const TensorShape& s, const TensorShape& out) {
  const int rank = out.dims();
  std::vector<int64_t> strides(rank, 0);
  int64_t stride = 1;
  for (int i = s.dims() - 1; i >= 0; --i) {
    const int o = rank - s.dims() + i;
    strides[o] = s.dim_size(i) == 1 ? 0 : stride;
    stride *= s.dim_size(i);
  }
  return strides;
}

}  // namespace tensoract
