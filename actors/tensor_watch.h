// Watching tensors of running steps without changing the graph (TensorFlow's tfdbg), for
// tensoract-observe --watch and --find-nan: what a worker was asked to watch (a WatchSpec,
// handed to the executors of its next steps, each watching through a StepWatch) and where
// they leave what they saw (the worker's WatchSink, read by the observer's snapshot).
#ifndef TENSORACT_ACTORS_TENSOR_WATCH_H_
#define TENSORACT_ACTORS_TENSOR_WATCH_H_

#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "actors/executor_plan.h"
#include "kernels/tensor.h"
#include "messages/observer.pb.h"

namespace tensoract {

// What the watched reports go to. Thread-safety: any thread (executors of several steps).
class WatchSink {
 public:
  void Add(observe::TensorStats stats);
  void Add(observe::NanReport report);
  // The kept reports, into `snapshot`.
  void CopyTo(observe::NodeSnapshot* snapshot) const;

 private:
  static constexpr size_t kKept = 256;  // the newest; an observer polls more often than that fills
  mutable std::mutex mu_;
  std::deque<observe::TensorStats> watched_;
  std::deque<observe::NanReport> nans_;
};

struct WatchSpec {
  std::map<std::string, std::vector<int>> outputs;  // node -> watched outputs
  bool values = false;
  bool find_nan = false;
  std::shared_ptr<WatchSink> sink;
  // From a request's "node" / "node:k" names; InvalidArgument for a malformed one.
  static StatusOr<WatchSpec> FromRequest(const observe::WatchRequest& request, std::shared_ptr<WatchSink> sink);
};

// One step's watching in one executor: the statistics of the watched outputs go to the
// spec's sink; a NaN search stops the step at the first output holding a NaN or an
// infinity, reported with the node's inputs as their producers left them.
class StepWatch {
 public:
  StepWatch(std::shared_ptr<const WatchSpec> spec, const ExecutorPlan* plan, int64_t step_id);
  // After `node` produced `outputs`: OK, or the error that stops the step (a NaN found).
  Status OnNodeDone(int node, const std::vector<Tensor>& outputs);

 private:
  observe::TensorStats Stats(int node, int port, const Tensor& t) const;

  const std::shared_ptr<const WatchSpec> spec_;
  const ExecutorPlan* plan_;
  const int64_t step_id_;
  std::map<std::pair<int, int>, observe::TensorStats> seen_;  // a NaN search's outputs so far
};

// Statistics of `t` (min, max and mean over the finite values, NaN and infinity counts;
// for any real or integer type, zeros otherwise), and its first values as text when asked.
observe::TensorStats StatsOf(const Tensor& t, bool values);
// Whether `t` holds a NaN or an infinity (floating types only).
bool HasNanOrInf(const Tensor& t);

}  // namespace tensoract

#endif  // TENSORACT_ACTORS_TENSOR_WATCH_H_
