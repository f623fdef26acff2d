// A peer that is unreachable without a reset (a black hole): its packets vanish, nothing
// answers and nothing says no. The ps runs in a network namespace of its own, joined to this
// one by a veth pair; cutting the namespace's end of the link makes every packet to it
// vanish. Needs root and `ip netns` (this machine only; nothing outside is touched): the
// test says it is skipped without them.
#include <sys/types.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <future>
#include <string>
#include <thread>

#include <catch2/catch.hpp>

#include "client/session.h"
#include "bootstrap/node_process.h"
#include "tests/actors/test_util.h"
#include "tests/cluster/cluster_test_util.h"

namespace tensoract {
namespace {

using local_cluster::kTestToken;
using local_cluster::NodeProcess;
using local_cluster::NodeProcessOptions;

constexpr const char* kIp = "/usr/sbin/ip";

bool Sh(const std::string& command) { return std::system((command + " >/dev/null 2>&1").c_str()) == 0; }

// A namespace holding one end of a veth pair: `outside` here, `inside` there, /24 apart.
class BlackHoleNetwork {
 public:
  BlackHoleNetwork() {
    const int n = static_cast<int>(getpid() % 200) + 20;
    ns_ = "ta_bh_" + std::to_string(getpid());
    host_if_ = "tabh" + std::to_string(getpid() % 100000) + "a";
    ns_if_ = "tabh" + std::to_string(getpid() % 100000) + "b";
    outside_ = "10.213." + std::to_string(n) + ".1";
    inside_ = "10.213." + std::to_string(n) + ".2";
    if (geteuid() != 0 || access(kIp, X_OK) != 0) {
      why_not_ = "needs root and " + std::string(kIp);
      return;
    }
    const std::string ip = kIp;
    ok_ = Sh(ip + " netns add " + ns_) && Sh(ip + " link add " + host_if_ + " type veth peer name " + ns_if_) &&
          Sh(ip + " link set " + ns_if_ + " netns " + ns_) && Sh(ip + " addr add " + outside_ + "/24 dev " + host_if_) &&
          Sh(ip + " link set " + host_if_ + " up") &&
          Sh(ip + " netns exec " + ns_ + " " + ip + " addr add " + inside_ + "/24 dev " + ns_if_) &&
          Sh(ip + " netns exec " + ns_ + " " + ip + " link set " + ns_if_ + " up") &&
          Sh(ip + " netns exec " + ns_ + " " + ip + " link set lo up");
    if (!ok_) why_not_ = "cannot make a network namespace with a veth pair (ip netns, veth)";
  }
  ~BlackHoleNetwork() {
    Sh(std::string(kIp) + " link del " + host_if_);
    Sh(std::string(kIp) + " netns del " + ns_);
  }
  bool ok() const { return ok_; }
  const std::string& why_not() const { return why_not_; }
  const std::string& outside() const { return outside_; }
  const std::string& inside() const { return inside_; }
  std::vector<std::string> run_inside() const { return {kIp, "netns", "exec", ns_}; }
  // The namespace's end goes down: what is sent to it is dropped, no reset comes back.
  bool Cut() { return Sh(std::string(kIp) + " netns exec " + ns_ + " " + kIp + " link set " + ns_if_ + " down"); }

 private:
  std::string ns_, host_if_, ns_if_, outside_, inside_, why_not_;
  bool ok_ = false;
};

std::string At(const std::string& host, int port) { return host + ":" + std::to_string(port); }

TEST_CASE("a black-holed ps: the step fails within the heartbeat timeout; the other nodes answer meanwhile",
          "[cluster][faults][blackhole]") {
  BlackHoleNetwork net;
  if (!net.ok()) {
    WARN("skipped: " << net.why_not());
    return;
  }
  NodeProcessOptions inside;
  inside.command_prefix = net.run_inside();
  NodeProcess ps(inside), worker0, worker1;
  const std::string o = net.outside(), i = net.inside();
  REQUIRE(ps.Start("ps=" + i + ":0;worker=" + o + ":0," + o + ":0", "ps", 0, {"--listen", i}));
  REQUIRE(worker1.Start("ps=" + i + ":0;worker=" + o + ":0," + o + ":0", "worker", 1, {"--listen", o}));
  const std::string spec = "ps=" + At(i, ps.port()) + ";worker=" + o + ":0," + At(o, worker1.port());
  INFO(worker0.error());
  REQUIRE(worker0.Start(spec, "worker", 0, {"--listen", o}));

  // An endless loop whose body runs on the ps: the ps is always needed.
  tensorflow::GraphDef def = testing::CountingLoopGraph(1000000000, "/job:ps/replica:0/task:0");
  SessionOptions options;
  options.target = "tensoract://" + At(o, worker0.port());
  options.cluster_token = kTestToken;
  options.step_timeout_ms = 60000;
  auto session = Session::New(options);
  REQUIRE(session.ok());
  REQUIRE((*session)->Create(def).ok());
  auto run = std::async(std::launch::async, [&] {
    std::vector<Tensor> got;
    return (*session)->Run({}, {"count"}, {}, &got);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  REQUIRE(run.wait_for(std::chrono::seconds(0)) == std::future_status::timeout);  // it runs

  REQUIRE(net.Cut());
  const auto cut = std::chrono::steady_clock::now();
  auto since_cut = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - cut).count(); };
  // Meanwhile every other node answers, promptly: nothing waits on the ps in a scheduler.
  for (int round = 0; round < 3; ++round) {
    for (const NodeProcess* node : {&worker0, &worker1}) {
      const auto asked = std::chrono::steady_clock::now();
      std::string text = testing::InspectNodeAt(o, node->port(), 2000);
      const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - asked).count();
      INFO(text);
      CHECK_THAT(text, Catch::Contains("worker /job:worker"));
      CHECK(took < 2.0);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
  REQUIRE(run.wait_for(std::chrono::seconds(20)) == std::future_status::ready);
  Status s = run.get();
  const double failed_s = since_cut();
  INFO(s.ToString() << " after " << failed_s << " s");
  CHECK(s.code() == error::UNAVAILABLE);
  CHECK_THAT(s.message(), Catch::Contains("/job:ps/replica:0/task:0"));
  // The master's heartbeat timeout (3 s) plus its interval (1 s), plus slack.
  CHECK(failed_s < 5.0);
  CHECK_THAT(testing::InspectNodeAt(o, worker0.port(), 2000), Catch::Contains("/job:ps/replica:0/task:0: UNAVAILABLE"));
  WARN("ps black-holed: the step failed " << failed_s << " s after; worker 0 and worker 1 answered inspect meanwhile");
}

}  // namespace
}  // namespace tensoract
