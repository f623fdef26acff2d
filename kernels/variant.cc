#include "kernels/variant.h"

#include <map>

#include "messages/tensor.pb.h"

namespace tensoract {
namespace {

std::map<std::string, VariantDecoder>& Decoders() {
  static auto* decoders = new std::map<std::string, VariantDecoder>;
  return *decoders;
}

// How deep DecodeVariant is on this thread: a value's tensors may hold variants in turn,
// and bytes from outside must not recurse without end.
thread_local int decode_depth = 0;
constexpr int kMaxDecodeDepth = 32;

}  // namespace

bool RegisterVariantDecoder(const std::string& type_name, VariantDecoder decoder) {
  Decoders()[type_name] = decoder;
  return true;
}

void EncodeVariant(const Variant& v, tensorflow::VariantTensorDataProto* data) {
  data->Clear();
  if (v.value() != nullptr) v.value()->Encode(data);
}

StatusOr<Variant> DecodeVariant(const tensorflow::VariantTensorDataProto& data) {
  if (data.type_name().empty()) {
    if (data.metadata().empty() && data.tensors_size() == 0) return Variant();
    return errors::InvalidArgument("a variant value without a type name holds data");
  }
  auto it = Decoders().find(data.type_name());
  if (it == Decoders().end()) {
    return errors::InvalidArgument("a variant value of type '", data.type_name(), "', which this process cannot decode");
  }
  if (decode_depth >= kMaxDecodeDepth) {
    return errors::InvalidArgument("a variant value nested more than ", kMaxDecodeDepth, " deep");
  }
  ++decode_depth;
  StatusOr<Variant> v = it->second(data);
  --decode_depth;
  return v;
}

}  // namespace tensoract
