#include "bootstrap/serving_json.h"

#include <google/protobuf/util/json_util.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <set>
#include <unordered_set>

#include "base/json_string.h"
#include "base/types.h"
#include "messages/example.pb.h"

namespace tensoract {
namespace serving {
namespace {

using tensorflow::SignatureDef;
using tensorflow::TensorInfo;

// TensorFlow's names, as client/saved_model.h has them: this file needs nothing else of
// the client layer, so the JSON pieces build and test without it.
constexpr char kDefaultSignature[] = "serving_default";
constexpr char kClassifyMethod[] = "tensorflow/serving/classify";
constexpr char kRegressMethod[] = "tensorflow/serving/regress";

// ---------------------------------------------------------------------------------------
// Reading: RapidJSON's grammar, flags and error texts as TensorFlow Serving uses them
// (kParseIterativeFlag | kParseNanAndInfFlag | kParseStopWhenDoneFlag). nlohmann's own
// parser refuses NaN and Infinity, which TensorFlow Serving writes and so must read back.

// Where the reader is when a token cannot be read: each place has its own error text.
enum class ValueContext { kDocument, kArrayStart, kAfterComma, kAfterColon };

class RequestReader {
 public:
  explicit RequestReader(std::string_view text) : text_(text) {}

  StatusOr<Json> ReadDocument() {
    Json doc;
    SkipWhitespace();
    // Whatever follows the first complete value is never looked at (kParseStopWhenDoneFlag).
    if (!ReadValue(ValueContext::kDocument, &doc, 0)) {
      return errors::InvalidArgument("JSON Parse error: ", error_, " at offset: ", error_offset_);
    }
    return doc;
  }

 private:
  // The end of the text reads as NUL, and so does a NUL inside it: RapidJSON's memory
  // stream stops there too.
  char Peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  bool Consume(char c) {
    if (Peek() != c) return false;
    ++pos_;
    return true;
  }
  bool IsDigit() const { return Peek() >= '0' && Peek() <= '9'; }
  void SkipWhitespace() {
    for (char c = Peek(); c == ' ' || c == '\n' || c == '\r' || c == '\t'; c = Peek()) ++pos_;
  }
  bool Fail(const char* what, size_t offset) {
    error_ = what;
    error_offset_ = offset;
    return false;
  }

  bool ReadValue(ValueContext context, Json* out, int depth) {
    switch (Peek()) {
      case '{': return ReadObject(out, depth);
      case '[': return ReadArray(out, depth);
      case '"': {
        std::string s;
        if (!ReadString(&s)) return false;
        *out = std::move(s);
        return true;
      }
      case 't': return ReadLiteral("true", Json(true), out);
      case 'f': return ReadLiteral("false", Json(false), out);
      case 'n': return ReadLiteral("null", Json(nullptr), out);
      case '\0': case ']': case '}': case ',': case ':':
        return Fail(context == ValueContext::kDocument ? "The document is empty." : "Invalid value.", pos_);
      default: return ReadNumber(out);
    }
  }

  bool Deeper(int depth) {
    if (depth + 1 > kMaxJsonDepth) {
      return Fail("Nesting deeper than 1000 levels.", pos_);
    }
    return true;
  }

  bool ReadObject(Json* out, int depth) {
    if (!Deeper(depth)) return false;
    ++pos_;
    *out = Json::object();
    // ordered_json's own insertion searches linearly; appending to the underlying vector
    // and keeping the keys seen in a hash set keeps a body with many keys linear.
    auto& members = out->get_ref<Json::object_t&>();
    std::unordered_set<std::string> keys;
    SkipWhitespace();
    if (Consume('}')) return true;
    for (;;) {
      if (Peek() != '"') return Fail("Missing a name for object member.", pos_);
      std::string key;
      if (!ReadString(&key)) return false;
      SkipWhitespace();
      if (!Consume(':')) return Fail("Missing a colon after a name of object member.", pos_);
      SkipWhitespace();
      Json value;
      if (!ReadValue(ValueContext::kAfterColon, &value, depth + 1)) return false;
      // RapidJSON keeps both members of a repeated key and finds the first.
      if (keys.insert(key).second) members.emplace_back(std::move(key), std::move(value));
      SkipWhitespace();
      if (Consume(',')) {
        SkipWhitespace();
        continue;
      }
      if (Consume('}')) return true;
      return Fail("Missing a comma or '}' after an object member.", pos_);
    }
  }

  bool ReadArray(Json* out, int depth) {
    if (!Deeper(depth)) return false;
    ++pos_;
    *out = Json::array();
    SkipWhitespace();
    if (Consume(']')) return true;
    ValueContext context = ValueContext::kArrayStart;
    for (;;) {
      Json value;
      if (!ReadValue(context, &value, depth + 1)) return false;
      out->push_back(std::move(value));
      SkipWhitespace();
      if (Consume(',')) {
        SkipWhitespace();
        context = ValueContext::kAfterComma;
        continue;
      }
      if (Consume(']')) return true;
      return Fail("Missing a comma or ']' after an array element.", pos_);
    }
  }

  bool ReadLiteral(const char* word, Json value, Json* out) {
    ++pos_;
    for (const char* c = word + 1; *c; ++c) {
      if (!Consume(*c)) return Fail("Invalid value.", pos_);
    }
    *out = std::move(value);
    return true;
  }

  bool ReadHex4(size_t escape_offset, unsigned* code) {
    *code = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = Peek();
      unsigned digit;
      if (c >= '0' && c <= '9') {
        digit = c - '0';
      } else if (c >= 'A' && c <= 'F') {
        digit = c - 'A' + 10;
      } else if (c >= 'a' && c <= 'f') {
        digit = c - 'a' + 10;
      } else {
        return Fail("Incorrect hex digit after \\u escape in string.", escape_offset);
      }
      *code = (*code << 4) | digit;
      ++pos_;
    }
    return true;
  }

  static void AppendUtf8(unsigned code, std::string* out) {
    if (code < 0x80) {
      out->push_back(static_cast<char>(code));
    } else if (code < 0x800) {
      out->push_back(static_cast<char>(0xc0 | (code >> 6)));
      out->push_back(static_cast<char>(0x80 | (code & 0x3f)));
    } else if (code < 0x10000) {
      out->push_back(static_cast<char>(0xe0 | (code >> 12)));
      out->push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3f)));
      out->push_back(static_cast<char>(0x80 | (code & 0x3f)));
    } else {
      out->push_back(static_cast<char>(0xf0 | (code >> 18)));
      out->push_back(static_cast<char>(0x80 | ((code >> 12) & 0x3f)));
      out->push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3f)));
      out->push_back(static_cast<char>(0x80 | (code & 0x3f)));
    }
  }

  // Bytes other than escapes and control characters are kept as they are: TensorFlow
  // Serving does not validate UTF-8 (a string input may carry any bytes).
  bool ReadString(std::string* out) {
    ++pos_;
    for (;;) {
      const size_t run = pos_;
      while (pos_ < text_.size()) {
        const unsigned char c = static_cast<unsigned char>(text_[pos_]);
        if (c == '"' || c == '\\' || c < 0x20) break;
        ++pos_;
      }
      out->append(text_.data() + run, pos_ - run);
      const char c = Peek();
      if (c == '"') {
        ++pos_;
        return true;
      }
      if (c == '\\') {
        const size_t escape_offset = pos_;
        ++pos_;
        const char e = Peek();
        switch (e) {
          case '"': case '\\': case '/': out->push_back(e); ++pos_; continue;
          case 'b': out->push_back('\b'); ++pos_; continue;
          case 'f': out->push_back('\f'); ++pos_; continue;
          case 'n': out->push_back('\n'); ++pos_; continue;
          case 'r': out->push_back('\r'); ++pos_; continue;
          case 't': out->push_back('\t'); ++pos_; continue;
          case 'u': {
            ++pos_;
            unsigned code;
            if (!ReadHex4(escape_offset, &code)) return false;
            if (code >= 0xd800 && code <= 0xdfff) {
              if (code > 0xdbff) return Fail("The surrogate pair in string is invalid.", escape_offset);
              if (!Consume('\\') || !Consume('u')) return Fail("The surrogate pair in string is invalid.", escape_offset);
              unsigned low;
              if (!ReadHex4(escape_offset, &low)) return false;
              if (low < 0xdc00 || low > 0xdfff) return Fail("The surrogate pair in string is invalid.", escape_offset);
              code = (((code - 0xd800) << 10) | (low - 0xdc00)) + 0x10000;
            }
            AppendUtf8(code, out);
            continue;
          }
          default: return Fail("Invalid escape character in string.", escape_offset);
        }
      }
      if (c == '\0') return Fail("Missing a closing quotation mark in string.", pos_);
      return Fail("Invalid encoding in string.", pos_);  // a raw control character
    }
  }

  // Integers without fraction or exponent stay integers (non-negative ones unsigned, as
  // nlohmann's parser keeps them); the rest, and integers past 64 bits, are doubles.
  bool ReadNumber(Json* out) {
    const size_t start = pos_;
    const bool minus = Consume('-');
    if (Peek() == 'N' || Peek() == 'I') {
      bool ok = false;
      double value = 0;
      if (Consume('N')) {
        if (Consume('a') && Consume('N')) {
          value = std::numeric_limits<double>::quiet_NaN();
          ok = true;
        }
      } else if (Consume('I') && Consume('n') && Consume('f')) {
        value = minus ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
        ok = true;
        if (Peek() == 'i' && !(Consume('i') && Consume('n') && Consume('i') && Consume('t') && Consume('y'))) {
          return Fail("Invalid value.", pos_);
        }
      }
      if (!ok) return Fail("Invalid value.", pos_);
      *out = value;
      return true;
    }
    if (Peek() == '0') {
      ++pos_;
    } else if (Peek() >= '1' && Peek() <= '9') {
      while (IsDigit()) ++pos_;
    } else {
      return Fail("Invalid value.", pos_);
    }
    bool is_double = false;
    if (Consume('.')) {
      if (!IsDigit()) return Fail("Miss fraction part in number.", pos_);
      while (IsDigit()) ++pos_;
      is_double = true;
    }
    if (Consume('e') || Consume('E')) {
      if (!Consume('+')) Consume('-');
      if (!IsDigit()) return Fail("Miss exponent in number.", pos_);
      while (IsDigit()) ++pos_;
      is_double = true;
    }
    const char* first = text_.data() + start;
    const char* last = text_.data() + pos_;
    if (!is_double) {
      if (minus) {
        int64_t v;
        auto [p, ec] = std::from_chars(first, last, v);
        if (ec == std::errc() && p == last) {
          *out = v;
          return true;
        }
      } else {
        uint64_t v;
        auto [p, ec] = std::from_chars(first, last, v);
        if (ec == std::errc() && p == last) {
          *out = v;
          return true;
        }
      }
    }
    const std::string token(first, last);
    const double v = std::strtod(token.c_str(), nullptr);
    if (std::isinf(v)) return Fail("Number too big to be stored in double.", start);
    *out = v;
    return true;
  }

  std::string_view text_;
  size_t pos_ = 0;
  const char* error_ = "";
  size_t error_offset_ = 0;
};

// ---------------------------------------------------------------------------------------
// Writing: RapidJSON's PrettyWriter (four spaces, arrays optionally on one line), which
// TensorFlow Serving writes every response with.
class PrettyWriter {
 public:
  // Stops accepting values once the text reaches `limit` bytes (the error texts' quotes).
  explicit PrettyWriter(size_t limit = std::numeric_limits<size_t>::max()) : limit_(limit) {}

  void SetSingleLineArrays(bool on) { single_line_arrays_ = on; }
  bool StartObject() { return Begin('{', false); }
  bool EndObject() { return End('}'); }
  bool StartArray() { return Begin('[', true); }
  bool EndArray() { return End(']'); }
  bool Key(const std::string& key) { return String(key); }
  bool String(const std::string& s) {
    if (!Prefix()) return false;
    AppendJsonString(&out_, s);
    return true;
  }
  // A number, true/false or null, already formatted.
  bool Raw(const std::string& token) {
    if (!Prefix()) return false;
    out_ += token;
    return true;
  }
  const std::string& text() const { return out_; }

 private:
  struct Level {
    bool in_array;
    int count = 0;
  };
  bool Begin(char bracket, bool array) {
    if (!Prefix()) return false;
    levels_.push_back({array});
    out_.push_back(bracket);
    return true;
  }
  bool End(char bracket) {
    if (out_.size() >= limit_) return false;
    const bool empty = levels_.back().count == 0;
    const bool array = levels_.back().in_array;
    levels_.pop_back();
    if (!empty && !(array && single_line_arrays_)) {
      out_.push_back('\n');
      Indent();
    }
    out_.push_back(bracket);
    return true;
  }
  void Indent() { out_.append(levels_.size() * 4, ' '); }
  bool Prefix() {
    if (out_.size() >= limit_) return false;
    if (levels_.empty()) return true;
    Level& level = levels_.back();
    if (level.in_array) {
      if (level.count > 0) {
        out_.push_back(',');
        if (single_line_arrays_) out_.push_back(' ');
      }
      if (!single_line_arrays_) {
        out_.push_back('\n');
        Indent();
      }
    } else {
      if (level.count > 0) {
        out_ += level.count % 2 == 0 ? ",\n" : ": ";
      } else {
        out_.push_back('\n');
      }
      if (level.count % 2 == 0) Indent();
    }
    ++level.count;
    return true;
  }

  size_t limit_;
  bool single_line_arrays_ = false;
  std::vector<Level> levels_;
  std::string out_;
};

// A double as RapidJSON's writer prints it (shortest digits; "1.0", "0.001", "1e30").
std::string RapidJsonDouble(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d < 0 ? "-Infinity" : "Infinity";
  if (d == 0) return std::signbit(d) ? "-0.0" : "0.0";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), std::fabs(d), std::chars_format::scientific);
  (void)ec;
  const std::string sci(buf, end);
  const size_t e_pos = sci.find('e');
  std::string digits;
  for (size_t i = 0; i < e_pos; ++i) {
    if (sci[i] != '.') digits.push_back(sci[i]);
  }
  const int exp10 = std::atoi(sci.c_str() + e_pos + 1);
  const int length = static_cast<int>(digits.size());
  const int k = exp10 - length + 1;  // value = digits * 10^k
  const int kk = length + k;
  std::string out = d < 0 ? "-" : "";
  auto exponent = [](int e) { return "e" + std::to_string(e); };
  if (k >= 0 && kk <= 21) {
    out += digits + std::string(k, '0') + ".0";
  } else if (kk > 0 && kk <= 21) {
    out += digits.substr(0, kk) + "." + digits.substr(kk);
  } else if (kk > -6 && kk <= 0) {
    out += "0." + std::string(-kk, '0') + digits;
  } else if (length == 1) {
    out += digits + exponent(kk - 1);
  } else {
    out += digits.substr(0, 1) + "." + digits.substr(1) + exponent(kk - 1);
  }
  return out;
}

bool WriteDebug(const Json& value, PrettyWriter* w) {
  switch (value.type()) {
    case Json::value_t::null: return w->Raw("null");
    case Json::value_t::boolean: return w->Raw(value.get<bool>() ? "true" : "false");
    case Json::value_t::number_integer: return w->Raw(std::to_string(value.get<int64_t>()));
    case Json::value_t::number_unsigned: return w->Raw(std::to_string(value.get<uint64_t>()));
    case Json::value_t::number_float: return w->Raw(RapidJsonDouble(value.get<double>()));
    case Json::value_t::string: return w->String(value.get_ref<const std::string&>());
    case Json::value_t::array:
      if (!w->StartArray()) return false;
      for (const Json& v : value) {
        if (!WriteDebug(v, w)) return false;
      }
      return w->EndArray();
    case Json::value_t::object:
      if (!w->StartObject()) return false;
      for (const auto& [k, v] : value.items()) {
        if (!w->Key(k) || !WriteDebug(v, w)) return false;
      }
      return w->EndObject();
    default: return w->Raw("null");
  }
}

const char* JsonTypeString(const Json& v) {
  switch (v.type()) {
    case Json::value_t::null: return "Null";
    case Json::value_t::boolean: return v.get<bool>() ? "True" : "False";
    case Json::value_t::object: return "Object";
    case Json::value_t::array: return "Array";
    case Json::value_t::string: return "String";
    default: return "Number";
  }
}

// RapidJSON's classification of a number by its value: an integer that fits 32 bits "is
// an int", and so on; anything written with a fraction or exponent is only a double.
bool FitsInt64Range(const Json& v, int64_t lo, int64_t hi) {
  if (v.type() == Json::value_t::number_integer) {
    const int64_t x = v.get<int64_t>();
    return x >= lo && x <= hi;
  }
  if (v.type() == Json::value_t::number_unsigned) {
    const uint64_t x = v.get<uint64_t>();
    return hi >= 0 && x <= static_cast<uint64_t>(hi);
  }
  return false;
}
bool FitsUint64Max(const Json& v, uint64_t hi) {
  if (v.type() == Json::value_t::number_integer) {
    const int64_t x = v.get<int64_t>();
    return x >= 0 && static_cast<uint64_t>(x) <= hi;
  }
  if (v.type() == Json::value_t::number_unsigned) return v.get<uint64_t>() <= hi;
  return false;
}
double AsDouble(const Json& v) {
  if (v.type() == Json::value_t::number_integer) return static_cast<double>(v.get<int64_t>());
  if (v.type() == Json::value_t::number_unsigned) return static_cast<double>(v.get<uint64_t>());
  return v.get<double>();
}
float AsFloat(const Json& v) {
  if (v.type() == Json::value_t::number_integer) return static_cast<float>(v.get<int64_t>());
  if (v.type() == Json::value_t::number_unsigned) return static_cast<float>(v.get<uint64_t>());
  return static_cast<float>(v.get<double>());
}
int64_t AsInt64(const Json& v) {
  return v.type() == Json::value_t::number_integer ? v.get<int64_t>() : static_cast<int64_t>(v.get<uint64_t>());
}
uint64_t AsUint64(const Json& v) {
  return v.type() == Json::value_t::number_unsigned ? v.get<uint64_t>() : static_cast<uint64_t>(v.get<int64_t>());
}

template <class... Args>
Status FormatError(const Json& val, const Args&... args) {
  return errors::InvalidArgument("JSON Value: ", JsonDebugString(val), " ", args...);
}

Status TypeError(const Json& val, DataType dtype) {
  return errors::InvalidArgument("JSON Value: ", JsonDebugString(val), " Type: ", JsonTypeString(val),
                                 " is not of expected type: ", DataTypeString(dtype));
}

// {"b64": "<string>"} and nothing else.
bool IsBase64Object(const Json& val) {
  if (!val.is_object() || val.size() != 1) return false;
  auto it = val.find("b64");
  return it != val.end() && it->is_string();
}

bool IsElementObject(const Json& val) { return val.is_object() && !IsBase64Object(val); }

Status DecodeBase64Object(const Json& val, std::string* bytes) {
  if (!IsBase64Object(val)) {
    return errors::InvalidArgument("JSON Value: ", JsonDebugString(val), " not formatted correctly for base64 data");
  }
  if (!Base64Decode(val.find("b64")->get_ref<const std::string&>(), bytes)) {
    return errors::InvalidArgument("Unable to base64 decode");
  }
  return Status::OK();
}

std::string ShapeString(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
  return s + "]";
}

// The values of one input as they are read, by kind (TensorProto's typed fields, in
// effect), made into a Tensor of the signature's dtype at the end.
class TensorValues {
 public:
  explicit TensorValues(DataType dtype) : dtype_(dtype) {}
  DataType dtype() const { return dtype_; }

  // One leaf value (not a list).
  Status Add(const Json& val) {
    using namespace tensorflow;  // NOLINT: the DT_ names
    if (val.is_object()) {
      if (dtype_ != DT_STRING) return TypeError(val, dtype_);
      std::string bytes;
      TA_RETURN_IF_ERROR(DecodeBase64Object(val, &bytes));
      strings_.push_back(std::move(bytes));
      return Status::OK();
    }
    switch (dtype_) {
      case DT_FLOAT:
        if (!val.is_number()) return TypeError(val, dtype_);
        floats_.push_back(AsFloat(val));
        break;
      case DT_DOUBLE:
        if (!val.is_number()) return TypeError(val, dtype_);
        doubles_.push_back(AsDouble(val));
        break;
      // TensorFlow Serving takes any 32-bit integer for the narrower types and lets the
      // tensor conversion wrap it; a value that does not fit is refused here instead.
      case DT_INT32:
        if (!FitsInt64Range(val, INT32_MIN, INT32_MAX)) return TypeError(val, dtype_);
        ints_.push_back(AsInt64(val));
        break;
      case DT_INT16:
        if (!FitsInt64Range(val, INT16_MIN, INT16_MAX)) return TypeError(val, dtype_);
        ints_.push_back(AsInt64(val));
        break;
      case DT_INT8:
        if (!FitsInt64Range(val, INT8_MIN, INT8_MAX)) return TypeError(val, dtype_);
        ints_.push_back(AsInt64(val));
        break;
      case DT_UINT8:
        if (!FitsInt64Range(val, 0, UINT8_MAX)) return TypeError(val, dtype_);
        ints_.push_back(AsInt64(val));
        break;
      case DT_INT64:
        if (!FitsInt64Range(val, INT64_MIN, INT64_MAX)) return TypeError(val, dtype_);
        ints_.push_back(AsInt64(val));
        break;
      case DT_UINT32:
        if (!FitsUint64Max(val, UINT32_MAX)) return TypeError(val, dtype_);
        uints_.push_back(AsUint64(val));
        break;
      case DT_UINT64:
        if (!FitsUint64Max(val, UINT64_MAX)) return TypeError(val, dtype_);
        uints_.push_back(AsUint64(val));
        break;
      case DT_BOOL:
        if (!val.is_boolean()) return TypeError(val, dtype_);
        bools_.push_back(val.get<bool>());
        break;
      case DT_STRING:
        if (!val.is_string()) return TypeError(val, dtype_);
        strings_.push_back(val.get<std::string>());
        break;
      default:
        return errors::Unimplemented("Conversion of JSON Value: ", JsonDebugString(val),
                                     " to type: ", DataTypeString(dtype_));
    }
    return Status::OK();
  }

  StatusOr<Tensor> ToTensor(const std::vector<int64_t>& dims) const {
    using namespace tensorflow;  // NOLINT: the DT_ names
    TA_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::FromDims(dims));
    TA_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(cpu_allocator(), dtype_, shape));
    const size_t n = static_cast<size_t>(shape.num_elements());
    auto fill = [&](auto* out, const auto& values) -> Status {
      if (values.size() != n) {
        return errors::Internal("request tensor has ", values.size(), " values for shape ", shape.DebugString());
      }
      for (size_t i = 0; i < n; ++i) out[i] = static_cast<std::remove_pointer_t<decltype(out)>>(values[i]);
      return Status::OK();
    };
    switch (dtype_) {
      case DT_FLOAT: TA_RETURN_IF_ERROR(fill(t.base<float>(), floats_)); break;
      case DT_DOUBLE: TA_RETURN_IF_ERROR(fill(t.base<double>(), doubles_)); break;
      case DT_INT32: TA_RETURN_IF_ERROR(fill(t.base<int32_t>(), ints_)); break;
      case DT_INT16: TA_RETURN_IF_ERROR(fill(t.base<int16_t>(), ints_)); break;
      case DT_INT8: TA_RETURN_IF_ERROR(fill(t.base<int8_t>(), ints_)); break;
      case DT_UINT8: TA_RETURN_IF_ERROR(fill(t.base<uint8_t>(), ints_)); break;
      case DT_INT64: TA_RETURN_IF_ERROR(fill(t.base<int64_t>(), ints_)); break;
      case DT_UINT32: TA_RETURN_IF_ERROR(fill(t.base<uint32_t>(), uints_)); break;
      case DT_UINT64: TA_RETURN_IF_ERROR(fill(t.base<uint64_t>(), uints_)); break;
      case DT_BOOL: TA_RETURN_IF_ERROR(fill(t.base<bool>(), bools_)); break;
      case DT_STRING: {
        if (strings_.size() != n) return errors::Internal("request tensor has the wrong number of strings");
        std::string* out = t.base<std::string>();
        for (size_t i = 0; i < n; ++i) out[i] = strings_[i];
        break;
      }
      default:
        if (n != 0) return errors::Unimplemented("Conversion of JSON to type: ", DataTypeString(dtype_));
    }
    return t;
  }

 private:
  DataType dtype_;
  std::vector<float> floats_;
  std::vector<double> doubles_;
  std::vector<int64_t> ints_;
  std::vector<uint64_t> uints_;
  std::vector<uint8_t> bools_;
  std::vector<std::string> strings_;
};

// The shape a value claims: each level's length, following first elements.
std::vector<int64_t> DenseShape(const Json& val) {
  std::vector<int64_t> dims;
  for (const Json* v = &val; v->is_array(); v = &(*v)[0]) {
    dims.push_back(static_cast<int64_t>(v->size()));
    if (v->empty()) break;
  }
  return dims;
}

// Adds every leaf of `val` (which must be as dense as `dims` says), counting them.
Status FillValues(const Json& val, int level, const std::vector<int64_t>& dims, TensorValues* values,
                  int64_t* count) {
  const int rank = static_cast<int>(dims.size());
  if (!val.is_array()) {
    if (level != rank) {
      return errors::InvalidArgument("JSON Value: ", JsonDebugString(val), " found at incorrect level: ", level + 1,
                                     " in the JSON DOM. Expected at level: ", rank);
    }
    TA_RETURN_IF_ERROR(values->Add(val));
    ++*count;
    return Status::OK();
  }
  if (level >= rank) {
    return errors::InvalidArgument("Encountered list at unexpected level: ", level, " expected < ", rank);
  }
  if (static_cast<int64_t>(val.size()) != dims[level]) {
    return errors::InvalidArgument("Encountered list at unexpected size: ", val.size(), " at level: ", level,
                                   " expected size: ", dims[level]);
  }
  for (const Json& v : val) TA_RETURN_IF_ERROR(FillValues(v, level + 1, dims, values, count));
  return Status::OK();
}

// One input being stacked from the "instances" list.
struct StackedInput {
  explicit StackedInput(DataType dtype) : values(dtype) {}
  TensorValues values;
  bool seen = false;
  int64_t size = 0;
  std::vector<int64_t> dims;  // of one instance
};

Status AddInstanceItem(const Json& item, const std::string& name, const SignatureDef& signature,
                       std::map<std::string, StackedInput>* stacked) {
  auto info = signature.inputs().find(name);
  if (info == signature.inputs().end()) {
    return errors::InvalidArgument("JSON object: does not have named input: ", name);
  }
  auto it = stacked->try_emplace(name, info->second.dtype()).first;
  StackedInput& input = it->second;
  const std::vector<int64_t> dims = DenseShape(item);
  int64_t size = 0;
  TA_RETURN_IF_ERROR(FillValues(item, 0, dims, &input.values, &size));
  if (!input.seen) {
    input.seen = true;
    input.size = size;
    input.dims = dims;
  } else if (input.size != size) {
    return errors::InvalidArgument("Expecting tensor size: ", input.size, " but got: ", size);
  } else if (input.dims != dims) {
    return errors::InvalidArgument("Expecting shape ", ShapeString(input.dims), " but got: ", ShapeString(dims));
  }
  return Status::OK();
}

// The signature's input keys, sorted (a protobuf map has no order of its own).
std::vector<std::string> InputKeys(const SignatureDef& signature) {
  std::vector<std::string> keys;
  for (const auto& [key, info] : signature.inputs()) keys.push_back(key);
  std::sort(keys.begin(), keys.end());
  return keys;
}

Status FillFromInstances(const Json& instances, const SignatureDef& signature, PredictInputs* out) {
  const std::vector<std::string> keys = InputKeys(signature);
  if (!instances[0].is_object() && keys.size() > 1) {
    return errors::InvalidArgument(
        "instances is a plain list, but expecting list of objects as multiple input tensors required as per "
        "tensorinfo_map");
  }
  const bool elements_are_objects = IsElementObject(instances[0]);
  const std::set<std::string> input_names(keys.begin(), keys.end());
  std::map<std::string, StackedInput> stacked;
  int64_t count = 0;
  for (const Json& elem : instances) {
    if (elements_are_objects) {
      if (!IsElementObject(elem)) {
        return errors::InvalidArgument("Expecting object but got list at item ", count, " of input list");
      }
      std::set<std::string> object_keys;
      for (const auto& [name, value] : elem.items()) {
        object_keys.insert(name);
        Status s = AddInstanceItem(value, name, signature, &stacked);
        if (!s.ok()) {
          return errors::InvalidArgument("Failed to process element: ", count, " key: ", name,
                                         " of 'instances' list. Error: ", s.ToString());
        }
      }
      if (object_keys != input_names) {
        std::string joined;
        for (const std::string& k : input_names) joined += (joined.empty() ? "" : ",") + k;
        return errors::InvalidArgument("Failed to process element: ", count,
                                       " of 'instances' list. JSON object: ", JsonDebugString(elem),
                                       " keys must be equal to: ", joined);
      }
    } else {
      if (IsElementObject(elem)) {
        return errors::InvalidArgument("Expecting value/list but got object at item ", count, " of input list");
      }
      Status s = AddInstanceItem(elem, keys.front(), signature, &stacked);
      if (!s.ok()) {
        return errors::InvalidArgument("Failed to process element: ", count, " of 'instances' list. Error: ",
                                       s.ToString());
      }
    }
    ++count;
  }
  for (const auto& [name, input] : stacked) {
    std::vector<int64_t> dims = {count};
    dims.insert(dims.end(), input.dims.begin(), input.dims.end());
    TA_ASSIGN_OR_RETURN(Tensor t, input.values.ToTensor(dims));
    out->tensors.emplace_back(name, std::move(t));
  }
  return Status::OK();
}

StatusOr<Tensor> TensorFromValue(const Json& val, DataType dtype) {
  TensorValues values(dtype);
  const std::vector<int64_t> dims = DenseShape(val);
  int64_t unused = 0;
  TA_RETURN_IF_ERROR(FillValues(val, 0, dims, &values, &unused));
  return values.ToTensor(dims);
}

Status FillFromInputs(const Json& val, const SignatureDef& signature, PredictInputs* out) {
  const std::vector<std::string> keys = InputKeys(signature);
  if (!val.is_object() || IsBase64Object(val)) {
    if (keys.size() > 1) {
      return errors::InvalidArgument(
          "inputs is a plain value/list, but expecting an object as multiple input tensors required as per "
          "tensorinfo_map");
    }
    TA_ASSIGN_OR_RETURN(Tensor t, TensorFromValue(val, signature.inputs().at(keys.front()).dtype()));
    out->tensors.emplace_back(keys.front(), std::move(t));
    return Status::OK();
  }
  for (const std::string& name : keys) {
    auto item = val.find(name);
    if (item == val.end()) {
      return errors::InvalidArgument("Missing named input: ", name, " in 'inputs' object.");
    }
    TA_ASSIGN_OR_RETURN(Tensor t, TensorFromValue(*item, signature.inputs().at(name).dtype()));
    out->tensors.emplace_back(name, std::move(t));
  }
  return Status::OK();
}

// TensorFlow Serving leaves shapes to the graph's kernels, whose errors name a node the
// client never saw; the signature's shape says the same thing before anything runs.
Status CheckShapeFitsSignature(const std::string& key, const Tensor& t, const TensorInfo& info,
                               const std::string& signature_name) {
  if (!info.has_tensor_shape() || info.tensor_shape().unknown_rank()) return Status::OK();
  const auto& want = info.tensor_shape();
  bool fits = want.dim_size() == t.dims();
  for (int d = 0; fits && d < t.dims(); ++d) {
    fits = want.dim(d).size() < 0 || want.dim(d).size() == t.dim_size(d);
  }
  if (fits) return Status::OK();
  std::string wanted = "[";
  for (int d = 0; d < want.dim_size(); ++d) {
    wanted += (d ? "," : "") + (want.dim(d).size() < 0 ? std::string("?") : std::to_string(want.dim(d).size()));
  }
  wanted += "]";
  return errors::InvalidArgument("input '", key, "' has shape ", t.shape().DebugString(), " but signature '",
                                 signature_name.empty() ? kDefaultSignature : signature_name.c_str(), "' wants ",
                                 wanted);
}

// ---------------------------------------------------------------------------------------
// Responses.

template <class T>
std::string FormatDecimal(T value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value < 0 ? "-Infinity" : "Infinity";
  char buf[64];
  // Six significant digits first (absl::StrCat's), then as many as the type needs to
  // read back exactly.
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
  if (s.find('.') == std::string::npos && s.find('e') == std::string::npos) s += ".0";
  return s;
}

bool EndsWith(const std::string& s, const char* suffix) {
  const size_t n = std::char_traits<char>::length(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

Status WriteSingleValue(const Tensor& t, bool string_as_bytes, int64_t* offset, PrettyWriter* w) {
  using namespace tensorflow;  // NOLINT: the DT_ names
  const int64_t i = (*offset)++;
  switch (t.dtype()) {
    case DT_FLOAT: w->Raw(FormatDecimal(t.base<float>()[i])); break;
    case DT_DOUBLE: w->Raw(FormatDecimal(t.base<double>()[i])); break;
    case DT_INT32: w->Raw(std::to_string(t.base<int32_t>()[i])); break;
    case DT_INT16: w->Raw(std::to_string(t.base<int16_t>()[i])); break;
    case DT_INT8: w->Raw(std::to_string(t.base<int8_t>()[i])); break;
    case DT_UINT8: w->Raw(std::to_string(t.base<uint8_t>()[i])); break;
    case DT_INT64: w->Raw(std::to_string(t.base<int64_t>()[i])); break;
    case DT_UINT32: w->Raw(std::to_string(t.base<uint32_t>()[i])); break;
    case DT_UINT64: w->Raw(std::to_string(t.base<uint64_t>()[i])); break;
    case DT_BOOL: w->Raw(t.base<bool>()[i] ? "true" : "false"); break;
    case DT_STRING: {
      const std::string& s = t.base<std::string>()[i];
      if (string_as_bytes) {
        w->StartObject();
        w->Key("b64");
        w->String(Base64Encode(s));
        w->EndObject();
      } else {
        w->String(s);
      }
      break;
    }
    default:
      return errors::InvalidArgument("Failed to write JSON value for tensor type: ", DataTypeString(t.dtype()));
  }
  return Status::OK();
}

// The values of `t` from dimension `dim` on, starting at element `*offset`.
Status WriteTensorValues(const Tensor& t, bool string_as_bytes, int dim, int64_t* offset, PrettyWriter* w) {
  if (dim > t.dims() - 1) return WriteSingleValue(t, string_as_bytes, offset, w);
  w->StartArray();
  for (int64_t i = 0; i < t.dim_size(dim); ++i) {
    if (dim == t.dims() - 1) {
      TA_RETURN_IF_ERROR(WriteSingleValue(t, string_as_bytes, offset, w));
    } else {
      TA_RETURN_IF_ERROR(WriteTensorValues(t, string_as_bytes, dim + 1, offset, w));
    }
  }
  w->EndArray();
  return Status::OK();
}

bool IsNamedTensorBytes(const std::string& name, const Tensor& t) {
  return t.dtype() == tensorflow::DT_STRING && EndsWith(name, "_bytes");
}

StatusOr<std::string> RowFormatJson(const std::vector<std::pair<std::string, Tensor>>& outputs) {
  int64_t batch_size = -1;
  for (const auto& [name, t] : outputs) {
    if (t.dims() == 0) return errors::InvalidArgument("Tensor name: ", name, " has no shape information ");
    if (batch_size >= 0 && batch_size != t.dim_size(0)) {
      return errors::InvalidArgument("Tensor name: ", name, " has inconsistent batch size: ", t.dim_size(0),
                                     " expecting: ", batch_size);
    }
    batch_size = t.dim_size(0);
  }
  std::vector<int64_t> offsets(outputs.size(), 0);
  PrettyWriter w;
  w.StartObject();
  w.Key("predictions");
  w.StartArray();
  const bool elements_are_objects = outputs.size() > 1;
  for (int64_t item = 0; item < batch_size; ++item) {
    w.SetSingleLineArrays(true);
    if (elements_are_objects) w.StartObject();
    for (size_t i = 0; i < outputs.size(); ++i) {
      const auto& [name, t] = outputs[i];
      if (elements_are_objects) w.Key(name);
      TA_RETURN_IF_ERROR(WriteTensorValues(t, IsNamedTensorBytes(name, t), 1, &offsets[i], &w));
    }
    if (elements_are_objects) w.EndObject();
    w.SetSingleLineArrays(false);
  }
  w.EndArray();
  w.EndObject();
  return w.text();
}

StatusOr<std::string> ColumnarFormatJson(const std::vector<std::pair<std::string, Tensor>>& outputs) {
  PrettyWriter w;
  w.StartObject();
  w.Key("outputs");
  const bool elements_are_objects = outputs.size() > 1;
  if (elements_are_objects) w.StartObject();
  for (const auto& [name, t] : outputs) {
    if (elements_are_objects) w.Key(name);
    int64_t offset = 0;
    TA_RETURN_IF_ERROR(WriteTensorValues(t, IsNamedTensorBytes(name, t), 0, &offset, &w));
  }
  if (elements_are_objects) w.EndObject();
  w.EndObject();
  return w.text();
}

// ---------------------------------------------------------------------------------------
// tf.Examples.

Status FeatureKindError(const std::string& name, const tensorflow::Feature& feature) {
  const char* kind = "UNKNOWN";
  switch (feature.kind_case()) {
    case tensorflow::Feature::kBytesList: kind = "bytes"; break;
    case tensorflow::Feature::kFloatList: kind = "float"; break;
    case tensorflow::Feature::kInt64List: kind = "int64"; break;
    default: break;
  }
  return errors::InvalidArgument("Unexpected element type in feature: ", name, " expecting type: ", kind);
}

bool IsFeatureOfKind(const tensorflow::Feature& feature, tensorflow::Feature::KindCase kind) {
  return feature.kind_case() == tensorflow::Feature::KIND_NOT_SET || feature.kind_case() == kind;
}

Status AddValueToFeature(const Json& val, const std::string& name, tensorflow::Feature* feature) {
  using tensorflow::Feature;
  auto unexpected = [&] {
    return errors::InvalidArgument("Feature: ", name, " has element with unexpected JSON type: ", JsonTypeString(val));
  };
  switch (val.type()) {
    case Json::value_t::boolean:
      if (!IsFeatureOfKind(*feature, Feature::kInt64List)) return FeatureKindError(name, *feature);
      feature->mutable_int64_list()->add_value(val.get<bool>() ? 1 : 0);
      return Status::OK();
    case Json::value_t::object:
      if (!IsBase64Object(val)) return unexpected();
      if (!IsFeatureOfKind(*feature, Feature::kBytesList)) return FeatureKindError(name, *feature);
      return DecodeBase64Object(val, feature->mutable_bytes_list()->add_value());
    case Json::value_t::string:
      if (!IsFeatureOfKind(*feature, Feature::kBytesList)) return FeatureKindError(name, *feature);
      feature->mutable_bytes_list()->add_value(val.get<std::string>());
      return Status::OK();
    case Json::value_t::number_float:
      if (!IsFeatureOfKind(*feature, Feature::kFloatList)) return FeatureKindError(name, *feature);
      feature->mutable_float_list()->add_value(AsFloat(val));
      return Status::OK();
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
      if (!IsFeatureOfKind(*feature, Feature::kInt64List)) return FeatureKindError(name, *feature);
      if (!FitsInt64Range(val, INT64_MIN, INT64_MAX)) {
        return errors::InvalidArgument("Feature: ", name, " has uint64_t element. Only int64_t is supported.");
      }
      feature->mutable_int64_list()->add_value(AsInt64(val));
      return Status::OK();
    default:  // null, a nested list
      return unexpected();
  }
}

Status MakeExample(const Json& val, tensorflow::Example* example) {
  if (!val.is_object()) {
    return errors::InvalidArgument("Example must be JSON object but got JSON ", JsonTypeString(val));
  }
  for (const auto& [name, content] : val.items()) {
    tensorflow::Feature feature;
    if (content.is_array()) {
      for (const Json& v : content) TA_RETURN_IF_ERROR(AddValueToFeature(v, name, &feature));
    } else {
      TA_RETURN_IF_ERROR(AddValueToFeature(content, name, &feature));
    }
    (*example->mutable_features()->mutable_feature())[name] = std::move(feature);
  }
  return Status::OK();
}

}  // namespace

// ---------------------------------------------------------------------------------------

StatusOr<Json> ParseRequestJson(std::string_view body) {
  if (body.empty()) return errors::InvalidArgument("JSON Parse error: The document is empty");
  RequestReader reader(body);
  TA_ASSIGN_OR_RETURN(Json doc, reader.ReadDocument());
  if (!doc.is_object()) return FormatError(doc, "Is not object");
  return doc;
}

StatusOr<std::string> RequestSignatureName(const Json& request) {
  auto it = request.find("signature_name");
  if (it == request.end()) return std::string();
  if (!it->is_string()) {
    return FormatError(request, "not formatted correctly. 'signature_name' key must be a string value.");
  }
  return it->get<std::string>();
}

StatusOr<PredictInputs> PredictInputsFromJson(const Json& request, const SignatureDef& signature,
                                              const std::string& signature_name) {
  if (signature.inputs().empty()) {
    return errors::InvalidArgument("Failed to get input map for signature: ",
                                   signature_name.empty() ? "DEFAULT" : signature_name);
  }
  auto instances = request.find("instances");
  auto inputs = request.find("inputs");
  PredictInputs out;
  if (instances != request.end()) {
    if (inputs != request.end()) {
      return FormatError(request, "Not formatted correctly expecting only one of 'inputs' or 'instances' keys to exist ");
    }
    if (!instances->is_array()) return FormatError(request, "Expecting 'instances' to be an list/array");
    if (instances->empty()) return FormatError(request, "No values in 'instances' array");
    out.format = PredictFormat::kRow;
    TA_RETURN_IF_ERROR(FillFromInstances(*instances, signature, &out));
  } else if (inputs != request.end()) {
    out.format = PredictFormat::kColumnar;
    TA_RETURN_IF_ERROR(FillFromInputs(*inputs, signature, &out));
  } else {
    return errors::InvalidArgument("Missing 'inputs' or 'instances' key");
  }
  for (const auto& [key, t] : out.tensors) {
    auto info = signature.inputs().find(key);
    if (info != signature.inputs().end()) {
      TA_RETURN_IF_ERROR(CheckShapeFitsSignature(key, t, info->second, signature_name));
    }
  }
  return out;
}

Status CheckPredictInputsCount(const SignatureDef& signature,
                               const std::vector<std::pair<std::string, Tensor>>& inputs) {
  const size_t want = signature.inputs().size();
  if (inputs.size() > want || (inputs.size() < want && signature.defaults().empty())) {
    std::set<std::string> sent, expected;
    for (const auto& [key, t] : inputs) sent.insert(key);
    for (const auto& [key, info] : signature.inputs()) expected.insert(key);
    auto join = [](const std::set<std::string>& s) {
      std::string out;
      for (const std::string& k : s) out += (out.empty() ? "" : ",") + k;
      return out;
    };
    std::set<std::string> extra, missing;
    std::set_difference(sent.begin(), sent.end(), expected.begin(), expected.end(), std::inserter(extra, extra.end()));
    std::set_difference(expected.begin(), expected.end(), sent.begin(), sent.end(),
                        std::inserter(missing, missing.end()));
    return errors::InvalidArgument("input size does not match signature: ", inputs.size(), "!=", want, " len({",
                                   join(sent), "}) != len({", join(expected), "}). Sent extra: {", join(extra),
                                   "}. Missing but required: {", join(missing), "}.");
  }
  return Status::OK();
}

StatusOr<std::string> PredictResponseJson(const std::vector<std::pair<std::string, Tensor>>& outputs,
                                          PredictFormat format) {
  if (outputs.empty()) return errors::InvalidArgument("Cannot convert empty tensor map to JSON");
  return format == PredictFormat::kRow ? RowFormatJson(outputs) : ColumnarFormatJson(outputs);
}

StatusOr<Tensor> ExamplesFromJson(const Json& request) {
  std::string context;
  bool has_context = false;
  auto ctx = request.find("context");
  if (ctx != request.end()) {
    tensorflow::Example example;
    TA_RETURN_IF_ERROR(MakeExample(*ctx, &example));
    context = example.SerializeAsString();
    has_context = true;
  }
  auto examples = request.find("examples");
  if (examples == request.end()) {
    // TensorFlow Serving says "classify" for regress requests as well.
    return FormatError(request, "When method is classify, key 'examples' is expected and was not found");
  }
  if (!examples->is_array()) return FormatError(request, "Expecting 'examples' value to be an list/array");
  if (examples->empty()) return FormatError(request, "'examples' value is an empty array");
  std::vector<std::string> serialized;
  for (const Json& e : *examples) {
    tensorflow::Example example;
    TA_RETURN_IF_ERROR(MakeExample(e, &example));
    // The context's features followed by the example's: parsing the concatenation merges
    // them, the example's own value winning (what TensorFlow Serving feeds).
    serialized.push_back(has_context ? context + example.SerializeAsString() : example.SerializeAsString());
  }
  Tensor t(tensorflow::DT_STRING, TensorShape({static_cast<int64_t>(serialized.size())}));
  for (size_t i = 0; i < serialized.size(); ++i) t.base<std::string>()[i] = std::move(serialized[i]);
  return t;
}

Status CheckClassifySignature(const SignatureDef& signature, bool check_method_name) {
  if (check_method_name && signature.method_name() != kClassifyMethod) {
    return errors::InvalidArgument("Expected classification signature method_name to be ", kClassifyMethod,
                                   ". Was: ", signature.method_name());
  }
  if (signature.inputs().size() != 1) return errors::InvalidArgument("Expected one input Tensor.");
  if (signature.outputs().size() != 1 && signature.outputs().size() != 2) {
    return errors::InvalidArgument("Expected one or two output Tensors, found ", signature.outputs().size());
  }
  if (!signature.inputs().count("inputs")) {
    return errors::InvalidArgument("No classification inputs found in SignatureDef: ", signature.DebugString());
  }
  if (!signature.outputs().count("classes") && !signature.outputs().count("scores")) {
    return errors::InvalidArgument(
        "Expected classification signature outputs to contain at least one of \"classes\" or \"scores\". "
        "Signature was: ",
        signature.DebugString());
  }
  return Status::OK();
}

Status CheckRegressSignature(const SignatureDef& signature, bool check_method_name) {
  if (check_method_name && signature.method_name() != kRegressMethod) {
    return errors::InvalidArgument("Expected regression signature method_name to be ", kRegressMethod,
                                   ". Was: ", signature.method_name());
  }
  if (signature.inputs().size() != 1) return errors::InvalidArgument("Expected one input Tensor.");
  if (signature.outputs().size() != 1) return errors::InvalidArgument("Expected one output Tensor.");
  if (!signature.inputs().count("inputs")) {
    return errors::InvalidArgument("No regression inputs found in SignatureDef: ", signature.DebugString());
  }
  if (!signature.outputs().count("outputs")) {
    return errors::InvalidArgument("No regression outputs found in SignatureDef: ", signature.DebugString());
  }
  return Status::OK();
}

StatusOr<std::string> ClassifyResponseJson(const Tensor* classes, const Tensor* scores, int64_t num_examples) {
  auto check = [num_examples](const Tensor* t, DataType dtype, const char* what) -> Status {
    if (t == nullptr) return Status::OK();
    if (t->dims() != 2) {
      return errors::InvalidArgument("Expected Tensor shape: [batch_size num_classes] but got ",
                                     t->shape().DebugString());
    }
    if (t->dtype() != dtype) {
      return errors::InvalidArgument("Expected ", what, " Tensor of ", tensorflow::DataType_Name(dtype),
                                     ". Got: ", tensorflow::DataType_Name(t->dtype()));
    }
    if (t->dim_size(0) != num_examples) {
      return errors::InvalidArgument("Expected ", what, " output batch size of ", num_examples, ". Got: ",
                                     t->dim_size(0));
    }
    return Status::OK();
  };
  TA_RETURN_IF_ERROR(check(classes, tensorflow::DT_STRING, "classes"));
  TA_RETURN_IF_ERROR(check(scores, tensorflow::DT_FLOAT, "scores"));
  int64_t num_classes = 0;
  if (classes && scores) {
    if (classes->dim_size(1) != scores->dim_size(1)) {
      return errors::InvalidArgument("Tensors class and score should match in dim_size(1). Got ",
                                     classes->dim_size(1), " vs. ", scores->dim_size(1));
    }
    num_classes = classes->dim_size(1);
  } else if (classes) {
    num_classes = classes->dim_size(1);
  } else if (scores) {
    num_classes = scores->dim_size(1);
  }
  if (num_examples == 0) return errors::InvalidArgument("Cannot convert empty ClassificationResults to JSON");
  PrettyWriter w;
  w.StartObject();
  w.Key("results");
  w.StartArray();
  for (int64_t i = 0; i < num_examples; ++i) {
    w.SetSingleLineArrays(true);
    w.StartArray();
    for (int64_t c = 0; c < num_classes; ++c) {
      w.StartArray();
      w.String(classes ? classes->base<std::string>()[i * num_classes + c] : std::string());
      w.Raw(FormatDecimal(scores ? scores->base<float>()[i * num_classes + c] : 0.0f));
      w.EndArray();
    }
    w.EndArray();
    w.SetSingleLineArrays(false);
  }
  w.EndArray();
  w.EndObject();
  return w.text();
}

StatusOr<std::string> RegressResponseJson(const Tensor& outputs, int64_t num_examples) {
  if (!(outputs.dims() == 1 || (outputs.dims() == 2 && outputs.dim_size(1) == 1))) {
    return errors::InvalidArgument("Expected output Tensor shape to be either [batch_size] or [batch_size, 1] but got ",
                                   outputs.shape().DebugString());
  }
  if (num_examples != outputs.dim_size(0)) {
    return errors::InvalidArgument("Input batch size did not match output batch size: ", num_examples, " vs. ",
                                   outputs.dim_size(0));
  }
  if (outputs.dtype() != tensorflow::DT_FLOAT) {
    return errors::InvalidArgument("Expected output Tensor of DT_FLOAT.  Got: ",
                                   tensorflow::DataType_Name(outputs.dtype()));
  }
  if (outputs.NumElements() != num_examples) {
    return errors::InvalidArgument("Expected output batch size to be ", num_examples,
                                   ".  Got: ", outputs.NumElements());
  }
  if (num_examples == 0) return errors::InvalidArgument("Cannot convert empty RegressionResults to JSON");
  PrettyWriter w;
  w.StartObject();
  w.Key("results");
  w.SetSingleLineArrays(true);
  w.StartArray();
  for (int64_t i = 0; i < num_examples; ++i) w.Raw(FormatDecimal(outputs.base<float>()[i]));
  w.EndArray();
  w.EndObject();
  return w.text();
}

std::string ModelStatusJson(const std::vector<VersionStatus>& versions) {
  Json list = Json::array();
  for (const VersionStatus& v : versions) {
    Json entry = Json::object();
    entry["version"] = std::to_string(v.version);  // protobuf's JSON writes int64 as a string
    entry["state"] = v.state;
    entry["status"] = Json::object();
    entry["status"]["error_code"] = ErrorCodeName(v.status.code());
    entry["status"]["error_message"] = v.status.message();
    list.push_back(std::move(entry));
  }
  Json doc = Json::object();
  doc["model_version_status"] = std::move(list);
  return doc.dump(1, ' ', false, Json::error_handler_t::replace);
}

StatusOr<std::string> ModelMetadataJson(const std::string& model_name, int64_t version,
                                        const tensorflow::MetaGraphDef& meta_graph) {
  google::protobuf::util::JsonPrintOptions options;
  options.always_print_primitive_fields = true;
  options.preserve_proto_field_names = true;
  std::vector<std::string> keys;
  for (const auto& [key, sig] : meta_graph.signature_def()) keys.push_back(key);
  std::sort(keys.begin(), keys.end());
  Json signatures = Json::object();
  for (const std::string& key : keys) {
    std::string text;
    auto status = google::protobuf::util::MessageToJsonString(meta_graph.signature_def().at(key), &text, options);
    if (!status.ok()) {
      return errors::Internal("Failed to convert signature def proto to json. Error: ", status.ToString());
    }
    Json sig = Json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (sig.is_discarded()) return errors::Internal("Failed to convert signature def '", key, "' to json");
    signatures[key] = std::move(sig);
  }
  Json doc = Json::object();
  doc["model_spec"] = Json::object();
  doc["model_spec"]["name"] = model_name;
  doc["model_spec"]["signature_name"] = "";
  doc["model_spec"]["version"] = std::to_string(version);
  doc["metadata"] = Json::object();
  doc["metadata"]["signature_def"] = Json::object();
  doc["metadata"]["signature_def"]["signature_def"] = std::move(signatures);
  return doc.dump(1, ' ', false, Json::error_handler_t::replace);
}

std::string ErrorJson(const Status& status) {
  PrettyWriter w;
  w.StartObject();
  w.Key("error");
  w.String(status.message());
  w.EndObject();
  return w.text();
}

int HttpStatusFor(const Status& status) {
  switch (status.code()) {
    case error::OK: return 200;
    case error::CANCELLED: return 499;
    case error::INVALID_ARGUMENT: return 400;
    case error::DEADLINE_EXCEEDED: return 504;
    case error::NOT_FOUND: return 404;
    case error::ALREADY_EXISTS: return 409;
    case error::PERMISSION_DENIED: return 403;
    case error::RESOURCE_EXHAUSTED: return 429;
    case error::FAILED_PRECONDITION: return 400;
    case error::ABORTED: return 409;
    case error::OUT_OF_RANGE: return 400;
    case error::UNIMPLEMENTED: return 501;
    case error::UNAVAILABLE: return 503;
    case error::UNAUTHENTICATED: return 401;
    default: return 500;  // UNKNOWN, INTERNAL, DATA_LOSS
  }
}

std::string FormatJsonFloat(float value) { return FormatDecimal(value); }
std::string FormatJsonDouble(double value) { return FormatDecimal(value); }

std::string JsonDebugString(const Json& value) {
  // TensorFlow Serving stops writing once 256 bytes are out (the value in progress ends
  // where it is).
  PrettyWriter w(256);
  w.SetSingleLineArrays(true);
  WriteDebug(value, &w);
  return w.text();
}

std::string Base64Encode(std::string_view bytes) {
  static const char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const uint32_t v = (uint8_t(bytes[i]) << 16) | (uint8_t(bytes[i + 1]) << 8) | uint8_t(bytes[i + 2]);
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  if (i + 1 == bytes.size()) {
    const uint32_t v = uint8_t(bytes[i]) << 16;
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += "==";
  } else if (i + 2 == bytes.size()) {
    const uint32_t v = (uint8_t(bytes[i]) << 16) | (uint8_t(bytes[i + 1]) << 8);
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

bool Base64Decode(std::string_view text, std::string* bytes) {
  // Whitespace is skipped and padding optional, as absl::Base64Unescape (TensorFlow
  // Serving's decoder) allows.
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; };
  bytes->clear();
  uint32_t acc = 0;
  int held = 0;  // sextets in acc
  int pads = 0;
  for (char c : text) {
    if (is_space(c)) continue;
    if (c == '=') {
      ++pads;
      continue;
    }
    const int v = value(c);
    if (v < 0 || pads > 0) return false;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    if (++held == 4) {
      bytes->push_back(static_cast<char>(acc >> 16));
      bytes->push_back(static_cast<char>((acc >> 8) & 0xff));
      bytes->push_back(static_cast<char>(acc & 0xff));
      acc = 0;
      held = 0;
    }
  }
  if (held == 1) return false;
  if (pads > 0 && held + pads != 4) return false;
  if (held == 2) {
    bytes->push_back(static_cast<char>(acc >> 4));
  } else if (held == 3) {
    bytes->push_back(static_cast<char>(acc >> 10));
    bytes->push_back(static_cast<char>((acc >> 2) & 0xff));
  }
  return true;
}

}  // namespace serving
}  // namespace tensoract
