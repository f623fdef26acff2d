// NodeProcess: a tensoract-node child process that its parent starts, reads the ready
// line of, and stops. For programs that run a whole cluster on one machine over loopback:
// the cluster tests and examples/distributed_fashion_mnist.
//
//   NodeProcessOptions options;
//   options.binary = NodeBinaryBesideThisProgram();
//   options.token = token;
//   NodeProcess ps(options);
//   if (!ps.Start("ps=127.0.0.1:0;worker=127.0.0.1:0", "ps", 0)) fail(ps.error());
//   ... "tensoract://" + Local(worker0.port()) ...
//   ps.Stop();   // SIGTERM, then SIGKILL if it has not exited within the grace period
//
// Blocking: Start waits for the ready line (at most ready_timeout_ms), Wait and Stop for
// the exit (at most the time given). Nothing else blocks.
// Lifetime: the node is killed (SIGKILL) when the NodeProcess is destroyed, and by the
// kernel when the thread that started it exits (PR_SET_PDEATHSIG), so a crashed parent
// leaves no node behind. Start a node from a thread that outlives it.
// Thread-safety: none; one thread owns a NodeProcess.
#ifndef TENSORACT_BOOTSTRAP_NODE_PROCESS_H_
#define TENSORACT_BOOTSTRAP_NODE_PROCESS_H_

#include <string>
#include <utility>
#include <vector>

namespace tensoract {
namespace local_cluster {

// The token a NodeProcess gives its node when none is set: for tests on loopback only. A
// program that others could reach makes its own (examples/distributed_fashion_mnist draws
// a random one).
inline constexpr const char* kTestToken = "cluster-test-token-5f3a";

struct NodeProcessOptions {
  // The tensoract-node executable; empty: $TENSORACT_BUILD_DIR/bootstrap/tensoract-node,
  // or build/bootstrap/tensoract-node without that variable (the tests' convention).
  std::string binary;
  // Put in the child's TENSORACT_CLUSTER_TOKEN (never on its command line, where `ps`
  // would show it).
  std::string token = kTestToken;
  int threads = 2;  // the node's --threads
  int ready_timeout_ms = 20000;
  int max_open_files = 0;  // > 0: the child's RLIMIT_NOFILE (tests of descriptor exhaustion)
  // Runs the node under this command, e.g. {"/usr/sbin/ip", "netns", "exec", "ns1"} (the
  // first element an absolute path; the command must exec the node, keeping its pid).
  std::vector<std::string> command_prefix;
};

class NodeProcess {
 public:
  NodeProcess() : NodeProcess(NodeProcessOptions{}) {}
  explicit NodeProcess(NodeProcessOptions options) : options_(std::move(options)) {}
  ~NodeProcess();  // SIGKILLs a node still running, and reaps it
  NodeProcess(const NodeProcess&) = delete;
  NodeProcess& operator=(const NodeProcess&) = delete;

  // Starts `tensoract-node --cluster SPEC --job JOB --task T --threads N [extra]` and waits
  // for its ready line. False, with why in error(), if the binary is missing, or the node
  // exits or stays silent (it is then killed).
  bool Start(const std::string& cluster, const std::string& job, int task, const std::vector<std::string>& extra = {});

  int port() const { return port_; }  // from the ready line
  const std::string& data_plane() const { return data_plane_; }
  const std::string& error() const { return error_; }
  int pid() const { return pid_; }
  bool running() const { return pid_ > 0; }

  void Signal(int sig);  // SIGKILL, SIGSTOP, SIGCONT, SIGTERM
  // Waits (at most `timeout_ms`) for the process to exit; its exit status, or -1.
  int Wait(int timeout_ms);
  // SIGTERM (the node's clean shutdown), then SIGKILL if it is still there after
  // `grace_ms`; returns once it is reaped. Its exit status, or -1 if it was not running.
  int Stop(int grace_ms = 5000);

 private:
  void KillAndReap();

  NodeProcessOptions options_;
  int pid_ = -1;
  int out_fd_ = -1;
  int port_ = 0;
  std::string data_plane_, error_;
};

// "127.0.0.1:<port>".
std::string Local(int port);

// The tensoract-node of the build tree this program was built in: a program at
// <build>/<folder>/<name> (as /proc/self/exe says) finds <build>/bootstrap/tensoract-node.
// Empty if /proc/self/exe cannot be read.
std::string NodeBinaryBesideThisProgram();

}  // namespace local_cluster
}  // namespace tensoract

#endif  // TENSORACT_BOOTSTRAP_NODE_PROCESS_H_
