#include "tests/cluster/cluster_test_util.h"

#include <chrono>

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include "actors/cluster_transport.h"
#include "actors/messages.h"
#include "bootstrap/node_auth.h"

namespace tensoract {
namespace testing {

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
