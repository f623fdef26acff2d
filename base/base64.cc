#include "base/base64.h"

#include <cstdint>

namespace tensoract {

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

}  // namespace tensoract
