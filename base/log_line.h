// LogLine: the runtime's log output, one line at a time to stderr, written whole (one write
// of the line and its newline) so that lines from concurrent threads never interleave.
#ifndef TENSORACT_BASE_LOG_LINE_H_
#define TENSORACT_BASE_LOG_LINE_H_

#include <string>

namespace tensoract {

void LogLine(const std::string& line);

}  // namespace tensoract

#endif  // TENSORACT_BASE_LOG_LINE_H_
