// How a reduction (Sum, Mean, Prod, Max, Min, All, Any) sees its input, worked out from the
// input's shape and the axes the way TensorFlow's ReductionHelper does it: dimensions of
// size 1 dropped, neighbours that are both reduced or both kept merged into groups. Shared
// by the CPU kernels (reduction_ops.h) and the GPU's (kernels/gpu/nn_ops.cc), so both
// refuse the same axes with the same words.
#ifndef TENSORACT_KERNELS_CPU_REDUCTION_PLAN_H_
#define TENSORACT_KERNELS_CPU_REDUCTION_PLAN_H_

#include <cstdint>
#include <vector>

#include "kernels/kernel_registry.h"

namespace tensoract {
namespace reduction {

// The reduction of one node's input, worked out from its shape and its axes.
struct ReductionPlan {
  TensorShape out_shape;          // with keep_dims honoured
  std::vector<int64_t> groups;    // merged dimension sizes
  std::vector<bool> reduced;      // per group
  int64_t reduced_count = 1;      // elements combined into each output element
};

inline Status MakeReductionPlan(const OpKernel& kernel, const Tensor& input, const Tensor& axes, bool keep_dims,
                         ReductionPlan* plan) {
  if (axes.dims() > 1) {
    return errors::InvalidArgument("node '", kernel.name(), "' (", kernel.type_string(),
                                   "): reduction_indices must be a scalar or a vector, got shape ",
                                   axes.shape().DebugString());
  }
  const int rank = input.dims();
  std::vector<bool> is_reduced(rank, false);
  for (int64_t i = 0; i < axes.NumElements(); ++i) {
    const int64_t axis = axes.dtype() == tensorflow::DT_INT32 ? axes.base<int32_t>()[i] : axes.base<int64_t>()[i];
    if (axis < -rank || axis >= rank) {
      return errors::InvalidArgument("node '", kernel.name(), "' (", kernel.type_string(),
                                     "): Invalid reduction dimension (", axis, " for input with ", rank,
                                     " dimension(s)");
    }
    const int64_t d = axis < 0 ? axis + rank : axis;
    if (is_reduced[d]) {
      // TensorFlow's words (reduction_ops_common): an axis named twice is refused.
      return errors::InvalidArgument("node '", kernel.name(), "' (", kernel.type_string(),
                                     "): Invalid reduction arguments: Axes contains duplicate dimension: ", d);
    }
    is_reduced[d] = true;
  }
  std::vector<int64_t> out_dims;
  for (int d = 0; d < rank; ++d) {
    const int64_t size = input.dim_size(d);
    if (!is_reduced[d]) out_dims.push_back(size);
    else if (keep_dims) out_dims.push_back(1);
    if (is_reduced[d]) plan->reduced_count *= size;
    if (size == 1) continue;  // neither reduced nor kept changes the layout
    if (!plan->groups.empty() && plan->reduced.back() == is_reduced[d]) {
      plan->groups.back() *= size;
    } else {
      plan->groups.push_back(size);
      plan->reduced.push_back(is_reduced[d]);
    }
  }
  plan->out_shape = TensorShape(out_dims);
  return Status::OK();
}

}  // namespace reduction
}  // namespace tensoract

#endif  // TENSORACT_KERNELS_CPU_REDUCTION_PLAN_H_
