// Variant: what one element of a DT_VARIANT tensor holds.
//
// TensorFlow 2's control flow passes structured values through the graph as variant
// tensors: a While's gradient reads the forward loop's intermediates from TensorLists
// (kernels/tensor_list.h) that the forward loop pushed, and an If's gradient gets the
// taken branch's intermediates as Optionals (kernels/cpu/optional_ops.cc). A Variant is a
// shared, immutable value of some C++ type derived from VariantValue: copying a tensor
// copies references, and an op that "modifies" a list makes a new one (a TensorList's
// elements are Tensors, so a new list shares their buffers).
//
// Variants live on the host and stay in their process: a variant tensor converts to a
// TensorProto only as its type name (for printing and fetch errors), and one cannot be read
// back from the wire (Tensor::FromProto refuses DT_VARIANT).
#ifndef TENSORACT_KERNELS_VARIANT_H_
#define TENSORACT_KERNELS_VARIANT_H_

#include <memory>
#include <string>

namespace tensoract {

class VariantValue {
 public:
  virtual ~VariantValue() = default;
  // TensorFlow's name for the type ("tensorflow::TensorList", "tensorflow::data::OptionalVariant").
  virtual std::string TypeName() const = 0;
  virtual std::string DebugString() const = 0;
};

class Variant {
 public:
  Variant() = default;  // empty: what a new DT_VARIANT tensor holds until a kernel sets it
  explicit Variant(std::shared_ptr<const VariantValue> value) : value_(std::move(value)) {}

  bool empty() const { return value_ == nullptr; }
  // The value when it is a T, else nullptr.
  template <class T>
  const T* get() const {
    return dynamic_cast<const T*>(value_.get());
  }
  std::string TypeName() const { return value_ ? value_->TypeName() : "empty"; }
  std::string DebugString() const { return value_ ? value_->DebugString() : "Variant<empty>"; }

 private:
  std::shared_ptr<const VariantValue> value_;
};

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_VARIANT_H_
