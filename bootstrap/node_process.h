// Test helper: a tensoract-node process the test starts, reads and kills.
#ifndef TENSORACT_TESTS_CLUSTER_NODE_PROCESS_H_
#define TENSORACT_TESTS_CLUSTER_NODE_PROCESS_H_

#include <string>
#include <vector>

namespace tensoract {
namespace testing {

// The token every node of the tests' clusters shares.
inline constexpr const char* kTestToken = "cluster-test-token-5f3a";

class NodeProcess {
 public:
  NodeProcess() = default;
  ~NodeProcess();  // SIGKILLs a node still running, and reaps it
  NodeProcess(const NodeProcess&) = delete;
  NodeProcess& operator=(const NodeProcess&) = delete;

  // Starts `tensoract-node --cluster SPEC --job JOB --task T [extra]` with the test token
  // in its environment and waits (at most 20 s) for its ready line. False, with why in
  // error(), if it exits or stays silent.
  bool Start(const std::string& cluster, const std::string& job, int task, const std::vector<std::string>& extra = {});

  int port() const { return port_; }                 // from the ready line
  const std::string& data_plane() const { return data_plane_; }
  const std::string& error() const { return error_; }
  int pid() const { return pid_; }

  void Signal(int sig);  // SIGKILL, SIGSTOP, SIGCONT, SIGTERM
  // Waits (at most `timeout_ms`) for the process to exit; its exit status, or -1.
  int Wait(int timeout_ms);

 private:
  int pid_ = -1;
  int out_fd_ = -1;
  int port_ = 0;
  std::string data_plane_, error_;
};

// "127.0.0.1:<port>".
std::string Local(int port);

}  // namespace testing
}  // namespace tensoract

#endif  // TENSORACT_TESTS_CLUSTER_NODE_PROCESS_H_
