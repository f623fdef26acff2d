/// @file
/// Builder functions for the diagonal ops (graph/ops/matrix_diag_ops.cc): Diag and DiagPart,
/// MatrixDiag, MatrixDiagPart and MatrixSetDiag (the main diagonal, or with V3 a band of
/// diagonals k = [lower, upper]) and MatrixBandPart. Each adds one node to the scope's graph
/// and returns its output, with T taken from the inputs (see graph/builder/ops.h for the
/// conventions).
#ifndef TENSORACT_GRAPH_BUILDER_MATRIX_DIAG_OPS_H_
#define TENSORACT_GRAPH_BUILDER_MATRIX_DIAG_OPS_H_

#include <string>

#include "graph/builder/scope.h"

namespace tensoract {
namespace ops {

/// A tensor of shape diagonal.shape + diagonal.shape, zero but for output[i..., i...] = diagonal[i...].
Output Diag(const Scope& scope, const Input& diagonal);
/// Diag's inverse: diagonal[i...] = input[i..., i...] for an input of shape s + s.
Output DiagPart(const Scope& scope, const Input& input);

/// Square matrices that are zero but for their main diagonals, which are `diagonal`'s innermost vectors.
Output MatrixDiag(const Scope& scope, const Input& diagonal);
/// Matrices of `num_rows` x `num_cols` (int32 scalars; -1: the smallest that fits) filled with
/// `padding_value` but for the diagonals k[0]..k[1] (`k`: an int32 scalar or pair), taken from `diagonal`
/// ([..., num_diags, max_len], or [..., max_len] for one diagonal); `align` ("RIGHT_LEFT", "LEFT_RIGHT",
/// "LEFT_LEFT" or "RIGHT_RIGHT") says how diagonals shorter than max_len sit in their rows.
Output MatrixDiagV3(const Scope& scope, const Input& diagonal, const Input& k, const Input& num_rows,
                    const Input& num_cols, const Input& padding_value, const std::string& align = "RIGHT_LEFT");
/// The main diagonal of each innermost matrix of `input`.
Output MatrixDiagPart(const Scope& scope, const Input& input);
/// The diagonals k[0]..k[1] (`k`: an int32 scalar or pair) of each innermost matrix of `input`, shorter ones
/// padded with `padding_value` and placed as `align` says (see MatrixDiagV3).
Output MatrixDiagPartV3(const Scope& scope, const Input& input, const Input& k, const Input& padding_value,
                        const std::string& align = "RIGHT_LEFT");
/// `input` with the main diagonal of each innermost matrix replaced by `diagonal`'s innermost vectors.
Output MatrixSetDiag(const Scope& scope, const Input& input, const Input& diagonal);
/// `input` with the diagonals k[0]..k[1] of each innermost matrix replaced by `diagonal`'s (laid out as
/// MatrixDiagPartV3 gives them).
Output MatrixSetDiagV3(const Scope& scope, const Input& input, const Input& diagonal, const Input& k,
                       const std::string& align = "RIGHT_LEFT");
/// Each innermost matrix of `input` with the entries more than `num_lower` below or `num_upper` above the
/// diagonal set to zero (a negative count keeps that whole triangle); the counts: int32 or int64 scalars.
Output MatrixBandPart(const Scope& scope, const Input& input, const Input& num_lower, const Input& num_upper);

}  // namespace ops
}  // namespace tensoract

#endif  // TENSORACT_GRAPH_BUILDER_MATRIX_DIAG_OPS_H_
