// What programs driving the cluster lab (bootstrap/cluster-lab.sh) share: reading the
// lab's env file and running a shell command. Used by tests/cluster/lab_test.cc and
// tests/bench/collective_faults.cc.
#ifndef TENSORACT_TESTS_CLUSTER_LAB_ENV_H_
#define TENSORACT_TESTS_CLUSTER_LAB_ENV_H_

#include <cstdio>
#include <fstream>
#include <map>
#include <string>

namespace tensoract {
namespace cluster_lab {

// The lab's DIR/env ("KEY=value" lines, values perhaps in single quotes) as a map.
inline std::map<std::string, std::string> ReadEnv(const std::string& path) {
  std::map<std::string, std::string> env;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    size_t eq = line.find('=');
    if (eq == std::string::npos) continue;
    std::string value = line.substr(eq + 1);
    if (value.size() >= 2 && value.front() == '\'') value = value.substr(1, value.size() - 2);
    env[line.substr(0, eq)] = value;
  }
  return env;
}

struct ShellResult {
  bool ok = false;  // exit status 0
  std::string out;  // stdout and stderr
};

// Runs `command` with /bin/sh and waits for it.
inline ShellResult Shell(const std::string& command) {
  ShellResult r;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return {false, "popen failed"};
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof(buf), pipe)) r.out.append(buf, n);
  r.ok = pclose(pipe) == 0;
  return r;
}

}  // namespace cluster_lab
}  // namespace tensoract

#endif  // TENSORACT_TESTS_CLUSTER_LAB_ENV_H_
