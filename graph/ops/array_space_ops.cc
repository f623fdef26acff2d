// Ops that move elements between the batch or depth dimension and the spatial ones:
// SpaceToBatchND and BatchToSpaceND (TensorFlow 1 writes a dilated convolution as a plain
// one between them), SpaceToDepth and DepthToSpace. Definitions and shape functions match
// TensorFlow 2.21's.
#include <string>
#include <vector>

#include "graph/common_shape_fns.h"
#include "graph/op_registry.h"

namespace tensoract {
namespace {

using shape_inference::InferenceContext;
using shape_inference::kUnknownDim;

// SpaceToBatchND (to_batch) and BatchToSpaceND: TensorFlow's SpaceToBatchShapeHelper and
// BatchToSpaceShapeHelper, one function. block_shape must be a vector of known length M
// (even of unknown rank it is refused, as TensorFlow does); the input has rank M + 1 or
// more; paddings (crops) is [M, 2]. With block_shape known the batch is multiplied (divided)
// by its product, and with both known each spatial dimension padded and divided (multiplied
// and cropped).
Status SpaceBatchShape(InferenceContext* c, bool to_batch) {
  const PartialTensorShape& block_shape_shape = c->input(1);
  if (InferenceContext::Rank(block_shape_shape) != 1) {
    return errors::InvalidArgument("block_shape must have rank 1.");
  }
  const int64_t m = InferenceContext::Dim(block_shape_shape, 0);
  if (!InferenceContext::ValueKnown(m)) return errors::InvalidArgument("block_shape must have known size.");
  PartialTensorShape input;
  TA_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), static_cast<int>(m + 1), &input));
  PartialTensorShape amounts_shape;
  TA_RETURN_IF_ERROR(c->Merge(c->input(2), InferenceContext::Matrix(m, 2), &amounts_shape));

  std::vector<int64_t> block;
  bool block_known = false;
  TA_RETURN_IF_ERROR(c->GetIntValues(1, &block, &block_known));
  block_known = block_known && !block.empty();
  int64_t batch = InferenceContext::Dim(input, 0);
  if (block_known) {
    for (int64_t d = 0; d < m; ++d) {
      if (block[d] < 1) return errors::InvalidArgument("block_shape must be positive");
      if (!InferenceContext::ValueKnown(batch)) continue;
      if (to_batch) {
        batch = InferenceContext::Multiply(batch, block[d]);
      } else {
        TA_RETURN_IF_ERROR(c->Divide(batch, block[d], /*evenly=*/true, &batch));
      }
    }
  } else if (m > 0) {
    batch = kUnknownDim;
  }
  std::vector<int64_t> dims(m + 1, kUnknownDim);
  dims[0] = batch;
  std::vector<int64_t> amounts;
  bool amounts_known = false;
  TA_RETURN_IF_ERROR(c->GetIntValues(2, &amounts, &amounts_known));
  if (amounts_known && !amounts.empty()) {
    for (int64_t d = 0; d < m; ++d) {
      const int64_t start = amounts[2 * d], end = amounts[2 * d + 1];
      if (start < 0 || end < 0) {
        return errors::InvalidArgument(to_batch ? "paddings cannot be negative" : "crops cannot be negative");
      }
      if (!block_known) continue;
      const int64_t in = InferenceContext::Dim(input, static_cast<int>(d + 1));
      if (to_batch) {
        const int64_t padded = InferenceContext::Add(InferenceContext::Add(in, start), end);
        TA_RETURN_IF_ERROR(c->Divide(padded, block[d], /*evenly=*/true, &dims[d + 1]));
      } else {
        int64_t cropped = InferenceContext::Multiply(in, block[d]);
        TA_RETURN_IF_ERROR(c->Subtract(cropped, start, &cropped));
        TA_RETURN_IF_ERROR(c->Subtract(cropped, end, &dims[d + 1]));
      }
    }
  }
  PartialTensorShape rest, out;
  TA_RETURN_IF_ERROR(c->Subshape(input, 1 + m, &rest));
  TA_RETURN_IF_ERROR(c->Concatenate(InferenceContext::MakeShape(std::move(dims)), rest, &out));
  c->set_output(0, out);
  return Status::OK();
}

Status SpaceToBatchNDShape(InferenceContext* c) { return SpaceBatchShape(c, true); }
Status BatchToSpaceNDShape(InferenceContext* c) { return SpaceBatchShape(c, false); }

// SpaceToDepth (to_depth) and DepthToSpace: rank 4 (5 for NCHW_VECT_C); height and width
// divided (multiplied) by block_size, depth multiplied (divided) by its square.
Status SpaceDepthShape(InferenceContext* c, bool to_depth) {
  std::string format;
  TA_RETURN_IF_ERROR(c->GetAttr("data_format", &format));
  int64_t block_size = 0;
  TA_RETURN_IF_ERROR(c->GetAttr("block_size", &block_size));
  PartialTensorShape input;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(0), format == "NCHW_VECT_C" ? 5 : 4, &input));
  const bool nhwc = format == "NHWC";
  const int n_at = 0, c_at = nhwc ? 3 : 1, h_at = nhwc ? 1 : 2, w_at = nhwc ? 2 : 3;
  int64_t height = InferenceContext::Dim(input, h_at), width = InferenceContext::Dim(input, w_at);
  int64_t depth = InferenceContext::Dim(input, c_at);
  if (to_depth) {
    TA_RETURN_IF_ERROR(c->Divide(height, block_size, /*evenly=*/true, &height));
    TA_RETURN_IF_ERROR(c->Divide(width, block_size, /*evenly=*/true, &width));
    depth = InferenceContext::Multiply(depth, block_size * block_size);
  } else {
    height = InferenceContext::Multiply(height, block_size);
    width = InferenceContext::Multiply(width, block_size);
    TA_RETURN_IF_ERROR(c->Divide(depth, block_size * block_size, /*evenly=*/true, &depth));
  }
  std::vector<int64_t> dims = InferenceContext::Dims(input);
  dims[n_at] = InferenceContext::Dim(input, n_at);
  dims[h_at] = height;
  dims[w_at] = width;
  dims[c_at] = depth;
  c->set_output(0, InferenceContext::MakeShape(std::move(dims)));
  return Status::OK();
}

Status SpaceToDepthShape(InferenceContext* c) { return SpaceDepthShape(c, true); }
Status DepthToSpaceShape(InferenceContext* c) { return SpaceDepthShape(c, false); }

}  // namespace
}  // namespace tensoract

REGISTER_OP("SpaceToBatchND")
    .Input("input: T").Input("block_shape: Tblock_shape").Input("paddings: Tpaddings").Output("output: T")
    .Attr("T: type").Attr("Tblock_shape: {int32, int64} = DT_INT32").Attr("Tpaddings: {int32, int64} = DT_INT32")
    .SetShapeFn(tensoract::SpaceToBatchNDShape)
    .Doc("input's spatial dimensions 1..M zero-padded, cut into blocks of block_shape, and each position "
         "within a block moved into the batch dimension.");

REGISTER_OP("BatchToSpaceND")
    .Input("input: T").Input("block_shape: Tblock_shape").Input("crops: Tcrops").Output("output: T")
    .Attr("T: type").Attr("Tblock_shape: {int32, int64} = DT_INT32").Attr("Tcrops: {int32, int64} = DT_INT32")
    .SetShapeFn(tensoract::BatchToSpaceNDShape)
    .Doc("SpaceToBatchND's inverse: the batch dimension's blocks interleaved back into the spatial "
         "dimensions, which are then cropped.");

REGISTER_OP("SpaceToDepth")
    .Input("input: T").Output("output: T")
    .Attr("T: type").Attr("block_size: int >= 2").Attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'")
    .SetShapeFn(tensoract::SpaceToDepthShape)
    .Doc("Each block_size x block_size block of height and width moved into the depth dimension.");

REGISTER_OP("DepthToSpace")
    .Input("input: T").Output("output: T")
    .Attr("T: type").Attr("block_size: int >= 2").Attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'")
    .SetShapeFn(tensoract::DepthToSpaceShape)
    .Doc("SpaceToDepth's inverse: the depth dimension's values moved into block_size x block_size blocks of "
         "height and width.");
