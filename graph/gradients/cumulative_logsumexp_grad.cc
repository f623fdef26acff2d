// The gradient of CumulativeLogsumexp (graph/ops/math_census_ops.cc), as TensorFlow's
// math_grad.py builds it: dy split into its positive and negative parts, each carried through
// a log-domain running sum the other way round (so nothing overflows), then
// exp(... + x) of each, subtracted.
#include <limits>

#include "graph/gradients/grad_helpers.h"

namespace tensoract {
namespace grad {
namespace {

Status CumulativeLogsumexpGradient(const Scope& s, const Node& op, const std::vector<Output>& dy,
                                   std::vector<Output>* dx) {
  bool exclusive = false, reverse = false;
  TA_RETURN_IF_ERROR(GetNodeAttr(op.def(), "exclusive", &exclusive));
  TA_RETURN_IF_ERROR(GetNodeAttr(op.def(), "reverse", &reverse));
  Output x = InputOf(op, 0), axis = InputOf(op, 1), out = OpOutput(op, 0);
  const Output& g = dy[0];
  // grad.dtype.min: the dtype's lowest finite value, standing for log(0).
  double lowest = -std::numeric_limits<double>::max();
  switch (g.type()) {
    case tensorflow::DT_FLOAT: lowest = -std::numeric_limits<float>::max(); break;
    case tensorflow::DT_HALF: lowest = -65504.0; break;
    case tensorflow::DT_BFLOAT16: lowest = -3.3895313892515355e38; break;
    default: break;
  }
  Output floor = ScalarLike(s, lowest, g);
  Output log_pos = ops::SelectV2(s, ops::Greater(s, g, ScalarLike(s, 0, g)), ops::Log(s, g), floor);
  Output log_neg = ops::SelectV2(s, ops::Less(s, g, ScalarLike(s, 0, g)), ops::Log(s, ops::Neg(s, g)), floor);
  auto carry = [&](const Output& log_part) {
    Output scanned = ops::TypedOp(s, "CumulativeLogsumexp", {ops::Sub(s, log_part, out), axis},
                                  {{"Tidx", ops::TypeAttr(axis.type())},
                                   {"exclusive", ops::BoolAttr(exclusive)},
                                   {"reverse", ops::BoolAttr(!reverse)}});
    return ops::Exp(s, ops::AddV2(s, scanned, x));
  };
  (*dx)[0] = ops::Sub(s, carry(log_pos), carry(log_neg));
  return Status::OK();
}
REGISTER_GRADIENT_OP("CumulativeLogsumexp", CumulativeLogsumexpGradient);

}  // namespace
}  // namespace grad
}  // namespace tensoract
