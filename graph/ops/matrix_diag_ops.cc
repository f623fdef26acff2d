// Ops that read or write the diagonals of matrices: Diag and DiagPart (a tensor's diagonal
// as in linear algebra over rank-2k tensors), MatrixDiag, MatrixDiagPart, MatrixSetDiag and
// their V3 forms (a band of diagonals k = [lower, upper] of the innermost matrices, shorter
// diagonals padded and aligned by `align`), and MatrixBandPart. Definitions and shape
// functions match TensorFlow 2.21's.
#include <algorithm>
#include <string>
#include <vector>

#include "graph/common_shape_fns.h"
#include "graph/op_registry.h"

namespace tensoract {
namespace {

using shape_inference::InferenceContext;
using shape_inference::kUnknownDim;

// TensorFlow's InferenceContext::Min: 0 if either is 0, else unknown if either is.
int64_t DiagMinDim(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  if (!InferenceContext::ValueKnown(a) || !InferenceContext::ValueKnown(b)) return kUnknownDim;
  return std::min(a, b);
}

// The diagonal range k of input `i` (a scalar, or a vector of one or two values), when its
// shape and value are known; TensorFlow's ReadDiagIndex.
Status DiagIndexOf(InferenceContext* c, int i, bool* known, int64_t* lower, int64_t* upper) {
  *known = false;
  const PartialTensorShape& shape = c->input(i);
  if (!InferenceContext::FullyDefined(shape)) return Status::OK();
  std::vector<int64_t> k;
  bool have = false;
  TA_RETURN_IF_ERROR(c->GetIntValues(i, &k, &have));
  if (!have) return Status::OK();
  if (shape.dims() == 1 && k.size() != 1 && k.size() != 2) {
    return errors::InvalidArgument("diag_index must be a vector with one or two elements. It has ", k.size(),
                                   " elements.");
  }
  if (k.empty()) return Status::OK();
  *lower = static_cast<int32_t>(k[0]);
  *upper = static_cast<int32_t>(k.size() == 2 ? k[1] : k[0]);
  *known = true;
  if (*lower > *upper) return errors::InvalidArgument("lower_diag_index is greater than upper_diag_index");
  return Status::OK();
}

// lower and upper inside a [rows, cols] matrix (0 always is).
Status CheckDiagBounds(int64_t rows, int64_t cols, int64_t lower, int64_t upper) {
  if (!InferenceContext::ValueKnown(rows) || !InferenceContext::ValueKnown(cols)) return Status::OK();
  if (lower != 0 && (-rows >= lower || lower >= cols)) return errors::InvalidArgument("lower_diag_index is out of bound.");
  if (upper != 0 && (-rows >= upper || upper >= cols)) return errors::InvalidArgument("upper_diag_index is out of bound.");
  return Status::OK();
}

Status DiagShape(InferenceContext* c) {
  PartialTensorShape in, out;
  TA_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, &in));
  TA_RETURN_IF_ERROR(c->Concatenate(in, in, &out));
  c->set_output(0, out);
  return Status::OK();
}

Status DiagPartShape(InferenceContext* c) {
  const PartialTensorShape& in = c->input(0);
  if (!InferenceContext::RankKnown(in)) return shape_inference::UnknownShape(c);
  const int rank = in.dims();
  if (rank % 2 != 0 || rank <= 0) {
    return errors::InvalidArgument("Input must have even and non-zero rank, input rank is ", rank);
  }
  const int mid = rank / 2;
  std::vector<int64_t> dims(mid);
  for (int i = 0; i < mid; ++i) {
    TA_RETURN_IF_ERROR(c->MergeDim(InferenceContext::Dim(in, i), InferenceContext::Dim(in, i + mid), &dims[i]));
  }
  c->set_output(0, InferenceContext::MakeShape(std::move(dims)));
  return Status::OK();
}

Status MatrixDiagShape(InferenceContext* c) {
  PartialTensorShape in, out;
  TA_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, &in));
  if (!InferenceContext::RankKnown(in)) return shape_inference::UnknownShape(c);
  TA_RETURN_IF_ERROR(c->Concatenate(in, InferenceContext::Vector(InferenceContext::Dim(in, in.dims() - 1)), &out));
  c->set_output(0, out);
  return Status::OK();
}

Status MatrixDiagPartShape(InferenceContext* c) {
  PartialTensorShape in;
  TA_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 2, &in));
  if (!InferenceContext::RankKnown(in)) return shape_inference::UnknownShape(c);
  const int rank = in.dims();
  std::vector<int64_t> dims;
  for (int i = 0; i < rank - 2; ++i) dims.push_back(InferenceContext::Dim(in, i));
  dims.push_back(DiagMinDim(InferenceContext::Dim(in, rank - 2), InferenceContext::Dim(in, rank - 1)));
  c->set_output(0, InferenceContext::MakeShape(std::move(dims)));
  return Status::OK();
}

Status MatrixSetDiagShape(InferenceContext* c) {
  PartialTensorShape input, diag;
  TA_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 2, &input));
  TA_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(1), 1, &diag));
  if (InferenceContext::RankKnown(input)) TA_RETURN_IF_ERROR(c->WithRank(c->input(1), input.dims() - 1, &diag));
  if (InferenceContext::RankKnown(input) && InferenceContext::RankKnown(diag)) {
    const int64_t smallest = DiagMinDim(InferenceContext::Dim(input, input.dims() - 2),
                                        InferenceContext::Dim(input, input.dims() - 1));
    int64_t unused;
    TA_RETURN_IF_ERROR(c->MergeDim(smallest, InferenceContext::Dim(diag, diag.dims() - 1), &unused));
  }
  PartialTensorShape out = input;
  if (InferenceContext::RankKnown(diag) && !InferenceContext::FullyDefined(input)) {
    std::vector<int64_t> dims = InferenceContext::Dims(diag);
    dims.back() = kUnknownDim;
    dims.push_back(kUnknownDim);
    TA_RETURN_IF_ERROR(c->Merge(input, InferenceContext::MakeShape(std::move(dims)), &out));
  }
  c->set_output(0, out);
  return Status::OK();
}

Status MatrixDiagPartV3Shape(InferenceContext* c) {
  PartialTensorShape input, k_shape, unused;
  TA_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 2, &input));
  TA_RETURN_IF_ERROR(c->WithRankAtMost(c->input(1), 1, &k_shape));
  TA_RETURN_IF_ERROR(c->WithRank(c->input(2), 0, &unused));
  bool known = false;
  int64_t lower = 0, upper = 0;
  if (!InferenceContext::RankKnown(input)) return shape_inference::UnknownShape(c);
  TA_RETURN_IF_ERROR(DiagIndexOf(c, 1, &known, &lower, &upper));
  if (!known) return shape_inference::UnknownShape(c);
  const int rank = input.dims();
  const int64_t rows = InferenceContext::Dim(input, rank - 2), cols = InferenceContext::Dim(input, rank - 1);
  TA_RETURN_IF_ERROR(CheckDiagBounds(rows, cols, lower, upper));
  int64_t max_len = kUnknownDim;
  if (InferenceContext::ValueKnown(rows) && InferenceContext::ValueKnown(cols)) {
    max_len = std::min(rows + std::min<int64_t>(upper, 0), cols - std::max<int64_t>(lower, 0));
  }
  std::vector<int64_t> dims;
  for (int i = 0; i < rank - 2; ++i) dims.push_back(InferenceContext::Dim(input, i));
  if (lower < upper) dims.push_back(upper - lower + 1);
  dims.push_back(max_len);
  c->set_output(0, InferenceContext::MakeShape(std::move(dims)));
  return Status::OK();
}

Status MatrixDiagV3Shape(InferenceContext* c) {
  PartialTensorShape diag, k_shape, unused;
  TA_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, &diag));
  TA_RETURN_IF_ERROR(c->WithRankAtMost(c->input(1), 1, &k_shape));
  for (int i = 2; i <= 4; ++i) TA_RETURN_IF_ERROR(c->WithRank(c->input(i), 0, &unused));
  if (!InferenceContext::RankKnown(diag)) return shape_inference::UnknownShape(c);
  bool known = false;
  int64_t lower = 0, upper = 0;
  TA_RETURN_IF_ERROR(DiagIndexOf(c, 1, &known, &lower, &upper));
  if (!known) return shape_inference::UnknownShape(c);
  const int rank = diag.dims();
  if (lower < upper) {
    const int64_t num_diags = rank >= 2 ? InferenceContext::Dim(diag, rank - 2) : kUnknownDim;
    if (num_diags != upper - lower + 1) {
      return errors::InvalidArgument(
          "The number of rows of `diagonal` doesn't match the number of diagonals implied from `d_lower` and "
          "`d_upper`.\nnum_diags = ", num_diags, ", d_lower = ", lower, ", d_upper = ", upper);
    }
  }
  std::vector<int64_t> rows_value, cols_value;
  bool rows_known = false, cols_known = false;
  TA_RETURN_IF_ERROR(c->GetIntValues(2, &rows_value, &rows_known));
  TA_RETURN_IF_ERROR(c->GetIntValues(3, &cols_value, &cols_known));
  int64_t rows = rows_known && rows_value.size() == 1 ? rows_value[0] : -1;
  int64_t cols = cols_known && cols_value.size() == 1 ? cols_value[0] : -1;
  const int64_t max_len = InferenceContext::Dim(diag, rank - 1);
  std::vector<int64_t> dims = InferenceContext::Dims(diag);
  if (lower < upper) dims.pop_back();
  dims.pop_back();
  if (!InferenceContext::ValueKnown(max_len)) {
    // TensorFlow computes with the unknown length as -1 here; without it only given sizes are known.
    dims.push_back(rows >= 0 ? rows : kUnknownDim);
    dims.push_back(cols >= 0 ? cols : kUnknownDim);
    c->set_output(0, InferenceContext::MakeShape(std::move(dims)));
    return Status::OK();
  }
  const int64_t min_rows = max_len - std::min<int64_t>(upper, 0), min_cols = max_len + std::max<int64_t>(lower, 0);
  if (rows == -1 && cols == -1) {
    rows = cols = std::max(min_rows, min_cols);
  } else if (rows == -1) {
    rows = min_rows;
  } else if (cols == -1) {
    cols = min_cols;
  }
  if (rows < min_rows) return errors::InvalidArgument("num_rows is too small");
  if (cols < min_cols) return errors::InvalidArgument("num_cols is too small.");
  if (rows != min_rows && cols != min_cols) {
    return errors::InvalidArgument(
        "num_rows and num_cols are not consistent with lower_diag_index, upper_diag_index, and the length of the "
        "given diagonals.\nnum_rows = ", rows, " != min_num_rows = ", min_rows, ", num_cols = ", cols,
        " != min_num_cols = ", min_cols);
  }
  dims.push_back(rows);
  dims.push_back(cols);
  c->set_output(0, InferenceContext::MakeShape(std::move(dims)));
  return Status::OK();
}

Status MatrixSetDiagV3Shape(InferenceContext* c) {
  PartialTensorShape input, diag, k_shape;
  TA_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 2, &input));
  TA_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(1), 1, &diag));
  TA_RETURN_IF_ERROR(c->WithRankAtMost(c->input(2), 1, &k_shape));
  bool known = false;
  int64_t lower = 0, upper = 0;
  TA_RETURN_IF_ERROR(DiagIndexOf(c, 2, &known, &lower, &upper));
  if (InferenceContext::RankKnown(input)) {
    const int rank = input.dims();
    if (known) {
      TA_RETURN_IF_ERROR(c->WithRank(c->input(1), lower == upper ? rank - 1 : rank, &diag));
    } else {
      TA_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(1), rank - 1, &diag));
      TA_RETURN_IF_ERROR(c->WithRankAtMost(c->input(1), rank, &diag));
    }
    TA_RETURN_IF_ERROR(
        CheckDiagBounds(InferenceContext::Dim(input, rank - 2), InferenceContext::Dim(input, rank - 1), lower, upper));
  }
  PartialTensorShape out = input;
  if (InferenceContext::RankKnown(diag) && !InferenceContext::FullyDefined(input)) {
    std::vector<int64_t> dims = InferenceContext::Dims(diag);
    const size_t keep = lower == upper ? 1 : 2;
    if (dims.size() >= keep) {
      dims.resize(dims.size() - keep);
      dims.push_back(kUnknownDim);
      dims.push_back(kUnknownDim);
      TA_RETURN_IF_ERROR(c->Merge(input, InferenceContext::MakeShape(std::move(dims)), &out));
    }
  }
  c->set_output(0, out);
  return Status::OK();
}

}  // namespace
}  // namespace tensoract

REGISTER_OP("Diag")
    .Input("diagonal: T").Output("output: T")
    .Attr("T: {bfloat16, half, float, double, int32, int64, complex64, complex128}")
    .SetShapeFn(tensoract::DiagShape)
    .Doc("A tensor of shape diagonal.shape + diagonal.shape, zero but for output[i..., i...] = diagonal[i...].");

REGISTER_OP("DiagPart")
    .Input("input: T").Output("diagonal: T")
    .Attr("T: {bfloat16, half, float, double, int32, int64, complex64, complex128}")
    .SetShapeFn(tensoract::DiagPartShape)
    .Doc("Diag's inverse: diagonal[i...] = input[i..., i...] of a tensor of shape s + s.");

REGISTER_OP("MatrixDiag")
    .Input("diagonal: T").Output("output: T")
    .Attr("T: type")
    .SetShapeFn(tensoract::MatrixDiagShape)
    .Doc("Square matrices, zero but for their main diagonals, which are `diagonal`'s innermost vectors.");

REGISTER_OP("MatrixDiagV3")
    .Input("diagonal: T").Input("k: int32").Input("num_rows: int32").Input("num_cols: int32")
    .Input("padding_value: T").Output("output: T")
    .Attr("T: type").Attr("align: {'LEFT_RIGHT', 'RIGHT_LEFT', 'LEFT_LEFT', 'RIGHT_RIGHT'} = 'RIGHT_LEFT'")
    .SetShapeFn(tensoract::MatrixDiagV3Shape)
    .Doc("Matrices of padding_value with the diagonals k[0]..k[1] set from `diagonal` (shorter ones aligned "
         "by `align`).");

REGISTER_OP("MatrixDiagPart")
    .Input("input: T").Output("diagonal: T")
    .Attr("T: type")
    .SetShapeFn(tensoract::MatrixDiagPartShape)
    .Doc("The main diagonal of each innermost matrix.");

REGISTER_OP("MatrixDiagPartV3")
    .Input("input: T").Input("k: int32").Input("padding_value: T").Output("diagonal: T")
    .Attr("T: type").Attr("align: {'LEFT_RIGHT', 'RIGHT_LEFT', 'LEFT_LEFT', 'RIGHT_RIGHT'} = 'RIGHT_LEFT'")
    .SetShapeFn(tensoract::MatrixDiagPartV3Shape)
    .Doc("The diagonals k[0]..k[1] of each innermost matrix, shorter ones padded with padding_value and "
         "aligned by `align`.");

REGISTER_OP("MatrixSetDiag")
    .Input("input: T").Input("diagonal: T").Output("output: T")
    .Attr("T: type")
    .SetShapeFn(tensoract::MatrixSetDiagShape)
    .Doc("`input` with the main diagonal of each innermost matrix replaced by `diagonal`.");

REGISTER_OP("MatrixSetDiagV3")
    .Input("input: T").Input("diagonal: T").Input("k: int32").Output("output: T")
    .Attr("T: type").Attr("align: {'LEFT_RIGHT', 'RIGHT_LEFT', 'LEFT_LEFT', 'RIGHT_RIGHT'} = 'RIGHT_LEFT'")
    .SetShapeFn(tensoract::MatrixSetDiagV3Shape)
    .Doc("`input` with the diagonals k[0]..k[1] of each innermost matrix replaced by `diagonal`'s.");

REGISTER_OP("MatrixBandPart")
    .Input("input: T").Input("num_lower: Tindex").Input("num_upper: Tindex").Output("band: T")
    .Attr("T: type").Attr("Tindex: {int32, int64} = DT_INT64")
    .SetShapeFn(tensoract::shape_inference::UnchangedShape)
    .Doc("Each innermost matrix with the entries outside the band (num_lower below the diagonal, num_upper "
         "above; negative: all) set to zero.");
