#include "graph/builder/segment_ops.h"

#include "graph/builder/attr_util.h"

namespace tensoract {
namespace ops {
namespace {

Output Sorted(const Scope& s, const char* op, const Input& data, const Input& ids) {
  return Output(s.AddOp(op, op, {data, ids}, {{"T", TypeAttr(TypeOf(data))}, {"Tindices", TypeAttr(TypeOf(ids))}}), 0);
}

Output Unsorted(const Scope& s, const char* op, const Input& data, const Input& ids, const Input& num_segments) {
  return Output(s.AddOp(op, op, {data, ids, num_segments},
                        {{"T", TypeAttr(TypeOf(data))},
                         {"Tindices", TypeAttr(TypeOf(ids))},
                         {"Tnumsegments", TypeAttr(TypeOf(num_segments))}}),
                0);
}

}  // namespace

Output SegmentSum(const Scope& s, const Input& data, const Input& ids) { return Sorted(s, "SegmentSum", data, ids); }
Output SegmentMean(const Scope& s, const Input& data, const Input& ids) { return Sorted(s, "SegmentMean", data, ids); }
Output SegmentProd(const Scope& s, const Input& data, const Input& ids) { return Sorted(s, "SegmentProd", data, ids); }
Output SegmentMax(const Scope& s, const Input& data, const Input& ids) { return Sorted(s, "SegmentMax", data, ids); }
Output SegmentMin(const Scope& s, const Input& data, const Input& ids) { return Sorted(s, "SegmentMin", data, ids); }

Output UnsortedSegmentProd(const Scope& s, const Input& data, const Input& ids, const Input& num_segments) {
  return Unsorted(s, "UnsortedSegmentProd", data, ids, num_segments);
}
Output UnsortedSegmentMax(const Scope& s, const Input& data, const Input& ids, const Input& num_segments) {
  return Unsorted(s, "UnsortedSegmentMax", data, ids, num_segments);
}
Output UnsortedSegmentMin(const Scope& s, const Input& data, const Input& ids, const Input& num_segments) {
  return Unsorted(s, "UnsortedSegmentMin", data, ids, num_segments);
}

Output Einsum(const Scope& s, const InputList& inputs, const std::string& equation) {
  if (inputs.size() == 0) {
    s.UpdateStatus(errors::InvalidArgument("ops::Einsum needs one or two inputs"));
    return Output();
  }
  return TypedOp(s, "Einsum", inputs.inputs(),
                 {{"N", IntAttr(static_cast<int64_t>(inputs.size()))}, {"equation", StringAttr(equation)}});
}

}  // namespace ops
}  // namespace tensoract
