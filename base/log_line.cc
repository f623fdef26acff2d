#include "base/log_line.h"

#include <cstdio>

namespace tensoract {

void LogLine(const std::string& line) { std::fputs((line + "\n").c_str(), stderr); }

}  // namespace tensoract
