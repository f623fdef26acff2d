#include "graph/builder/matrix_diag_ops.h"

#include "graph/builder/attr_util.h"

namespace tensoract {
namespace ops {

Output Diag(const Scope& s, const Input& diagonal) {
  return Output(s.AddOp("Diag", "Diag", {diagonal}, {{"T", TypeAttr(TypeOf(diagonal))}}), 0);
}

Output DiagPart(const Scope& s, const Input& input) {
  return Output(s.AddOp("DiagPart", "DiagPart", {input}, {{"T", TypeAttr(TypeOf(input))}}), 0);
}

Output MatrixDiag(const Scope& s, const Input& diagonal) {
  return Output(s.AddOp("MatrixDiag", "MatrixDiag", {diagonal}, {{"T", TypeAttr(TypeOf(diagonal))}}), 0);
}

Output MatrixDiagV3(const Scope& s, const Input& diagonal, const Input& k, const Input& num_rows,
                    const Input& num_cols, const Input& padding_value, const std::string& align) {
  return Output(s.AddOp("MatrixDiagV3", "MatrixDiagV3", {diagonal, k, num_rows, num_cols, padding_value},
                        {{"T", TypeAttr(TypeOf(diagonal))}, {"align", StringAttr(align)}}),
                0);
}

Output MatrixDiagPart(const Scope& s, const Input& input) {
  return Output(s.AddOp("MatrixDiagPart", "MatrixDiagPart", {input}, {{"T", TypeAttr(TypeOf(input))}}), 0);
}

Output MatrixDiagPartV3(const Scope& s, const Input& input, const Input& k, const Input& padding_value,
                        const std::string& align) {
  return Output(s.AddOp("MatrixDiagPartV3", "MatrixDiagPartV3", {input, k, padding_value},
                        {{"T", TypeAttr(TypeOf(input))}, {"align", StringAttr(align)}}),
                0);
}

Output MatrixSetDiag(const Scope& s, const Input& input, const Input& diagonal) {
  return Output(s.AddOp("MatrixSetDiag", "MatrixSetDiag", {input, diagonal}, {{"T", TypeAttr(TypeOf(input))}}), 0);
}

Output MatrixSetDiagV3(const Scope& s, const Input& input, const Input& diagonal, const Input& k,
                       const std::string& align) {
  return Output(s.AddOp("MatrixSetDiagV3", "MatrixSetDiagV3", {input, diagonal, k},
                        {{"T", TypeAttr(TypeOf(input))}, {"align", StringAttr(align)}}),
                0);
}

Output MatrixBandPart(const Scope& s, const Input& input, const Input& num_lower, const Input& num_upper) {
  return Output(s.AddOp("MatrixBandPart", "MatrixBandPart", {input, num_lower, num_upper},
                        {{"T", TypeAttr(TypeOf(input))}, {"Tindex", TypeAttr(TypeOf(num_lower))}}),
                0);
}

}  // namespace ops
}  // namespace tensoract
