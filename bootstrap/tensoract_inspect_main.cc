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
    "Prints the state of the worker of the tensoract-node at HOST:PORT.\n"
    "  --token-file PATH  the cluster token (default: $TENSORACT_CLUSTER_TOKEN)\n"
    "  --tls-cert, --tls-key, --tls-ca PATH  TLS mode: a certificate and key from the\n"
    "                     cluster CA, and the CA's certificate\n"
    "  --timeout-ms N     deadline of each round trip (default 5000)\n";

struct InspectArgs {
  TaskAddress address;
  std::string token_file;
  std::string tls_cert_file, tls_key_file, tls_ca_file;
  int timeout_ms = 5000;
};

StatusOr<InspectArgs> ParseArgs(const std::vector<std::string>& args) {
  InspectArgs parsed;
  bool have_address = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--token-file" || arg == "--timeout-ms" || arg == "--tls-cert" || arg == "--tls-key" ||
        arg == "--tls-ca") {
      if (i + 1 == args.size()) return errors::InvalidArgument(arg, " needs a value");
      const std::string& value = args[++i];
      if (arg == "--token-file") {
        parsed.token_file = value;
      } else if (arg == "--tls-cert") {
        parsed.tls_cert_file = value;
      } else if (arg == "--tls-key") {
        parsed.tls_key_file = value;
      } else if (arg == "--tls-ca") {
        parsed.tls_ca_file = value;
      } else {
        bool digits = !value.empty() && value.size() <= 8 && value.find_first_not_of("0123456789") == std::string::npos;
        if (!digits || std::stoi(value) == 0) return errors::InvalidArgument("--timeout-ms: bad value '", value, "'");
        parsed.timeout_ms = std::stoi(value);
      }
    } else if (arg.rfind("--", 0) == 0 || have_address) {
      return errors::InvalidArgument("unexpected argument '", arg, "'");
    } else {
      TA_ASSIGN_OR_RETURN(parsed.address, ParseTaskAddress(arg));
      have_address = true;
    }
  }
  if (!have_address) return errors::InvalidArgument("which node? (HOST:PORT is required)");
  return parsed;
}

int Inspect(const InspectArgs& args, const ClusterCredentials& credentials) {
  const std::chrono::milliseconds timeout(args.timeout_ms);
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
  std::vector<std::string> args(argv + 1, argv + argc);
  for (const std::string& arg : args) {
    if (arg == "--help" || arg == "-h") {
      std::cout << tensoract::kUsage;
      return 0;
    }
  }
  auto parsed = tensoract::ParseArgs(args);
  if (!parsed.ok()) {
    std::cerr << "tensoract-inspect: " << parsed.status() << "\n" << tensoract::kUsage;
    return 2;
  }
  auto credentials = tensoract::LoadClusterCredentials(parsed->token_file, parsed->tls_cert_file,
                                                       parsed->tls_key_file, parsed->tls_ca_file);
  if (!credentials.ok()) {
    std::cerr << "tensoract-inspect: " << credentials.status() << "\n";
    return 1;
  }
  return tensoract::Inspect(*parsed, *credentials);
}
