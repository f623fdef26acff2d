// ClusterSpec: which tasks make up a cluster and where each one listens, TensorFlow's
// tf.train.ClusterSpec in its one-line form.
//
//   ps=127.0.0.1:2222;worker=127.0.0.1:2223,127.0.0.1:2224
//
// Jobs are separated by ';', a job's tasks by ',', in task-index order: above, task 1 of
// job "worker" is 127.0.0.1:2224 and is named "/job:worker/replica:0/task:1". Whitespace
// around any part is ignored, so a spec may be spread over lines. A host is a name or an
// address; an IPv6 address goes in brackets ("[::1]:2222"). Port 0 means "any free port"
// (the node prints the one it got): useful for tests, useless to peers that read the spec.
//
// Every error is InvalidArgument and names the part that is wrong: the job, the task index
// and the text.
//
// Thread-safety: an immutable value after Parse.
#ifndef TENSORACT_BOOTSTRAP_CLUSTER_SPEC_H_
#define TENSORACT_BOOTSTRAP_CLUSTER_SPEC_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace tensoract {

struct TaskAddress {
  std::string host;  // without the brackets of an IPv6 address
  uint16_t port = 0;
  std::string ToString() const;  // "host:port", "[::1]:port"
};

class ClusterSpec {
 public:
  ClusterSpec() = default;  // no jobs
  static StatusOr<ClusterSpec> Parse(std::string_view text);

  std::vector<std::string> jobs() const;      // sorted
  int num_tasks(const std::string& job) const;  // 0 for a job not in the spec
  // The address of one task; InvalidArgument for an unknown job or an index out of range.
  StatusOr<TaskAddress> Task(const std::string& job, int task) const;

  std::string ToString() const;  // the canonical one-line form, jobs sorted

 private:
  std::map<std::string, std::vector<TaskAddress>> jobs_;
};

// One "host:port" ("[::1]:port"), as in a spec; InvalidArgument naming the bad part.
StatusOr<TaskAddress> ParseTaskAddress(std::string_view text);

// "/job:worker/replica:0/task:1", the prefix of the task's device names.
std::string TaskName(const std::string& job, int task);

// The task whose collective leader forms the cluster's collective groups, as TensorFlow's
// MultiWorkerMirroredStrategy picks it: the chief's task 0, else worker 0's, else task 0
// of the first job; "" for an empty spec.
std::string CollectiveLeaderTask(const ClusterSpec& spec);

}  // namespace tensoract

#endif  // TENSORACT_BOOTSTRAP_CLUSTER_SPEC_H_
