#include "bootstrap/node_auth.h"

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include <caf/all.hpp>
#include <caf/io/all.hpp>

namespace tensoract {
namespace {

constexpr const char* kRefused = "refused: wrong cluster token";

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

// Who sent the current message, for the log: the peer's node id names its process and host.
std::string DescribeSender(caf::event_based_actor* self) {
  const caf::strong_actor_ptr& sender = self->current_sender();
  if (!sender) return "an anonymous sender";
  if (sender->node() == self->home_system().node()) return StrCat("local actor ", sender->id());
  // A 0.17 node id reads "<host id>#<process id>".
  return StrCat("peer node ", caf::to_string(sender->node()), " (host#pid; actor ", sender->id(), ")");
}

// One write per line, so lines from several actors do not interleave.
void Log(const std::string& line) { std::cerr << (line + "\n") << std::flush; }

caf::behavior Gatekeeper(caf::event_based_actor* self, std::string token, caf::actor service, std::string task_name) {
  // Linked: a gatekeeper whose service is gone would hand out a dead handle.
  self->link_to(service);
  return {
      [=](hello_atom, const std::string& presented) -> caf::result<caf::actor> {
        if (!TokensMatch(presented, token)) {
          Log(StrCat("tensoract-node ", task_name, ": refused ", DescribeSender(self), ": wrong cluster token"));
          return caf::make_error(caf::sec::runtime_error, std::string(kRefused));
        }
        Log(StrCat("tensoract-node ", task_name, ": accepted ", DescribeSender(self)));
        return service;
      },
  };
}

// The text a node put into its error reply, or CAF's rendering of the error.
std::string ErrorText(caf::actor_system& system, const caf::error& e) {
  if (e.context().match_elements<std::string>()) return e.context().get_as<std::string>(0);
  return system.render(e);
}

Status FromConnectError(caf::actor_system& system, const caf::error& e, const std::string& what) {
  if (e == caf::sec::request_timeout) return errors::DeadlineExceeded(what, ": no answer in time");
  return errors::Unavailable(what, ": ", system.render(e));
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

bool TokensMatch(std::string_view presented, std::string_view expected) {
  // Every byte of the presented token is looked at whatever the outcome; the loop's length
  // is the guesser's own, so it tells nothing about the expected token's.
  unsigned char diff = presented.size() == expected.size() ? 0 : 1;
  for (size_t i = 0; i < presented.size(); ++i) {
    unsigned char want = expected.empty() ? 0 : static_cast<unsigned char>(expected[i % expected.size()]);
    diff |= static_cast<unsigned char>(presented[i]) ^ want;
  }
  return diff == 0 && !expected.empty();
}

caf::actor SpawnGatekeeper(caf::actor_system& system, std::string token, caf::actor service,
                           std::string task_name) {
  return system.spawn(Gatekeeper, std::move(token), std::move(service), std::move(task_name));
}

StatusOr<caf::actor> ConnectToNode(caf::actor_system& system, const std::string& host, uint16_t port,
                                     const std::string& token, std::chrono::milliseconds timeout) {
  std::string where = StrCat(host, ":", port);
  caf::scoped_actor self{system};
  // The middleman actor's connect, not the blocking remote_actor(): its request has a
  // deadline, so a host that accepts and never answers cannot hang us.
  caf::strong_actor_ptr gatekeeper;
  Status status;
  self->request(system.middleman().actor_handle(), timeout, caf::connect_atom::value, host, port)
      .receive(
          [&](const caf::node_id&, caf::strong_actor_ptr& published, const std::set<std::string>&) {
            gatekeeper = std::move(published);
          },
          [&](caf::error& e) { status = FromConnectError(system, e, StrCat("connecting to ", where)); });
  TA_RETURN_IF_ERROR(status);
  if (!gatekeeper) return errors::Unavailable("connecting to ", where, ": nothing is published there");

  caf::actor worker;
  self->request(caf::actor_cast<caf::actor>(gatekeeper), timeout, hello_atom::value, token)
      .receive([&](caf::actor& w) { worker = std::move(w); },
               [&](caf::error& e) {
                 std::string text = ErrorText(system, e);
                 if (text == kRefused) {
                   status = errors::PermissionDenied("node ", where, " ", text);
                 } else if (e == caf::sec::request_timeout) {
                   status = errors::DeadlineExceeded("node ", where, ": no answer to hello in time");
                 } else {
                   status = errors::Unavailable("node ", where, ": ", text);
                 }
               });
  TA_RETURN_IF_ERROR(status);
  if (!worker) return errors::Internal("node ", where, " answered hello without its service");
  return worker;
}

}  // namespace tensoract
