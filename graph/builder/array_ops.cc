#include "graph/builder/array_ops.h"

#include "graph/builder/attr_util.h"

namespace tensoract {
namespace ops {
namespace {

Output Reduction(const Scope& scope, const char* op, const Input& input, const Input& axis, ReductionAttrs attrs,
                 bool typed = true) {
  Attrs a{{"keep_dims", BoolAttr(attrs.keep_dims)}, {"Tidx", TypeAttr(TypeOf(axis))}};
  if (typed) a["T"] = TypeAttr(TypeOf(input));
  return Output(scope.AddOp(op, op, {input, axis}, a), 0);
}

Output ArgOp(const Scope& scope, const char* op, const Input& input, const Input& dimension, DataType output_type) {
  return Output(scope.AddOp(op, op, {input, dimension},
                            {{"T", TypeAttr(TypeOf(input))},
                             {"Tidx", TypeAttr(TypeOf(dimension))},
                             {"output_type", TypeAttr(output_type)}}),
                0);
}

// An op with attr T from input 0 and an index-type attr from input 1.
Output IndexedOp(const Scope& scope, const char* op, const Input& input, const Input& index, const char* index_attr) {
  return Output(scope.AddOp(op, op, {input, index},
                            {{"T", TypeAttr(TypeOf(input))}, {index_attr, TypeAttr(TypeOf(index))}}),
                0);
}

}  // namespace

Output Sum(const Scope& s, const Input& in, const Input& axis, ReductionAttrs a) { return Reduction(s, "Sum", in, axis, a); }
Output Mean(const Scope& s, const Input& in, const Input& axis, ReductionAttrs a) { return Reduction(s, "Mean", in, axis, a); }
Output Max(const Scope& s, const Input& in, const Input& axis, ReductionAttrs a) { return Reduction(s, "Max", in, axis, a); }
Output Min(const Scope& s, const Input& in, const Input& axis, ReductionAttrs a) { return Reduction(s, "Min", in, axis, a); }
Output Prod(const Scope& s, const Input& in, const Input& axis, ReductionAttrs a) { return Reduction(s, "Prod", in, axis, a); }
Output All(const Scope& s, const Input& in, const Input& axis, ReductionAttrs a) {
  return Reduction(s, "All", in, axis, a, /*typed=*/false);
}
Output Any(const Scope& s, const Input& in, const Input& axis, ReductionAttrs a) {
  return Reduction(s, "Any", in, axis, a, /*typed=*/false);
}

Output ArgMax(const Scope& s, const Input& in, const Input& dim, DataType t) { return ArgOp(s, "ArgMax", in, dim, t); }
Output ArgMin(const Scope& s, const Input& in, const Input& dim, DataType t) { return ArgOp(s, "ArgMin", in, dim, t); }

Output Reshape(const Scope& s, const Input& tensor, const Input& shape) {
  return IndexedOp(s, "Reshape", tensor, shape, "Tshape");
}

Output Shape(const Scope& s, const Input& input, DataType out_type) {
  return Output(s.AddOp("Shape", "Shape", {input}, {{"T", TypeAttr(TypeOf(input))}, {"out_type", TypeAttr(out_type)}}),
                0);
}

Output ExpandDims(const Scope& s, const Input& input, const Input& dim) {
  return IndexedOp(s, "ExpandDims", input, dim, "Tdim");
}

Output Squeeze(const Scope& s, const Input& input, const std::vector<int64_t>& squeeze_dims) {
  return TypedOp(s, "Squeeze", {input}, {{"squeeze_dims", IntListAttr(squeeze_dims)}});
}

BroadcastGradientArgsOutputs BroadcastGradientArgs(const Scope& s, const Input& s0, const Input& s1) {
  Node* n = s.AddOp("BroadcastGradientArgs", "BroadcastGradientArgs", {s0, s1}, {{"T", TypeAttr(TypeOf(s0))}});
  if (n == nullptr) return {};
  return {Output(n, 0), Output(n, 1)};
}

Output BroadcastArgs(const Scope& s, const Input& s0, const Input& s1) {
  return Output(s.AddOp("BroadcastArgs", "BroadcastArgs", {s0, s1}, {{"T", TypeAttr(TypeOf(s0))}}), 0);
}

Output ZerosLike(const Scope& s, const Input& x) { return TypedOp(s, "ZerosLike", {x}); }
Output OnesLike(const Scope& s, const Input& x) { return TypedOp(s, "OnesLike", {x}); }

Output Fill(const Scope& s, const Input& dims, const Input& value) {
  return Output(s.AddOp("Fill", "Fill", {dims, value},
                        {{"T", TypeAttr(TypeOf(value))}, {"index_type", TypeAttr(TypeOf(dims))}}),
                0);
}

Output StopGradient(const Scope& s, const Input& input) { return TypedOp(s, "StopGradient", {input}); }
Output PreventGradient(const Scope& s, const Input& input, const std::string& message) {
  return TypedOp(s, "PreventGradient", {input}, {{"message", StringAttr(message)}});
}
Output Snapshot(const Scope& s, const Input& input) { return TypedOp(s, "Snapshot", {input}); }

OutputList IdentityN(const Scope& s, const InputList& input) {
  tensorflow::AttrValue types;
  for (const Input& in : input) types.mutable_list()->add_type(TypeOf(in));
  return AllOutputs(s.AddOp("IdentityN", "IdentityN", input.inputs(), {{"T", types}}));
}

Output Transpose(const Scope& s, const Input& x, const Input& perm) { return IndexedOp(s, "Transpose", x, perm, "Tperm"); }

Output Concat(const Scope& s, const InputList& values, const Input& axis) {
  std::vector<Input> inputs = values.inputs();
  if (inputs.empty()) {
    s.UpdateStatus(errors::InvalidArgument("ops::Concat needs at least one value"));
    return Output();
  }
  const DataType t = TypeOf(inputs[0]);
  inputs.push_back(axis);
  return Output(s.AddOp("ConcatV2", "Concat", inputs,
                        {{"N", IntAttr(static_cast<int64_t>(values.size()))},
                         {"T", TypeAttr(t)},
                         {"Tidx", TypeAttr(TypeOf(axis))}}),
                0);
}

Output Stack(const Scope& s, const InputList& values, int64_t axis) {
  if (values.size() == 0) {
    s.UpdateStatus(errors::InvalidArgument("ops::Stack needs at least one value"));
    return Output();
  }
  return Output(s.AddOp("Pack", "Stack", values.inputs(),
                        {{"N", IntAttr(static_cast<int64_t>(values.size()))},
                         {"T", TypeAttr(TypeOf(values.inputs()[0]))},
                         {"axis", IntAttr(axis)}}),
                0);
}

Output Size(const Scope& s, const Input& input, DataType out_type) {
  return Output(s.AddOp("Size", "Size", {input}, {{"T", TypeAttr(TypeOf(input))}, {"out_type", TypeAttr(out_type)}}), 0);
}

Output Rank(const Scope& s, const Input& input) { return TypedOp(s, "Rank", {input}); }

OutputList ShapeN(const Scope& s, const InputList& input, DataType out_type) {
  if (input.size() == 0) {
    s.UpdateStatus(errors::InvalidArgument("ops::ShapeN needs at least one input"));
    return {};
  }
  return AllOutputs(s.AddOp("ShapeN", "ShapeN", input.inputs(),
                            {{"N", IntAttr(static_cast<int64_t>(input.size()))},
                             {"T", TypeAttr(TypeOf(input.inputs()[0]))},
                             {"out_type", TypeAttr(out_type)}}));
}

Output Slice(const Scope& s, const Input& input, const Input& begin, const Input& size) {
  return Output(s.AddOp("Slice", "Slice", {input, begin, size},
                        {{"T", TypeAttr(TypeOf(input))}, {"Index", TypeAttr(TypeOf(begin))}}),
                0);
}

namespace {
Attrs StridedSliceAttrList(const StridedSliceAttrs& a, DataType t, DataType index) {
  return {{"T", TypeAttr(t)},
          {"Index", TypeAttr(index)},
          {"begin_mask", IntAttr(a.begin_mask)},
          {"end_mask", IntAttr(a.end_mask)},
          {"ellipsis_mask", IntAttr(a.ellipsis_mask)},
          {"new_axis_mask", IntAttr(a.new_axis_mask)},
          {"shrink_axis_mask", IntAttr(a.shrink_axis_mask)}};
}
}  // namespace

Output StridedSlice(const Scope& s, const Input& input, const Input& begin, const Input& end, const Input& strides,
                    StridedSliceAttrs a) {
  return Output(s.AddOp("StridedSlice", "StridedSlice", {input, begin, end, strides},
                        StridedSliceAttrList(a, TypeOf(input), TypeOf(begin))),
                0);
}

Output StridedSliceGrad(const Scope& s, const Input& shape, const Input& begin, const Input& end,
                        const Input& strides, const Input& dy, StridedSliceAttrs a) {
  return Output(s.AddOp("StridedSliceGrad", "StridedSliceGrad", {shape, begin, end, strides, dy},
                        StridedSliceAttrList(a, TypeOf(dy), TypeOf(shape))),
                0);
}

OutputList Unstack(const Scope& s, const Input& value, int64_t num, int64_t axis) {
  return AllOutputs(s.AddOp("Unpack", "Unstack", {value},
                            {{"T", TypeAttr(TypeOf(value))}, {"num", IntAttr(num)}, {"axis", IntAttr(axis)}}));
}

OutputList Split(const Scope& s, const Input& split_dim, const Input& value, int64_t num_split) {
  return AllOutputs(s.AddOp("Split", "Split", {split_dim, value},
                            {{"T", TypeAttr(TypeOf(value))}, {"num_split", IntAttr(num_split)}}));
}

OutputList SplitV(const Scope& s, const Input& value, const Input& size_splits, const Input& split_dim,
                  int64_t num_split) {
  return AllOutputs(s.AddOp("SplitV", "SplitV", {value, size_splits, split_dim},
                            {{"T", TypeAttr(TypeOf(value))},
                             {"Tlen", TypeAttr(TypeOf(size_splits))},
                             {"num_split", IntAttr(num_split)}}));
}

Output Tile(const Scope& s, const Input& input, const Input& multiples) {
  return IndexedOp(s, "Tile", input, multiples, "Tmultiples");
}

Output BroadcastTo(const Scope& s, const Input& input, const Input& shape) {
  return IndexedOp(s, "BroadcastTo", input, shape, "Tidx");
}

Output Pad(const Scope& s, const Input& input, const Input& paddings) {
  return IndexedOp(s, "Pad", input, paddings, "Tpaddings");
}

Output PadV2(const Scope& s, const Input& input, const Input& paddings, const Input& constant_values) {
  return Output(s.AddOp("PadV2", "PadV2", {input, paddings, constant_values},
                        {{"T", TypeAttr(TypeOf(input))}, {"Tpaddings", TypeAttr(TypeOf(paddings))}}),
                0);
}

Output Range(const Scope& s, const Input& start, const Input& limit, const Input& delta) {
  return Output(s.AddOp("Range", "Range", {start, limit, delta}, {{"Tidx", TypeAttr(TypeOf(start))}}), 0);
}

Output LinSpace(const Scope& s, const Input& start, const Input& stop, const Input& num) {
  return Output(s.AddOp("LinSpace", "LinSpace", {start, stop, num},
                        {{"T", TypeAttr(TypeOf(start))}, {"Tidx", TypeAttr(TypeOf(num))}}),
                0);
}

Output Bincount(const Scope& s, const Input& arr, const Input& size, const Input& weights) {
  return Output(s.AddOp("Bincount", "Bincount", {arr, size, weights}, {{"T", TypeAttr(TypeOf(weights))}}), 0);
}

Output InvertPermutation(const Scope& s, const Input& x) { return TypedOp(s, "InvertPermutation", {x}); }

Output GatherV2(const Scope& s, const Input& params, const Input& indices, const Input& axis, GatherV2Attrs a) {
  return Output(s.AddOp("GatherV2", "GatherV2", {params, indices, axis},
                        {{"Tparams", TypeAttr(TypeOf(params))},
                         {"Tindices", TypeAttr(TypeOf(indices))},
                         {"Taxis", TypeAttr(TypeOf(axis))},
                         {"batch_dims", IntAttr(a.batch_dims)}}),
                0);
}

Output OneHot(const Scope& s, const Input& indices, const Input& depth, const Input& on_value,
              const Input& off_value, int64_t axis) {
  return Output(s.AddOp("OneHot", "OneHot", {indices, depth, on_value, off_value},
                        {{"T", TypeAttr(TypeOf(on_value))}, {"TI", TypeAttr(TypeOf(indices))}, {"axis", IntAttr(axis)}}),
                0);
}

Output UnsortedSegmentSum(const Scope& s, const Input& data, const Input& segment_ids, const Input& num_segments) {
  return Output(s.AddOp("UnsortedSegmentSum", "UnsortedSegmentSum", {data, segment_ids, num_segments},
                        {{"T", TypeAttr(TypeOf(data))},
                         {"Tindices", TypeAttr(TypeOf(segment_ids))},
                         {"Tnumsegments", TypeAttr(TypeOf(num_segments))}}),
                0);
}

Output Gather(const Scope& s, const Input& params, const Input& indices) {
  return Output(s.AddOp("Gather", "Gather", {params, indices},
                        {{"Tparams", TypeAttr(TypeOf(params))}, {"Tindices", TypeAttr(TypeOf(indices))}}),
                0);
}

Output Where(const Scope& s, const Input& input) { return TypedOp(s, "Where", {input}); }

namespace {
Output Stitch(const Scope& s, const char* op, const InputList& indices, const InputList& data) {
  if (indices.size() == 0 || indices.size() != data.size()) {
    s.UpdateStatus(errors::InvalidArgument("ops::", op, " needs as many data as indices inputs, at least one; got ",
                                           indices.size(), " and ", data.size()));
    return Output();
  }
  std::vector<Input> inputs = indices.inputs();
  inputs.insert(inputs.end(), data.begin(), data.end());
  return Output(s.AddOp(op, op, inputs,
                        {{"N", IntAttr(static_cast<int64_t>(indices.size()))},
                         {"T", TypeAttr(TypeOf(data.inputs()[0]))}}),
                0);
}
}  // namespace

Output DynamicStitch(const Scope& s, const InputList& indices, const InputList& data) {
  return Stitch(s, "DynamicStitch", indices, data);
}
Output ParallelDynamicStitch(const Scope& s, const InputList& indices, const InputList& data) {
  return Stitch(s, "ParallelDynamicStitch", indices, data);
}

OutputList DynamicPartition(const Scope& s, const Input& data, const Input& partitions, int64_t num_partitions) {
  return AllOutputs(s.AddOp("DynamicPartition", "DynamicPartition", {data, partitions},
                            {{"T", TypeAttr(TypeOf(data))}, {"num_partitions", IntAttr(num_partitions)}}));
}

UniqueOutputs Unique(const Scope& s, const Input& x, DataType out_idx) {
  Node* n = s.AddOp("Unique", "Unique", {x}, {{"T", TypeAttr(TypeOf(x))}, {"out_idx", TypeAttr(out_idx)}});
  if (n == nullptr) return {};
  return {Output(n, 0), Output(n, 1)};
}

UniqueOutputs UniqueV2(const Scope& s, const Input& x, const Input& axis, DataType out_idx) {
  Node* n = s.AddOp("UniqueV2", "UniqueV2", {x, axis},
                    {{"T", TypeAttr(TypeOf(x))}, {"Taxis", TypeAttr(TypeOf(axis))}, {"out_idx", TypeAttr(out_idx)}});
  if (n == nullptr) return {};
  return {Output(n, 0), Output(n, 1)};
}

ListDiffOutputs ListDiff(const Scope& s, const Input& x, const Input& y, DataType out_idx) {
  Node* n = s.AddOp("ListDiff", "ListDiff", {x, y}, {{"T", TypeAttr(TypeOf(x))}, {"out_idx", TypeAttr(out_idx)}});
  if (n == nullptr) return {};
  return {Output(n, 0), Output(n, 1)};
}

OutputList ConcatOffset(const Scope& s, const Input& concat_dim, const InputList& shape) {
  if (shape.size() < 2) {
    s.UpdateStatus(errors::InvalidArgument("ops::ConcatOffset needs at least two shapes"));
    return {};
  }
  std::vector<Input> inputs{concat_dim};
  inputs.insert(inputs.end(), shape.begin(), shape.end());
  return AllOutputs(s.AddOp("ConcatOffset", "ConcatOffset", inputs,
                            {{"N", IntAttr(static_cast<int64_t>(shape.size()))},
                             {"shape_type", TypeAttr(TypeOf(shape.inputs()[0]))}}));
}

Output GatherNd(const Scope& s, const Input& params, const Input& indices) {
  return Output(s.AddOp("GatherNd", "GatherNd", {params, indices},
                        {{"Tparams", TypeAttr(TypeOf(params))}, {"Tindices", TypeAttr(TypeOf(indices))}}),
                0);
}

Output ScatterNd(const Scope& s, const Input& indices, const Input& updates, const Input& shape) {
  return Output(s.AddOp("ScatterNd", "ScatterNd", {indices, updates, shape},
                        {{"T", TypeAttr(TypeOf(updates))}, {"Tindices", TypeAttr(TypeOf(indices))}}),
                0);
}

Output ReverseV2(const Scope& s, const Input& tensor, const Input& axis) {
  return IndexedOp(s, "ReverseV2", tensor, axis, "Tidx");
}

Output Reverse(const Scope& s, const Input& tensor, const Input& dims) {
  return Output(s.AddOp("Reverse", "Reverse", {tensor, dims}, {{"T", TypeAttr(TypeOf(tensor))}}), 0);
}

Output ReverseSequence(const Scope& s, const Input& input, const Input& seq_lengths, int64_t seq_dim,
                       int64_t batch_dim) {
  return Output(s.AddOp("ReverseSequence", "ReverseSequence", {input, seq_lengths},
                        {{"T", TypeAttr(TypeOf(input))},
                         {"Tlen", TypeAttr(TypeOf(seq_lengths))},
                         {"seq_dim", IntAttr(seq_dim)},
                         {"batch_dim", IntAttr(batch_dim)}}),
                0);
}

Output Roll(const Scope& s, const Input& input, const Input& shift, const Input& axis) {
  return Output(s.AddOp("Roll", "Roll", {input, shift, axis},
                        {{"T", TypeAttr(TypeOf(input))},
                         {"Tshift", TypeAttr(TypeOf(shift))},
                         {"Taxis", TypeAttr(TypeOf(axis))}}),
                0);
}

Output MirrorPad(const Scope& s, const Input& input, const Input& paddings, const std::string& mode) {
  return Output(s.AddOp("MirrorPad", "MirrorPad", {input, paddings},
                        {{"T", TypeAttr(TypeOf(input))},
                         {"Tpaddings", TypeAttr(TypeOf(paddings))},
                         {"mode", StringAttr(mode)}}),
                0);
}

Output MirrorPadGrad(const Scope& s, const Input& input, const Input& paddings, const std::string& mode) {
  return Output(s.AddOp("MirrorPadGrad", "MirrorPadGrad", {input, paddings},
                        {{"T", TypeAttr(TypeOf(input))},
                         {"Tpaddings", TypeAttr(TypeOf(paddings))},
                         {"mode", StringAttr(mode)}}),
                0);
}

Output SpaceToBatchND(const Scope& s, const Input& input, const Input& block_shape, const Input& paddings) {
  return Output(s.AddOp("SpaceToBatchND", "SpaceToBatchND", {input, block_shape, paddings},
                        {{"T", TypeAttr(TypeOf(input))},
                         {"Tblock_shape", TypeAttr(TypeOf(block_shape))},
                         {"Tpaddings", TypeAttr(TypeOf(paddings))}}),
                0);
}

Output BatchToSpaceND(const Scope& s, const Input& input, const Input& block_shape, const Input& crops) {
  return Output(s.AddOp("BatchToSpaceND", "BatchToSpaceND", {input, block_shape, crops},
                        {{"T", TypeAttr(TypeOf(input))},
                         {"Tblock_shape", TypeAttr(TypeOf(block_shape))},
                         {"Tcrops", TypeAttr(TypeOf(crops))}}),
                0);
}

Output SpaceToDepth(const Scope& s, const Input& input, int64_t block_size, const std::string& data_format) {
  return Output(s.AddOp("SpaceToDepth", "SpaceToDepth", {input},
                        {{"T", TypeAttr(TypeOf(input))},
                         {"block_size", IntAttr(block_size)},
                         {"data_format", StringAttr(data_format)}}),
                0);
}

Output DepthToSpace(const Scope& s, const Input& input, int64_t block_size, const std::string& data_format) {
  return Output(s.AddOp("DepthToSpace", "DepthToSpace", {input},
                        {{"T", TypeAttr(TypeOf(input))},
                         {"block_size", IntAttr(block_size)},
                         {"data_format", StringAttr(data_format)}}),
                0);
}

Output PlaceholderWithDefault(const Scope& s, const Input& input, const PartialTensorShape& shape) {
  return Output(s.AddOp("PlaceholderWithDefault", "PlaceholderWithDefault", {input},
                        {{"dtype", TypeAttr(TypeOf(input))}, {"shape", ShapeAttr(shape)}}),
                0);
}

}  // namespace ops
}  // namespace tensoract
