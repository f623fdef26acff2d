// Base64 in the standard alphabet (RFC 4648): TensorFlow Serving's {"b64": ...} JSON
// values (bootstrap/serving_json.cc) and the bytes kernels' messages quote
// (ParseTensor's), as TensorFlow's own messages do.
#ifndef TENSORACT_BASE_BASE64_H_
#define TENSORACT_BASE_BASE64_H_

#include <string>
#include <string_view>

namespace tensoract {

// Padded with '='.
std::string Base64Encode(std::string_view bytes);
// Padding optional and whitespace skipped, as absl::Base64Unescape (TensorFlow Serving's
// decoder) allows. False for anything else.
bool Base64Decode(std::string_view text, std::string* bytes);

}  // namespace tensoract

#endif  // TENSORACT_BASE_BASE64_H_
