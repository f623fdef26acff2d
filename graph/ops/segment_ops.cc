// The segment reductions: rows of `data` combined by the segment id each row carries.
// Segment* take sorted ids and make as many output rows as the last id says;
// UnsortedSegment* take ids in any order (negative ones drop their row) and num_segments
// output rows. Definitions match TensorFlow 2.21's, shape functions included.
#include "graph/common_shape_fns.h"
#include "graph/op_registry.h"

namespace tensoract {
namespace {

using shape_inference::InferenceContext;

// [?] + data.shape[1:]: the number of segments is the last id plus one, a value.
Status SegmentReductionShape(InferenceContext* c) {
  PartialTensorShape data, ids, rest;
  TA_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, &data));
  TA_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &ids));
  if (!InferenceContext::RankKnown(data)) return shape_inference::UnknownShape(c);
  TA_RETURN_IF_ERROR(c->Subshape(data, 1, &rest));
  PartialTensorShape out;
  TA_RETURN_IF_ERROR(c->Concatenate(InferenceContext::Vector(shape_inference::kUnknownDim), rest, &out));
  c->set_output(0, out);
  return Status::OK();
}

// [num_segments] + data.shape[segment_ids.rank:], where data's shape starts with the ids'.
Status UnsortedSegmentReductionShape(InferenceContext* c) {
  PartialTensorShape unused;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(2), 0, &unused));
  const PartialTensorShape& ids = c->input(1);
  if (!InferenceContext::RankKnown(ids)) return shape_inference::UnknownShape(c);
  PartialTensorShape data = c->input(0);
  if (InferenceContext::RankKnown(data)) {
    TA_RETURN_IF_ERROR(c->WithRankAtLeast(data, ids.dims(), &data));
    PartialTensorShape prefix, merged;
    TA_RETURN_IF_ERROR(c->Subshape(data, 0, ids.dims(), &prefix));
    TA_RETURN_IF_ERROR(c->Merge(prefix, ids, &merged));
  }
  std::vector<int64_t> n;
  bool known = false;
  TA_RETURN_IF_ERROR(c->GetIntValues(2, &n, &known));
  if (known && n[0] < 0) {
    return errors::InvalidArgument("Dimension size, given by scalar input 2, must be non-negative but is ", n[0]);
  }
  if (!InferenceContext::RankKnown(data)) return shape_inference::UnknownShape(c);
  std::vector<int64_t> dims{known ? n[0] : shape_inference::kUnknownDim};
  for (int i = ids.dims(); i < data.dims(); ++i) dims.push_back(InferenceContext::Dim(data, i));
  c->set_output(0, InferenceContext::MakeShape(std::move(dims)));
  return Status::OK();
}

}  // namespace
}  // namespace tensoract

// TensorFlow's type lists: sums, means and products take every number type; maxima and
// minima the real ones.
#define TA_NUMBER_TYPES                                                                                        \
  "float, double, int32, uint8, int16, int8, complex64, int64, qint8, quint8, qint32, bfloat16, qint16, "     \
  "quint16, uint16, complex128, half, uint32, uint64"
#define TA_REAL_TYPES "float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64"

#define TA_SEGMENT_OP(NAME, TYPES, DOC)                                                    \
  REGISTER_OP(NAME)                                                                        \
      .Input("data: T").Input("segment_ids: Tindices").Output("output: T")                 \
      .Attr("T: {" TYPES "}").Attr("Tindices: {int32, int64}")                             \
      .SetShapeFn(tensoract::SegmentReductionShape)                                        \
      .Doc(DOC)

TA_SEGMENT_OP("SegmentSum", TA_NUMBER_TYPES, "output[s] = the sum of the rows whose (sorted) id is s; 0 if none.");
TA_SEGMENT_OP("SegmentMean", TA_NUMBER_TYPES, "output[s] = the mean of the rows whose (sorted) id is s; 0 if none.");
TA_SEGMENT_OP("SegmentProd", TA_NUMBER_TYPES, "output[s] = the product of the rows whose (sorted) id is s; 1 if none.");
TA_SEGMENT_OP("SegmentMax", TA_REAL_TYPES, "output[s] = the maximum of the rows whose (sorted) id is s; 0 if none.");
TA_SEGMENT_OP("SegmentMin", TA_REAL_TYPES, "output[s] = the minimum of the rows whose (sorted) id is s; 0 if none.");
#undef TA_SEGMENT_OP

#define TA_UNSORTED_SEGMENT_OP(NAME, TYPES, INDICES, DOC)                                               \
  REGISTER_OP(NAME)                                                                                     \
      .Input("data: T").Input("segment_ids: Tindices").Input("num_segments: Tnumsegments")              \
      .Output("output: T")                                                                              \
      .Attr("T: {" TYPES "}").Attr("Tindices: {" INDICES "}")                                           \
      .Attr("Tnumsegments: {int32, int64} = DT_INT32")                                                  \
      .SetShapeFn(tensoract::UnsortedSegmentReductionShape)                                             \
      .Doc(DOC)

TA_UNSORTED_SEGMENT_OP("UnsortedSegmentSum", TA_NUMBER_TYPES, "int16, int32, int64",
                       "output[s] = the sum of the data rows whose segment id is s; negative ids are dropped.");
TA_UNSORTED_SEGMENT_OP("UnsortedSegmentProd", TA_NUMBER_TYPES, "int32, int64",
                       "output[s] = the product of the data rows whose segment id is s (1 if none).");
TA_UNSORTED_SEGMENT_OP("UnsortedSegmentMax", TA_REAL_TYPES, "int32, int64",
                       "output[s] = the maximum of the data rows whose segment id is s (the lowest value if none).");
TA_UNSORTED_SEGMENT_OP("UnsortedSegmentMin", TA_REAL_TYPES, "int32, int64",
                       "output[s] = the minimum of the data rows whose segment id is s (the highest value if none).");
#undef TA_UNSORTED_SEGMENT_OP
#undef TA_NUMBER_TYPES
#undef TA_REAL_TYPES
