// SparseSoftmaxCrossEntropyWithLogits and SoftmaxCrossEntropyWithLogits on the CPU.
//
// Per row of logits x and label distribution p (one-hot for the sparse op):
//   loss     = log(sum(exp(x - max))) - sum(p * (x - max))
//   backprop = softmax(x) - p
// Rows are spread over the device's threads when there are many. half and bfloat16 take
// TensorFlow's steps (xent_op.h, sparse_xent_op.h), each rounded to T as its Eigen
// expressions round them, its sums in its Eigen's order (kernels/cpu/small_float_sum.h):
//   shifted  = x - max;  sum = sum(exp(shifted));  backprop = exp(shifted) / sum - p
//   loss     = sum(p * (log(sum) - shifted))  (sparse: log(sum) - shifted[label])
#include <algorithm>
#include <cmath>
#include <sstream>
#include <type_traits>
#include <vector>

#include "kernels/cpu/small_float_sum.h"
#include "kernels/kernel_registry.h"
#include "kernels/tensor_eigen.h"

namespace tensoract {
namespace {

using Index = Eigen::DenseIndex;

template <class T>
using Array = Eigen::Array<T, Eigen::Dynamic, 1>;

template <class T>
constexpr bool kSmallFloat = std::is_same_v<T, Eigen::half> || std::is_same_v<T, Eigen::bfloat16>;

// Row `r` of a half or bfloat16 cross entropy, TensorFlow's way: x and p (p null: the sparse
// op, whose label is `label`) are the row's classes; e is scratch of as many floats. Writes
// the row's backprop and returns its loss.
template <class T>
T SmallFloatXentRow(const T* x, const T* p, int64_t label, int64_t r, int64_t classes, float* e, T* backprop) {
  float max = static_cast<float>(x[0]);
  for (int64_t i = 1; i < classes; ++i) max = std::max(max, static_cast<float>(x[i]));
  auto shifted = [&](int64_t i) { return RoundedTo<T>(static_cast<float>(x[i]) - max); };
  for (int64_t i = 0; i < classes; ++i) e[i] = RoundedTo<T>(std::exp(shifted(i)));
  const float sum = EigenRowSum<T>(e, r * classes, classes);
  const float log_sum = RoundedTo<T>(std::log(sum));
  float loss;
  if (p == nullptr) {
    loss = RoundedTo<T>(log_sum - shifted(label)) + 0.f;  // summed with zeros: -0 is +0
  } else {
    std::vector<float> terms(classes);
    for (int64_t i = 0; i < classes; ++i) {
      terms[i] = RoundedTo<T>(static_cast<float>(p[i]) * RoundedTo<T>(log_sum - shifted(i)));
    }
    loss = EigenRowSum<T>(terms.data(), r * classes, classes);
  }
  for (int64_t i = 0; i < classes; ++i) {
    const float label_i = p == nullptr ? (i == label ? 1.f : 0.f) : static_cast<float>(p[i]);
    backprop[i] = static_cast<T>(RoundedTo<T>(e[i] / sum) - label_i);
  }
  return static_cast<T>(loss);
}

Eigen::TensorOpCost RowCost(Index classes, size_t bytes) {
  return Eigen::TensorOpCost(2 * classes * bytes, classes * bytes, 25 * classes);
}

template <class T, class Label>
class SparseXentOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& logits = ctx->input(0);
    const Tensor& labels = ctx->input(1);
    const std::string where = StrCat(" (node '", name(), "')");
    OP_REQUIRES(ctx, logits.dims() == 2,
                errors::InvalidArgument("logits must be 2-D, but got shape ", logits.shape().DebugString(), where));
    OP_REQUIRES(ctx, labels.dims() == 1,
                errors::InvalidArgument("labels must be 1-D, but got shape ", labels.shape().DebugString(), where));
    OP_REQUIRES(ctx, logits.dim_size(0) == labels.dim_size(0),
                errors::InvalidArgument("logits and labels must have the same first dimension, got logits shape ",
                                        logits.shape().DebugString(), " and labels shape ",
                                        labels.shape().DebugString(), where));
    const Index batch = logits.dim_size(0), classes = logits.dim_size(1);
    OP_REQUIRES(ctx, classes > 0 || batch == 0,
                errors::InvalidArgument("Must have at least one class, but got logits shape ",
                                        logits.shape().DebugString(), where));
    const Label* lp = labels.base<Label>();
    for (Index i = 0; i < batch; ++i) {
      if (lp[i] < 0 || lp[i] >= classes) {
        std::ostringstream all;
        for (Index j = 0; j < batch; ++j) all << (j ? " " : "") << lp[j];
        ctx->SetStatus(errors::InvalidArgument("Received a label value of ", lp[i],
                                               " which is outside the valid range of [0, ", classes,
                                               ").  Label values: ", all.str(), where));
        return;
      }
    }
    Tensor *loss = nullptr, *backprop = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({batch}), &loss));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, logits.shape(), &backprop));
    if (batch == 0) return;
    const T* xp = logits.base<T>();
    T* lossp = loss->base<T>();
    T* bp = backprop->base<T>();
    auto work = [=](Index first, Index last) {
      if constexpr (kSmallFloat<T>) {
        std::vector<float> e(classes);
        for (Index r = first; r < last; ++r) {
          lossp[r] = SmallFloatXentRow<T>(xp + r * classes, nullptr, static_cast<int64_t>(lp[r]), r, classes, e.data(),
                                          bp + r * classes);
        }
      } else {
        for (Index r = first; r < last; ++r) {
          Eigen::Map<const Array<T>> x(xp + r * classes, classes);
          Eigen::Map<Array<T>> b(bp + r * classes, classes);
          b = x - x.maxCoeff();
          const T label_logit = b[lp[r]];
          b = b.exp();
          const T sum = b.sum();
          lossp[r] = std::log(sum) - label_logit;
          b *= T(1) / sum;
          b[lp[r]] -= T(1);
        }
      }
    };
    ctx->device()->eigen_cpu_device()->parallelFor(batch, RowCost(classes, sizeof(T)), work);
  }
  bool IsExpensive() const override { return false; }
};

// Logits and labels may broadcast against each other, as TensorFlow's kernel allows: each
// is read as a matrix (a vector as one row), whose dimensions equal the result's or are 1.
template <class T>
class XentOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& logits = ctx->input(0);
    const Tensor& labels = ctx->input(1);
    const std::string where = StrCat(" (node '", name(), "')");
    Index xd[2], ld[2];
    const bool ranks_ok = AsMatrix(logits.shape(), xd) && AsMatrix(labels.shape(), ld);
    Index dims[2];
    bool broadcastable = ranks_ok;
    for (int i = 0; i < 2 && broadcastable; ++i) {
      broadcastable = xd[i] == ld[i] || xd[i] == 1 || ld[i] == 1;
      dims[i] = xd[i] == 1 ? ld[i] : xd[i];
    }
    OP_REQUIRES(ctx, broadcastable,
                errors::InvalidArgument("logits and labels must be broadcastable: logits_size=",
                                        logits.shape().DebugString(), " labels_size=", labels.shape().DebugString(),
                                        where));
    OP_REQUIRES(ctx, logits.dims() == 2 || labels.dims() == 2,
                errors::InvalidArgument("logits and labels must be either 2-dimensional, or broadcasted to be "
                                        "2-dimensional",
                                        where));
    const Index batch = dims[0], classes = dims[1];
    Tensor *loss = nullptr, *backprop = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({batch}), &loss));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({batch, classes}), &backprop));
    if (batch == 0 || classes == 0) {
      if (batch > 0) loss->flat<T>().setZero();
      return;
    }
    const T* xp = logits.base<T>();
    const T* pp = labels.base<T>();
    T* lossp = loss->base<T>();
    T* bp = backprop->base<T>();
    const Index x_row = xd[0] == 1 ? 0 : xd[1], p_row = ld[0] == 1 ? 0 : ld[1];
    const bool x_bcast = xd[1] == 1, p_bcast = ld[1] == 1;
    auto work = [=](Index first, Index last) {
      Array<T> x(classes), p(classes);
      std::vector<float> e(kSmallFloat<T> ? classes : 0);
      for (Index r = first; r < last; ++r) {
        if (x_bcast) x.setConstant(xp[r * x_row]);
        else x = Eigen::Map<const Array<T>>(xp + r * x_row, classes);
        if (p_bcast) p.setConstant(pp[r * p_row]);
        else p = Eigen::Map<const Array<T>>(pp + r * p_row, classes);
        if constexpr (kSmallFloat<T>) {
          lossp[r] = SmallFloatXentRow<T>(x.data(), p.data(), 0, r, classes, e.data(), bp + r * classes);
        } else {
          Eigen::Map<Array<T>> b(bp + r * classes, classes);
          b = x - x.maxCoeff();
          const T dot = (p * b).sum();
          b = b.exp();
          const T sum = b.sum();
          lossp[r] = std::log(sum) * p.sum() - dot;
          b = b * (T(1) / sum) - p;
        }
      }
    };
    ctx->device()->eigen_cpu_device()->parallelFor(batch, RowCost(classes, sizeof(T)), work);
  }
  bool IsExpensive() const override { return false; }

 private:
  // [rows, cols] of a tensor of rank 0 to 2; false for a higher rank.
  static bool AsMatrix(const TensorShape& s, Index d[2]) {
    if (s.dims() > 2) return false;
    d[0] = s.dims() == 2 ? s.dim_size(0) : 1;
    d[1] = s.dims() >= 1 ? s.dim_size(s.dims() - 1) : 1;
    return true;
  }
};

#define TA_REGISTER_XENT(T)                                                                            \
  REGISTER_KERNEL(Name("SoftmaxCrossEntropyWithLogits").Device(DEVICE_CPU).TypeConstraint<T>("T"),     \
                  XentOp<T>);                                                                          \
  REGISTER_KERNEL(Name("SparseSoftmaxCrossEntropyWithLogits")                                          \
                      .Device(DEVICE_CPU)                                                              \
                      .TypeConstraint<T>("T")                                                          \
                      .TypeConstraint<int32_t>("Tlabels"),                                             \
                  SparseXentOp<T, int32_t>);                                                           \
  REGISTER_KERNEL(Name("SparseSoftmaxCrossEntropyWithLogits")                                          \
                      .Device(DEVICE_CPU)                                                              \
                      .TypeConstraint<T>("T")                                                          \
                      .TypeConstraint<int64_t>("Tlabels"),                                             \
                  SparseXentOp<T, int64_t>);
TA_REGISTER_XENT(float)
TA_REGISTER_XENT(double)
TA_REGISTER_XENT(Eigen::half)
TA_REGISTER_XENT(Eigen::bfloat16)
#undef TA_REGISTER_XENT

}  // namespace
}  // namespace tensoract
