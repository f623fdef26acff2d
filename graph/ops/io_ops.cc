// Checkpoints: SaveV2 writes tensors to a V2 checkpoint (TensorFlow's tensor bundle, see
// kernels/checkpoint/tensor_bundle.h), RestoreV2 reads them back, MergeV2Checkpoints
// joins the bundles of a sharded save into one; ShardedFilename and ShardedFilespec name
// the shards of a sharded save; ReadFile and WriteFile move a whole file (a SavedModel's
// assets arrive as file names). Definitions are TensorFlow 2.21's, so the save/restore
// subgraphs of TF 1.x Savers validate unchanged.
#include "graph/common_shape_fns.h"
#include "graph/op_registry.h"

namespace tensoract {
namespace {

using shape_inference::InferenceContext;

// prefix is a scalar; tensor_names and shape_and_slices are vectors of one name per tensor.
Status CheckSaveRestoreInputs(InferenceContext* c, int num_tensors) {
  PartialTensorShape s;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(0), 0, &s));
  for (int i : {1, 2}) {
    TA_RETURN_IF_ERROR(c->WithRank(c->input(i), 1, &s));
    int64_t n;
    TA_RETURN_IF_ERROR(c->WithValue(InferenceContext::Dim(s, 0), num_tensors, &n));
  }
  return Status::OK();
}

Status SaveV2Shape(InferenceContext* c) { return CheckSaveRestoreInputs(c, c->num_inputs() - 3); }

// The restored shapes are whatever the checkpoint holds.
Status RestoreV2Shape(InferenceContext* c) {
  TA_RETURN_IF_ERROR(CheckSaveRestoreInputs(c, c->num_outputs()));
  return shape_inference::UnknownShape(c);
}

// Every input is a scalar, and so is the name.
Status ScalarInputsShape(InferenceContext* c) {
  PartialTensorShape s;
  for (int i = 0; i < c->num_inputs(); ++i) TA_RETURN_IF_ERROR(c->WithRank(c->input(i), 0, &s));
  c->set_output(0, InferenceContext::Scalar());
  return Status::OK();
}

Status MergeV2CheckpointsShape(InferenceContext* c) {
  PartialTensorShape s;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, &s));
  TA_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, &s));
  return Status::OK();
}

}  // namespace
}  // namespace tensoract

REGISTER_OP("SaveV2")
    .Input("prefix: string")
    .Input("tensor_names: string")
    .Input("shape_and_slices: string")
    .Input("tensors: dtypes")
    .Attr("dtypes: list(type) >= 1")
    .SetIsStateful()
    .SetShapeFn(tensoract::SaveV2Shape)
    .Doc("Writes `tensors` under `tensor_names` to the V2 checkpoint `prefix`.");

REGISTER_OP("RestoreV2")
    .Input("prefix: string")
    .Input("tensor_names: string")
    .Input("shape_and_slices: string")
    .Output("tensors: dtypes")
    .Attr("dtypes: list(type) >= 1")
    .SetIsStateful()
    .SetShapeFn(tensoract::RestoreV2Shape)
    .Doc("Reads the tensors named `tensor_names` from the V2 checkpoint `prefix`.");

REGISTER_OP("MergeV2Checkpoints")
    .Input("checkpoint_prefixes: string")
    .Input("destination_prefix: string")
    .Attr("delete_old_dirs: bool = true")
    .Attr("allow_missing_files: bool = false")
    .SetIsStateful()
    .SetShapeFn(tensoract::MergeV2CheckpointsShape)
    .Doc("Merges the V2 checkpoints at `checkpoint_prefixes` into one at `destination_prefix`.");

REGISTER_OP("ShardedFilename")
    .Input("basename: string")
    .Input("shard: int32")
    .Input("num_shards: int32")
    .Output("filename: string")
    .SetShapeFn(tensoract::ScalarInputsShape)
    .Doc("The name of one shard: \"basename-00001-of-00004\" (printf's %s-%05d-of-%05d).");

REGISTER_OP("ShardedFilespec")
    .Input("basename: string")
    .Input("num_shards: int32")
    .Output("filename: string")
    .SetShapeFn(tensoract::ScalarInputsShape)
    .Doc("The glob matching every shard's name, basename-?????" "-of-00004 for 4 shards.");

REGISTER_OP("ReadFile")
    .Input("filename: string")
    .Output("contents: string")
    .SetShapeFn(tensoract::ScalarInputsShape)
    .Doc("The whole file at `filename` as one string.");

REGISTER_OP("WriteFile")
    .Input("filename: string")
    .Input("contents: string")
    .SetIsStateful()
    .SetShapeFn([](tensoract::shape_inference::InferenceContext* c) {
      tensoract::PartialTensorShape s;
      TA_RETURN_IF_ERROR(c->WithRank(c->input(0), 0, &s));
      return c->WithRank(c->input(1), 0, &s);
    })
    .Doc("Writes `contents` to `filename`, replacing it, creating missing directories.");
