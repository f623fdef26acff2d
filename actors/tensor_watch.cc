#include "actors/tensor_watch.h"

#include <cmath>
#include <limits>

#include <Eigen/Core>

#include "graph/node_def_util.h"
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
    TensorId id;
    Status parsed = ParseTensorName(name, &id);
    if (!parsed.ok() || id.IsControl()) {
      return errors::InvalidArgument("cannot watch '", name, "': not \"node\" or \"node:output\"");
    }
    spec.outputs[id.node].push_back(id.index);
  }
  return spec;
}

StepWatch::StepWatch(std::shared_ptr<const WatchSpec> spec, const ExecutorPlan* plan, int64_t step_id)
    : spec_(std::move(spec)), plan_(plan), step_id_(step_id) {}

observe::TensorStats StepWatch::Stats(int node, int port, const Tensor& t) const {
  observe::TensorStats s = StatsOf(t, spec_->values);
  s.set_node(plan_->nodes[node].kernel->name());
  s.set_output(port);
  s.set_step_id(step_id_);
  s.set_device(plan_->device->name());
  return s;
}

Status StepWatch::OnNodeDone(int node, const std::vector<Tensor>& outputs) {
  const OpKernel& kernel = *plan_->nodes[node].kernel;
  auto watched = spec_->outputs.find(kernel.name());
  if (watched != spec_->outputs.end() && spec_->sink) {
    for (int port : watched->second) {
      if (port < static_cast<int>(outputs.size()) && outputs[port].IsInitialized()) {
        spec_->sink->Add(Stats(node, port, outputs[port]));
      }
    }
  }
  if (!spec_->find_nan) return Status::OK();
  int bad = -1;
  for (size_t o = 0; o < outputs.size(); ++o) {
    if (!outputs[o].IsInitialized()) continue;
    seen_[{node, static_cast<int>(o)}] = Stats(node, static_cast<int>(o), outputs[o]);
    if (bad < 0 && HasNanOrInf(outputs[o])) bad = static_cast<int>(o);
  }
  if (bad < 0) return Status::OK();
  observe::NanReport report;
  report.set_step_id(step_id_);
  report.set_device(plan_->device->name());
  report.set_node(kernel.name());
  report.set_op(kernel.type_string());
  for (size_t o = 0; o < outputs.size(); ++o) {
    auto it = seen_.find({node, static_cast<int>(o)});
    if (it != seen_.end()) *report.add_outputs() = it->second;
  }
  // Its inputs, by input index: the producers' outputs feeding it.
  std::vector<const observe::TensorStats*> inputs(plan_->nodes[node].num_inputs, nullptr);
  const std::vector<std::vector<ExecutorPlan::Producer>> producers = plan_->ProducersByNode();
  for (const ExecutorPlan::Producer& p : producers[node]) {
    if (p.index < 0 || p.index >= static_cast<int>(inputs.size())) continue;  // a control edge
    auto it = seen_.find({p.node, p.port});
    if (it != seen_.end()) inputs[p.index] = &it->second;
  }
  std::string described;
  for (const observe::TensorStats* in : inputs) {
    if (in == nullptr) continue;
    *report.add_inputs() = *in;
    described += StrCat(described.empty() ? "" : "; ", in->node(), ":", in->output(), " min ", in->min(), " max ",
                        in->max(), " NaN ", in->nan_count(), " inf ", in->inf_count());
  }
  const observe::TensorStats& out = seen_[{node, bad}];
  if (spec_->sink) spec_->sink->Add(std::move(report));
  return errors::InvalidArgument("NaN search: node '", kernel.name(), "' (", kernel.type_string(), ") on ",
                                 plan_->device->name(), " produced ", out.nan_count(), " NaN and ", out.inf_count(),
                                 " infinite values in output ", bad, " of step ", step_id_, "; its inputs: ",
                                 described.empty() ? "none seen" : described);
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
