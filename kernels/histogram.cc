#include "kernels/histogram.h"

#include <algorithm>
#include <cfloat>

namespace tensoract {
namespace {

const std::vector<double>& DefaultLimits() {
  static const std::vector<double>* const kLimits = [] {
    std::vector<double> positive;
    for (double v = 1.0e-12; v < 1.0e20; v *= 1.1) positive.push_back(v);
    positive.push_back(DBL_MAX);
    auto* limits = new std::vector<double>;
    for (auto it = positive.rbegin(); it != positive.rend(); ++it) limits->push_back(-*it);
    limits->push_back(0.0);
    limits->insert(limits->end(), positive.begin(), positive.end());
    return limits;
  }();
  return *kLimits;
}

}  // namespace

Histogram::Histogram()
    : limits_(DefaultLimits()), buckets_(limits_.size(), 0.0), min_(limits_.back()), max_(-limits_.back()) {}

void Histogram::Add(double value) {
  size_t b = static_cast<size_t>(std::upper_bound(limits_.begin(), limits_.end(), value) - limits_.begin());
  b = std::min(b, buckets_.size() - 1);  // DBL_MAX itself: the last bucket
  buckets_[b] += 1.0;
  min_ = std::min(min_, value);
  max_ = std::max(max_, value);
  num_ += 1;
  sum_ += value;
  sum_squares_ += value * value;
}

void Histogram::EncodeToProto(tensorflow::HistogramProto* proto) const {
  proto->Clear();
  proto->set_min(min_);
  proto->set_max(max_);
  proto->set_num(num_);
  proto->set_sum(sum_);
  proto->set_sum_squares(sum_squares_);
  for (size_t i = 0; i < buckets_.size();) {
    double end = limits_[i];
    double count = buckets_[i];
    ++i;
    if (count <= 0.0) {
      while (i < buckets_.size() && buckets_[i] <= 0.0) {
        end = limits_[i];
        count = buckets_[i];
        ++i;
      }
    }
    proto->add_bucket_limit(end);
    proto->add_bucket(count);
  }
}

}  // namespace tensoract
