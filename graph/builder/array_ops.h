// Builder functions for the reduction and array ops (graph/ops/reduction_ops.cc,
// graph/ops/array_ops.cc), named as in TensorFlow's C++ API: ops::Concat makes a ConcatV2,
// ops::Stack a Pack. Type attrs (T, Tidx, Tshape, ...) come from the inputs; an inline
// constant axis like {0, 1} is int32, as in TensorFlow.
#ifndef TENSORACT_GRAPH_BUILDER_ARRAY_OPS_H_
#define TENSORACT_GRAPH_BUILDER_ARRAY_OPS_H_

#include <string>
#include <vector>

#include "base/tensor_shape.h"
#include "graph/builder/scope.h"

namespace tensoract {
namespace ops {

// ---- reductions ------------------------------------------------------------------------
struct ReductionAttrs {
  bool keep_dims = false;
};
Output Sum(const Scope& scope, const Input& input, const Input& axis, ReductionAttrs attrs = {});
Output Mean(const Scope& scope, const Input& input, const Input& axis, ReductionAttrs attrs = {});
Output Max(const Scope& scope, const Input& input, const Input& axis, ReductionAttrs attrs = {});
Output Min(const Scope& scope, const Input& input, const Input& axis, ReductionAttrs attrs = {});
Output Prod(const Scope& scope, const Input& input, const Input& axis, ReductionAttrs attrs = {});
Output All(const Scope& scope, const Input& input, const Input& axis, ReductionAttrs attrs = {});
Output Any(const Scope& scope, const Input& input, const Input& axis, ReductionAttrs attrs = {});

// output_type is int64 by default, as in TensorFlow.
Output ArgMax(const Scope& scope, const Input& input, const Input& dimension,
              DataType output_type = tensorflow::DT_INT64);
Output ArgMin(const Scope& scope, const Input& input, const Input& dimension,
              DataType output_type = tensorflow::DT_INT64);

// ---- shapes ----------------------------------------------------------------------------
Output Reshape(const Scope& scope, const Input& tensor, const Input& shape);
Output Shape(const Scope& scope, const Input& input, DataType out_type = tensorflow::DT_INT32);
Output ExpandDims(const Scope& scope, const Input& input, const Input& dim);
// An empty `squeeze_dims` squeezes every dimension of size 1.
Output Squeeze(const Scope& scope, const Input& input, const std::vector<int64_t>& squeeze_dims = {});

// r0 and r1: the axes to sum each input's gradient over.
struct BroadcastGradientArgsOutputs {
  Output r0, r1;
};
BroadcastGradientArgsOutputs BroadcastGradientArgs(const Scope& scope, const Input& s0, const Input& s1);

// ---- values ----------------------------------------------------------------------------
Output ZerosLike(const Scope& scope, const Input& x);
Output OnesLike(const Scope& scope, const Input& x);
Output Fill(const Scope& scope, const Input& dims, const Input& value);

Output StopGradient(const Scope& scope, const Input& input);
Output PreventGradient(const Scope& scope, const Input& input, const std::string& message = "");
Output Snapshot(const Scope& scope, const Input& input);
OutputList IdentityN(const Scope& scope, const InputList& input);

// ---- rearranging -----------------------------------------------------------------------
Output Transpose(const Scope& scope, const Input& x, const Input& perm);
// A ConcatV2 node.
Output Concat(const Scope& scope, const InputList& values, const Input& axis);
// A Pack node.
Output Stack(const Scope& scope, const InputList& values, int64_t axis = 0);

// ---- sizes -------------------------------------------------------------------------------
Output Size(const Scope& scope, const Input& input, DataType out_type = tensorflow::DT_INT32);
Output Rank(const Scope& scope, const Input& input);
OutputList ShapeN(const Scope& scope, const InputList& input, DataType out_type = tensorflow::DT_INT32);

// ---- slicing, splitting, tiling ----------------------------------------------------------
// size[i] == -1 takes the rest of dimension i.
Output Slice(const Scope& scope, const Input& input, const Input& begin, const Input& size);
struct StridedSliceAttrs {
  int64_t begin_mask = 0, end_mask = 0, ellipsis_mask = 0, new_axis_mask = 0, shrink_axis_mask = 0;
};
Output StridedSlice(const Scope& scope, const Input& input, const Input& begin, const Input& end,
                    const Input& strides, StridedSliceAttrs attrs = {});
Output StridedSliceGrad(const Scope& scope, const Input& shape, const Input& begin, const Input& end,
                        const Input& strides, const Input& dy, StridedSliceAttrs attrs = {});
// An Unpack node: `num` outputs, the slices of value along `axis`.
OutputList Unstack(const Scope& scope, const Input& value, int64_t num, int64_t axis = 0);
OutputList Split(const Scope& scope, const Input& split_dim, const Input& value, int64_t num_split);
OutputList SplitV(const Scope& scope, const Input& value, const Input& size_splits, const Input& split_dim,
                  int64_t num_split);
Output Tile(const Scope& scope, const Input& input, const Input& multiples);
Output BroadcastTo(const Scope& scope, const Input& input, const Input& shape);
// A Pad node (zeros), or PadV2 with constant_values.
Output Pad(const Scope& scope, const Input& input, const Input& paddings);
Output PadV2(const Scope& scope, const Input& input, const Input& paddings, const Input& constant_values);

// ---- indices -----------------------------------------------------------------------------
Output Range(const Scope& scope, const Input& start, const Input& limit, const Input& delta);
Output InvertPermutation(const Scope& scope, const Input& x);
struct GatherV2Attrs {
  int64_t batch_dims = 0;
};
Output GatherV2(const Scope& scope, const Input& params, const Input& indices, const Input& axis,
                GatherV2Attrs attrs = {});
Output OneHot(const Scope& scope, const Input& indices, const Input& depth, const Input& on_value,
              const Input& off_value, int64_t axis = -1);
Output UnsortedSegmentSum(const Scope& scope, const Input& data, const Input& segment_ids, const Input& num_segments);
// TensorFlow 1's Gather: GatherV2 on axis 0.
Output Gather(const Scope& scope, const Input& params, const Input& indices);
// The coordinates of the true (non-zero) elements of `input`: int64 [count, rank].
Output Where(const Scope& scope, const Input& input);
// merged[indices[m][i]] = data[m][i] (int32 indices; a later index wins).
Output DynamicStitch(const Scope& scope, const InputList& indices, const InputList& data);
Output ParallelDynamicStitch(const Scope& scope, const InputList& indices, const InputList& data);
// out: the elements of x not in y (vectors), in x's order; idx: their positions in x.
struct ListDiffOutputs {
  Output out, idx;
};
ListDiffOutputs ListDiff(const Scope& scope, const Input& x, const Input& y,
                         DataType out_idx = tensorflow::DT_INT32);
// Where each of the tensors with these shapes starts in their concatenation along
// concat_dim (an int32 scalar).
OutputList ConcatOffset(const Scope& scope, const Input& concat_dim, const InputList& shape);

// The slices of params at the index tuples of indices' last dimension, and their inverse:
// zeros of `shape` with each update added at its tuple.
Output GatherNd(const Scope& scope, const Input& params, const Input& indices);
Output ScatterNd(const Scope& scope, const Input& indices, const Input& updates, const Input& shape);

// ---- mirroring ---------------------------------------------------------------------------
Output ReverseV2(const Scope& scope, const Input& tensor, const Input& axis);
// mode: "REFLECT" (the edge is not repeated) or "SYMMETRIC" (it is).
Output MirrorPad(const Scope& scope, const Input& input, const Input& paddings, const std::string& mode);
Output MirrorPadGrad(const Scope& scope, const Input& input, const Input& paddings, const std::string& mode);

Output PlaceholderWithDefault(const Scope& scope, const Input& input, const PartialTensorShape& shape);

}  // namespace ops
}  // namespace tensoract

#endif  // TENSORACT_GRAPH_BUILDER_ARRAY_OPS_H_
