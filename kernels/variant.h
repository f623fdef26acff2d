// Variant: what one element of a DT_VARIANT tensor holds.
//
// TensorFlow 2's control flow passes structured values through the graph as variant
// tensors: a While's gradient reads the forward loop's intermediates from TensorLists
// (kernels/tensor_list.h) that the forward loop pushed, and an If's gradient gets the
// taken branch's intermediates as Optionals (kernels/cpu/optional_ops.cc). A Variant is a
// shared value of some C++ type derived from VariantValue, a value to its holders: copying
// a tensor copies references, and an op that "modifies" a list makes a new one (a
// TensorList's elements are Tensors, so a new list shares their buffers), unless nothing
// else holds the list, neither its tensor nor its value: then it changes that one in place,
// as TensorFlow's list ops do (get_if_sole_owner).
//
// Variants live on the host. They travel as TensorFlow encodes them: each value as a
// VariantTensorDataProto (its type name, opaque metadata bytes and the tensors it holds),
// in a TensorProto's variant_val (or, from TensorFlow's SerializeTensor, its
// tensor_content); Tensor::FromProto rebuilds a value through the decoder registered for
// its type name. So a list or an optional crosses processes (the data plane sends a
// variant tensor as such a TensorProto) and reads TensorFlow's serialized ones.
#ifndef TENSORACT_KERNELS_VARIANT_H_
#define TENSORACT_KERNELS_VARIANT_H_

#include <memory>
#include <string>

#include "base/status.h"

namespace tensorflow {
class VariantTensorDataProto;
}

namespace tensoract {

class VariantValue {
 public:
  virtual ~VariantValue() = default;
  // TensorFlow's name for the type ("tensorflow::TensorList", "tensorflow::data::Optional").
  virtual std::string TypeName() const = 0;
  virtual std::string DebugString() const = 0;
  // The value in TensorFlow's encoding of its type (the decoder registered for TypeName()
  // reads it back).
  virtual void Encode(tensorflow::VariantTensorDataProto* data) const = 0;
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
  // The value to change in place when it is a T that no other Variant shares, else nullptr
  // (then copy it). Only a value made non-const may be changed: TensorListVariant makes its
  // lists so, for the list ops that update a list nothing else holds (kernels/cpu/list_ops.cc).
  template <class T>
  T* get_if_sole_owner() {
    if (value_ == nullptr || value_.use_count() != 1) return nullptr;
    return const_cast<T*>(dynamic_cast<const T*>(value_.get()));
  }
  std::string TypeName() const { return value_ ? value_->TypeName() : "empty"; }
  std::string DebugString() const { return value_ ? value_->DebugString() : "Variant<empty>"; }
  const VariantValue* value() const { return value_.get(); }

 private:
  std::shared_ptr<const VariantValue> value_;
};

// Rebuilds a value from TensorFlow's encoding; the data comes from outside, so a decoder
// checks every size and index in it.
using VariantDecoder = StatusOr<Variant> (*)(const tensorflow::VariantTensorDataProto& data);
// Registers the decoder of values whose type name is `type_name` (at static initialisation).
bool RegisterVariantDecoder(const std::string& type_name, VariantDecoder decoder);
// Encodes `v` (an empty variant as an empty type name).
void EncodeVariant(const Variant& v, tensorflow::VariantTensorDataProto* data);
// The value `data` encodes, through its type's decoder: InvalidArgument for an unknown type
// or a value nested deeper than 32 variants (a list of lists of ...).
StatusOr<Variant> DecodeVariant(const tensorflow::VariantTensorDataProto& data);

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_VARIANT_H_
