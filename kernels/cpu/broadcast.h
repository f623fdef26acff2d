// NumPy broadcasting of two shapes, collapsed into as few dimensions as possible.
//
// Two shapes broadcast when, aligned at their last dimension, each pair of sizes is equal
// or one of them is 1. The plan merges neighbouring dimensions that broadcast the same
// way, so [64,128] + [128] becomes one loop of 64 rows over a contiguous row, which an
// element-wise kernel can vectorise.
#ifndef TENSORACT_KERNELS_CPU_BROADCAST_H_
#define TENSORACT_KERNELS_CPU_BROADCAST_H_

#include <cstdint>
#include <vector>

#include "base/status.h"
#include "base/tensor_shape.h"

namespace tensoract {

struct BroadcastPlan {
  TensorShape output_shape;
  // Collapsed dimensions, outermost first; per input, the element stride along each (0
  // where that input is broadcast).
  std::vector<int64_t> dims;
  std::vector<int64_t> x_strides, y_strides;
};

// InvalidArgument "Incompatible shapes: [2,3] vs. [4]" when they do not broadcast.
StatusOr<BroadcastPlan> MakeBroadcastPlan(const TensorShape& x, const TensorShape& y);

// Uncollapsed, for kernels of more operands (SelectV2's three, CPU and GPU): the broadcast
// shape of `a` and `b`, right-aligned, or InvalidArgument "Incompatible shapes: ..."; and the
// element strides of a shape `s` that broadcasts to `out` over out's dimensions (0 along
// the broadcast ones).
StatusOr<TensorShape> BroadcastShape(const TensorShape& a, const TensorShape& b);
std::vector<int64_t> StridesIn(const TensorShape& s, const TensorShape& out);

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_CPU_BROADCAST_H_
