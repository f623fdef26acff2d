// TF_CONFIG: TensorFlow's way of telling a process which task of which cluster it is, a
// JSON object in the environment variable of that name. Launchers written for TensorFlow
// (Kubernetes operators, TF_CONFIG scripts, tf.distribute's examples) set it, so
// tensoract-node reads it when no --cluster is given:
//
//   TF_CONFIG='{"cluster": {"chief": ["10.0.0.1:2222"],
//                           "worker": ["10.0.0.2:2222", "10.0.0.3:2222"]},
//               "task": {"type": "worker", "index": 1}}'
//
// "cluster" maps each job to its tasks' "host:port" in index order (TensorFlow's dense
// form; its sparse form, an object of index -> address, is refused by name). "task" names
// this process's job and index; the job must be in the cluster. Other keys TensorFlow
// writes ("rpc_layer", "environment") are accepted and ignored.
//
// Every error is InvalidArgument naming the field ("TF_CONFIG: task.index: ...").
#ifndef TENSORACT_BOOTSTRAP_TF_CONFIG_H_
#define TENSORACT_BOOTSTRAP_TF_CONFIG_H_

#include <string>
#include <string_view>

#include "base/status.h"
#include "bootstrap/cluster_spec.h"

namespace tensoract {

struct TfConfig {
  ClusterSpec cluster;
  std::string job;
  int task = 0;
};

StatusOr<TfConfig> ParseTfConfig(std::string_view json);

}  // namespace tensoract

#endif  // TENSORACT_BOOTSTRAP_TF_CONFIG_H_
