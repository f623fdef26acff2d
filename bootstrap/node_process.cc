#include "bootstrap/node_process.h"

#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <regex>
#include <thread>

extern char** environ;

namespace tensoract {
namespace local_cluster {

std::string Local(int port) { return "127.0.0.1:" + std::to_string(port); }

std::string NodeBinaryBesideThisProgram() {
  char path[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
  if (n <= 0) return "";
  std::string exe(path, static_cast<size_t>(n));
  // <build>/<folder>/<name>: two levels up is the build tree.
  for (int up = 0; up < 2; ++up) {
    size_t slash = exe.rfind('/');
    if (slash == std::string::npos) return "";
    exe.resize(slash);
  }
  return exe + "/bootstrap/tensoract-node";
}

static std::string DefaultNodeBinary() {
  const char* dir = std::getenv("TENSORACT_BUILD_DIR");
  return std::string(dir ? dir : "build") + "/bootstrap/tensoract-node";
}

bool NodeProcess::Start(const std::string& cluster, const std::string& job, int task,
                        const std::vector<std::string>& extra) {
  if (pid_ > 0) {
    error_ = "already running (pid " + std::to_string(pid_) + ")";
    return false;
  }
  const std::string binary = options_.binary.empty() ? DefaultNodeBinary() : options_.binary;
  if (access(binary.c_str(), X_OK) != 0) {
    error_ = "cannot run the node binary " + binary + ": " + std::strerror(errno);
    return false;
  }
  std::vector<std::string> args = options_.command_prefix;
  for (const std::string& a : {binary, std::string("--cluster"), cluster, std::string("--job"), job,
                               std::string("--task"), std::to_string(task), std::string("--threads"),
                               std::to_string(options_.threads)}) {
    args.push_back(a);
  }
  args.insert(args.end(), extra.begin(), extra.end());
  // argv and the environment are built before fork: between fork and exec a child of a
  // multi-threaded parent may only make async-signal-safe calls (no setenv, no malloc).
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const std::string token_var = "TENSORACT_CLUSTER_TOKEN=" + options_.token;
  std::vector<char*> envp;
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::strncmp(*e, "TENSORACT_CLUSTER_TOKEN=", 24) != 0) envp.push_back(*e);
  }
  envp.push_back(const_cast<char*>(token_var.c_str()));
  envp.push_back(nullptr);

  int pipe_fds[2];
  // Close-on-exec, so later nodes do not inherit this node's pipe.
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
    error_ = std::string("pipe failed: ") + std::strerror(errno);
    return false;
  }
  const pid_t parent = getpid();
  pid_ = fork();
  if (pid_ < 0) {
    error_ = std::string("fork failed: ") + std::strerror(errno);
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    return false;
  }
  if (pid_ == 0) {
    // Dies with the parent: a crashed test or example must not leave nodes listening.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(126);  // the parent was already gone
    if (options_.max_open_files > 0) {
      rlimit limit{static_cast<rlim_t>(options_.max_open_files), static_cast<rlim_t>(options_.max_open_files)};
      if (setrlimit(RLIMIT_NOFILE, &limit) != 0) _exit(125);
    }
    dup2(pipe_fds[1], STDOUT_FILENO);     // dup2 clears close-on-exec on stdout
    execve(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  close(pipe_fds[1]);
  out_fd_ = pipe_fds[0];
  // The ready line, within the deadline.
  std::string line;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(options_.ready_timeout_ms);
  while (line.find('\n') == std::string::npos) {
    int left = static_cast<int>(
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count());
    if (left <= 0) {
      error_ = "no ready line within " + std::to_string(options_.ready_timeout_ms) + " ms";
      KillAndReap();
      return false;
    }
    pollfd p{out_fd_, POLLIN, 0};
    if (poll(&p, 1, left) <= 0) continue;
    char buf[256];
    ssize_t n = read(out_fd_, buf, sizeof(buf));
    if (n <= 0) {
      error_ = "the node exited before it was ready (output: " + line + ")";
      KillAndReap();
      return false;
    }
    line.append(buf, static_cast<size_t>(n));
  }
  std::smatch m;
  static const std::regex ready(R"(tensoract-node ready: \S+ on [^ ]+:(\d+); data plane: (\S+))");
  if (!std::regex_search(line, m, ready)) {
    error_ = "unexpected ready line: " + line;
    KillAndReap();
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
  do {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      if (out_fd_ >= 0) close(out_fd_);
      out_fd_ = -1;
      return status;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  } while (std::chrono::steady_clock::now() < deadline);
  return -1;
}

int NodeProcess::Stop(int grace_ms) {
  if (pid_ <= 0) return -1;
  kill(pid_, SIGCONT);  // a stopped process cannot act on SIGTERM
  kill(pid_, SIGTERM);
  int status = Wait(grace_ms);
  if (status != -1) return status;
  kill(pid_, SIGKILL);
  int killed = 0;
  waitpid(pid_, &killed, 0);  // SIGKILL cannot be ignored: this returns
  pid_ = -1;
  if (out_fd_ >= 0) close(out_fd_);
  out_fd_ = -1;
  return killed;
}

void NodeProcess::KillAndReap() {
  if (pid_ > 0) {
    kill(pid_, SIGCONT);
    kill(pid_, SIGKILL);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
  }
  if (out_fd_ >= 0) close(out_fd_);
  out_fd_ = -1;
}

NodeProcess::~NodeProcess() { KillAndReap(); }

}  // namespace local_cluster
}  // namespace tensoract
