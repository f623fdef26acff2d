// JSON string literals, for every place that writes JSON by hand (traces, tensoract-run's
// output, the checkpoint tool).
//
// Quotes, backslashes and control characters are escaped; invalid UTF-8 becomes U+FFFD:
// names come from GraphDefs and callers nobody validated, and one stray byte would make a
// whole file unreadable to a strict parser.
#ifndef TENSORACT_BASE_JSON_STRING_H_
#define TENSORACT_BASE_JSON_STRING_H_

#include <string>

namespace tensoract {

// Appends `s`, quoted and escaped, to `out`.
void AppendJsonString(std::string* out, const std::string& s);
// `s` quoted and escaped.
std::string JsonString(const std::string& s);

}  // namespace tensoract

#endif  // TENSORACT_BASE_JSON_STRING_H_
