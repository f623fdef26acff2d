// Gradients of the diagonal ops (graph/ops/matrix_diag_ops.cc), as TensorFlow's
// array_grad.py builds them. Where TensorFlow picks MatrixDiag for a square input of known
// shape and MatrixSetDiag on zeros otherwise, this always takes the second: the values are
// the same. k, num_rows, num_cols and padding_value get no gradient (TensorFlow's None).
#include "graph/builder/matrix_diag_ops.h"
#include "graph/gradients/grad_helpers.h"

namespace tensoract {
namespace grad {
namespace {

Status DiagGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  (*dx)[0] = ops::DiagPart(s, dy[0]);
  return Status::OK();
}
REGISTER_GRADIENT_OP("Diag", DiagGrad);

Status DiagPartGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  (*dx)[0] = ops::Diag(s, dy[0]);
  return Status::OK();
}
REGISTER_GRADIENT_OP("DiagPart", DiagPartGrad);

Status MatrixDiagGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  (*dx)[0] = ops::MatrixDiagPart(s, dy[0]);
  return Status::OK();
}
REGISTER_GRADIENT_OP("MatrixDiag", MatrixDiagGrad);

Status MatrixDiagV3Grad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  std::string align;
  TA_RETURN_IF_ERROR(GetNodeAttr(op.def(), "align", &align));
  (*dx)[0] = ops::MatrixDiagPartV3(s, dy[0], InputOf(op, 1), ScalarLike(s, 0, dy[0]), align);
  return Status::OK();
}
REGISTER_GRADIENT_OP("MatrixDiagV3", MatrixDiagV3Grad);

Status MatrixDiagPartGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  (*dx)[0] = ops::MatrixSetDiag(s, ops::ZerosLike(s, InputOf(op, 0)), dy[0]);
  return Status::OK();
}
REGISTER_GRADIENT_OP("MatrixDiagPart", MatrixDiagPartGrad);

Status MatrixDiagPartV3Grad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  std::string align;
  TA_RETURN_IF_ERROR(GetNodeAttr(op.def(), "align", &align));
  (*dx)[0] = ops::MatrixSetDiagV3(s, ops::ZerosLike(s, InputOf(op, 0)), dy[0], InputOf(op, 1), align);
  return Status::OK();
}
REGISTER_GRADIENT_OP("MatrixDiagPartV3", MatrixDiagPartV3Grad);

// MatrixSetDiag: the input's gradient is dy with the diagonals zeroed, the diagonal's is
// dy's diagonals. The zeros take the diagonals' shape from dy, as TensorFlow's do (not from
// the diagonal input, whose shape the forward op may refuse).
Status MatrixSetDiagGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  Output diag = ops::MatrixDiagPart(s, dy[0]);
  (*dx)[0] = ops::MatrixSetDiag(s, dy[0], ops::ZerosLike(s, diag));
  (*dx)[1] = diag;
  return Status::OK();
}
REGISTER_GRADIENT_OP("MatrixSetDiag", MatrixSetDiagGrad);

Status MatrixSetDiagV3Grad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  std::string align;
  TA_RETURN_IF_ERROR(GetNodeAttr(op.def(), "align", &align));
  Output k = InputOf(op, 2);
  Output diag = ops::MatrixDiagPartV3(s, dy[0], k, ScalarLike(s, 0, dy[0]), align);
  (*dx)[0] = ops::MatrixSetDiagV3(s, dy[0], ops::ZerosLike(s, diag), k, align);
  (*dx)[1] = diag;
  return Status::OK();
}
REGISTER_GRADIENT_OP("MatrixSetDiagV3", MatrixSetDiagV3Grad);

Status MatrixBandPartGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  (*dx)[0] = ops::MatrixBandPart(s, dy[0], InputOf(op, 1), InputOf(op, 2));
  return Status::OK();
}
REGISTER_GRADIENT_OP("MatrixBandPart", MatrixBandPartGrad);

}  // namespace
}  // namespace grad
}  // namespace tensoract
