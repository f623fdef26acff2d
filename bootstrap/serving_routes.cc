#include "bootstrap/serving_routes.h"

#include <cctype>
#include <charconv>
#include <string_view>

namespace tensoract::serving {
namespace {

bool ConsumeIcase(std::string_view* s, std::string_view prefix) {
  if (s->size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>((*s)[i])) != prefix[i]) return false;
  }
  s->remove_prefix(prefix.size());
  return true;
}

bool EqualsIcase(std::string_view s, std::string_view lower) {
  std::string_view rest = s;
  return ConsumeIcase(&rest, lower) && rest.empty();
}

// [^/:]+
std::string_view TakeSegment(std::string_view* s) {
  size_t n = 0;
  while (n < s->size() && (*s)[n] != '/' && (*s)[n] != ':') ++n;
  std::string_view seg = s->substr(0, n);
  s->remove_prefix(n);
  return seg;
}

// \d+
std::string_view TakeDigits(std::string_view* s) {
  size_t n = 0;
  while (n < s->size() && (*s)[n] >= '0' && (*s)[n] <= '9') ++n;
  std::string_view digits = s->substr(0, n);
  s->remove_prefix(n);
  return digits;
}

// (?:(?:/versions/(\d+))|(?:/labels/([^/:]+)))?  Leaves `s` alone when neither matches.
void TakeVersionOrLabel(std::string_view* s, std::string* version, std::optional<std::string>* label) {
  std::string_view rest = *s;
  if (ConsumeIcase(&rest, "/versions/")) {
    std::string_view digits = TakeDigits(&rest);
    if (!digits.empty()) {
      *version = std::string(digits);
      *s = rest;
    }
    return;
  }
  rest = *s;
  if (ConsumeIcase(&rest, "/labels/")) {
    std::string_view seg = TakeSegment(&rest);
    if (!seg.empty()) {
      *label = std::string(seg);
      *s = rest;
    }
  }
}

bool MatchPredictionPath(std::string_view s, std::string* name, std::string* version,
                         std::optional<std::string>* label, std::string* verb) {
  if (!ConsumeIcase(&s, "/v1/models/")) return false;
  std::string_view seg = TakeSegment(&s);
  if (seg.empty()) return false;
  *name = std::string(seg);
  TakeVersionOrLabel(&s, version, label);
  if (s.empty() || s[0] != ':') return false;
  s.remove_prefix(1);
  if (!EqualsIcase(s, "classify") && !EqualsIcase(s, "regress") && !EqualsIcase(s, "predict")) return false;
  *verb = std::string(s);
  return true;
}

// Everything after the model name: (?:/versions/N|/labels/L)?(?:/metadata)?, to the end.
bool MatchStatusTail(std::string_view s, std::string* version, std::optional<std::string>* label,
                     std::string* subresource) {
  TakeVersionOrLabel(&s, version, label);
  if (s.empty()) return true;
  std::string_view rest = s;
  if (ConsumeIcase(&rest, "/metadata") && rest.empty()) {
    *subresource = std::string(s.substr(1));
    return true;
  }
  return false;
}

bool MatchStatusPath(std::string_view s, std::string* name, std::string* version, std::optional<std::string>* label,
                     std::string* subresource) {
  if (!ConsumeIcase(&s, "/v1/models")) return false;
  // The model name is optional, so "/v1/models/versions/3" is version 3 of no model
  // when "versions" as a name leaves a tail that does not match.
  if (!s.empty() && s[0] == '/') {
    std::string_view rest = s.substr(1);
    std::string_view seg = TakeSegment(&rest);
    std::string v, sub;
    std::optional<std::string> l;
    if (!seg.empty() && MatchStatusTail(rest, &v, &l, &sub)) {
      *name = std::string(seg);
      *version = v;
      *label = l;
      *subresource = sub;
      return true;
    }
  }
  return MatchStatusTail(s, version, label, subresource);
}

}  // namespace

StatusOr<Route> ParseRoute(const std::string& method, const std::string& path) {
  std::string_view p = path;
  if (!ConsumeIcase(&p, "/v1/")) return errors::NotFound("Not found: ", method, " ", path);
  Route route;
  std::string version;
  bool matched = false;
  if (method == "POST") {
    matched = MatchPredictionPath(path, &route.name, &version, &route.label, &route.verb);
  } else if (method == "GET") {
    matched = MatchStatusPath(path, &route.name, &version, &route.label, &route.subresource);
  }
  if (!matched) return errors::InvalidArgument("Malformed request: ", method, " ", path);
  if (!version.empty()) {
    int64_t v = 0;
    auto [end, ec] = std::from_chars(version.data(), version.data() + version.size(), v);
    if (ec != std::errc() || end != version.data() + version.size()) {
      return errors::InvalidArgument("Failed to convert version: ", version, " to numeric.");
    }
    route.version = v;
  }
  return route;
}

}  // namespace tensoract::serving
