// TensorShape (every dimension known) and PartialTensorShape (unknown rank or dimensions).
//
// A TensorShape is what a Tensor has; a PartialTensorShape is what a graph may declare
// (a Placeholder's `shape` attribute, where -1 is an unknown dimension). Both convert
// to and from TensorShapeProto.
#ifndef TENSORACT_BASE_TENSOR_SHAPE_H_
#define TENSORACT_BASE_TENSOR_SHAPE_H_

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "base/status.h"
#include "messages/tensor_shape.pb.h"

namespace tensoract {

// Dimensions up to kInlineDims live inside the object, so copying the shape of an
// ordinary tensor (which every Tensor copy does) never allocates.
class TensorShape {
 public:
  TensorShape() = default;  // a scalar
  TensorShape(std::initializer_list<int64_t> dims) {
    for (int64_t d : dims) AddDim(d);
  }
  explicit TensorShape(const std::vector<int64_t>& dims) {
    for (int64_t d : dims) AddDim(d);
  }

  // Fails when a dimension is negative or the element count overflows int64.
  static StatusOr<TensorShape> FromDims(const std::vector<int64_t>& dims);
  static StatusOr<TensorShape> FromProto(const tensorflow::TensorShapeProto& proto);
  void AsProto(tensorflow::TensorShapeProto* proto) const;

  int dims() const { return rank_; }
  int64_t dim_size(int d) const { return rank_ <= kInlineDims ? inline_[d] : heap_[d]; }
  std::vector<int64_t> dim_sizes() const;
  int64_t num_elements() const;

  void AddDim(int64_t size) {
    // Inline: every Tensor made (an executor's cleared slots, a default Tensor) adds one.
    if (rank_ < kInlineDims) {
      inline_[rank_++] = size;
      return;
    }
    AddHeapDim(size);
  }
  // The shape of one row: every dimension after the first (a scalar stays a scalar).
  TensorShape WithoutFirstDim() const;

  bool operator==(const TensorShape& o) const;
  bool operator!=(const TensorShape& o) const { return !(*this == o); }

  // "[2,3]"; a scalar is "[]".
  std::string DebugString() const;

 private:
  void AddHeapDim(int64_t size);  // beyond kInlineDims
  static constexpr int kInlineDims = 6;
  int rank_ = 0;
  int64_t inline_[kInlineDims] = {};
  std::vector<int64_t> heap_;  // every dimension, only when rank_ > kInlineDims
};

class PartialTensorShape {
 public:
  PartialTensorShape() = default;  // unknown rank
  explicit PartialTensorShape(std::vector<int64_t> dims) : known_rank_(true), dims_(std::move(dims)) {}

  static StatusOr<PartialTensorShape> FromProto(const tensorflow::TensorShapeProto& proto);
  void AsProto(tensorflow::TensorShapeProto* proto) const;

  bool unknown_rank() const { return !known_rank_; }
  int dims() const { return known_rank_ ? static_cast<int>(dims_.size()) : -1; }
  int64_t dim_size(int d) const { return dims_[d]; }  // -1 when unknown
  bool IsFullyDefined() const;

  // True when some fully defined shape matches both (unknown parts match anything).
  bool IsCompatibleWith(const TensorShape& shape) const;
  // The same rank and dimensions, unknown ones included (TensorFlow's IsIdenticalTo).
  bool IsIdenticalTo(const PartialTensorShape& other) const {
    return known_rank_ == other.known_rank_ && dims_ == other.dims_;
  }
  // Every dimension after the first (unknown rank, and a scalar, stay as they are).
  PartialTensorShape WithoutFirstDim() const;

  // "[?,784]", or "<unknown>" for unknown rank.
  std::string DebugString() const;

 private:
  bool known_rank_ = false;
  std::vector<int64_t> dims_;
};

}  // namespace tensoract

#endif  // TENSORACT_BASE_TENSOR_SHAPE_H_
