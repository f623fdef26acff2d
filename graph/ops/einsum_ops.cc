// Einsum: a contraction of one or two tensors written as an equation ("ij,jk->ik",
// "...ij,...jk->...ik", "ii->i", "ij->"). TensorFlow 2.21's OpDef and shape function: the
// equation's syntax, each input's rank against its labels, one size per label and the
// ellipses' shapes broadcast; labels of the output must come from the inputs.
#include <map>

#include "graph/common_shape_fns.h"
#include "graph/einsum_equation.h"
#include "graph/op_registry.h"

namespace tensoract {
namespace {

using shape_inference::InferenceContext;
using shape_inference::kUnknownDim;

Status EinsumShape(InferenceContext* c) {
  std::string equation;
  TA_RETURN_IF_ERROR(c->GetAttr("equation", &equation));
  std::vector<std::string> inputs;
  std::string output;
  TA_RETURN_IF_ERROR(SplitEinsumEquation(equation, &inputs, &output));
  if (c->num_inputs() == 0 || c->num_inputs() > 2) {
    return errors::InvalidArgument("Expected either 1 or 2 inputs but got: ", c->num_inputs());
  }
  if (static_cast<size_t>(c->num_inputs()) != inputs.size()) {
    return errors::InvalidArgument("Expected ", inputs.size(), " inputs for equation ", equation,
                                   " but got: ", c->num_inputs());
  }
  std::map<char, int64_t> label_dims;
  std::vector<PartialTensorShape> bcast(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string& labels = inputs[i];
    bool has_ellipsis = false;
    TA_RETURN_IF_ERROR(ValidateEinsumEllipsis(labels, &has_ellipsis));
    PartialTensorShape shape = c->input(static_cast<int>(i));
    const bool rank_known = InferenceContext::RankKnown(shape);
    if (rank_known) {
      const int named = static_cast<int>(labels.size()) - (has_ellipsis ? 3 : 0);
      Status s = has_ellipsis ? c->WithRankAtLeast(shape, named, &shape) : c->WithRank(shape, named, &shape);
      if (!s.ok()) return errors::InvalidArgument(s.message(), " for ", i, "th input and equation: ", equation);
    }
    bcast[i] = InferenceContext::Scalar();
    bool seen_ellipsis = false;
    for (int k = 0; k < static_cast<int>(labels.size()); ++k) {
      // After the ellipsis, labels count from the end of the shape.
      const int after = rank_known ? k + shape.dims() - static_cast<int>(labels.size()) : -1;
      if (labels[k] == '.') {
        if (rank_known) {
          TA_RETURN_IF_ERROR(c->Subshape(shape, k, after + 3, &bcast[i]));
        } else {
          bcast[i] = InferenceContext::UnknownShape();
        }
        k += 2;
        seen_ellipsis = true;
        continue;
      }
      const int64_t dim = rank_known ? InferenceContext::Dim(shape, seen_ellipsis ? after : k) : kUnknownDim;
      auto it = label_dims.find(labels[k]);
      if (it == label_dims.end()) {
        label_dims[labels[k]] = dim;
      } else {
        TA_RETURN_IF_ERROR(c->MergeDim(it->second, dim, &it->second));
      }
    }
  }
  PartialTensorShape out_bcast = bcast[0];
  if (bcast.size() == 2) TA_RETURN_IF_ERROR(shape_inference::BroadcastShapes(*c, bcast[0], bcast[1], &out_bcast));
  bool output_ellipsis = false;
  TA_RETURN_IF_ERROR(ValidateEinsumEllipsis(output, &output_ellipsis));
  if (output_ellipsis) {
    if (!InferenceContext::RankKnown(out_bcast)) return shape_inference::UnknownShape(c);
  } else {
    PartialTensorShape unused;
    Status s = c->WithRankAtMost(out_bcast, 0, &unused);
    if (!s.ok()) {
      return errors::InvalidArgument(s.message(), " for einsum equation '", equation,
                                     "' without ellipsis (...) in the output subscripts where input(s) have "
                                     "non-empty broadcasting shape");
    }
    out_bcast = InferenceContext::Scalar();
  }
  std::vector<int64_t> dims;
  for (size_t k = 0; k < output.size(); ++k) {
    if (output[k] == '.') {
      for (int d = 0; d < out_bcast.dims(); ++d) dims.push_back(InferenceContext::Dim(out_bcast, d));
      k += 2;
      continue;
    }
    auto it = label_dims.find(output[k]);
    if (it == label_dims.end()) {
      return errors::InvalidArgument("Einsum output subscripts for equation '", equation, "' has label '", output[k],
                                     "' which is not present in the input subscripts");
    }
    dims.push_back(it->second);
  }
  c->set_output(0, InferenceContext::MakeShape(std::move(dims)));
  return Status::OK();
}

}  // namespace
}  // namespace tensoract

REGISTER_OP("Einsum")
    .Input("inputs: N * T").Output("output: T")
    .Attr("equation: string").Attr("N: int >= 1").Attr("T: type")
    .SetShapeFn(tensoract::EinsumShape)
    .Doc("The contraction the equation names, e.g. \"ij,jk->ik\" (a matrix product), \"...ii->...i\".");
