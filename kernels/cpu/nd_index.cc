#include "kernels/cpu/nd_index.h"

namespace tensoract {

Status ReadBadIndicesPolicy(OpKernelConstruction* ctx, bool* ignore) {
  std::string policy;
  TA_RETURN_IF_ERROR(ctx->GetAttr("bad_indices_policy", &policy));
  if (policy == "IGNORE") *ignore = true;
  else if (policy.empty() || policy == "DEFAULT" || policy == "ERROR") *ignore = false;
  else return errors::InvalidArgument("Unknown bad indices handling attribute: ", policy);
  return Status::OK();
}

std::string TupleString(const std::vector<int64_t>& idx, int64_t i, int64_t depth) {
  std::string s = "[";
  for (int64_t j = 0; j < depth; ++j) s += (j ? ", " : "") + std::to_string(idx[i * depth + j]);
  return s + "]";
}

int64_t SliceOffset(const std::vector<int64_t>& idx, int64_t i, int64_t depth, const TensorShape& shape,
                    int64_t slice) {
  int64_t offset = 0;
  for (int64_t j = 0; j < depth; ++j) {
    const int64_t v = idx[i * depth + j];
    if (v < 0 || v >= shape.dim_size(static_cast<int>(j))) return -1;
    offset = offset * shape.dim_size(static_cast<int>(j)) + v;
  }
  return offset * slice;
}

}  // namespace tensoract
