#include "bootstrap/serving_json_dialect.h"

#include <rapidjson/encodedstream.h>
#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <type_traits>

#include "base/base64.h"

namespace tensoract {
namespace serving {
namespace {

// TensorFlow Serving's parse flags (json_tensor.cc): the iterative parser, NaN and the
// infinities as numbers, and nothing after the first complete value looked at.
constexpr unsigned kParseFlags =
    rapidjson::kParseIterativeFlag | rapidjson::kParseNanAndInfFlag | rapidjson::kParseStopWhenDoneFlag;

// Passes a parse's events on to the Document being built, and stops the parse where it
// would nest deeper than kMaxJsonDepth.
class DepthLimitedBuilder {
 public:
  explicit DepthLimitedBuilder(Json* doc) : doc_(doc) {}
  bool too_deep() const { return too_deep_; }

  bool Null() { return doc_->Null(); }
  bool Bool(bool b) { return doc_->Bool(b); }
  bool Int(int i) { return doc_->Int(i); }
  bool Uint(unsigned u) { return doc_->Uint(u); }
  bool Int64(int64_t i) { return doc_->Int64(i); }
  bool Uint64(uint64_t u) { return doc_->Uint64(u); }
  bool Double(double d) { return doc_->Double(d); }
  bool RawNumber(const char* s, rapidjson::SizeType n, bool copy) { return doc_->RawNumber(s, n, copy); }
  bool String(const char* s, rapidjson::SizeType n, bool copy) { return doc_->String(s, n, copy); }
  bool Key(const char* s, rapidjson::SizeType n, bool copy) { return doc_->Key(s, n, copy); }
  bool StartObject() { return Deeper() && doc_->StartObject(); }
  bool EndObject(rapidjson::SizeType members) {
    --depth_;
    return doc_->EndObject(members);
  }
  bool StartArray() { return Deeper() && doc_->StartArray(); }
  bool EndArray(rapidjson::SizeType elements) {
    --depth_;
    return doc_->EndArray(elements);
  }

 private:
  bool Deeper() {
    if (++depth_ <= kMaxJsonDepth) return true;
    too_deep_ = true;
    return false;
  }

  Json* doc_;
  int depth_ = 0;
  bool too_deep_ = false;
};

// A handler for Value::Accept that stops writing once `limit` bytes are out, as TensorFlow
// Serving's JsonWriterWithLimit does (its error texts quote the client's value, which may be
// the whole request).
class LimitedWriter {
 public:
  LimitedWriter(const rapidjson::StringBuffer* buffer, JsonWriter* writer, size_t limit)
      : buffer_(buffer), writer_(writer), limit_(limit) {}

  bool Null() { return InLimit() && writer_->Null(); }
  bool Bool(bool b) { return InLimit() && writer_->Bool(b); }
  bool Int(int i) { return InLimit() && writer_->Int(i); }
  bool Uint(unsigned u) { return InLimit() && writer_->Uint(u); }
  bool Int64(int64_t i) { return InLimit() && writer_->Int64(i); }
  bool Uint64(uint64_t u) { return InLimit() && writer_->Uint64(u); }
  bool Double(double d) { return InLimit() && writer_->Double(d); }
  bool RawNumber(const char* s, rapidjson::SizeType n, bool copy) { return InLimit() && writer_->RawNumber(s, n, copy); }
  bool String(const char* s, rapidjson::SizeType n, bool copy) { return InLimit() && writer_->String(s, n, copy); }
  bool Key(const char* s, rapidjson::SizeType n, bool copy) { return InLimit() && writer_->Key(s, n, copy); }
  bool StartObject() { return InLimit() && writer_->StartObject(); }
  bool EndObject(rapidjson::SizeType members) { return InLimit() && writer_->EndObject(members); }
  bool StartArray() { return InLimit() && writer_->StartArray(); }
  bool EndArray(rapidjson::SizeType elements) { return InLimit() && writer_->EndArray(elements); }

 private:
  bool InLimit() const { return buffer_->GetSize() < limit_; }

  const rapidjson::StringBuffer* buffer_;
  JsonWriter* writer_;
  size_t limit_;
};

constexpr size_t kMaxJsonDebugStringBytes = 256;

template <class T>
std::string FormatDecimal(T value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value < 0 ? "-Infinity" : "Infinity";
  char buf[64];
  // Six significant digits first (absl::StrCat's, which TensorFlow Serving uses), then as
  // many as the type needs to read back exactly.
  std::snprintf(buf, sizeof(buf), "%g", static_cast<double>(value));
  T back;
  if constexpr (std::is_same_v<T, float>) {
    back = std::strtof(buf, nullptr);
  } else {
    back = std::strtod(buf, nullptr);
  }
  if (back != value) {
    std::snprintf(buf, sizeof(buf), "%.*g", std::numeric_limits<T>::max_digits10, static_cast<double>(value));
  }
  std::string s(buf);
  // Whole numbers get ".0" so that a list of them reads as floats, not as integers.
  if (s.find('.') == std::string::npos && s.find('e') == std::string::npos) s += ".0";
  return s;
}

template <class T>
bool WriteDecimal(T value, JsonWriter* writer) {
  const std::string text = FormatDecimal(value);
  return writer->RawValue(text.data(), text.size(), rapidjson::kNumberType);
}

}  // namespace

StatusOr<Json> ParseRequestJson(std::string_view body) {
  if (body.empty()) return errors::InvalidArgument("JSON Parse error: The document is empty");
  // The body is not NUL-terminated: the memory stream reads it by its length (and, like
  // TensorFlow Serving's, reads a NUL inside it as the end).
  rapidjson::MemoryStream memory(body.data(), body.size());
  rapidjson::EncodedInputStream<rapidjson::UTF8<>, rapidjson::MemoryStream> stream(memory);
  rapidjson::Reader reader;
  Json doc;
  DepthLimitedBuilder builder(&doc);
  rapidjson::ParseResult result;
  auto parse = [&](Json&) {
    result = reader.Parse<kParseFlags>(stream, builder);
    return !result.IsError();
  };
  doc.Populate(parse);
  if (builder.too_deep()) {
    return errors::InvalidArgument("JSON Parse error: Nesting deeper than ", kMaxJsonDepth,
                                   " levels. at offset: ", result.Offset());
  }
  if (result.IsError()) {
    return errors::InvalidArgument("JSON Parse error: ", rapidjson::GetParseError_En(result.Code()),
                                   " at offset: ", result.Offset());
  }
  if (!doc.IsObject()) return JsonFormatError(doc, "Is not object");
  return StatusOr<Json>(std::move(doc));
}

StatusOr<std::string> RequestSignatureName(const rapidjson::Value& request) {
  auto it = request.FindMember("signature_name");
  if (it == request.MemberEnd()) return std::string();
  if (!it->value.IsString()) {
    return JsonFormatError(request, "not formatted correctly. 'signature_name' key must be a string value.");
  }
  return StringValue(it->value);
}

std::string StringValue(const rapidjson::Value& string_value) {
  if (!string_value.IsString()) return std::string();
  return std::string(string_value.GetString(), string_value.GetStringLength());
}

std::string JsonDebugString(const rapidjson::Value& value) {
  rapidjson::StringBuffer buffer;
  JsonWriter writer(buffer);
  writer.SetFormatOptions(rapidjson::kFormatSingleLineArray);
  LimitedWriter limited(&buffer, &writer, kMaxJsonDebugStringBytes);
  value.Accept(limited);
  return std::string(buffer.GetString(), buffer.GetSize());
}

const char* JsonTypeString(const rapidjson::Value& value) {
  switch (value.GetType()) {
    case rapidjson::kNullType: return "Null";
    case rapidjson::kFalseType: return "False";
    case rapidjson::kTrueType: return "True";
    case rapidjson::kObjectType: return "Object";
    case rapidjson::kArrayType: return "Array";
    case rapidjson::kStringType: return "String";
    case rapidjson::kNumberType: return "Number";
  }
  return "Number";
}

bool IsBase64Object(const rapidjson::Value& value) {
  if (!value.IsObject() || value.MemberCount() != 1) return false;
  auto it = value.FindMember("b64");
  return it != value.MemberEnd() && it->value.IsString();
}

Status DecodeBase64Object(const rapidjson::Value& value, std::string* bytes) {
  if (!IsBase64Object(value)) return JsonFormatError(value, "not formatted correctly for base64 data");
  const rapidjson::Value& text = value.FindMember("b64")->value;
  if (!Base64Decode(std::string_view(text.GetString(), text.GetStringLength()), bytes)) {
    return errors::InvalidArgument("Unable to base64 decode");
  }
  return Status::OK();
}

std::string FormatJsonFloat(float value) { return FormatDecimal(value); }
std::string FormatJsonDouble(double value) { return FormatDecimal(value); }
bool WriteJsonDecimal(float value, JsonWriter* writer) { return WriteDecimal(value, writer); }
bool WriteJsonDecimal(double value, JsonWriter* writer) { return WriteDecimal(value, writer); }

}  // namespace serving
}  // namespace tensoract
