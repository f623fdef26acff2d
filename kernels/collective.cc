#include "kernels/collective.h"

#include <algorithm>

#include <Eigen/Core>

namespace tensoract {
namespace {

template <typename T>
void Merge(MergeOp op, T* acc, const T* other, int64_t n) {
  switch (op) {
    case MergeOp::kAdd:
      for (int64_t i = 0; i < n; ++i) acc[i] = acc[i] + other[i];
      break;
    case MergeOp::kMul:
      for (int64_t i = 0; i < n; ++i) acc[i] = acc[i] * other[i];
      break;
    case MergeOp::kMin:
      for (int64_t i = 0; i < n; ++i) acc[i] = other[i] < acc[i] ? other[i] : acc[i];
      break;
    case MergeOp::kMax:
      for (int64_t i = 0; i < n; ++i) acc[i] = acc[i] < other[i] ? other[i] : acc[i];
      break;
  }
}

template <typename T>
void Divide(T* x, int64_t n, int divisor) {
  const T d = static_cast<T>(divisor);
  for (int64_t i = 0; i < n; ++i) x[i] = x[i] / d;
}

}  // namespace

void MergeElements(DataType dtype, MergeOp op, void* acc, const void* other, int64_t n) {
  switch (dtype) {
    case tensorflow::DT_FLOAT: return Merge(op, static_cast<float*>(acc), static_cast<const float*>(other), n);
    case tensorflow::DT_DOUBLE: return Merge(op, static_cast<double*>(acc), static_cast<const double*>(other), n);
    case tensorflow::DT_HALF:
      return Merge(op, static_cast<Eigen::half*>(acc), static_cast<const Eigen::half*>(other), n);
    case tensorflow::DT_BFLOAT16:
      return Merge(op, static_cast<Eigen::bfloat16*>(acc), static_cast<const Eigen::bfloat16*>(other), n);
    case tensorflow::DT_INT32: return Merge(op, static_cast<int32_t*>(acc), static_cast<const int32_t*>(other), n);
    case tensorflow::DT_INT64: return Merge(op, static_cast<int64_t*>(acc), static_cast<const int64_t*>(other), n);
    default: return;  // the op def admits no other type
  }
}

void DivideElements(DataType dtype, void* x, int64_t n, int divisor) {
  switch (dtype) {
    case tensorflow::DT_FLOAT: return Divide(static_cast<float*>(x), n, divisor);
    case tensorflow::DT_DOUBLE: return Divide(static_cast<double*>(x), n, divisor);
    case tensorflow::DT_HALF: return Divide(static_cast<Eigen::half*>(x), n, divisor);
    case tensorflow::DT_BFLOAT16: return Divide(static_cast<Eigen::bfloat16*>(x), n, divisor);
    case tensorflow::DT_INT32: return Divide(static_cast<int32_t*>(x), n, divisor);
    case tensorflow::DT_INT64: return Divide(static_cast<int64_t*>(x), n, divisor);
    default: return;
  }
}

StatusOr<MergeOp> ParseMergeOp(const std::string& name) {
  if (name == "Add") return MergeOp::kAdd;
  if (name == "Mul") return MergeOp::kMul;
  if (name == "Min") return MergeOp::kMin;
  if (name == "Max") return MergeOp::kMax;
  return errors::InvalidArgument("merge_op '", name, "' is not one of Add, Mul, Min, Max");
}

StatusOr<FinalOp> ParseFinalOp(const std::string& name) {
  if (name == "Id") return FinalOp::kId;
  if (name == "Div") return FinalOp::kDiv;
  return errors::InvalidArgument("final_op '", name, "' is not one of Id, Div");
}

}  // namespace tensoract
