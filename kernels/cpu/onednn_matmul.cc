// MatMul in bfloat16 through oneDNN (see onednn_matmul.h).
#include "kernels/cpu/onednn_matmul.h"

#include <algorithm>
#include <string>
#include <vector>

#include "base/bfloat16_rounding.h"
#include "kernels/cpu/bfloat16_products.h"
#include "kernels/cpu/cwise_ops.h"
#include "kernels/device.h"

#ifdef TENSORACT_HAVE_ONEDNN
#include "kernels/cpu/onednn_util.h"
#else
#include "kernels/cpu/onednn_stub.h"
#endif

namespace tensoract {

#ifdef TENSORACT_HAVE_ONEDNN

struct OnednnMatMul::Entry {
  bool unsupported = false;
  dnnl::matmul::primitive_desc pd;
  std::unique_ptr<OnednnExecutable> exec;  // run on the source and destination buffers
  dnnl::memory::desc user_weights;  // b as a float [k, n] with its strides
};

namespace {

// c[r, j] = sum over i of a[r, i] w[i, j] for r < rows and j < cols: `a` holds the rows
// [rows, k] already rounded to bfloat16 (as floats), `w` the bfloat16 weights' columns [k,
// cols] (rows ldw apart), c's rows ldc apart. Four weight rows at a time into float sums
// that stay in L1 (a row of 1,000 columns is 4 KB), each weight read once: the product is
// as fast as its weights stream from memory.
void FewRowsProduct(const float* a, int64_t rows, int64_t k, const uint16_t* w, int64_t ldw, int64_t cols, float* c,
                    int64_t ldc) {
  const auto widen = FloatOfBfloat16Bits;
  for (int64_t r = 0; r < rows; ++r) std::fill(c + r * ldc, c + r * ldc + cols, 0.f);
  int64_t i = 0;
  for (; i + 4 <= k; i += 4) {
    const uint16_t* w0 = w + i * ldw;
    const uint16_t* w1 = w0 + ldw;
    const uint16_t* w2 = w1 + ldw;
    const uint16_t* w3 = w2 + ldw;
    for (int64_t r = 0; r < rows; ++r) {
      const float x0 = a[r * k + i], x1 = a[r * k + i + 1], x2 = a[r * k + i + 2], x3 = a[r * k + i + 3];
      float* out = c + r * ldc;
      for (int64_t j = 0; j < cols; ++j) {
        out[j] += x0 * widen(w0[j]) + x1 * widen(w1[j]) + x2 * widen(w2[j]) + x3 * widen(w3[j]);
      }
    }
  }
  for (; i < k; ++i) {
    const uint16_t* wi = w + i * ldw;
    for (int64_t r = 0; r < rows; ++r) {
      const float x = a[r * k + i];
      float* out = c + r * ldc;
      for (int64_t j = 0; j < cols; ++j) out[j] += x * widen(wi[j]);
    }
  }
}

}  // namespace

OnednnMatMul::OnednnMatMul(bool float_products)
    : weights_(std::make_unique<OnednnWeightCache>()), float_(float_products) {}
OnednnMatMul::~OnednnMatMul() = default;

std::shared_ptr<OnednnMatMul::Entry> OnednnMatMul::EntryFor(bool transpose_a, bool transpose_b, int64_t rows,
                                                            int64_t cols, int64_t n, int64_t k, int64_t lda) {
  using dnnl::memory;
  const Key key{transpose_a, transpose_b, rows, cols, n, k, lda};
  return cache_.Get(key, [&](Entry* made) {
    // a's rows [lo, lo + rows) as a [rows, k] matrix in place: row-major with leading
    // dimension lda, or its transpose.
    const auto operand = float_ ? memory::data_type::f32 : memory::data_type::bf16;
    const memory::desc src({rows, k}, operand,
                           transpose_a ? memory::dims{1, lda} : memory::dims{lda, 1});
    made->user_weights = memory::desc({k, n}, memory::data_type::f32, transpose_b ? memory::dims{1, k} : memory::dims{n, 1});
    const memory::desc weights({k, cols}, operand, memory::format_tag::any);
    // `cols` of the output's n columns, rows n apart.
    const memory::desc dst({rows, cols}, memory::data_type::f32, memory::dims{n, 1});
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);  // one per block: blocks run at once
    made->pd = dnnl::matmul::primitive_desc(dnnl::matmul::desc(src, weights, dst), attr, OnednnEngine());
    RefuseReference(made->pd.impl_info_str());  // its reference loops are slower than our float GEMM
    made->exec = std::make_unique<OnednnExecutable>(made->pd, dnnl::matmul(made->pd),
                                                    std::vector<int>{DNNL_ARG_SRC, DNNL_ARG_DST});
  });
}

bool OnednnMatMul::Run(OpKernelContext* ctx, bool transpose_a, bool transpose_b, int64_t m, int64_t n, int64_t k,
                       const float* a, int64_t lda, const Tensor& b, float* c,
                       const std::function<void(float*, int64_t, int64_t, int64_t)>& after) {
  using dnnl::memory;
  if (m == 0 || n == 0 || k == 0) return false;
  // Blocks of rows, two per thread where there are enough rows (claimed as threads come,
  // so one the OS takes off its core leaves its share to the others), at least 16 rows each.
  // Too few rows for a block a thread (but more than kFewRows: a classifier at batch 8),
  // slices of the output's columns instead, one a thread, each multiplying by its own slice
  // of the weights: by rows one thread streamed all of them (MobileNetV2's 1280 x 1000 at
  // batch 1, before RunFewRows: 2.5 MB in bfloat16, 0.29 ms a step).
  const int threads = ctx->device() == nullptr ? 1 : ctx->device()->num_threads();
  // In float, only what was measured faster than our GEMM: a's rows in place, by blocks of
  // rows (oneDNN's brgemm; for a transposed a and column slices it takes its older jit gemm).
  if (float_ && (m <= kFewRows || transpose_a)) return false;
  if (m <= kFewRows && n >= 64) return RunFewRows(ctx, transpose_a, transpose_b, m, n, k, a, lda, b, c, after);
  const int64_t row_blocks = std::max<int64_t>(1, std::min<int64_t>(2 * threads, m / 16));
  const bool by_columns = row_blocks < threads && n >= 64 * threads;
  if (float_ && by_columns) return false;
  const int64_t row_step = by_columns ? m : (m + row_blocks - 1) / row_blocks;
  const int64_t col_step = by_columns ? (n + threads - 1) / threads : n;
  struct Piece {
    int64_t row, rows, col, cols;
  };
  std::vector<Piece> pieces;
  for (int64_t row = 0; row < m; row += row_step) {
    for (int64_t col = 0; col < n; col += col_step) {
      pieces.push_back({row, std::min(row_step, m - row), col, std::min(col_step, n - col)});
    }
  }
  try {
    std::vector<std::shared_ptr<Entry>> entries;  // per piece (two shapes at most)
    std::vector<std::shared_ptr<memory>> weights;
    for (const Piece& p : pieces) {
      entries.push_back(EntryFor(transpose_a, transpose_b, p.rows, p.cols, n, k, lda));
      if (entries.back()->unsupported) return false;
      const memory::desc& user = entries.back()->user_weights;
      weights.push_back(weights_->Get(ctx, entries.back()->pd.weights_desc(),
                                      by_columns ? user.submemory_desc({k, p.cols}, {0, p.col}) : user, b));
    }
    // In bfloat16, a rounded as it lies (its rows, or its columns when transposed).
    StatusOr<Tensor> rounded = Tensor();
    if (!float_) rounded = RoundedToBfloat16(ctx, a, transpose_a ? k * lda : m * lda);
    if (!rounded.ok()) return false;
    return OnednnRunPieces(ctx, static_cast<int64_t>(pieces.size()), [&](int64_t i, dnnl::stream& stream) {
      const Piece& p = pieces[i];
      const int64_t first = transpose_a ? p.row : p.row * lda;  // elements into a
      void* src = float_ ? static_cast<void*>(const_cast<float*>(a) + first)
                         : static_cast<void*>(static_cast<uint16_t*>(rounded->data()) + first);
      float* dst = c + p.row * n + p.col;
      entries[i]->exec->Run(stream, {src, dst}, weights[i].get());
      stream.wait();
      after(dst, p.rows, p.cols, p.col);
    });
  } catch (const dnnl::error& e) {
    return OnednnFellBack(ctx, e.what());
  }
}

bool OnednnMatMul::RunFewRows(OpKernelContext* ctx, bool transpose_a, bool transpose_b, int64_t m, int64_t n,
                              int64_t k, const float* a, int64_t lda, const Tensor& b, float* c,
                              const std::function<void(float*, int64_t, int64_t, int64_t)>& after) {
  using dnnl::memory;
  // oneDNN 2.6 multiplies one row by its gemm:jit kernel at ~9.5 GB/s of weights a thread
  // (MobileNetV2's classifier at batch 1, half of 1280 x 1000 on each of two threads of a
  // Zen 4: 0.135 ms, ONEDNN_VERBOSE); FewRowsProduct streams them at memory speed.
  try {
    // b rounded into a plain [k, n] bfloat16 copy, kept as oneDNN's layouts are.
    const memory::desc user({k, n}, memory::data_type::f32, transpose_b ? memory::dims{1, k} : memory::dims{n, 1});
    const memory::desc plain({k, n}, memory::data_type::bf16, memory::format_tag::ab);
    const std::shared_ptr<memory> weights = weights_->Get(ctx, plain, user, b);
    const uint16_t* w = static_cast<const uint16_t*>(weights->get_data_handle());
    // a's rows, rounded to bfloat16 as Run rounds a for oneDNN's product (RoundToBfloat16).
    std::vector<float> rows(m * k);
    for (int64_t r = 0; r < m; ++r) {
      for (int64_t i = 0; i < k; ++i) rows[r * k + i] = transpose_a ? a[i * lda + r] : a[r * lda + i];
    }
    std::vector<uint16_t> rounded(m * k);
    RoundToBfloat16(rows.data(), rounded.data(), m * k);
    WidenBfloat16(rounded.data(), rows.data(), m * k);
    // Slices of the columns, one a thread, whole vectors of 16.
    const int threads = ctx->device() == nullptr ? 1 : ctx->device()->num_threads();
    const int64_t step = std::max<int64_t>(16, (n / threads + 15) / 16 * 16);
    const int64_t pieces = (n + step - 1) / step;
    CwiseParallelFor(ctx, pieces, k * step, [&](int64_t first, int64_t last) {
      for (int64_t p = first; p < last; ++p) {
        const int64_t col = p * step, cols = std::min(step, n - col);
        FewRowsProduct(rows.data(), m, k, w + col, n, cols, c + col, n);
        after(c + col, m, cols, col);
      }
    });
    return true;
  } catch (const dnnl::error& e) {
    return OnednnFellBack(ctx, e.what());
  }
}

#else  // !TENSORACT_HAVE_ONEDNN

struct OnednnMatMul::Entry {};
OnednnMatMul::OnednnMatMul(bool float_products) : float_(float_products) {}
OnednnMatMul::~OnednnMatMul() = default;
bool OnednnMatMul::Run(OpKernelContext*, bool, bool, int64_t, int64_t, int64_t, const float*, int64_t, const Tensor&,
                       float*, const std::function<void(float*, int64_t, int64_t, int64_t)>&) {
  return false;
}

#endif  // TENSORACT_HAVE_ONEDNN

}  // namespace tensoract
