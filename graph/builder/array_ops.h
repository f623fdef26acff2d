/// @file
/// Builder functions for the reduction and array ops (graph/ops/reduction_ops.cc,
/// graph/ops/array_ops.cc), named as in TensorFlow's C++ API: ops::Concat makes a ConcatV2,
/// ops::Stack a Pack. Type attrs (T, Tidx, Tshape, ...) come from the inputs; an inline
/// constant axis like {0, 1} is int32, as in TensorFlow.
#ifndef TENSORACT_GRAPH_BUILDER_ARRAY_OPS_H_
#define TENSORACT_GRAPH_BUILDER_ARRAY_OPS_H_

#include <string>
#include <vector>

#include "base/tensor_shape.h"
#include "graph/builder/scope.h"

namespace tensoract {
namespace ops {

// ---- reductions ------------------------------------------------------------------------
/// Optional attributes of the reductions (Sum, Mean, Max, Min, Prod, All, Any).
struct ReductionAttrs {
  /// Keep each reduced dimension with size 1 instead of removing it. Default false.
  bool keep_dims = false;
};
/// The sum of input's elements along the dimensions in `axis` (an int32 or int64 scalar or vector;
/// negative counts from the end).
Output Sum(const Scope& scope, const Input& input, const Input& axis, ReductionAttrs attrs = {});
/// The mean of input's elements along the dimensions in `axis` (an int32 or int64 scalar or vector;
/// negative counts from the end).
Output Mean(const Scope& scope, const Input& input, const Input& axis, ReductionAttrs attrs = {});
/// The maximum of input's elements along the dimensions in `axis` (an int32 or int64 scalar or vector;
/// negative counts from the end).
Output Max(const Scope& scope, const Input& input, const Input& axis, ReductionAttrs attrs = {});
/// The minimum of input's elements along the dimensions in `axis` (an int32 or int64 scalar or vector;
/// negative counts from the end).
Output Min(const Scope& scope, const Input& input, const Input& axis, ReductionAttrs attrs = {});
/// The product of input's elements along the dimensions in `axis` (an int32 or int64 scalar or vector;
/// negative counts from the end).
Output Prod(const Scope& scope, const Input& input, const Input& axis, ReductionAttrs attrs = {});
/// The logical AND of the bool input's elements along the dimensions in `axis` (an int32 or int64 scalar or
/// vector; negative counts from the end).
Output All(const Scope& scope, const Input& input, const Input& axis, ReductionAttrs attrs = {});
/// The logical OR of the bool input's elements along the dimensions in `axis` (an int32 or int64 scalar or
/// vector; negative counts from the end).
Output Any(const Scope& scope, const Input& input, const Input& axis, ReductionAttrs attrs = {});

// output_type is int64 by default, as in TensorFlow.
/// The index of the largest element along `dimension` (an int32 or int64 scalar), the first one on ties;
/// the result has `output_type`, int64 by default as in TensorFlow.
Output ArgMax(const Scope& scope, const Input& input, const Input& dimension,
              DataType output_type = tensorflow::DT_INT64);
/// The index of the smallest element along `dimension` (an int32 or int64 scalar), the first one on ties;
/// the result has `output_type`, int64 by default as in TensorFlow.
Output ArgMin(const Scope& scope, const Input& input, const Input& dimension,
              DataType output_type = tensorflow::DT_INT64);

// ---- shapes ----------------------------------------------------------------------------
/// `tensor` with the new `shape` (an int32 or int64 vector) of the same element count; one entry of
/// shape may be -1, which takes the size that makes the count match.
Output Reshape(const Scope& scope, const Input& tensor, const Input& shape);
/// The shape of `input`, as a vector of `out_type` (int32 by default, or int64).
Output Shape(const Scope& scope, const Input& input, DataType out_type = tensorflow::DT_INT32);
/// `input` with a dimension of size 1 inserted at index `dim` (an int32 or int64 scalar; negative counts
/// from the end, -1 appending one).
Output ExpandDims(const Scope& scope, const Input& input, const Input& dim);
/// `input` without the dimensions of size 1 listed in `squeeze_dims` (negative counts from the end).
/// An empty `squeeze_dims` squeezes every dimension of size 1.
Output Squeeze(const Scope& scope, const Input& input, const std::vector<int64_t>& squeeze_dims = {});

/// The two outputs of BroadcastGradientArgs.
/// r0 and r1: the axes to sum each input's gradient over.
struct BroadcastGradientArgsOutputs {
  /// @var r0
  /// The axes (a vector) to sum the broadcast result's gradient over to get the gradient of the input of
  /// shape s0.
  /// @var r1
  /// The axes (a vector) to sum the broadcast result's gradient over to get the gradient of the input of
  /// shape s1.
  Output r0, r1;
};
/// For two shapes `s0` and `s1` (int32 or int64 vectors) that broadcast together, the axes along which each
/// input was broadcast: what a binary op's gradient sums over (used by the gradient code).
BroadcastGradientArgsOutputs BroadcastGradientArgs(const Scope& scope, const Input& s0, const Input& s1);

/// The shape that operands of shapes `s0` and `s1` (int32 or int64 vectors) broadcast to.
Output BroadcastArgs(const Scope& scope, const Input& s0, const Input& s1);

// ---- values ----------------------------------------------------------------------------
/// Zeros of x's shape and type.
Output ZerosLike(const Scope& scope, const Input& x);
/// Ones of x's shape and type.
Output OnesLike(const Scope& scope, const Input& x);
/// A tensor of shape `dims` (an int32 or int64 vector) with every element the scalar `value`.
Output Fill(const Scope& scope, const Input& dims, const Input& value);

/// `input` unchanged (the op forwards its buffer); gradients do not flow back through it: AddSymbolicGradients
/// and GradientTape treat it as a constant.
Output StopGradient(const Scope& scope, const Input& input);
/// `input` unchanged; asking for its gradient is an error (the op has no registered gradient). `message` is
/// kept as the node's attr, the text TensorFlow's own gradient code puts in that error.
Output PreventGradient(const Scope& scope, const Input& input, const std::string& message = "");
/// A copy of `input` (a new buffer, not an alias of it).
Output Snapshot(const Scope& scope, const Input& input);
/// Each of the inputs, unchanged, as one output per input (the inputs may differ in type).
OutputList IdentityN(const Scope& scope, const InputList& input);

// ---- rearranging -----------------------------------------------------------------------
/// x with its dimensions permuted by `perm` (an int32 or int64 vector): output dimension i is x's dimension
/// perm[i].
Output Transpose(const Scope& scope, const Input& x, const Input& perm);
/// The values (of one type, and one shape but along `axis`) joined along `axis` (an int32 or int64 scalar;
/// negative counts from the end). A ConcatV2 node, named "Concat" by default; an empty list is an error
/// recorded in the scope.
Output Concat(const Scope& scope, const InputList& values, const Input& axis);
/// The values, all of one shape and type, stacked along a new dimension inserted at `axis` (negative counts
/// from the end). A Pack node, named "Stack" by default; an empty list is an error recorded in the scope.
Output Stack(const Scope& scope, const InputList& values, int64_t axis = 0);

// ---- sizes -------------------------------------------------------------------------------
/// The number of elements of `input`, a scalar of `out_type` (int32 by default, or int64).
Output Size(const Scope& scope, const Input& input, DataType out_type = tensorflow::DT_INT32);
/// The number of dimensions of `input`, an int32 scalar.
Output Rank(const Scope& scope, const Input& input);
/// The shape of each input (all of one type), as vectors of `out_type` (int32 by default, or int64); an empty
/// list is an error recorded in the scope.
OutputList ShapeN(const Scope& scope, const InputList& input, DataType out_type = tensorflow::DT_INT32);

// ---- slicing, splitting, tiling ----------------------------------------------------------
/// The block of `input` of `size` starting at `begin` (int32 or int64 vectors, one entry per dimension).
/// size[i] == -1 takes the rest of dimension i.
Output Slice(const Scope& scope, const Input& input, const Input& begin, const Input& size);
/// Optional attributes of StridedSlice and StridedSliceGrad: bit masks over the entries of begin, end and
/// strides, 0 by default.
struct StridedSliceAttrs {
  /// @var begin_mask
  /// Bit i set: begin[i] is ignored and entry i starts at the first element (the last one for a negative
  /// stride).
  /// @var end_mask
  /// Bit i set: end[i] is ignored and entry i runs to the end of its dimension (the start, for a negative
  /// stride).
  /// @var ellipsis_mask
  /// Bit i set: entry i is an ellipsis (`...`), standing for as many full dimensions as needed; at most one
  /// bit may be set.
  /// @var new_axis_mask
  /// Bit i set: entry i inserts a new dimension of size 1 (Python's `tf.newaxis`); its begin, end and
  /// strides are ignored.
  /// @var shrink_axis_mask
  /// Bit i set: entry i takes the single index begin[i] and removes its dimension from the result.
  int64_t begin_mask = 0, end_mask = 0, ellipsis_mask = 0, new_axis_mask = 0, shrink_axis_mask = 0;
};
/// Python's input[begin:end:strides] (begin, end and strides int32 or int64 vectors of one length), with
/// ellipses, new axes and single indices as the masks in `attrs` say.
Output StridedSlice(const Scope& scope, const Input& input, const Input& begin, const Input& end,
                    const Input& strides, StridedSliceAttrs attrs = {});
/// StridedSlice's gradient: zeros of `shape` (the sliced input's shape) with `dy` written where StridedSlice
/// with the same begin, end, strides and attrs reads.
Output StridedSliceGrad(const Scope& scope, const Input& shape, const Input& begin, const Input& end,
                        const Input& strides, const Input& dy, StridedSliceAttrs attrs = {});
/// An Unpack node: `num` outputs, the slices of value along `axis`.
/// `num` must equal the size of that dimension, which each slice lacks (negative `axis` counts from the end).
OutputList Unstack(const Scope& scope, const Input& value, int64_t num, int64_t axis = 0);
/// `value` cut into `num_split` equal parts along `split_dim` (an int32 scalar, which comes first as in
/// TensorFlow's op); the dimension's size must be a multiple of num_split.
OutputList Split(const Scope& scope, const Input& split_dim, const Input& value, int64_t num_split);
/// `value` cut along `split_dim` (an int32 scalar) into `num_split` parts of the sizes in `size_splits`
/// (an int8, int32 or int64 vector, one entry of which may be -1 for the rest).
OutputList SplitV(const Scope& scope, const Input& value, const Input& size_splits, const Input& split_dim,
                  int64_t num_split);
/// `input` repeated multiples[i] times along each dimension i (`multiples` an int32 or int64 vector).
Output Tile(const Scope& scope, const Input& input, const Input& multiples);
/// `input` broadcast to `shape` (an int32 or int64 vector) by NumPy's rules.
Output BroadcastTo(const Scope& scope, const Input& input, const Input& shape);
/// A Pad node: `input` with paddings[i][0] zeros before and paddings[i][1] after along each dimension i
/// (`paddings` an int32 or int64 matrix [rank, 2]).
Output Pad(const Scope& scope, const Input& input, const Input& paddings);
/// A PadV2 node: Pad with the scalar `constant_values` (of input's type) instead of zeros.
Output PadV2(const Scope& scope, const Input& input, const Input& paddings, const Input& constant_values);

// ---- indices -----------------------------------------------------------------------------
/// The vector start, start + delta, ... up to but excluding limit (three scalars of one type, which the result
/// has).
Output Range(const Scope& scope, const Input& start, const Input& limit, const Input& delta);
/// `num` (an int32 or int64 scalar, at least 1) evenly spaced values from `start` to `stop` (float or double
/// scalars), both included.
Output LinSpace(const Scope& scope, const Input& start, const Input& stop, const Input& num);
/// For each v in [0, size) (`size`: an int32 scalar), how often v occurs in `arr` (int32, any shape), or
/// the sum of `weights` (arr's shape, or empty for counts; int32, int64, float or double) where it does.
Output Bincount(const Scope& scope, const Input& arr, const Input& size, const Input& weights);
/// The inverse of the permutation `x` (an int32 or int64 vector): y[x[i]] = i.
Output InvertPermutation(const Scope& scope, const Input& x);
/// Optional attributes of GatherV2.
struct GatherV2Attrs {
  /// The number of leading dimensions params and indices share as batch dimensions, each batch gathering
  /// from its own params (negative counts from indices' rank). Default 0.
  int64_t batch_dims = 0;
};
/// The slices of `params` along `axis` (an int32 or int64 scalar) at `indices` (int16, int32 or int64):
/// the result's shape is params.shape[:axis] + indices.shape + params.shape[axis + 1:].
Output GatherV2(const Scope& scope, const Input& params, const Input& indices, const Input& axis,
                GatherV2Attrs attrs = {});
/// A one-hot encoding: the scalar `on_value` where the index along a new dimension `axis` (-1: last) equals
/// `indices` (uint8, int8, int32 or int64), and the scalar `off_value` elsewhere; `depth` (an int32 scalar) is
/// that dimension's size.
Output OneHot(const Scope& scope, const Input& indices, const Input& depth, const Input& on_value,
              const Input& off_value, int64_t axis = -1);
/// output[s] = the sum of the slices of `data` whose segment id is s, for s in [0, num_segments) (an int32
/// or int64 scalar). `segment_ids` (int16, int32 or int64, in any order) has the shape of data's leading
/// dimensions, which the result replaces by num_segments; slices with a negative id are dropped.
Output UnsortedSegmentSum(const Scope& scope, const Input& data, const Input& segment_ids, const Input& num_segments);
/// TensorFlow 1's Gather: GatherV2 on axis 0, the rows of `params` at `indices` (int32 or int64).
Output Gather(const Scope& scope, const Input& params, const Input& indices);
/// The coordinates of the true (non-zero) elements of `input`: int64 [count, rank].
/// One row per element, in row-major order.
Output Where(const Scope& scope, const Input& input);
/// merged[indices[m][i]] = data[m][i] (int32 indices; a later index wins).
/// `indices` and `data` are lists of one length (at least one), else an error is recorded in the scope.
Output DynamicStitch(const Scope& scope, const InputList& indices, const InputList& data);
/// DynamicStitch where a repeated index may take any of its values (the op may run the copies in parallel).
Output ParallelDynamicStitch(const Scope& scope, const InputList& indices, const InputList& data);
/// data's slices sent to `num_partitions` outputs: the slice at each index of `partitions` (int32, a prefix of
/// data's shape, values in [0, num_partitions)) goes, in order, to the output partitions names there.
OutputList DynamicPartition(const Scope& scope, const Input& data, const Input& partitions, int64_t num_partitions);
/// The two outputs of Unique and UniqueV2.
/// y: the distinct values (slices); idx: for each element (slice) of x, its index in y.
struct UniqueOutputs {
  /// @var y
  /// The distinct values of x (for UniqueV2 with an axis, the distinct slices along it), in order of first
  /// appearance.
  /// @var idx
  /// For each element of x (each slice along the axis), the index of its value in y.
  Output y, idx;
};
/// The distinct values of the vector `x` in order of first appearance, and for each element its index in y
/// (`out_idx`: int32 by default, or int64).
UniqueOutputs Unique(const Scope& scope, const Input& x, DataType out_idx = tensorflow::DT_INT32);
/// Unique along `axis` (an int32 or int64 vector of one axis, or empty for a vector x): the distinct slices.
UniqueOutputs UniqueV2(const Scope& scope, const Input& x, const Input& axis,
                       DataType out_idx = tensorflow::DT_INT32);
/// The two outputs of ListDiff.
/// out: the elements of x not in y (vectors), in x's order; idx: their positions in x.
struct ListDiffOutputs {
  /// @var out
  /// The elements of x not in y, in x's order (duplicates kept).
  /// @var idx
  /// The position in x of each element of `out`, of ListDiff's `out_idx` type.
  Output out, idx;
};
/// The elements of the vector x that are not in the vector y, and their positions in x (of type
/// `out_idx`: int32 by default, or int64).
ListDiffOutputs ListDiff(const Scope& scope, const Input& x, const Input& y,
                         DataType out_idx = tensorflow::DT_INT32);
/// Where each of the tensors with these shapes starts in their concatenation along
/// concat_dim (an int32 scalar).
/// One offset vector per shape (the shapes int32 or int64 vectors); fewer than two shapes is an error
/// recorded in the scope.
OutputList ConcatOffset(const Scope& scope, const Input& concat_dim, const InputList& shape);

/// The slices of `params` at the index tuples in the last dimension of `indices` (int16, int32 or int64).
Output GatherNd(const Scope& scope, const Input& params, const Input& indices);
/// GatherNd's inverse: zeros of `shape` (of indices' type) with each of `updates` added at its index tuple
/// from the last dimension of `indices` (repeated tuples add up).
Output ScatterNd(const Scope& scope, const Input& indices, const Input& updates, const Input& shape);

// ---- mirroring ---------------------------------------------------------------------------
/// `tensor` with the order of its elements reversed along each dimension in `axis` (an int32 or int64
/// vector; negative counts from the end).
Output ReverseV2(const Scope& scope, const Input& tensor, const Input& axis);
/// TensorFlow 1's ReverseV2: `tensor` reversed along each dimension whose entry of `dims` (a bool vector, one
/// entry per dimension) is true.
Output Reverse(const Scope& scope, const Input& tensor, const Input& dims);
/// For each index b along `batch_dim`, the first `seq_lengths`[b] elements along `seq_dim` reversed and the
/// rest left as they are (variable-length sequences in a padded batch). seq_lengths: int32 or int64.
Output ReverseSequence(const Scope& scope, const Input& input, const Input& seq_lengths, int64_t seq_dim,
                       int64_t batch_dim = 0);
/// `input`'s elements rotated by `shift`[i] positions along `axis`[i] (scalars, or vectors of one length;
/// int32 or int64): an element moved past the end comes back at the start. Shifts of one axis add up.
Output Roll(const Scope& scope, const Input& input, const Input& shift, const Input& axis);
/// `input` padded with its own mirror image, paddings[i][0] elements before and paddings[i][1] after
/// along dimension i. mode: "REFLECT" (the edge is not repeated) or "SYMMETRIC" (it is).
Output MirrorPad(const Scope& scope, const Input& input, const Input& paddings, const std::string& mode);
/// MirrorPad's gradient: `input` is the gradient of the padded result, and each padded element's gradient is
/// added back to the element it copies; `paddings` and `mode` are MirrorPad's.
Output MirrorPadGrad(const Scope& scope, const Input& input, const Input& paddings, const std::string& mode);

// ---- space, batch and depth -------------------------------------------------------------
/// `input` ([batch] + M spatial dimensions + the rest) with its spatial dimensions zero-padded by `paddings`
/// ([M, 2]: before and after) and cut into blocks of `block_shape` (M values >= 1): each position within a
/// block becomes a slice of the batch, so the result is [batch * prod(block_shape)] + the padded spatial
/// sizes divided by block_shape + the rest. block_shape and paddings: int32 or int64.
Output SpaceToBatchND(const Scope& scope, const Input& input, const Input& block_shape, const Input& paddings);
/// SpaceToBatchND's inverse: the batch's blocks interleaved back into the M spatial dimensions, which are
/// then cropped by `crops` ([M, 2]: before and after).
Output BatchToSpaceND(const Scope& scope, const Input& input, const Input& block_shape, const Input& crops);
/// Each `block_size` x `block_size` block of an NHWC `input`'s height and width moved into its depth:
/// [B, H, W, C] becomes [B, H/block_size, W/block_size, C*block_size^2].
Output SpaceToDepth(const Scope& scope, const Input& input, int64_t block_size,
                    const std::string& data_format = "NHWC");
/// SpaceToDepth's inverse: [B, H, W, C] becomes [B, H*block_size, W*block_size, C/block_size^2].
Output DepthToSpace(const Scope& scope, const Input& input, int64_t block_size,
                    const std::string& data_format = "NHWC");

/// `input`, unless the client feeds a value (which must be compatible with `shape`) in its place.
Output PlaceholderWithDefault(const Scope& scope, const Input& input, const PartialTensorShape& shape);

}  // namespace ops
}  // namespace tensoract

#endif  // TENSORACT_GRAPH_BUILDER_ARRAY_OPS_H_
