// Gradients of the index and mirror ops (graph/ops/array_index_ops.cc, array_nd_ops.cc,
// array_mirror_ops.cc), as TensorFlow's array_grad.py, manip_grad.py and data_flow_grad.py
// build them. v1 Gather's is dense, as GatherV2's (array_grad.cc). Where and ListDiff have
// none in TensorFlow either (their outputs are indices, or picked values TensorFlow does not
// differentiate).
#include "graph/gradients/grad_helpers.h"

namespace tensoract {
namespace grad {
namespace {

REGISTER_NO_GRADIENT_OP("ConcatOffset");

Status ReverseV2Grad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  (*dx)[0] = ops::ReverseV2(s, dy[0], InputOf(op, 1));
  return Status::OK();
}
REGISTER_GRADIENT_OP("ReverseV2", ReverseV2Grad);

Status ReverseV1Grad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  (*dx)[0] = ops::Reverse(s, dy[0], InputOf(op, 1));
  return Status::OK();
}
REGISTER_GRADIENT_OP("Reverse", ReverseV1Grad);

Status ReverseSequenceGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  int64_t seq_dim = 0, batch_dim = 0;
  TA_RETURN_IF_ERROR(GetNodeAttr(op.def(), "seq_dim", &seq_dim));
  TA_RETURN_IF_ERROR(GetNodeAttr(op.def(), "batch_dim", &batch_dim));
  (*dx)[0] = ops::ReverseSequence(s, dy[0], InputOf(op, 1), seq_dim, batch_dim);
  return Status::OK();
}
REGISTER_GRADIENT_OP("ReverseSequence", ReverseSequenceGrad);

// Roll's gradient rolls back.
Status RollGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  (*dx)[0] = ops::Roll(s, dy[0], ops::Neg(s, InputOf(op, 1)), InputOf(op, 2));
  return Status::OK();
}
REGISTER_GRADIENT_OP("Roll", RollGrad);

// MirrorPad's gradient folds the padding back (MirrorPadGrad); MirrorPadGrad's is linear in
// its input, so its gradient pads the incoming one again.
Status MirrorPadGradFn(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  std::string mode;
  TA_RETURN_IF_ERROR(GetNodeAttr(op.def(), "mode", &mode));
  (*dx)[0] = ops::MirrorPadGrad(s, dy[0], InputOf(op, 1), mode);
  return Status::OK();
}
REGISTER_GRADIENT_OP("MirrorPad", MirrorPadGradFn);

Status MirrorPadGradGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  std::string mode;
  TA_RETURN_IF_ERROR(GetNodeAttr(op.def(), "mode", &mode));
  (*dx)[0] = ops::MirrorPad(s, dy[0], InputOf(op, 1), mode);
  return Status::OK();
}
REGISTER_GRADIENT_OP("MirrorPadGrad", MirrorPadGradGrad);

// Gather (axis 0): dy's rows added back at their indices, of any rank.
Status GatherGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  Output params = InputOf(op, 0);
  Output rows = ops::GatherV2(s, ops::Shape(s, params), 0, 0);
  (*dx)[0] = ops::UnsortedSegmentSum(s, dy[0], InputOf(op, 1), rows);
  return Status::OK();
}
REGISTER_GRADIENT_OP("Gather", GatherGrad);

// DynamicStitch and ParallelDynamicStitch: data[m]'s gradient is dy's rows at indices[m].
// A row a later index overwrote gets its gradient all the same, as in TensorFlow.
Status DynamicStitchGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  const int n = op.num_inputs() / 2;
  for (int m = 0; m < n; ++m) (*dx)[n + m] = ops::GatherV2(s, dy[0], InputOf(op, m), 0);
  return Status::OK();
}
REGISTER_GRADIENT_OP("DynamicStitch", DynamicStitchGrad);
REGISTER_GRADIENT_OP("ParallelDynamicStitch", DynamicStitchGrad);

// DynamicPartition: the outputs' gradients stitched back where their slices came from
// (the positions of data's slices partitioned as data was), in data's shape.
Status DynamicPartitionGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  int64_t num_partitions = 0;
  TA_RETURN_IF_ERROR(GetNodeAttr(op.def(), "num_partitions", &num_partitions));
  Output data = InputOf(op, 0), partitions = InputOf(op, 1);
  Output prefix_shape = ops::Shape(s, partitions);
  Output positions = ops::Reshape(s, ops::Range(s, 0, ops::Prod(s, prefix_shape, 0), 1), prefix_shape);
  OutputList parts = ops::DynamicPartition(s, positions, partitions, num_partitions);
  if (static_cast<int64_t>(parts.size()) != num_partitions) return s.status();
  Output stitched = ops::ParallelDynamicStitch(s, parts, dy);
  (*dx)[0] = ops::Reshape(s, stitched, ops::Shape(s, data));
  return Status::OK();
}
REGISTER_GRADIENT_OP("DynamicPartition", DynamicPartitionGrad);

// GatherNd and ScatterNd are each other's gradients (dense here, where TensorFlow returns
// IndexedSlices for a GatherNd of depth-1 tuples).
Status GatherNdGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  Output params = InputOf(op, 0), indices = InputOf(op, 1);
  const DataType t = indices.type() == tensorflow::DT_INT64 ? tensorflow::DT_INT64 : tensorflow::DT_INT32;
  Output idx = indices.type() == t ? indices : ops::Cast(s, indices, t);
  (*dx)[0] = ops::ScatterNd(s, idx, dy[0], ops::Shape(s, params, t));
  return Status::OK();
}
REGISTER_GRADIENT_OP("GatherNd", GatherNdGrad);

Status ScatterNdGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  (*dx)[1] = ops::GatherNd(s, dy[0], InputOf(op, 0));
  return Status::OK();
}
REGISTER_GRADIENT_OP("ScatterNd", ScatterNdGrad);

}  // namespace
}  // namespace grad
}  // namespace tensoract
