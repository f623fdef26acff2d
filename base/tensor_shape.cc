#include "base/tensor_shape.h"

#include <limits>

namespace tensoract {

StatusOr<TensorShape> TensorShape::FromDims(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0) {
      return errors::InvalidArgument("dimension ", i, " of a tensor shape is ", dims[i],
                                     "; every dimension of a tensor must be known and >= 0");
    }
    if (dims[i] > 0 && n > std::numeric_limits<int64_t>::max() / dims[i]) {
      return errors::InvalidArgument("a tensor shape with dimensions up to ", i,
                                     " has more than 2^63 elements");
    }
    n *= dims[i];
  }
  return TensorShape(dims);
}

StatusOr<TensorShape> TensorShape::FromProto(const tensorflow::TensorShapeProto& proto) {
  if (proto.unknown_rank()) {
    return errors::InvalidArgument("a tensor needs a fully known shape, got unknown rank");
  }
  std::vector<int64_t> dims;
  dims.reserve(proto.dim_size());
  for (const auto& d : proto.dim()) dims.push_back(d.size());
  return FromDims(dims);
}

void TensorShape::AsProto(tensorflow::TensorShapeProto* proto) const {
  proto->Clear();
  for (int d = 0; d < rank_; ++d) proto->add_dim()->set_size(dim_size(d));
}

int64_t TensorShape::num_elements() const {
  int64_t n = 1;
  for (int d = 0; d < rank_; ++d) n *= dim_size(d);
  return n;
}

std::vector<int64_t> TensorShape::dim_sizes() const {
  if (rank_ > kInlineDims) return heap_;
  return std::vector<int64_t>(inline_, inline_ + rank_);
}

void TensorShape::AddHeapDim(int64_t size) {
  if (rank_ == kInlineDims) heap_.assign(inline_, inline_ + kInlineDims);
  heap_.push_back(size);
  ++rank_;
}

TensorShape TensorShape::WithoutFirstDim() const {
  TensorShape row;
  for (int d = 1; d < rank_; ++d) row.AddDim(dim_size(d));
  return row;
}

bool TensorShape::operator==(const TensorShape& o) const {
  if (rank_ != o.rank_) return false;
  for (int d = 0; d < rank_; ++d) {
    if (dim_size(d) != o.dim_size(d)) return false;
  }
  return true;
}

static std::string DimsString(const std::vector<int64_t>& dims) {
  std::string out = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) out += ",";
    out += dims[i] < 0 ? "?" : std::to_string(dims[i]);
  }
  return out + "]";
}

std::string TensorShape::DebugString() const { return DimsString(dim_sizes()); }

StatusOr<PartialTensorShape> PartialTensorShape::FromProto(const tensorflow::TensorShapeProto& proto) {
  if (proto.unknown_rank()) {
    if (proto.dim_size() > 0) {
      return errors::InvalidArgument("a shape has unknown_rank set and also ", proto.dim_size(),
                                     " dimensions");
    }
    return PartialTensorShape();
  }
  std::vector<int64_t> dims;
  for (const auto& d : proto.dim()) {
    if (d.size() < -1) {
      return errors::InvalidArgument("a shape has dimension ", d.size(), "; only -1 means unknown");
    }
    dims.push_back(d.size());
  }
  return PartialTensorShape(std::move(dims));
}

void PartialTensorShape::AsProto(tensorflow::TensorShapeProto* proto) const {
  proto->Clear();
  if (!known_rank_) {
    proto->set_unknown_rank(true);
    return;
  }
  for (int64_t d : dims_) proto->add_dim()->set_size(d);
}

bool PartialTensorShape::IsFullyDefined() const {
  if (!known_rank_) return false;
  for (int64_t d : dims_) if (d < 0) return false;
  return true;
}

bool PartialTensorShape::IsCompatibleWith(const TensorShape& shape) const {
  if (!known_rank_) return true;
  if (shape.dims() != dims()) return false;
  for (int i = 0; i < dims(); ++i) {
    if (dims_[i] >= 0 && dims_[i] != shape.dim_size(i)) return false;
  }
  return true;
}

PartialTensorShape PartialTensorShape::WithoutFirstDim() const {
  if (!known_rank_ || dims_.empty()) return *this;
  return PartialTensorShape(std::vector<int64_t>(dims_.begin() + 1, dims_.end()));
}

std::string PartialTensorShape::DebugString() const {
  return known_rank_ ? DimsString(dims_) : "<unknown>";
}

}  // namespace tensoract
