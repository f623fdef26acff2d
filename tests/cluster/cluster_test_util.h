// Helpers shared by the cluster tests (real tensoract-node processes on loopback).
#ifndef TENSORACT_TESTS_CLUSTER_CLUSTER_TEST_UTIL_H_
#define TENSORACT_TESTS_CLUSTER_CLUSTER_TEST_UTIL_H_

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "bootstrap/node_process.h"
#include "client/session.h"
#include "messages/graph.pb.h"

namespace tensoract {
namespace testing {

// One ps and two workers, each a tensoract-node process on loopback; the master is
// worker 0's (the client's target). Started by the constructor (REQUIRE on failure).
struct Cluster {
  local_cluster::NodeProcess ps, worker0, worker1;
  std::string spec;
  explicit Cluster(const std::vector<std::string>& master_flags = {});
  std::string target() const { return "tensoract://" + local_cluster::Local(worker0.port()); }
  // Restarts the ps on its port (a new process: its variables are gone).
  void RestartPs();
  // Restarts worker 0, the master's task, on its port (a new master: no sessions).
  void RestartWorker0(const std::vector<std::string>& master_flags = {});
  // Restarts worker 1 on its port (a new process: a new incarnation).
  void RestartWorker1();
};

// A client session on `target` holding `token`.
std::unique_ptr<Session> Connect(const std::string& target, const std::string& token = local_cluster::kTestToken,
                                 int64_t step_timeout_ms = 60000);

// What tensoract-inspect prints for the node at 127.0.0.1:`port` (its master and worker),
// asked by a process that holds `token`; the error as text when it cannot.
std::string InspectNode(int port, const std::string& token = local_cluster::kTestToken);
// The same for the node at `host`:`port`, waiting at most `timeout_ms` for each of
// connecting and the answer.
// A while loop whose body runs on three processes with `spread` (i counts on the master's
// task, the float state is updated on worker 1 and on the ps every iteration: control flow
// across processes, each task with its own control loop), or anywhere without; n
// iterations; its results are the nodes "count" and "state".
tensorflow::GraphDef SpreadLoopGraph(bool spread, int n);

std::string InspectNodeAt(const std::string& host, int port, int64_t timeout_ms = 5000,
                          const std::string& token = local_cluster::kTestToken);

// The ps and the second worker of the test clusters, as devices name their tasks.
inline constexpr const char* kPs = "/job:ps/replica:0/task:0";
inline constexpr const char* kWorker1 = "/job:worker/replica:0/task:1";

// The build folder (TENSORACT_BUILD_DIR, as ctest sets it; "build" otherwise).
inline std::string BuildDir() {
  const char* dir = std::getenv("TENSORACT_BUILD_DIR");
  return dir ? dir : "build";
}

}  // namespace testing
}  // namespace tensoract

#endif  // TENSORACT_TESTS_CLUSTER_CLUSTER_TEST_UTIL_H_
