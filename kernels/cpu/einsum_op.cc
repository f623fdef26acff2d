// Einsum on the CPU, TensorFlow 2.21's algorithm and refusals (its einsum_op_impl.h) in
// three moves, none of them a loop over the whole index space:
//
//   1. Each operand is copied once (StridedCopy) into the order [broadcast, batch, free,
//      contract, reduce], a repeated label read along its diagonal (the stride of every axis
//      it labels, summed), and its reduce labels (in no other operand, not in the output)
//      summed away: [batch..., F, C], F and C the free and contracted sizes flattened.
//   2. Two operands: one matrix product per batch element, [F0, C] x [F1, C]^T (MatMul's
//      GEMM for float and double, in blocks of rows over the threads), the batch
//      dimensions broadcast right-aligned as BatchMatMul's (the ellipses' dimensions come
//      first, then the named batch labels, so "..." broadcasts as NumPy's).
//   3. The result [batch..., F0..., F1...] is copied into the output's label order; an output
//      label written twice ("i->ii") gets the diagonal of a zero tensor.
//
// Labels are any characters but '.': their kinds follow from where they occur (TensorFlow's
// kBroadcasting/kBatch/kFree/kContract/kReduce). Sizes of a label must agree across its axes
// (a size 0 seen first does not count, as there).
#include <algorithm>
#include <map>
#include <numeric>
#include <type_traits>

#include <Eigen/Core>

#include "graph/einsum_equation.h"
#include "kernels/cpu/cwise_ops.h"
#include "kernels/cpu/integer_gemm.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/strided_copy.h"
#include "kernels/dtype_dispatch.h"

namespace tensoract {
namespace {

constexpr int kEllipsis = -1;
// TensorFlow takes diagonals and inflates outputs with rank-templated Eigen code up to this
// many distinct labels, and refuses more (here any rank would do; its refusal is kept).
constexpr size_t kMaxDiagonalRank = 6;
enum Kind { kBroadcasting = 0, kBatch = 1, kFree = 2, kContract = 3, kReduce = 4 };

using Labels = std::vector<int>;

// One operand after step 1: the tensor [batch..., F, C] and the labels of its dimensions in
// order (batch, then free, then the contracted ones, which the product consumes).
struct Reduced {
  Tensor t;
  Labels batch_labels, free_labels;
  std::vector<int64_t> batch_dims, free_dims;
  int64_t free_size = 1, contract_size = 1;
  // TensorFlow's layout of this operand, [batch..., F, C] or, where its axes were already in
  // [batch, contract, free] order, [batch..., C, F]: only its messages show it.
  TensorShape tf_shape;
};

// TensorFlow's ShouldSwapFreeAndContract: the labels already ordered as [broadcast, batch,
// contract, free, reduce] (ties by label), so its kernel skips the transpose.
bool ContractBeforeFree(const Labels& labels, const std::vector<int>& kinds) {
  static const int kRemap[] = {0, 1, 3, 2, 4};
  for (size_t i = 0; i + 1 < labels.size(); ++i) {
    const int a = kRemap[kinds[labels[i]]], b = kRemap[kinds[labels[i + 1]]];
    if (a > b || (a == b && labels[i] > labels[i + 1])) return false;
  }
  return true;
}

template <class T>
using Acc = std::conditional_t<std::is_integral_v<T> && std::is_signed_v<T>,
                               std::make_unsigned_t<std::conditional_t<std::is_integral_v<T>, T, int>>, T>;

template <class T>
class EinsumOp : public OpKernel {
 public:
  explicit EinsumOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string equation;
    Status s = ctx->GetAttr("equation", &equation);
    std::vector<std::string> inputs;
    std::string output;
    if (s.ok()) s = SplitEinsumEquation(equation, &inputs, &output);
    if (!s.ok()) {
      ctx->SetStatus(s);
      return;
    }
    std::map<char, int> ids;
    auto map_labels = [&](const std::string& sub, Labels* labels) {
      for (size_t i = 0; i < sub.size(); ++i) {
        if (sub[i] == '.') {
          labels->push_back(kEllipsis);
          i += 2;
          continue;
        }
        auto it = ids.emplace(sub[i], static_cast<int>(ids.size())).first;
        labels->push_back(it->second);
      }
    };
    input_labels_.resize(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) map_labels(inputs[i], &input_labels_[i]);
    map_labels(output, &output_labels_);
    num_named_ = static_cast<int>(ids.size());
  }

  void Compute(OpKernelContext* ctx) override {
    const int n = ctx->num_inputs();
    OP_REQUIRES(ctx, static_cast<size_t>(n) == input_labels_.size(),
                errors::InvalidArgument(NodePrefix(*this), "Expected ", input_labels_.size(), " inputs but got: ", n));
    // Counts of each named label per operand and in the output.
    std::vector<std::vector<int>> in_counts(n, std::vector<int>(num_named_, 0));
    std::vector<int> out_counts(num_named_, 0);
    for (int i = 0; i < n; ++i) {
      for (int l : input_labels_[i]) {
        if (l != kEllipsis) ++in_counts[i][l];
      }
    }
    for (int l : output_labels_) {
      if (l != kEllipsis) ++out_counts[l];
    }
    std::vector<int> kinds(num_named_);
    for (int l = 0; l < num_named_; ++l) {
      const bool removed = out_counts[l] == 0;
      const bool unique = n == 1 || in_counts[0][l] == 0 || in_counts[1][l] == 0;
      kinds[l] = removed ? (unique ? kReduce : kContract) : (unique ? kFree : kBatch);
    }
    // Sizes of the named labels, and each operand's labels with its ellipsis expanded into
    // broadcast labels num_named_, num_named_ + 1, ...
    std::vector<int64_t> sizes(num_named_, 0);
    std::vector<Labels> labels(n);
    int max_bcast = 0;
    bool any_ellipsis = false;
    for (int i = 0; i < n; ++i) {
      const Tensor& x = ctx->input(i);
      const Labels& sub = input_labels_[i];
      const bool ellipsis = std::find(sub.begin(), sub.end(), kEllipsis) != sub.end();
      any_ellipsis |= ellipsis;
      const int rank = x.dims();
      const int subs = static_cast<int>(sub.size());
      if (!ellipsis) {
        OP_REQUIRES(ctx, rank == subs,
                    errors::InvalidArgument(NodePrefix(*this), "Expected input ", i, " to have rank ", subs,
                                            " but got: ", rank));
      } else {
        OP_REQUIRES(ctx, rank + 1 >= subs,
                    errors::InvalidArgument(NodePrefix(*this), "Expected input ", i, " to have rank at least ",
                                            subs - 1, " but got: ", rank));
      }
      const int num_bcast = ellipsis ? rank - subs + 1 : 0;
      int axis = 0;
      for (int l : sub) {
        if (l == kEllipsis) {
          for (int b = 0; b < num_bcast; ++b) labels[i].push_back(num_named_ + b);
          axis += num_bcast;
          continue;
        }
        const int64_t dim = x.dim_size(axis);
        OP_REQUIRES(ctx, sizes[l] == 0 || sizes[l] == dim,
                    errors::InvalidArgument(NodePrefix(*this), "Expected dimension ", sizes[l], " at axis ", axis,
                                            " of the input shaped ", x.shape().DebugString(), " but got dimension ",
                                            dim));
        sizes[l] = dim;
        labels[i].push_back(l);
        ++axis;
      }
      max_bcast = std::max(max_bcast, num_bcast);
    }
    Labels out_labels;
    bool out_ellipsis = false;
    for (int l : output_labels_) {
      if (l != kEllipsis) {
        out_labels.push_back(l);
        continue;
      }
      out_ellipsis = true;
      for (int b = 0; b < max_bcast; ++b) out_labels.push_back(num_named_ + b);
    }
    OP_REQUIRES(ctx, out_ellipsis || !any_ellipsis || max_bcast == 0,
                errors::InvalidArgument(NodePrefix(*this), "Output contains ", max_bcast,
                                        " broadcasting dimension(s) but no ellipsis (...) was found in the output "
                                        "subscripts."));
    for (int l = 0; l < num_named_; ++l) {
      // Only a graph whose shape function was skipped gets here (TensorFlow's refuses it).
      OP_REQUIRES(ctx, out_counts[l] == 0 || in_counts[0][l] > 0 || (n == 2 && in_counts[1][l] > 0),
                  errors::InvalidArgument(NodePrefix(*this), "output label ", l,
                                          " is not present in the input subscripts"));
    }
    kinds.resize(num_named_ + max_bcast, kBroadcasting);

    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      if (n == 2 && max_bcast == 0 && ContractInPlace(ctx, labels, kinds, sizes, out_labels)) return;
    }

    std::vector<Reduced> reduced(n);
    for (int i = 0; i < n; ++i) {
      ReduceOperand(ctx, ctx->input(i), labels[i], kinds, &reduced[i]);
      if (!ctx->status().ok()) return;
    }

    // Step 2: the product (or, for one operand, the operand itself), as
    // [batch..., free0..., free1...] with its labels.
    Labels result_labels;
    std::vector<int64_t> result_dims;
    Tensor result;
    if (n == 1) {
      result = reduced[0].t;
      result_labels = reduced[0].batch_labels;
      result_dims = reduced[0].batch_dims;
    } else {
      Contract(ctx, reduced[0], reduced[1], &result, &result_dims);
      if (!ctx->status().ok()) return;
      // The broadcast labels (right-aligned, so the longest operand's), then the named batch ones.
      for (int b = 0; b < max_bcast; ++b) result_labels.push_back(num_named_ + b);
      for (int l = 0; l < num_named_; ++l) {
        if (kinds[l] == kBatch) result_labels.push_back(l);
      }
    }
    for (int i = 0; i < n; ++i) {
      result_labels.insert(result_labels.end(), reduced[i].free_labels.begin(), reduced[i].free_labels.end());
      result_dims.insert(result_dims.end(), reduced[i].free_dims.begin(), reduced[i].free_dims.end());
    }

    // Step 3: into the output's order; a label the output repeats writes its diagonal.
    std::map<int, int64_t> dim_of;
    for (size_t k = 0; k < result_labels.size(); ++k) dim_of[result_labels[k]] = result_dims[k];
    std::vector<int64_t> out_dims;
    bool inflate = false;
    for (int l : out_labels) {
      out_dims.push_back(dim_of.at(l));
      if (l < num_named_ && out_counts[l] > 1) inflate = true;
    }
    OP_REQUIRES(ctx, !inflate || result_labels.size() <= kMaxDiagonalRank,
                errors::Unimplemented(NodePrefix(*this), "Unsupported rank: ", result_labels.size(),
                                      " while handling repeated indices. Up to rank 6 is supported."));
    const std::vector<int64_t> out_strides = RowMajorStrides(TensorShape(out_dims));
    StridedView dst;
    dst.strides.assign(result_labels.size(), 0);
    for (size_t k = 0; k < result_labels.size(); ++k) {
      for (size_t a = 0; a < out_labels.size(); ++a) {
        if (out_labels[a] == result_labels[k]) dst.strides[k] += out_strides[a];
      }
    }
    StridedView src;
    src.strides = RowMajorStrides(TensorShape(result_dims));
    if (!inflate && dst.strides == src.strides) {
      // Already in the output's order (a dense layer's "abc,cde->abde"): the result is it.
      ctx->set_output(0, result.Reshaped(TensorShape(out_dims)).value());
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(out_dims), &out));
    if (out->NumElements() == 0) return;
    if (inflate) FillElements(ctx, nullptr, out);
    StridedCopy(ctx, result, src, out, dst, result_dims);
  }

 private:
  // Step 1 for one operand.
  void ReduceOperand(OpKernelContext* ctx, const Tensor& x, const Labels& labels, const std::vector<int>& kinds,
                     Reduced* r) {
    // Its distinct labels in [kind, label] order, each with its size and the stride that
    // walks it (the sum over the axes it labels: a repeated label's diagonal).
    Labels order = labels;
    std::sort(order.begin(), order.end(), [&](int a, int b) { return std::tie(kinds[a], a) < std::tie(kinds[b], b); });
    order.erase(std::unique(order.begin(), order.end()), order.end());
    OP_REQUIRES(ctx, order.size() == labels.size() || order.size() <= kMaxDiagonalRank,
                errors::Unimplemented(NodePrefix(*this), "Unsupported rank: ", order.size(),
                                      " while handling repeated indices. Up to rank 6 is supported."));
    const std::vector<int64_t> strides = RowMajorStrides(x.shape());
    std::vector<int64_t> dims;
    StridedView src;
    int64_t reduce_size = 1;
    for (int l : order) {
      int64_t stride = 0, dim = -1;
      for (size_t a = 0; a < labels.size(); ++a) {
        if (labels[a] != l) continue;
        stride += strides[a];
        if (dim < 0) dim = x.dim_size(static_cast<int>(a));
      }
      dims.push_back(dim);
      src.strides.push_back(stride);
      switch (kinds[l]) {
        case kBroadcasting:
        case kBatch:
          r->batch_labels.push_back(l);
          r->batch_dims.push_back(dim);
          break;
        case kFree:
          r->free_labels.push_back(l);
          r->free_dims.push_back(dim);
          r->free_size *= dim;
          break;
        case kContract:
          r->contract_size *= dim;
          break;
        default:
          reduce_size *= dim;
      }
    }
    // An operand already in that order (no transpose, no diagonal) is used as it is.
    Tensor gathered;
    if (src.strides == RowMajorStrides(TensorShape(dims))) {
      gathered = x.Reshaped(TensorShape(dims)).value();
    } else {
      gathered = Tensor(x.dtype(), TensorShape(dims));
      if (gathered.NumElements() > 0) {
        StridedView dst;
        dst.strides = RowMajorStrides(gathered.shape());
        StridedCopy(ctx, x, src, &gathered, dst, dims);
      }
    }
    std::vector<int64_t> shape = r->batch_dims;
    shape.push_back(r->free_size);
    shape.push_back(r->contract_size);
    std::vector<int64_t> tf_shape = shape;
    if (ContractBeforeFree(labels, kinds)) std::swap(tf_shape[tf_shape.size() - 2], tf_shape.back());
    r->tf_shape = TensorShape(tf_shape);
    if (reduce_size == 1) {
      r->t = gathered.Reshaped(TensorShape(shape)).value();  // the same elements, no copy
      return;
    }
    // Sum the trailing reduce block of each row (an empty block sums to zero).
    r->t = Tensor(x.dtype(), TensorShape(shape));
    const int64_t rows = r->t.NumElements();
    const T* g = gathered.base<T>();
    T* o = r->t.base<T>();
    CwiseParallelFor(ctx, rows, std::max<int64_t>(1, reduce_size), [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        Acc<T> sum = Acc<T>(T(0));
        const T* row = g + i * reduce_size;
        for (int64_t k = 0; k < reduce_size; ++k) sum = sum + static_cast<Acc<T>>(row[k]);
        o[i] = static_cast<T>(sum);
      }
    });
  }

  // Step 2 for two operands: out[b] = a[b] (F0 x C) times b[b]^T (C x F1), batch broadcast.
  void Contract(OpKernelContext* ctx, const Reduced& a, const Reduced& b, Tensor* out,
                std::vector<int64_t>* batch) {
    const int ar = static_cast<int>(a.batch_dims.size()), br = static_cast<int>(b.batch_dims.size());
    const int rank = std::max(ar, br);
    std::vector<int64_t> ad(rank, 1), bd(rank, 1);
    std::copy(a.batch_dims.begin(), a.batch_dims.end(), ad.begin() + (rank - ar));
    std::copy(b.batch_dims.begin(), b.batch_dims.end(), bd.begin() + (rank - br));
    batch->assign(rank, 1);
    for (int d = 0; d < rank; ++d) {
      OP_REQUIRES(ctx, ad[d] == bd[d] || ad[d] == 1 || bd[d] == 1,
                  errors::InvalidArgument(NodePrefix(*this), "Invalid broadcasting dimensions: ",
                                          a.tf_shape.DebugString(), " vs. ", b.tf_shape.DebugString()));
      (*batch)[d] = ad[d] == 1 ? bd[d] : ad[d];
    }
    const int64_t m = a.free_size, nn = b.free_size, k = a.contract_size;
    std::vector<int64_t> shape = *batch;
    shape.push_back(m);
    shape.push_back(nn);
    *out = Tensor(a.t.dtype(), TensorShape(shape));
    const int64_t count = std::accumulate(batch->begin(), batch->end(), int64_t{1}, std::multiplies<int64_t>());
    if (out->NumElements() == 0) return;
    T* o = out->base<T>();
    if (a.t.NumElements() == 0 || b.t.NumElements() == 0) {
      std::fill(o, o + out->NumElements(), T(0));
      return;
    }
    // Each side's matrix index for output matrix i (strides 0 where that side broadcasts).
    std::vector<int64_t> as(rank, 0), bs(rank, 0);
    for (int d = rank - 1, sa = 1, sb = 1; d >= 0; --d) {
      if (ad[d] != 1) as[d] = sa;
      if (bd[d] != 1) bs[d] = sb;
      sa *= ad[d];
      sb *= bd[d];
    }
    using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    const T* ap = a.t.base<T>();
    const T* bp = b.t.base<T>();
    // Work items are blocks of rows of one output matrix, so a single large product is
    // spread over the threads too; float and double take the packed GEMM MatMul uses. GEMM
    // packs all of b's matrix for every block, so a product of many rows (Keras' EinsumDense
    // projections: [batch * tokens, C] x [C, heads * depth]) takes about two blocks per
    // thread, not a block per 64 rows (a ViT at batch 32: the projections 45 -> 14 ms).
    const int threads = ctx->device() == nullptr ? 1 : std::max(1, ctx->device()->num_threads());
    const int64_t kRowsPerItem = std::max<int64_t>(64, (m + 2 * threads - 1) / (2 * threads));
    const int64_t blocks = (m + kRowsPerItem - 1) / kRowsPerItem;
    CwiseParallelFor(ctx, count * blocks, std::max<int64_t>(1, std::min(m, kRowsPerItem) * nn * k),
                     [&](int64_t begin, int64_t end) {
      for (int64_t item = begin; item < end; ++item) {
        const int64_t i = item / blocks, r0 = (item % blocks) * kRowsPerItem, rows = std::min(kRowsPerItem, m - r0);
        int64_t ai = 0, bi = 0, rest = i;
        for (int d = rank - 1; d >= 0; --d) {
          const int64_t idx = rest % (*batch)[d];
          rest /= (*batch)[d];
          ai += idx * as[d];
          bi += idx * bs[d];
        }
        const T* a_rows = ap + (ai * m + r0) * k;
        const T* b_mat = bp + bi * nn * k;
        T* c_rows = o + (i * m + r0) * nn;
        if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
          gemm::Gemm(false, true, rows, nn, k, a_rows, k, b_mat, k, c_rows, nn, false);
        } else if constexpr (std::is_integral_v<T>) {
          IntegerGemmRows(false, true, 0, rows, nn, k, a_rows, k, b_mat, k, c_rows, nn);
        } else {
          Eigen::Map<const Matrix> ma(a_rows, rows, k);
          Eigen::Map<const Matrix> mb(b_mat, nn, k);
          Eigen::Map<Matrix> c(c_rows, rows, nn);
          c.noalias() = ma * mb.transpose();
        }
      }
    });
  }

  // The size and stride of `group` (labels of one operand or of the output, in the order
  // they are read) taken as one dimension, when its axes are laid out as one: each label's
  // stride its successor's times the successor's size (labels of size 1 are skipped). An
  // empty group is one element.
  static bool Collapse(const Labels& group, const std::map<int, int64_t>& strides, const std::vector<int64_t>& sizes,
                       int64_t* size, int64_t* stride) {
    *size = 1;
    *stride = 0;
    int64_t expected = -1;
    for (int l : group) {
      if (sizes[l] == 1) continue;
      const int64_t st = strides.at(l);
      if (expected >= 0 && expected != st * sizes[l]) return false;
      *size *= sizes[l];
      expected = st;
      *stride = st;
    }
    return true;
  }

  // A [rows, cols] matrix whose rows and columns lie `row_stride` and `col_stride` apart, as
  // a GEMM operand: stored as it is (columns contiguous; leading dimension the row stride)
  // or transposed (rows contiguous; leading dimension the column stride). False when
  // neither is contiguous.
  static bool AsGemmOperand(int64_t rows, int64_t cols, int64_t row_stride, int64_t col_stride, bool* transposed,
                            int64_t* ld) {
    if (cols == 1 || col_stride == 1) {
      *transposed = false;
      *ld = rows == 1 ? cols : row_stride;
      return true;
    }
    if (rows == 1 || row_stride == 1) {
      *transposed = true;
      *ld = col_stride;
      return true;
    }
    return false;
  }

  // Two operands, each label once per operand and in the output, none summed away alone:
  // when each side's free labels, its contracted ones and the output's two free groups are
  // each laid out as one dimension, every product reads its matrices where they lie and
  // writes its result into the output directly, one GEMM per batch element with leading
  // dimensions, instead of copying both operands into [batch, free, contract] order and the
  // result into the output's (Keras' attention, "BTNH,BSNH->BNTS" and "BNTS,BSNH->BTNH":
  // three copies of a [batch, tokens, heads, depth] tensor per product). False when the
  // equation is not of that kind; the general path then runs.
  bool ContractInPlace(OpKernelContext* ctx, const std::vector<Labels>& labels, const std::vector<int>& kinds,
                       const std::vector<int64_t>& sizes, const Labels& out_labels) {
    std::vector<int> seen(num_named_, 0);
    for (const Labels* ls : {&labels[0], &labels[1], &out_labels}) {
      std::fill(seen.begin(), seen.end(), 0);
      for (int l : *ls) {
        if (l >= num_named_ || ++seen[l] > 1 || kinds[l] == kReduce || sizes[l] <= 0) return false;
      }
    }
    auto strides_of = [&](const Labels& ls) {
      std::map<int, int64_t> st;
      int64_t stride = 1;
      for (int i = static_cast<int>(ls.size()) - 1; i >= 0; --i) {
        st[ls[i]] = stride;
        stride *= sizes[ls[i]];
      }
      return st;
    };
    const std::map<int, int64_t> sa = strides_of(labels[0]), sb = strides_of(labels[1]), sc = strides_of(out_labels);
    Labels batch, free0, free1, contract;
    for (int l : out_labels) {
      if (kinds[l] == kBatch) batch.push_back(l);
      else if (sa.count(l)) free0.push_back(l);
      else free1.push_back(l);
    }
    for (int l : labels[0]) {
      if (kinds[l] == kContract) contract.push_back(l);
    }
    int64_t m, sa_free, k, sa_contract, n, sb_free, k1, sb_contract, m1, sc_free0, n1, sc_free1;
    if (!Collapse(free0, sa, sizes, &m, &sa_free) || !Collapse(contract, sa, sizes, &k, &sa_contract) ||
        !Collapse(free1, sb, sizes, &n, &sb_free) || !Collapse(contract, sb, sizes, &k1, &sb_contract) ||
        !Collapse(free0, sc, sizes, &m1, &sc_free0) || !Collapse(free1, sc, sizes, &n1, &sc_free1)) {
      return false;
    }
    // op(a) [m, k] and op(b) [k, n], each as stored or transposed.
    bool trans_a, trans_b;
    int64_t lda, ldb;
    if (!AsGemmOperand(m, k, sa_free, sa_contract, &trans_a, &lda) ||
        !AsGemmOperand(k, n, sb_contract, sb_free, &trans_b, &ldb)) {
      return false;
    }
    // c [m, n]: output rows, its second free group contiguous.
    if (n > 1 && sc_free1 != 1) return false;
    const int64_t ldc = m == 1 ? n : sc_free0;

    std::vector<int64_t> out_dims;
    for (int l : out_labels) out_dims.push_back(sizes[l]);
    Tensor* out = nullptr;
    Status allocated = ctx->allocate_output(0, TensorShape(out_dims), &out);
    if (!allocated.ok()) {
      ctx->SetStatus(allocated);
      return true;
    }
    const T* ap = ctx->input(0).template base<T>();
    const T* bp = ctx->input(1).template base<T>();
    T* cp = out->base<T>();
    int64_t count = 1;
    for (int l : batch) count *= sizes[l];
    // As Contract: blocks of rows of each batch element's product, about two per thread.
    const int threads = ctx->device() == nullptr ? 1 : std::max(1, ctx->device()->num_threads());
    const int64_t rows_per_item = std::max<int64_t>(64, (m + 2 * threads - 1) / (2 * threads));
    const int64_t blocks = (m + rows_per_item - 1) / rows_per_item;
    CwiseParallelFor(ctx, count * blocks, std::max<int64_t>(1, std::min(m, rows_per_item) * n * k),
                     [&](int64_t begin, int64_t end) {
      for (int64_t item = begin; item < end; ++item) {
        const int64_t i = item / blocks, r0 = (item % blocks) * rows_per_item, rows = std::min(rows_per_item, m - r0);
        int64_t oa = 0, ob = 0, oc = 0, rest = i;
        for (int d = static_cast<int>(batch.size()) - 1; d >= 0; --d) {
          const int l = batch[d];
          const int64_t idx = rest % sizes[l];
          rest /= sizes[l];
          oa += idx * sa.at(l);
          ob += idx * sb.at(l);
          oc += idx * sc.at(l);
        }
        gemm::Gemm(trans_a, trans_b, rows, n, k, ap + oa + r0 * sa_free, lda, bp + ob, ldb, cp + oc + r0 * ldc, ldc,
                   false);
      }
    });
    return true;
  }

  std::vector<Labels> input_labels_;
  Labels output_labels_;
  int num_named_ = 0;
};

#define TA_REGISTER(T) REGISTER_KERNEL(Name("Einsum").Device(DEVICE_CPU).TypeConstraint<T>("T"), EinsumOp<T>)
TA_REGISTER(float);
TA_REGISTER(double);
TA_REGISTER(Eigen::half);
TA_REGISTER(Eigen::bfloat16);
TA_REGISTER(int32_t);
TA_REGISTER(int64_t);
TA_REGISTER(complex64);
TA_REGISTER(complex128);
#undef TA_REGISTER

}  // namespace
}  // namespace tensoract
