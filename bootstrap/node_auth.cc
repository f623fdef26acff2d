#include "bootstrap/node_auth.h"

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include "actors/cluster_transport.h"
#include "bootstrap/cluster_spec.h"

namespace tensoract {
namespace {

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

}  // namespace

StatusOr<std::string> LoadClusterToken(const std::string& token_file) {
  std::string token;
  if (!token_file.empty()) {
    std::ifstream in(token_file);
    if (!in) return errors::FailedPrecondition("cannot read the cluster token file '", token_file, "'");
    std::stringstream contents;
    contents << in.rdbuf();
    token = Trim(contents.str());
    if (token.empty()) return errors::FailedPrecondition("the cluster token file '", token_file, "' is empty");
    return token;
  }
  const char* env = std::getenv(kClusterTokenEnv);
  token = env ? Trim(env) : "";
  if (token.empty()) {
    return errors::FailedPrecondition("no cluster token: give --token-file PATH or set ", kClusterTokenEnv,
                                      " (every task of the cluster needs the same one)");
  }
  return token;
}

StatusOr<ClusterCredentials> LoadClusterCredentials(const std::string& token_file, const std::string& tls_cert_file,
                                                    const std::string& tls_key_file, const std::string& tls_ca_file) {
  ClusterCredentials credentials;
  if (tls_cert_file.empty() && (!tls_key_file.empty() || !tls_ca_file.empty())) {
    return errors::FailedPrecondition("TLS mode needs the task's certificate (--tls-cert) as well");
  }
  if (!tls_cert_file.empty()) {
    credentials.tls_cert_file = tls_cert_file;
    credentials.tls_key_file = tls_key_file;
    credentials.tls_ca_file = tls_ca_file;
    Status valid = credentials.Validate();
    if (!valid.ok()) return errors::FailedPrecondition(valid.message());
    // Loaded once here, so that a bad file is reported before anything starts.
    auto loaded = MakeSslContext(credentials);
    if (!loaded.ok()) return errors::FailedPrecondition(loaded.status().message());
    return credentials;
  }
  TA_ASSIGN_OR_RETURN(credentials.token, LoadClusterToken(token_file));
  return credentials;
}

StatusOr<caf::actor> ConnectToNode(caf::actor_system& system, const std::string& host, uint16_t port,
                                   std::chrono::milliseconds timeout) {
  const std::string where = StrCat("node ", host, ":", port);
  if (!HasClusterTransport(system)) {
    return errors::FailedPrecondition("connecting to ", where, ": configure the actor system with "
                                      "ConfigureClusterTransport first");
  }
  caf::scoped_actor self{system};
  caf::strong_actor_ptr published;
  Status status;
  // The middleman actor's connect, not the blocking remote_actor(): its request has a
  // deadline, so a host that accepts and never answers cannot hang us.
  self->request(system.middleman().actor_handle(), timeout, caf::connect_atom::value, host, port)
      .receive([&](const caf::node_id&, caf::strong_actor_ptr& p, const std::set<std::string>&) { published = std::move(p); },
               [&](caf::error& e) { status = DescribeConnectFailure(system, e, host, port, where); });
  TA_RETURN_IF_ERROR(status);
  if (!published) return errors::Unavailable(where, ": nothing is published there");
  return caf::actor_cast<caf::actor>(std::move(published));
}

StatusOr<bool> ParseNodeClientFlag(const std::vector<std::string>& args, size_t* i, NodeClientFlags* flags) {
  const std::string& arg = args[*i];
  if (arg == "--token-file" || arg == "--timeout-ms" || arg == "--tls-cert" || arg == "--tls-key" || arg == "--tls-ca") {
    if (*i + 1 == args.size()) return errors::InvalidArgument(arg, " needs a value");
    const std::string& value = args[++*i];
    if (arg == "--token-file") {
      flags->token_file = value;
    } else if (arg == "--tls-cert") {
      flags->tls_cert_file = value;
    } else if (arg == "--tls-key") {
      flags->tls_key_file = value;
    } else if (arg == "--tls-ca") {
      flags->tls_ca_file = value;
    } else {
      const bool digits = !value.empty() && value.size() <= 8 && value.find_first_not_of("0123456789") == std::string::npos;
      if (!digits || std::stoi(value) == 0) return errors::InvalidArgument("--timeout-ms: bad value '", value, "'");
      flags->timeout_ms = std::stoi(value);
    }
    return true;
  }
  if (arg.rfind("--", 0) == 0) return false;
  if (!flags->address.empty()) return errors::InvalidArgument("unexpected argument '", arg, "'");
  TA_RETURN_IF_ERROR(ParseTaskAddress(arg).status());
  flags->address = arg;
  return true;
}

}  // namespace tensoract
