// String ops: StringJoin, and the regular-expression matches StaticRegexFullMatch and
// RegexFullMatch (RE2 syntax, as in TensorFlow). TF 1.x Savers and TF 2 SavedModels build
// their checkpoint file names with them. Definitions are TensorFlow 2.21's.
#include "graph/common_shape_fns.h"
#include "graph/op_registry.h"

namespace tensoract {
namespace {

using shape_inference::InferenceContext;

// Scalars broadcast; every other input must have the one common shape. An input of unknown
// rank might be a scalar, so it neither decides nor constrains the shape: all scalars give
// a scalar, otherwise the known non-scalars merged (unknown if there are none).
Status StringJoinShape(InferenceContext* c) {
  bool all_scalar = true;
  for (int i = 0; i < c->num_inputs(); ++i) {
    if (InferenceContext::Rank(c->input(i)) != 0) all_scalar = false;
  }
  if (all_scalar) {
    c->set_output(0, InferenceContext::Scalar());
    return Status::OK();
  }
  PartialTensorShape out = InferenceContext::UnknownShape();
  for (int i = 0; i < c->num_inputs(); ++i) {
    const PartialTensorShape& s = c->input(i);
    if (InferenceContext::RankKnown(s) && InferenceContext::Rank(s) != 0) {
      TA_RETURN_IF_ERROR(c->Merge(out, s, &out));
    }
  }
  c->set_output(0, out);
  return Status::OK();
}

Status RegexFullMatchShape(InferenceContext* c) {
  PartialTensorShape pattern;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, &pattern));
  c->set_output(0, c->input(0));
  return Status::OK();
}

}  // namespace
}  // namespace tensoract

REGISTER_OP("StringJoin")
    .Input("inputs: N * string")
    .Attr("N: int >= 0")
    .Attr("separator: string = ''")
    .Output("output: string")
    .SetShapeFn(tensoract::StringJoinShape)
    .Doc("The inputs joined element by element with separator; scalars stand for every element.");

REGISTER_OP("StaticRegexFullMatch")
    .Input("input: string")
    .Attr("pattern: string")
    .Output("output: bool")
    .SetShapeFn(tensoract::shape_inference::UnchangedShape)
    .Doc("Whether each element of input matches pattern (RE2 syntax) as a whole.");

REGISTER_OP("RegexFullMatch")
    .Input("input: string")
    .Input("pattern: string")
    .Output("output: bool")
    .SetShapeFn(tensoract::RegexFullMatchShape)
    .Doc("Whether each element of input matches the scalar pattern (RE2 syntax) as a whole.");
