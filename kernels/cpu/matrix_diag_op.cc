// The diagonal ops on the CPU: Diag, DiagPart, MatrixDiag(V3), MatrixDiagPart(V3),
// MatrixSetDiag(V3) and MatrixBandPart, each for the types TensorFlow 2.21's CPU kernels
// take, with TensorFlow's checks and words.
//
// The V3 ops see diagonal d of a [rows, cols] matrix (d > 0 above the main one) as the
// elements (n + max(0, -d), n + max(0, d)) for n < len(d) = min(rows + min(d, 0),
// cols - max(d, 0)), stored in row upper - d of a [num_diags, max_len] block, shifted right
// by max_len - len(d) where `align` right-aligns it (superdiagonals by its first word,
// subdiagonals by its second). The v1 ops are V3 with k = 0 and zero padding.
#include <Eigen/Core>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/cpu/strided_copy.h"
#include "kernels/dtype_dispatch.h"

namespace tensoract {
namespace {

// TensorFlow's ComputeOffset: where diagonal d starts in its row of the block.
int64_t DiagOffset(int64_t d, int64_t max_len, int64_t rows, int64_t cols, bool left_super, bool left_sub) {
  const bool left = (d >= 0 && left_super) || (d <= 0 && left_sub);
  if (left) return 0;
  const int64_t len = std::min(rows + std::min<int64_t>(0, d), cols - std::max<int64_t>(0, d));
  return max_len - len;
}

// The diagonal range of V3's k (input `i`): a scalar or a vector of one or two int32s.
Status ReadDiagRange(const OpKernel& k, const Tensor& t, int64_t* lower, int64_t* upper) {
  if (t.dims() > 1) {
    return errors::InvalidArgument(NodePrefix(k), "diag_index must be a scalar or vector, received shape: ",
                                   t.shape().DebugString());
  }
  if (t.NumElements() == 0) return errors::InvalidArgument(NodePrefix(k), "Expected diag_index to have at least 1 element");
  if (t.dims() == 1 && t.dim_size(0) > 2) {
    return errors::InvalidArgument(NodePrefix(k), "diag_index must have only one or two elements, received ",
                                   t.dim_size(0), " elements.");
  }
  *lower = t.base<int32_t>()[0];
  *upper = t.NumElements() == 2 ? t.base<int32_t>()[1] : *lower;
  return Status::OK();
}

Status ReadAlign(OpKernelConstruction* ctx, bool* left_super, bool* left_sub) {
  *left_super = true;  // v1 ops: no align attr, one diagonal, no padding
  *left_sub = true;
  if (!ctx->def().attr().count("align")) return Status::OK();
  std::string align;
  TA_RETURN_IF_ERROR(ctx->GetAttr("align", &align));
  *left_super = align == "LEFT_LEFT" || align == "LEFT_RIGHT";
  *left_sub = align == "LEFT_LEFT" || align == "RIGHT_LEFT";
  return Status::OK();
}

Status CheckDiagRange(const OpKernel& k, int64_t rows, int64_t cols, int64_t lower, int64_t upper) {
  if (!((-rows < lower && lower < cols) || lower == 0)) {
    return errors::InvalidArgument(NodePrefix(k), "lower_diag_index is out of bound: ", lower, ". It must be between ",
                                   -rows, " and ", cols);
  }
  if (!((-rows < upper && upper < cols) || upper == 0)) {
    return errors::InvalidArgument(NodePrefix(k), "upper_diag_index is out of bound: ", upper, " It must be between ",
                                   -rows, " and ", cols);
  }
  if (lower > upper) {
    return errors::InvalidArgument(NodePrefix(k), "lower_diag_index must not be larger than upper_diag_index: ",
                                   lower, " > ", upper);
  }
  return Status::OK();
}

int64_t MaxDiagLen(int64_t rows, int64_t cols, int64_t lower, int64_t upper) {
  return std::min(rows + std::min<int64_t>(upper, 0), cols - std::max<int64_t>(lower, 0));
}

// MatrixDiagPart (v1) and MatrixDiagPartV3.
template <class T>
class MatrixDiagPartOp : public OpKernel {
 public:
  explicit MatrixDiagPartOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    Status s = ReadAlign(ctx, &left_super_, &left_sub_);
    if (!s.ok()) ctx->SetStatus(s);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    int64_t lower = 0, upper = 0;
    T padding = T{};
    if (ctx->num_inputs() > 1) {
      OP_REQUIRES_OK(ctx, ReadDiagRange(*this, ctx->input(1), &lower, &upper));
      const Tensor& padding_t = ctx->input(2);
      OP_REQUIRES(ctx, padding_t.NumElements() == 1,
                  errors::InvalidArgument(NodePrefix(*this), "Padding must be scalar."));
      padding = ElementsAs<T>(padding_t)[0];
    }
    const int rank = input.dims();
    OP_REQUIRES(ctx, rank >= 2,
                errors::InvalidArgument(NodePrefix(*this), "input must be at least 2-dim, received shape: ",
                                        input.shape().DebugString()));
    const int64_t rows = input.dim_size(rank - 2), cols = input.dim_size(rank - 1);
    OP_REQUIRES_OK(ctx, CheckDiagRange(*this, rows, cols, lower, upper));
    const int64_t num_diags = upper - lower + 1, max_len = MaxDiagLen(rows, cols, lower, upper);
    std::vector<int64_t> out_dims = input.shape().dim_sizes();  // the batch dimensions
    out_dims.resize(rank - 2);
    if (num_diags > 1) out_dims.push_back(num_diags);
    out_dims.push_back(max_len);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(out_dims), &out));
    if (out->NumElements() == 0) return;
    const int64_t batches = rows * cols == 0 ? 0 : input.NumElements() / (rows * cols);
    const T* in = ElementsAs<T>(input);
    T* o = ElementsAs<T>(*out);
    for (int64_t b = 0; b < batches; ++b) {
      for (int64_t d = upper; d >= lower; --d) {
        const int64_t offset = DiagOffset(d, max_len, rows, cols, left_super_, left_sub_);
        const int64_t y0 = std::max<int64_t>(0, -d), x0 = std::max<int64_t>(0, d);
        for (int64_t n = 0; n < max_len; ++n) {
          const int64_t y = n + y0 - offset, x = n + x0 - offset;
          *o++ = (y >= 0 && y < rows && x >= 0 && x < cols) ? in[(b * rows + y) * cols + x] : padding;
        }
      }
    }
  }

 private:
  bool left_super_ = true, left_sub_ = true;
};

// MatrixDiag (v1) and MatrixDiagV3.
template <class T>
class MatrixDiagOp : public OpKernel {
 public:
  explicit MatrixDiagOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    Status s = ReadAlign(ctx, &left_super_, &left_sub_);
    if (!s.ok()) ctx->SetStatus(s);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& diagonal = ctx->input(0);
    int64_t lower = 0, upper = 0, rows = -1, cols = -1;
    T padding = T{};
    if (ctx->num_inputs() > 1) {
      OP_REQUIRES_OK(ctx, ReadDiagRange(*this, ctx->input(1), &lower, &upper));
      OP_REQUIRES(ctx, ctx->input(2).dims() == 0,
                  errors::InvalidArgument(NodePrefix(*this), "num_rows must be a scalar"));
      rows = ctx->input(2).base<int32_t>()[0];
      OP_REQUIRES(ctx, ctx->input(3).dims() == 0,
                  errors::InvalidArgument(NodePrefix(*this), "num_cols must be a scalar"));
      cols = ctx->input(3).base<int32_t>()[0];
      const Tensor& padding_t = ctx->input(4);
      OP_REQUIRES(ctx, padding_t.NumElements() == 1,
                  errors::InvalidArgument(NodePrefix(*this), "Padding must be scalar."));
      padding = ElementsAs<T>(padding_t)[0];
    }
    const int rank = diagonal.dims();
    const int64_t num_diags = upper - lower + 1;
    OP_REQUIRES(ctx, rank >= 1,
                errors::InvalidArgument(NodePrefix(*this), "diagonal must be at least 1-dim, received shape: ",
                                        diagonal.shape().DebugString()));
    OP_REQUIRES(ctx, lower <= upper,
                errors::InvalidArgument(NodePrefix(*this),
                                        "lower_diag_index must not be larger than upper_diag_index: ", lower, " > ",
                                        upper));
    OP_REQUIRES(ctx, lower == upper || (rank >= 2 && diagonal.dim_size(rank - 2) == num_diags),
                errors::InvalidArgument(NodePrefix(*this),
                                        "The number of diagonals provided in the input does not match the "
                                        "lower_diag_index and upper_diag_index range."));
    const int64_t max_len = diagonal.dim_size(rank - 1);
    const int64_t min_rows = max_len - std::min<int64_t>(upper, 0), min_cols = max_len + std::max<int64_t>(lower, 0);
    OP_REQUIRES(ctx, rows == -1 || rows >= min_rows,
                errors::InvalidArgument(NodePrefix(*this), "The number of rows is too small."));
    OP_REQUIRES(ctx, cols == -1 || cols >= min_cols,
                errors::InvalidArgument(NodePrefix(*this), "The number of columns is too small."));
    if (rows == -1 && cols == -1) {
      rows = cols = std::max(min_rows, min_cols);
    } else if (rows == -1) {
      rows = min_rows;
    } else if (cols == -1) {
      cols = min_cols;
    }
    OP_REQUIRES(ctx, rows == min_rows || cols == min_cols,
                errors::InvalidArgument(NodePrefix(*this),
                                        "The number of rows or columns is not consistent with the specified d_lower, "
                                        "d_upper, and diagonal."));
    std::vector<int64_t> out_dims = diagonal.shape().dim_sizes();
    if (num_diags == 1) {
      out_dims.back() = rows;
      out_dims.push_back(cols);
    } else {
      out_dims[rank - 2] = rows;
      out_dims[rank - 1] = cols;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(out_dims), &out));
    if (out->NumElements() == 0) return;
    const int64_t batches = out->NumElements() / (rows * cols);
    const T* in = ElementsAs<T>(diagonal);
    T* o = ElementsAs<T>(*out);
    for (int64_t b = 0; b < batches; ++b) {
      const T* block = in + b * num_diags * max_len;
      for (int64_t i = 0; i < rows; ++i) {
        for (int64_t j = 0; j < cols; ++j) {
          const int64_t d = j - i;
          if (d < lower || d > upper) {
            *o++ = padding;
            continue;
          }
          const int64_t offset = DiagOffset(d, max_len, rows, cols, left_super_, left_sub_);
          *o++ = block[(upper - d) * max_len + j - std::max<int64_t>(d, 0) + offset];
        }
      }
    }
  }

 private:
  bool left_super_ = true, left_sub_ = true;
};

// MatrixSetDiag (v1) and MatrixSetDiagV3.
template <class T>
class MatrixSetDiagOp : public OpKernel {
 public:
  explicit MatrixSetDiagOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    Status s = ReadAlign(ctx, &left_super_, &left_sub_);
    if (!s.ok()) ctx->SetStatus(s);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& diag = ctx->input(1);
    int64_t lower = 0, upper = 0;
    if (ctx->num_inputs() > 2) OP_REQUIRES_OK(ctx, ReadDiagRange(*this, ctx->input(2), &lower, &upper));
    const int rank = input.dims();
    OP_REQUIRES(ctx, rank >= 2,
                errors::InvalidArgument(NodePrefix(*this), "input must be at least 2-dim, received shape: ",
                                        input.shape().DebugString()));
    OP_REQUIRES(ctx, diag.dims() >= 1,
                errors::InvalidArgument(NodePrefix(*this), "diagonal must be at least 1-dim, received shape: ",
                                        diag.shape().DebugString()));
    const int64_t rows = input.dim_size(rank - 2), cols = input.dim_size(rank - 1);
    OP_REQUIRES_OK(ctx, CheckDiagRange(*this, rows, cols, lower, upper));
    const int64_t num_diags = upper - lower + 1;
    OP_REQUIRES(ctx, lower == upper || (diag.dims() > rank - 2 && diag.dim_size(rank - 2) == num_diags),
                errors::InvalidArgument(NodePrefix(*this),
                                        "The number of diagonals provided in `diag` is not consistent with "
                                        "`lower_diag_index` and `upper_diag_index`"));
    const int64_t max_len = MaxDiagLen(rows, cols, lower, upper);
    std::vector<int64_t> expected = input.shape().dim_sizes();  // the batch dimensions
    expected.resize(rank - 2);
    if (num_diags > 1) expected.push_back(num_diags);
    expected.push_back(max_len);
    OP_REQUIRES(ctx, diag.shape().dim_sizes() == expected,
                errors::InvalidArgument(
                    NodePrefix(*this),
                    "Either first dimensions of diagonal don't match input.shape[:-2], or diagonal.shape[:-1] is not "
                    "equal to the longests diagonal in range [lower_diag_index:upper_diag_index].\nInput shape: ",
                    input.shape().DebugString(), "\nDiagonal shape: ", diag.shape().DebugString(),
                    "\nExpected diagonal shape: ", TensorShape(expected).DebugString()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    if (out->NumElements() == 0) return;
    std::copy(ElementsAs<T>(input), ElementsAs<T>(input) + input.NumElements(), ElementsAs<T>(*out));
    const int64_t batches = input.NumElements() / (rows * cols);
    const T* in = ElementsAs<T>(diag);
    T* o = ElementsAs<T>(*out);
    for (int64_t b = 0; b < batches; ++b) {
      const T* block = in + b * num_diags * max_len;
      T* matrix = o + b * rows * cols;
      for (int64_t d = lower; d <= upper; ++d) {
        const int64_t offset = DiagOffset(d, max_len, rows, cols, left_super_, left_sub_);
        const int64_t y0 = std::max<int64_t>(0, -d), x0 = std::max<int64_t>(0, d);
        const int64_t len = std::min(rows - y0, cols - x0);
        for (int64_t n = 0; n < len; ++n) matrix[(n + y0) * cols + n + x0] = block[(upper - d) * max_len + n + offset];
      }
    }
  }

 private:
  bool left_super_ = true, left_sub_ = true;
};

template <class T>
class MatrixBandPartOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const int rank = input.dims();
    OP_REQUIRES(ctx, rank >= 2,
                errors::InvalidArgument(NodePrefix(*this), "input must be at least 2-dim, received shape: ",
                                        input.shape().DebugString()));
    const int64_t rows = input.dim_size(rank - 2), cols = input.dim_size(rank - 1);
    const Tensor& lower_t = ctx->input(1);
    OP_REQUIRES(ctx, lower_t.dims() == 0,
                errors::InvalidArgument(NodePrefix(*this), "num_lower must be scalar, got shape ",
                                        lower_t.shape().DebugString()));
    const int64_t num_lower = IndexValues(lower_t)[0];
    OP_REQUIRES(ctx, num_lower <= rows,
                errors::InvalidArgument(NodePrefix(*this),
                                        "num_lower must be negative or less or equal to number of rows (", rows,
                                        ") got: ", num_lower));
    const Tensor& upper_t = ctx->input(2);
    OP_REQUIRES(ctx, upper_t.dims() == 0,
                errors::InvalidArgument(NodePrefix(*this), "num_upper must be scalar, got shape ",
                                        upper_t.shape().DebugString()));
    const int64_t num_upper = IndexValues(upper_t)[0];
    OP_REQUIRES(ctx, num_upper <= cols,
                errors::InvalidArgument(NodePrefix(*this),
                                        "num_upper must be negative or less or equal to number of columns (", cols,
                                        ") got: ", num_upper));
    if (input.NumElements() == 0 ||
        ((num_lower < 0 || num_lower == rows) && (num_upper < 0 || num_upper == cols))) {
      ctx->set_output(0, input);
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    const int64_t batches = input.NumElements() / (rows * cols);
    const T* in = ElementsAs<T>(input);
    T* o = ElementsAs<T>(*out);
    for (int64_t b = 0; b < batches; ++b) {
      for (int64_t i = 0; i < rows; ++i) {
        for (int64_t j = 0; j < cols; ++j, ++in, ++o) {
          const bool keep = (num_lower < 0 || i - j <= num_lower) && (num_upper < 0 || j - i <= num_upper);
          *o = keep ? *in : T{};
        }
      }
    }
  }
};

template <class T>
class DiagOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& diagonal = ctx->input(0);
    OP_REQUIRES(ctx, diagonal.dims() != 0,
                errors::InvalidArgument(NodePrefix(*this), "Input must be at least rank 1, got 0"));
    const std::vector<int64_t> half = diagonal.shape().dim_sizes();
    std::vector<int64_t> dims = half;
    dims.insert(dims.end(), half.begin(), half.end());
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(dims), &out));
    const int64_t n = diagonal.NumElements();
    T* o = ElementsAs<T>(*out);
    std::fill(o, o + out->NumElements(), T{});
    for (int64_t i = 0; i < n; ++i) o[i * (n + 1)] = ElementsAs<T>(diagonal)[i];
  }
};

template <class T>
class DiagPartOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const int rank = input.dims(), half = rank / 2;
    OP_REQUIRES(ctx, rank % 2 == 0,
                errors::InvalidArgument(NodePrefix(*this), "The rank of the tensor should be even and positive, got shape ",
                                        input.shape().DebugString()));
    for (int i = 0; i < half; ++i) {
      OP_REQUIRES(ctx, input.dim_size(i) == input.dim_size(i + half),
                  errors::InvalidArgument(NodePrefix(*this), "Invalid shape ", input.shape().DebugString(),
                                          ": dimensions ", i, " and ", i + half, " do not match."));
    }
    std::vector<int64_t> dims = input.shape().dim_sizes();
    dims.resize(half);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(dims), &out));
    const int64_t n = out->NumElements();
    for (int64_t i = 0; i < n; ++i) ElementsAs<T>(*out)[i] = ElementsAs<T>(input)[i * (n + 1)];
  }
};

// Each kernel only moves elements (and writes zeros): one instantiation per element size.
#define TA_REGISTER_MATRIX_DIAG(T)                                                                                 \
  REGISTER_KERNEL(Name("MatrixDiag").Device(DEVICE_CPU).TypeConstraint<T>("T"), MatrixDiagOp<ElementBits<T>>);      \
  REGISTER_KERNEL(Name("MatrixDiagV3").Device(DEVICE_CPU).TypeConstraint<T>("T"), MatrixDiagOp<ElementBits<T>>);    \
  REGISTER_KERNEL(Name("MatrixDiagPart").Device(DEVICE_CPU).TypeConstraint<T>("T"),                                 \
                  MatrixDiagPartOp<ElementBits<T>>);                                                                 \
  REGISTER_KERNEL(Name("MatrixDiagPartV3").Device(DEVICE_CPU).TypeConstraint<T>("T"),                               \
                  MatrixDiagPartOp<ElementBits<T>>);                                                                 \
  REGISTER_KERNEL(Name("MatrixSetDiag").Device(DEVICE_CPU).TypeConstraint<T>("T"), MatrixSetDiagOp<ElementBits<T>>); \
  REGISTER_KERNEL(Name("MatrixSetDiagV3").Device(DEVICE_CPU).TypeConstraint<T>("T"),                                \
                  MatrixSetDiagOp<ElementBits<T>>);                                                                  \
  REGISTER_KERNEL(Name("MatrixBandPart").Device(DEVICE_CPU).TypeConstraint<T>("T"), MatrixBandPartOp<ElementBits<T>>)
// TensorFlow's TF_CALL_POD_TYPES: the number types and bool.
TA_CALL_NUMBER_TYPES(TA_REGISTER_MATRIX_DIAG);
TA_REGISTER_MATRIX_DIAG(bool);
#undef TA_REGISTER_MATRIX_DIAG

// Diag and DiagPart: TensorFlow's CPU kernels have no bfloat16 (their OpDefs allow it).
#define TA_REGISTER_DIAG(T)                                                                          \
  REGISTER_KERNEL(Name("Diag").Device(DEVICE_CPU).TypeConstraint<T>("T"), DiagOp<ElementBits<T>>); \
  REGISTER_KERNEL(Name("DiagPart").Device(DEVICE_CPU).TypeConstraint<T>("T"), DiagPartOp<ElementBits<T>>)
TA_REGISTER_DIAG(Eigen::half);
TA_REGISTER_DIAG(float);
TA_REGISTER_DIAG(double);
TA_REGISTER_DIAG(int32_t);
TA_REGISTER_DIAG(int64_t);
TA_REGISTER_DIAG(complex64);
TA_REGISTER_DIAG(complex128);
#undef TA_REGISTER_DIAG

}  // namespace
}  // namespace tensoract
