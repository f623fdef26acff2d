// MatMul in bfloat16 through oneDNN (see onednn_matmul.h).
#include "kernels/cpu/onednn_matmul.h"

#include <algorithm>
#include <string>
#include <vector>

#include "kernels/cpu/bfloat16_products.h"
#include "kernels/cpu/cwise_ops.h"
#include "kernels/device.h"

#ifdef TENSORACT_HAVE_ONEDNN
#include "kernels/cpu/onednn_util.h"
#endif

namespace tensoract {

#ifdef TENSORACT_HAVE_ONEDNN

struct OnednnMatMul::Entry {
  bool unsupported = false;
  dnnl::matmul::primitive_desc pd;
  std::unique_ptr<OnednnExecutable> exec;  // run on the source and destination buffers
  dnnl::memory::desc user_weights;  // b as a float [k, n] with its strides
};

OnednnMatMul::OnednnMatMul() : weights_(std::make_unique<OnednnWeightCache>()) {}
OnednnMatMul::~OnednnMatMul() = default;

std::shared_ptr<OnednnMatMul::Entry> OnednnMatMul::EntryFor(bool transpose_a, bool transpose_b, int64_t rows,
                                                            int64_t cols, int64_t n, int64_t k, int64_t lda) {
  using dnnl::memory;
  const Key key{transpose_a, transpose_b, rows, cols, n, k, lda};
  return cache_.Get(key, [&](Entry* made) {
    // a's rows [lo, lo + rows) as a [rows, k] matrix in place: row-major with leading
    // dimension lda, or its transpose.
    const memory::desc src({rows, k}, memory::data_type::bf16,
                           transpose_a ? memory::dims{1, lda} : memory::dims{lda, 1});
    made->user_weights = memory::desc({k, n}, memory::data_type::f32, transpose_b ? memory::dims{1, k} : memory::dims{n, 1});
    const memory::desc weights({k, cols}, memory::data_type::bf16, memory::format_tag::any);
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
  // Too few rows for a block a thread (a classifier at batch 1), slices of the output's
  // columns instead, one a thread, each multiplying by its own slice of the weights: by rows
  // one thread streamed all of them (MobileNetV2's 1280 x 1000 at batch 1: 2.5 MB in
  // bfloat16, 0.29 ms a step).
  const int threads = ctx->device() == nullptr ? 1 : ctx->device()->num_threads();
  const int64_t row_blocks = std::max<int64_t>(1, std::min<int64_t>(2 * threads, m / 16));
  const bool by_columns = row_blocks < threads && n >= 64 * threads;
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
    // a rounded as it lies (its rows, or its columns when transposed).
    auto rounded = RoundedToBfloat16(ctx, a, transpose_a ? k * lda : m * lda);
    if (!rounded.ok()) return false;
    return OnednnRunPieces(ctx, static_cast<int64_t>(pieces.size()), [&](int64_t i, dnnl::stream& stream) {
      const Piece& p = pieces[i];
      uint16_t* src = static_cast<uint16_t*>(rounded->data()) + (transpose_a ? p.row : p.row * lda);
      float* dst = c + p.row * n + p.col;
      entries[i]->exec->Run(stream, {src, dst}, weights[i].get());
      stream.wait();
      after(dst, p.rows, p.cols, p.col);
    });
  } catch (const dnnl::error& e) {
    return OnednnFellBack(ctx, e.what());
  }
}

#else  // !TENSORACT_HAVE_ONEDNN

struct OnednnMatMul::Entry {};
class OnednnWeightCache {};
OnednnMatMul::OnednnMatMul() = default;
OnednnMatMul::~OnednnMatMul() = default;
bool OnednnMatMul::Run(OpKernelContext*, bool, bool, int64_t, int64_t, int64_t, const float*, int64_t, const Tensor&,
                       float*, const std::function<void(float*, int64_t, int64_t, int64_t)>&) {
  return false;
}

#endif  // TENSORACT_HAVE_ONEDNN

}  // namespace tensoract
