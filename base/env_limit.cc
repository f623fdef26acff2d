#include "base/env_limit.h"

#include <cstdlib>

namespace tensoract {

uint64_t EnvLimit(const char* name, uint64_t default_value) {
  const char* env = std::getenv(name);
  if (env == nullptr || *env < '0' || *env > '9') return default_value;  // strtoull would take "-1"
  char* end = nullptr;
  const unsigned long long v = std::strtoull(env, &end, 10);
  return end != nullptr && *end == '\0' && v > 0 ? static_cast<uint64_t>(v) : default_value;
}

}  // namespace tensoract
