// Histogram: TensorFlow's default histogram of values (the HistogramSummary op's and
// TensorBoard's). Bucket limits grow by 10% from 1e-12 to 1e20, mirrored for negative
// values, with 0 between and +-DBL_MAX at the ends; bucket i counts the values in
// [limit[i-1], limit[i]). The proto collapses each run of empty buckets into one entry
// (limit: the run's last), as TensorFlow's does.
#ifndef TENSORACT_KERNELS_HISTOGRAM_H_
#define TENSORACT_KERNELS_HISTOGRAM_H_

#include <vector>

#include "messages/summary.pb.h"

namespace tensoract {

class Histogram {
 public:
  Histogram();
  // `value` must be finite (HistogramSummary refuses NaN and infinity first).
  void Add(double value);
  void EncodeToProto(tensorflow::HistogramProto* proto) const;

 private:
  size_t BucketFor(double value) const;

  const std::vector<double>& limits_;
  std::vector<double> buckets_;
  double min_, max_, num_ = 0, sum_ = 0, sum_squares_ = 0;
};

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_HISTOGRAM_H_
