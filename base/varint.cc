#include "base/varint.h"

namespace tensoract {
namespace {

template <class T>
bool GetVarint(const char** p, const char* end, T* value) {
  T result = 0;
  for (int shift = 0; shift < static_cast<int>(8 * sizeof(T)) && *p < end; shift += 7) {
    const uint8_t byte = static_cast<uint8_t>(*(*p)++);
    result |= static_cast<T>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      *value = result;
      return true;
    }
  }
  return false;
}

}  // namespace

void PutVarint64(uint64_t value, std::string* out) {
  while (value >= 0x80) {
    out->push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out->push_back(static_cast<char>(value));
}

bool GetVarint64(const char** p, const char* end, uint64_t* value) { return GetVarint(p, end, value); }
bool GetVarint32(const char** p, const char* end, uint32_t* value) { return GetVarint(p, end, value); }

}  // namespace tensoract
