// LoopbackCluster: one ps and two workers as tensoract-node child processes on 127.0.0.1,
// with ephemeral ports and a token drawn at random for this cluster alone.
//
// The ps and worker 1 start first with specs of port 0 (any free port) and announce the
// port they got; worker 0 starts last with the full spec, since its master drives the
// other two and must know where they are. Clients target worker 0's master.
//
// Blocking: Start waits for each node's ready line (20 s at most each); Stop waits for the
// nodes to exit (SIGTERM, then SIGKILL after the grace period). The destructor stops the
// nodes, so every error path of the program that owns the cluster ends them.
// Thread-safety: none; one thread starts and stops the cluster (and must outlive it, see
// bootstrap/node_process.h). Sessions on other threads may use target() and token().
#ifndef TENSORACT_EXAMPLES_DISTRIBUTED_FASHION_MNIST_LOOPBACK_CLUSTER_H_
#define TENSORACT_EXAMPLES_DISTRIBUTED_FASHION_MNIST_LOOPBACK_CLUSTER_H_

#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "bootstrap/node_process.h"

namespace tensoract {
namespace distributed_mnist {

class LoopbackCluster {
 public:
  // `node_binary`: the tensoract-node executable. Unavailable naming the task (and why)
  // if a node does not come up; the nodes already started are stopped.
  static StatusOr<std::unique_ptr<LoopbackCluster>> Start(const std::string& node_binary);
  ~LoopbackCluster() { Stop(); }

  // All three at once: SIGTERM, then SIGKILL for those still there after `grace_ms`.
  void Stop(int grace_ms = 5000);

  std::string target() const;  // "tensoract://127.0.0.1:<worker 0's port>"
  const std::string& token() const { return token_; }
  std::string spec() const { return spec_; }  // worker 0's cluster spec
  // "ps pid 1234, worker 0 pid 1236, worker 1 pid 1235": who to look for if one lingers.
  std::string Describe() const;
  std::vector<int> pids() const { return {ps_.pid(), worker0_.pid(), worker1_.pid()}; }

 private:
  explicit LoopbackCluster(const std::string& node_binary);

  std::string token_, spec_;
  local_cluster::NodeProcess ps_, worker0_, worker1_;
};

}  // namespace distributed_mnist
}  // namespace tensoract

#endif  // TENSORACT_EXAMPLES_DISTRIBUTED_FASHION_MNIST_LOOPBACK_CLUSTER_H_
