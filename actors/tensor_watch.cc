#include "actors/tensor_watch.h"

#include <cmath>
#include <limits>

#include <Eigen/Core>

#include "kernels/dtype_dispatch.h"

namespace tensoract {
namespace {

template <class T>
void Accumulate(const Tensor& t, observe::TensorStats* s, bool values) {
  constexpr bool kFloating = std::is_floating_point_v<T> || std::is_same_v<T, Eigen::half> ||
                             std::is_same_v<T, Eigen::bfloat16>;
  constexpr bool kReal = kFloating || (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>);
  if constexpr (kReal) {
    const T* p = t.base<T>();
    double lo = std::numeric_limits<double>::infinity(), hi = -lo, sum = 0;
    int64_t finite = 0, nans = 0, infs = 0;
    std::string text;
    for (int64_t i = 0, n = t.NumElements(); i < n; ++i) {
      const double v = static_cast<double>(p[i]);
      if (values && i < 1000) text += (i ? ", " : "") + std::to_string(v);
      if (std::isnan(v)) {
        ++nans;
      } else if (std::isinf(v)) {
        ++infs;
      } else {
        lo = std::min(lo, v);
        hi = std::max(hi, v);
        sum += v;
        ++finite;
      }
    }
    if (finite > 0) {
      s->set_min(lo);
      s->set_max(hi);
      s->set_mean(sum / static_cast<double>(finite));
    }
    s->set_nan_count(nans);
    s->set_inf_count(infs);
    if (values) s->set_values(text);
  }
}

template <class T>
bool AnyNanOrInf(const Tensor& t) {
  constexpr bool kFloating = std::is_floating_point_v<T> || std::is_same_v<T, Eigen::half> ||
                             std::is_same_v<T, Eigen::bfloat16>;
  if constexpr (kFloating) {
    const T* p = t.base<T>();
    for (int64_t i = 0, n = t.NumElements(); i < n; ++i) {
      if (!std::isfinite(static_cast<float>(p[i]))) return true;
    }
  }
  return false;
}

}  // namespace

void WatchSink::Add(observe::TensorStats stats) {
  std::lock_guard<std::mutex> lock(mu_);
  watched_.push_back(std::move(stats));
  if (watched_.size() > kKept) watched_.pop_front();
}

void WatchSink::Add(observe::NanReport report) {
  std::lock_guard<std::mutex> lock(mu_);
  nans_.push_back(std::move(report));
  if (nans_.size() > kKept) nans_.pop_front();
}

void WatchSink::CopyTo(observe::NodeSnapshot* snapshot) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& w : watched_) *snapshot->add_watched() = w;
  for (const auto& n : nans_) *snapshot->add_nans() = n;
}

StatusOr<WatchSpec> WatchSpec::FromRequest(const observe::WatchRequest& request, std::shared_ptr<WatchSink> sink) {
  WatchSpec spec;
  spec.values = request.values();
  spec.find_nan = request.find_nan();
  spec.sink = std::move(sink);
  for (const std::string& name : request.tensors()) {
    const size_t colon = name.rfind(':');
    int output = 0;
    std::string node = name;
    if (colon != std::string::npos) {
      const std::string k = name.substr(colon + 1);
      if (k.empty() || k.size() > 4 || k.find_first_not_of("0123456789") != std::string::npos) {
        return errors::InvalidArgument("cannot watch '", name, "': not \"node\" or \"node:output\"");
      }
      output = std::stoi(k);
      node = name.substr(0, colon);
    }
    if (node.empty()) return errors::InvalidArgument("cannot watch '", name, "': no node name");
    spec.outputs[node].push_back(output);
  }
  return spec;
}

observe::TensorStats StatsOf(const Tensor& t, bool values) {
  observe::TensorStats s;
  s.set_dtype(DataTypeString(t.dtype()));
  for (int64_t d : t.shape().dim_sizes()) s.add_shape(d);
  s.set_elements(t.NumElements());
  TA_SWITCH_FIXED_SIZE_TYPES(t.dtype(), break, Accumulate<T>(t, &s, values));
  return s;
}

bool HasNanOrInf(const Tensor& t) {
  bool found = false;
  TA_SWITCH_FIXED_SIZE_TYPES(t.dtype(), break, found = AnyNanOrInf<T>(t));
  return found;
}

}  // namespace tensoract
