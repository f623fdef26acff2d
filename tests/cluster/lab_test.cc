// The cluster lab (bootstrap/cluster-lab.sh): nodes in network namespaces of their own over
// shaped links run a collective across them for a client outside, and the lab tears down
// without a trace, also when interrupted or killed. Needs root and `ip`/`tc`: skipped,
// saying so, without them.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>

#include <catch2/catch.hpp>

#include "graph/builder/collective_ops.h"
#include "graph/builder/ops.h"
#include "tests/actors/test_util.h"
#include "tests/cluster/cluster_test_util.h"
#include "tests/cluster/lab_env.h"
#include "tests/temp_dir.h"

namespace tensoract {
namespace {

using testing::BuildDir;

std::string SourceDir() {
  const char* data = std::getenv("TENSORACT_TEST_DATA");
  return data ? std::string(data) + "/../.." : ".";
}

using cluster_lab::Shell;

std::string WhyNoLab() {
  if (geteuid() != 0) return "needs root";
  if (access("/usr/sbin/ip", X_OK) != 0 && access("/sbin/ip", X_OK) != 0) return "needs ip (iproute2)";
  const std::string probe = StrCat("talab-probe-", getpid());
  if (!Shell("ip netns add " + probe + " && ip netns del " + probe).ok) return "cannot make network namespaces here";
  if (!Shell("ip link add tlprobe" + std::to_string(getpid() % 100000) + " type bridge && ip link del tlprobe" +
             std::to_string(getpid() % 100000))
           .ok) {
    return "cannot make bridges here";
  }
  return "";
}

struct Lab {
  std::string name, dir;
  explicit Lab(const std::string& tag) : name(StrCat(tag, getpid() % 10000)), dir(StrCat("/tmp/talab-test-", name)) {}
  // The lab's own `down` keeps its folder (a user reads the nodes' logs there); a test's
  // folder goes with the test.
  ~Lab() { Shell("rm -rf '" + dir + "'"); }
  Lab(const Lab&) = delete;
  Lab& operator=(const Lab&) = delete;
  std::string Script(const std::string& verb) const {
    return StrCat("bash ", SourceDir(), "/bootstrap/cluster-lab.sh ", verb, " --name ", name, " --dir ", dir,
                  " --node ", BuildDir(), "/bootstrap/tensoract-node");
  }
  std::map<std::string, std::string> Env() const { return cluster_lab::ReadEnv(dir + "/env"); }
  // What is left of the lab: namespaces, links and processes ("" when nothing).
  std::string Leftovers() const {
    std::string left;
    const std::string ns = Shell("ip netns list | grep '^talab-" + name + "-' || true").out;
    if (!ns.empty()) left += "namespaces: " + ns;
    const std::string links = Shell("ip -o link show | grep -E 'tl" + name + "[0-9]+|tlb" + name + "' || true").out;
    if (!links.empty()) left += "links: " + links;
    // Nodes name the lab's token file on their command lines (this pipeline's shell does
    // too, and is left out with the lines that say pgrep).
    const std::string procs = Shell("pgrep -af 'talab-test-" + name + "/cluster.token' | grep -v pgrep || true").out;
    if (!procs.empty()) left += "processes: " + procs;
    return left;
  }
};

TEST_CASE("the lab runs a collective on nodes in namespaces of their own and leaves nothing behind", "[lab]") {
  const std::string why = WhyNoLab();
  if (!why.empty()) {
    WARN("skipped: the cluster lab " << why);
    return;
  }
  Lab lab("c");
  auto [up, up_out] = Shell(lab.Script("up") + " --nodes 3 --rate 200mbit");
  INFO(up_out);
  REQUIRE(up);
  auto env = lab.Env();
  REQUIRE(env.count("LAB_TARGET"));
  // Each link shaped both ways: the switch's port a token bucket, the node's own NIC an htb
  // whose first class takes packets under 256 bytes (acknowledgements, heartbeats).
  CHECK(Shell("tc qdisc show dev tl" + lab.name + "0").out.find("tbf") != std::string::npos);
  const std::string in_node = "ip netns exec talab-" + lab.name + "-0 ";
  const std::string nic = Shell(in_node + "tc qdisc show dev eth0; " + in_node + "tc filter show dev eth0").out;
  INFO(nic);
  CHECK(nic.find("htb 1:") != std::string::npos);
  CHECK(nic.find("flowid 1:10") != std::string::npos);
  std::ifstream token_file(env["LAB_TOKEN_FILE"]);
  std::string token;
  std::getline(token_file, token);
  {
    auto session = testing::Connect(env["LAB_TARGET"], token);
    REQUIRE(session
                ->Create(testing::BuildGraph([](const Scope& s) {
                  for (int i = 0; i < 3; ++i) {
                    Scope on = s.WithDevice(StrCat("/job:worker/replica:0/task:", i, "/device:CPU:0"));
                    auto x = ops::Const(on.WithOpName(StrCat("x", i)), {1.f * (i + 1), 10.f * (i + 1)});
                    ops::CollectiveReduceV2(on.WithOpName(StrCat("sum", i)), x, 3, 1, 1, "Add", "Id");
                  }
                }))
                .ok());
    std::vector<Tensor> out;
    Status s = session->Run({}, {"sum0", "sum1", "sum2"}, {}, &out);
    INFO(s.ToString());
    REQUIRE(s.ok());
    for (const Tensor& t : out) CHECK(testing::Values(t) == std::vector<float>{6, 60});
  }
  auto [down, down_out] = Shell(lab.Script("down"));
  INFO(down_out);
  CHECK(down);
  CHECK(lab.Leftovers() == "");
}

// Starts `run ... -- sleep 60` in a child process; returns its pid once the lab is up.
pid_t StartRun(const Lab& lab) {
  std::remove((lab.dir + "/env").c_str());
  pid_t pid = fork();
  if (pid == 0) {
    const std::string command = lab.Script("run") + " --nodes 2 -- sleep 60 >/dev/null 2>&1";
    execl("/bin/bash", "bash", "-c", ("exec " + command).c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  for (int i = 0; i < 300 && access((lab.dir + "/env").c_str(), F_OK) != 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return pid;
}

TEST_CASE("the lab refuses a host queue it does not know, naming the flag", "[lab]") {
  Lab lab("q");
  auto [ok, out] = Shell(lab.Script("up") + " --nodes 2 --rate 10mbit --host-queue fq 2>&1");
  CHECK(!ok);
  CHECK(out.find("--host-queue 'fq': sparse or fifo") != std::string::npos);
  CHECK(lab.Leftovers() == "");
}

TEST_CASE("an interrupted lab tears itself down; a killed one is torn down by name", "[lab]") {
  const std::string why = WhyNoLab();
  if (!why.empty()) {
    WARN("skipped: the cluster lab " << why);
    return;
  }
  Lab lab("i");
  pid_t run = StartRun(lab);
  REQUIRE(access((lab.dir + "/env").c_str(), F_OK) == 0);
  CHECK(lab.Leftovers() != "");  // it is up
  kill(run, SIGINT);             // Ctrl-C
  int status = 0;
  waitpid(run, &status, 0);
  CHECK(lab.Leftovers() == "");

  run = StartRun(lab);
  REQUIRE(access((lab.dir + "/env").c_str(), F_OK) == 0);
  kill(run, SIGKILL);  // nothing runs its traps: the nodes and namespaces stay
  waitpid(run, &status, 0);
  CHECK(lab.Leftovers() != "");
  CHECK(Shell(lab.Script("down")).ok);
  CHECK(lab.Leftovers() == "");
}

}  // namespace
}  // namespace tensoract
