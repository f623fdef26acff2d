#include "tests/cluster/node_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <regex>
#include <thread>

namespace tensoract {
namespace testing {

std::string Local(int port) { return "127.0.0.1:" + std::to_string(port); }

static std::string NodeBinary() {
  const char* dir = std::getenv("TENSORACT_BUILD_DIR");
  return std::string(dir ? dir : "build") + "/bootstrap/tensoract-node";
}

bool NodeProcess::Start(const std::string& cluster, const std::string& job, int task,
                        const std::vector<std::string>& extra) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) {
    error_ = "pipe failed";
    return false;
  }
  std::vector<std::string> args = {NodeBinary(), "--cluster", cluster, "--job", job, "--task", std::to_string(task),
                                   "--threads", "2"};
  args.insert(args.end(), extra.begin(), extra.end());
  pid_ = fork();
  if (pid_ == 0) {
    dup2(pipe_fds[1], STDOUT_FILENO);
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    setenv("TENSORACT_CLUSTER_TOKEN", kTestToken, 1);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(pipe_fds[1]);
  out_fd_ = pipe_fds[0];
  // The ready line, within 20 s.
  std::string line;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (line.find('\n') == std::string::npos) {
    int left = static_cast<int>(
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count());
    if (left <= 0) {
      error_ = "no ready line within 20 s";
      return false;
    }
    pollfd p{out_fd_, POLLIN, 0};
    if (poll(&p, 1, left) <= 0) continue;
    char buf[256];
    ssize_t n = read(out_fd_, buf, sizeof(buf));
    if (n <= 0) {
      error_ = "the node exited before it was ready (output: " + line + ")";
      return false;
    }
    line.append(buf, static_cast<size_t>(n));
  }
  std::smatch m;
  static const std::regex ready(R"(tensoract-node ready: \S+ on [^ ]+:(\d+); data plane: (\S+))");
  if (!std::regex_search(line, m, ready)) {
    error_ = "unexpected ready line: " + line;
    return false;
  }
  port_ = std::stoi(m[1]);
  data_plane_ = m[2];
  return true;
}

void NodeProcess::Signal(int sig) {
  if (pid_ > 0) kill(pid_, sig);
}

int NodeProcess::Wait(int timeout_ms) {
  if (pid_ <= 0) return -1;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      if (out_fd_ >= 0) close(out_fd_);
      out_fd_ = -1;
      return status;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return -1;
}

NodeProcess::~NodeProcess() {
  if (pid_ > 0) {
    kill(pid_, SIGCONT);
    kill(pid_, SIGKILL);
    int status = 0;
    waitpid(pid_, &status, 0);
  }
  if (out_fd_ >= 0) close(out_fd_);
}

}  // namespace testing
}  // namespace tensoract
