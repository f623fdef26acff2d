// tensoract-inspect: prints the state of a running node's worker (its devices, graphs,
// running steps and rendezvous), so "why is my step stuck" has an answer.
//
//   tensoract-inspect 127.0.0.1:2223 [--token-file F] [--timeout-ms N]
//
// It presents the cluster token (--token-file, else $TENSORACT_CLUSTER_TOKEN) like any peer.
// Every wait has a deadline: exit 0 with the worker's state on stdout, or a message on
// stderr and exit 1 (no node there, wrong token, no answer in time) or 2 (bad arguments).
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <thread>

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include "actors/messages.h"
#include "bootstrap/cluster_spec.h"
#include "bootstrap/node_auth.h"

namespace tensoract {
namespace {

constexpr const char* kUsage =
    "usage: tensoract-inspect HOST:PORT [--token-file PATH | --tls-cert P --tls-key P --tls-ca P]\n"
    "                         [--timeout-ms N]\n"
    "Prints the state of the worker of the tensoract-node at HOST:PORT.\n";

struct InspectArgs {
  TaskAddress address;
  NodeClientFlags flags;
};

StatusOr<InspectArgs> ParseArgs(const std::vector<std::string>& args) {
  InspectArgs parsed;
  for (size_t i = 0; i < args.size(); ++i) {
    TA_ASSIGN_OR_RETURN(bool taken, ParseNodeClientFlag(args, &i, &parsed.flags));
    if (!taken) return errors::InvalidArgument("unexpected argument '", args[i], "'");
  }
  if (parsed.flags.address.empty()) return errors::InvalidArgument("which node? (HOST:PORT is required)");
  TA_ASSIGN_OR_RETURN(parsed.address, ParseTaskAddress(parsed.flags.address));
  return parsed;
}

int Inspect(const InspectArgs& args, const ClusterCredentials& credentials) {
  const std::chrono::milliseconds timeout(args.flags.timeout_ms);
  // Belt and braces: each request below has its deadline, and this one bounds the whole
  // run (connect, inspect, shutdown) in case something in between blocks.
  std::thread([total = 3 * timeout + std::chrono::seconds(2)] {
    std::this_thread::sleep_for(total);
    std::fputs("tensoract-inspect: gave up: no result in time\n", stderr);
    _exit(1);
  }).detach();

  caf::actor_system_config config;
  Status configured = ConfigureClusterTransport(config, credentials, "tensoract-inspect");
  if (!configured.ok()) {
    std::cerr << "tensoract-inspect: " << configured << "\n";
    return 1;
  }
  caf::actor_system system{config};
  auto worker = ConnectToNode(system, args.address.host, args.address.port, timeout);
  if (!worker.ok()) {
    std::cerr << "tensoract-inspect: " << worker.status() << "\n";
    return 1;
  }
  caf::scoped_actor self{system};
  int rc = 1;
  self->request(*worker, timeout, inspect_atom::value)
      .receive(
          [&](const std::string& state) {
            std::cout << state << "\n" << std::flush;
            rc = 0;
          },
          [&](caf::error& e) {
            std::cerr << "tensoract-inspect: " << FromCafError(e, StrCat("inspecting ", args.address.ToString()))
                      << "\n";
          });
  return rc;
}

}  // namespace
}  // namespace tensoract

int main(int argc, char** argv) {
  return tensoract::NodeClientMain<tensoract::InspectArgs>("tensoract-inspect", tensoract::kUsage, argc, argv,
                                                          tensoract::ParseArgs, tensoract::Inspect);
}
