// TensorFlow Serving's JSON dialect, which every endpoint of its REST API shares: how a
// request body is read, how a value is quoted in an error text, how bytes and floats are
// written. Like TensorFlow Serving (tensorflow_serving/util/json_tensor.cc) it is RapidJSON
// underneath, with the same parse flags and writer, so error texts and offsets are RapidJSON's
// own. The endpoints build on it: serving_json.h (predict), serving_examples.h (classify and
// regress), serving_status.h (model status, metadata, error bodies).
//
// Reading. NaN, Infinity and -Infinity (and Inf, -Inf, -NaN) are numbers, since TensorFlow
// Serving writes them and so must read them back; whatever follows the first complete value
// is ignored; strings keep their bytes as written (UTF-8 is not validated: a string input may
// carry any bytes). A number is an integer when written without fraction or exponent and it
// fits 64 bits, else a double, and it is classified by value as RapidJSON does (IsInt: fits
// 32 bits, ...). Objects keep their members in the order written, a repeated key included:
// a lookup (FindMember) finds the first.
//
// Writing. RapidJSON's pretty writer (four spaces), arrays on one line where TensorFlow
// Serving asks for it. Floats are written so that they read back to the same float (six
// digits when that is enough, else 9 for float and 17 for double), whole numbers with ".0",
// and NaN and the infinities as NaN, Infinity and -Infinity. Bytes are {"b64": "..."}.
//
// Thread-safety: everything here is a function of its arguments.
#ifndef TENSORACT_BOOTSTRAP_SERVING_JSON_DIALECT_H_
#define TENSORACT_BOOTSTRAP_SERVING_JSON_DIALECT_H_

#include <rapidjson/document.h>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <string>
#include <string_view>

#include "base/status.h"

namespace tensoract {
namespace serving {

// A parsed request body (RapidJSON's DOM: movable, not copyable).
using Json = rapidjson::Document;

// What responses and error quotes are written with. NaN and the infinities are allowed
// (kWriteNanAndInfFlag, by default: see bootstrap/CMakeLists.txt) so that a request value
// quoted in an error shows them; TensorFlow Serving's writer lacks the flag and its quote
// stops at the first NaN. Response floats never reach Double(): WriteJsonDecimal writes them.
using JsonWriter = rapidjson::PrettyWriter<rapidjson::StringBuffer>;
static_assert(rapidjson::kWriteDefaultFlags & rapidjson::kWriteNanAndInfFlag,
              "build with RAPIDJSON_WRITE_DEFAULT_FLAGS=kWriteNanAndInfFlag, as tensoract_serving_json's users are");

// The deepest nesting a request may have. TensorFlow Serving has no limit (RapidJSON's
// iterative parser needs none), but reading the values afterwards recurses, and a hostile
// body must not exhaust the stack; a tensor has at most 254 dimensions.
inline constexpr int kMaxJsonDepth = 1000;

// Parses a request body; it must be an object. Errors: "JSON Parse error: <RapidJSON's
// text> at offset: N", or "JSON Value: ... Is not object".
StatusOr<Json> ParseRequestJson(std::string_view body);

// The request's "signature_name", "" when it has none.
StatusOr<std::string> RequestSignatureName(const rapidjson::Value& request);

// A string value's bytes, a NUL inside included ("" for a value of any other type).
std::string StringValue(const rapidjson::Value& string_value);

// A value as TensorFlow Serving's error texts quote it: the pretty writer with arrays on
// one line, stopped once about 256 bytes are out (the value in progress ends where it is).
std::string JsonDebugString(const rapidjson::Value& value);
// "Null", "True", "False", "Object", "Array", "String" or "Number", as error texts name them.
const char* JsonTypeString(const rapidjson::Value& value);
// InvalidArgument("JSON Value: <value quoted> <args...>").
template <class... Args>
Status JsonFormatError(const rapidjson::Value& value, const Args&... args) {
  return errors::InvalidArgument("JSON Value: ", JsonDebugString(value), " ", args...);
}

// {"b64": "<string>"} and nothing else: bytes, for a string input or feature.
bool IsBase64Object(const rapidjson::Value& value);
// The bytes of a {"b64": ...} object; TensorFlow Serving's errors for anything else.
Status DecodeBase64Object(const rapidjson::Value& value, std::string* bytes);

// A float or double as TensorFlow Serving writes it ("0.1", "3.0", "1e-05", "NaN"). Not
// RapidJSON's Double(): a float widened to double would print its noise digits
// (0.2f as 0.20000000298023224).
std::string FormatJsonFloat(float value);
std::string FormatJsonDouble(double value);
// Writes FormatJsonFloat(value) (FormatJsonDouble) as a number.
bool WriteJsonDecimal(float value, JsonWriter* writer);
bool WriteJsonDecimal(double value, JsonWriter* writer);

}  // namespace serving
}  // namespace tensoract

#endif  // TENSORACT_BOOTSTRAP_SERVING_JSON_DIALECT_H_
