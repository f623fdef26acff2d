#include "examples/distributed_fashion_mnist/loopback_cluster.h"

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>

namespace tensoract {
namespace distributed_mnist {
namespace {

using local_cluster::Local;
using local_cluster::NodeProcess;
using local_cluster::NodeProcessOptions;

// 128 random bits as hex. std::random_device reads the kernel's entropy on Linux; the
// token only has to keep other programs on this machine out of this cluster.
std::string RandomToken() {
  std::random_device entropy;
  std::string token;
  for (int i = 0; i < 4; ++i) {
    char word[9];
    std::snprintf(word, sizeof(word), "%08x", static_cast<unsigned>(entropy()));
    token += word;
  }
  return token;
}

NodeProcessOptions Options(const std::string& binary, const std::string& token) {
  NodeProcessOptions options;
  options.binary = binary;
  options.token = token;
  // Three nodes and the client share the machine; two threads each is what the cluster
  // tests use and keeps them from crowding each other out on a small one.
  options.threads = 2;
  return options;
}

}  // namespace

LoopbackCluster::LoopbackCluster(const std::string& node_binary)
    : token_(RandomToken()),
      ps_(Options(node_binary, token_)),
      worker0_(Options(node_binary, token_)),
      worker1_(Options(node_binary, token_)) {}

StatusOr<std::unique_ptr<LoopbackCluster>> LoopbackCluster::Start(const std::string& node_binary) {
  std::unique_ptr<LoopbackCluster> cluster(new LoopbackCluster(node_binary));
  // Only worker 0's master drives other tasks, so the others need no real ports of anyone.
  const std::string anywhere = "ps=127.0.0.1:0;worker=127.0.0.1:0,127.0.0.1:0";
  if (!cluster->ps_.Start(anywhere, "ps", 0)) {
    return errors::Unavailable("the ps (/job:ps/task:0) did not start: ", cluster->ps_.error());
  }
  if (!cluster->worker1_.Start(anywhere, "worker", 1)) {
    return errors::Unavailable("worker 1 did not start: ", cluster->worker1_.error());
  }
  cluster->spec_ = "ps=" + Local(cluster->ps_.port()) + ";worker=127.0.0.1:0," + Local(cluster->worker1_.port());
  if (!cluster->worker0_.Start(cluster->spec_, "worker", 0)) {
    return errors::Unavailable("worker 0 did not start: ", cluster->worker0_.error());
  }
  return cluster;  // on the error returns above, ~LoopbackCluster stops what did start
}

void LoopbackCluster::Stop(int grace_ms) {
  // SIGTERM to all first, so they shut down side by side, then one deadline for all.
  NodeProcess* nodes[] = {&worker0_, &worker1_, &ps_};
  for (NodeProcess* n : nodes) n->Signal(SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(grace_ms);
  for (NodeProcess* n : nodes) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    n->Stop(static_cast<int>(std::max<int64_t>(left.count(), 0)));
  }
}

std::string LoopbackCluster::Describe() const {
  return StrCat("ps pid ", ps_.pid(), ", worker 0 pid ", worker0_.pid(), ", worker 1 pid ", worker1_.pid());
}

std::string LoopbackCluster::target() const { return "tensoract://" + Local(worker0_.port()); }

}  // namespace distributed_mnist
}  // namespace tensoract
