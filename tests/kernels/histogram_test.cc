// Histogram (kernels/histogram.h): the fast bucket search must put every value where a
// binary search over TensorFlow's limits puts it, at the limits themselves too.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <random>

#include "kernels/histogram.h"

namespace tensoract {
namespace {

// TensorFlow's limits, built here independently.
std::vector<double> ReferenceLimits() {
  std::vector<double> positive;
  for (double v = 1.0e-12; v < 1.0e20; v *= 1.1) positive.push_back(v);
  positive.push_back(DBL_MAX);
  std::vector<double> limits;
  for (auto it = positive.rbegin(); it != positive.rend(); ++it) limits.push_back(-*it);
  limits.push_back(0.0);
  limits.insert(limits.end(), positive.begin(), positive.end());
  return limits;
}

TEST_CASE("Histogram buckets values exactly as a binary search over the limits", "[histogram]") {
  const std::vector<double> limits = ReferenceLimits();
  std::vector<double> values = {0.0, -0.0, 1e-13, -1e-13, 1e-12, -1e-12, 1.0, -1.0, 1e25, -1e25, DBL_MAX, -DBL_MAX,
                                DBL_MIN, -DBL_MIN, 5e-324};
  for (double limit : limits) {
    values.push_back(limit);
    values.push_back(std::nextafter(limit, INFINITY));
    values.push_back(std::nextafter(limit, -INFINITY));
  }
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> exponent(-14, 22), sign(0, 1);
  for (int i = 0; i < 20000; ++i) values.push_back((sign(rng) < 0.5 ? -1 : 1) * std::pow(10.0, exponent(rng)));
  values.erase(std::remove_if(values.begin(), values.end(), [](double v) { return !std::isfinite(v); }), values.end());

  Histogram histogram;
  std::vector<double> counts(limits.size(), 0.0);
  for (double v : values) {
    histogram.Add(v);
    size_t b = static_cast<size_t>(std::upper_bound(limits.begin(), limits.end(), v) - limits.begin());
    counts[std::min(b, counts.size() - 1)] += 1;
  }
  tensorflow::HistogramProto proto;
  histogram.EncodeToProto(&proto);
  // Expand the proto's collapsed runs back to one count per limit.
  std::vector<double> got(limits.size(), 0.0);
  for (int i = 0; i < proto.bucket_size(); ++i) {
    auto at = std::lower_bound(limits.begin(), limits.end(), proto.bucket_limit(i));
    REQUIRE(at != limits.end());
    REQUIRE(*at == proto.bucket_limit(i));
    got[static_cast<size_t>(at - limits.begin())] = proto.bucket(i);
  }
  CHECK(got == counts);
  CHECK(proto.num() == static_cast<double>(values.size()));
}

}  // namespace
}  // namespace tensoract
