// The paths of TensorFlow Serving's REST API, taken apart as its two regular expressions do
// (http_rest_api_util.cc), case-insensitively:
//   POST /v1/models/NAME[/versions/N | /labels/L]:(classify|regress|predict)
//   GET  /v1/models[/NAME][/versions/N | /labels/L][/metadata]
// by hand: std::regex backtracks by recursion, and a path is the client's to choose.
#ifndef TENSORACT_BOOTSTRAP_SERVING_ROUTES_H_
#define TENSORACT_BOOTSTRAP_SERVING_ROUTES_H_

#include <cstdint>
#include <optional>
#include <string>

#include "base/status.h"

namespace tensoract::serving {

struct Route {
  std::string name;                  // GET may leave it empty (then the handler refuses)
  std::optional<int64_t> version;
  std::optional<std::string> label;
  std::string verb;         // POST: the text after ':', as written ("predict", "Classify", ...)
  std::string subresource;  // GET: "metadata" as written, or ""
};

// The route of `method` on `path` (no query). NotFound for a path outside /v1/,
// InvalidArgument "Malformed request" for one that neither expression matches, and
// TensorFlow Serving's error for a version that is not an int64.
StatusOr<Route> ParseRoute(const std::string& method, const std::string& path);

}  // namespace tensoract::serving

#endif  // TENSORACT_BOOTSTRAP_SERVING_ROUTES_H_
