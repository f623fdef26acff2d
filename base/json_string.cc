#include "base/json_string.h"

namespace tensoract {

void AppendJsonString(std::string* out, const std::string& s) {
  static const char kHex[] = "0123456789abcdef";
  out->push_back('"');
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  for (size_t i = 0; i < n;) {
    const unsigned char c = p[i];
    if (c < 0x80) {
      switch (c) {
        case '"': *out += "\\\""; break;
        case '\\': *out += "\\\\"; break;
        case '\b': *out += "\\b"; break;
        case '\f': *out += "\\f"; break;
        case '\n': *out += "\\n"; break;
        case '\r': *out += "\\r"; break;
        case '\t': *out += "\\t"; break;
        default:
          if (c < 0x20 || c == 0x7f) {
            *out += "\\u00";
            out->push_back(kHex[c >> 4]);
            out->push_back(kHex[c & 0xf]);
          } else {
            out->push_back(static_cast<char>(c));
          }
      }
      ++i;
      continue;
    }
    // A multi-byte sequence: its length from the lead byte, and the range its second byte
    // must fall in (which rules out overlong forms, surrogates and code points past U+10FFFF).
    size_t len = 0;
    unsigned char lo = 0x80, hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) {
      len = 2;
    } else if (c >= 0xe0 && c <= 0xef) {
      len = 3;
      if (c == 0xe0) lo = 0xa0;
      if (c == 0xed) hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      len = 4;
      if (c == 0xf0) lo = 0x90;
      if (c == 0xf4) hi = 0x8f;
    }
    bool valid = len != 0 && i + len <= n && p[i + 1] >= lo && p[i + 1] <= hi;
    for (size_t k = 2; valid && k < len; ++k) valid = p[i + k] >= 0x80 && p[i + k] <= 0xbf;
    if (valid) {
      out->append(s, i, len);
      i += len;
    } else {
      *out += "\\ufffd";
      ++i;
    }
  }
  out->push_back('"');
}

std::string JsonString(const std::string& s) {
  std::string out;
  AppendJsonString(&out, s);
  return out;
}

}  // namespace tensoract
