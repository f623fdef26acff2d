// A limit an operator may set in the environment (TENSORACT_MAX_...): the variable's value
// when it is a positive decimal integer, else the default. Read once by each caller's
// static, so a process keeps one value.
#ifndef TENSORACT_BASE_ENV_LIMIT_H_
#define TENSORACT_BASE_ENV_LIMIT_H_

#include <cstdint>

namespace tensoract {

uint64_t EnvLimit(const char* name, uint64_t default_value);

}  // namespace tensoract

#endif  // TENSORACT_BASE_ENV_LIMIT_H_
