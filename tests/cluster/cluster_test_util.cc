#include "tests/cluster/cluster_test_util.h"

#include <signal.h>

#include <chrono>

#include <catch2/catch.hpp>

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include "actors/cluster_transport.h"
#include "actors/messages.h"
#include "bootstrap/node_auth.h"
#include "graph/builder/control_flow.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/ops.h"

namespace tensoract {
namespace testing {

using local_cluster::Local;

Cluster::Cluster(const std::vector<std::string>& master_flags) {
  // ps and worker 1 take any free port; worker 0, whose master drives them, learns theirs.
  REQUIRE(ps.Start("ps=127.0.0.1:0;worker=127.0.0.1:0,127.0.0.1:0", "ps", 0));
  REQUIRE(worker1.Start("ps=127.0.0.1:0;worker=127.0.0.1:0,127.0.0.1:0", "worker", 1));
  spec = "ps=" + Local(ps.port()) + ";worker=127.0.0.1:0," + Local(worker1.port());
  INFO(worker0.error());
  REQUIRE(worker0.Start(spec, "worker", 0, master_flags));
}

void Cluster::RestartPs() {
  int port = ps.port();
  ps.Signal(SIGKILL);
  ps.Wait(5000);
  INFO(ps.error());
  REQUIRE(ps.Start("ps=" + Local(port) + ";worker=127.0.0.1:0,127.0.0.1:0", "ps", 0));
}

void Cluster::RestartWorker0(const std::vector<std::string>& master_flags) {
  int port = worker0.port();
  worker0.Signal(SIGKILL);
  worker0.Wait(5000);
  const std::string own = "ps=" + Local(ps.port()) + ";worker=" + Local(port) + "," + Local(worker1.port());
  INFO(worker0.error());
  REQUIRE(worker0.Start(own, "worker", 0, master_flags));
}

void Cluster::RestartWorker1() {
  int port = worker1.port();
  worker1.Signal(SIGKILL);
  worker1.Wait(5000);
  std::string own = "ps=127.0.0.1:0;worker=127.0.0.1:0," + Local(port);
  INFO(worker1.error());
  REQUIRE(worker1.Start(own, "worker", 1));
}

std::unique_ptr<Session> Connect(const std::string& target, const std::string& token, int64_t step_timeout_ms) {
  SessionOptions options;
  options.target = target;
  options.cluster_token = token;
  options.step_timeout_ms = step_timeout_ms;
  auto session = Session::New(options);
  REQUIRE(session.ok());
  return std::move(session).value();
}


tensorflow::GraphDef SpreadLoopGraph(bool spread, int n) {
  Scope root = Scope::NewRootScope();
  const std::string w1 = spread ? "/job:worker/replica:0/task:1" : "";
  const std::string ps = spread ? "/job:ps/replica:0/task:0" : "";
  std::vector<Output> out;
  Status s = ops::WhileLoop(
      root, {ops::Const(root, 0), ops::Const(root, 1.f)},
      [&](const Scope& sc, const std::vector<Output>& v, Output* pred) {
        *pred = ops::Less(sc, v[0], n);
        return sc.status();
      },
      [&](const Scope& sc, const std::vector<Output>& v, std::vector<Output>* next) {
        Output i = ops::Add(sc, v[0], 1);
        Scope on_w1 = sc.WithDevice(w1);
        Output a = ops::Add(on_w1, ops::Mul(on_w1, v[1], 0.5f), ops::Cast(on_w1, i, tensorflow::DT_FLOAT));
        *next = {i, ops::Sub(sc.WithDevice(ps), a, 0.25f)};
        return sc.status();
      },
      &out);
  REQUIRE(s.ok());
  ops::Identity(root.WithOpName("count"), out[0]);
  ops::Identity(root.WithOpName("state"), out[1]);
  tensorflow::GraphDef def;
  REQUIRE(root.ToGraphDef(&def).ok());
  return def;
}

std::string InspectNode(int port, const std::string& token) { return InspectNodeAt("127.0.0.1", port, 5000, token); }

std::string InspectNodeAt(const std::string& host, int port, int64_t timeout_ms, const std::string& token) {
  caf::actor_system_config config;
  Status configured = ConfigureClusterTransport(config, ClusterCredentials::FromToken(token));
  if (!configured.ok()) return configured.ToString();
  caf::actor_system system{config};
  auto service = ConnectToNode(system, host, static_cast<uint16_t>(port), std::chrono::milliseconds(timeout_ms));
  if (!service.ok()) return service.status().ToString();
  std::string text;
  caf::scoped_actor self{system};
  self->request(*service, std::chrono::milliseconds(timeout_ms), inspect_atom::value)
      .receive([&](std::string& t) { text = t; }, [&](caf::error& e) { text = system.render(e); });
  return text;
}

}  // namespace testing
}  // namespace tensoract
