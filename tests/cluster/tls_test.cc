// TLS mode: three tensoract-node processes with certificates from one cluster CA
// (bootstrap/make-cluster-certs.sh), no token; both channels are mutual TLS.
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "client/session.h"
#include "bootstrap/node_process.h"
#include "tests/actors/test_util.h"
#include "tests/cluster/cluster_test_util.h"

namespace tensoract {
namespace {

using local_cluster::Local;
using local_cluster::NodeProcess;
using local_cluster::NodeProcessOptions;

std::vector<std::string> TlsFlags(const std::string& dir, const std::string& name) {
  return {"--tls-cert", dir + "/" + name + ".pem", "--tls-key", dir + "/" + name + ".key", "--tls-ca", dir + "/ca.pem"};
}

SessionOptions TlsClient(const std::string& target, const std::string& dir, const std::string& name) {
  SessionOptions options;
  options.target = target;
  options.tls_cert_file = dir + "/" + name + ".pem";
  options.tls_key_file = dir + "/" + name + ".key";
  options.tls_ca_file = dir + "/ca.pem";
  options.step_timeout_ms = 60000;
  return options;
}

// The spread loop, 20 iterations: tensors cross both channels between all three processes.
tensorflow::GraphDef SpreadLoopDef(bool spread) { return testing::SpreadLoopGraph(spread, 20); }

TEST_CASE("a cluster in TLS mode runs steps across its processes and refuses other CAs' certificates",
          "[cluster][trust][tls]") {
  const std::string dir = std::filesystem::temp_directory_path() / ("cluster_tls_" + std::to_string(getpid()));
  testing::MakeClusterCerts(dir, {"ps", "worker0", "worker1", "client"});
  testing::MakeClusterCerts(dir + "/other", {"stranger"});
  NodeProcessOptions no_token;
  no_token.token = "";  // TLS mode reads no token
  NodeProcess ps(no_token), worker0(no_token), worker1(no_token);
  const std::string any = "ps=127.0.0.1:0;worker=127.0.0.1:0,127.0.0.1:0";
  INFO(ps.error());
  REQUIRE(ps.Start(any, "ps", 0, TlsFlags(dir, "ps")));
  INFO(worker1.error());
  REQUIRE(worker1.Start(any, "worker", 1, TlsFlags(dir, "worker1")));
  INFO(worker0.error());
  REQUIRE(worker0.Start("ps=" + Local(ps.port()) + ";worker=127.0.0.1:0," + Local(worker1.port()), "worker", 0,
                        TlsFlags(dir, "worker0")));
  const std::string target = "tensoract://" + Local(worker0.port());

  auto local = Session::New().value();
  REQUIRE(local->Create(SpreadLoopDef(false)).ok());
  std::vector<Tensor> want;
  REQUIRE(local->Run({}, {"state"}, {}, &want).ok());

  auto session = Session::New(TlsClient(target, dir, "client"));
  INFO(session.status().ToString());
  REQUIRE(session.ok());
  Status created = (*session)->Create(SpreadLoopDef(true));
  INFO(created.ToString());
  REQUIRE(created.ok());
  std::vector<Tensor> got;
  Status ran = (*session)->Run({}, {"state"}, {}, &got);
  INFO(ran.ToString());
  REQUIRE(ran.ok());
  CHECK(got[0].base<float>()[0] == want[0].base<float>()[0]);

  // A client whose certificate another CA signed gets nowhere.
  auto stranger = Session::New(TlsClient(target, dir + "/other", "stranger"));
  REQUIRE(stranger.ok());  // connecting is lazy: the first call finds out
  Status refused = (*stranger)->Create(SpreadLoopDef(false));
  INFO(refused.ToString());
  CHECK_FALSE(refused.ok());
  CHECK(refused.code() == error::PERMISSION_DENIED);
  CHECK_THAT(refused.message(), Catch::Contains("refused") && Catch::Contains("TLS"));
  // A node with a key that is not its certificate's refuses to start, saying why.
  NodeProcess mismatched(no_token);
  std::vector<std::string> flags = TlsFlags(dir, "ps");
  flags[3] = dir + "/worker1.key";
  CHECK_FALSE(mismatched.Start("worker=127.0.0.1:0", "worker", 0, flags));
  std::filesystem::remove_all(dir);
}

// A token client's side of the TLS 1.3 handshake completes before the TLS-mode node
// refuses it; its connection must still end cleanly (this crashed or hung 1 run in 4 while
// the transport resumed paused writes without CAF's writer: cluster_transport.cc).
TEST_CASE("a token client of a TLS-mode cluster is refused, and its actor system stops", "[tls][tls_token_client]") {
  const std::string dir = std::filesystem::temp_directory_path() / ("cluster_tls_token_" + std::to_string(getpid()));
  testing::MakeClusterCerts(dir, {"worker0"});
  NodeProcessOptions no_token;
  no_token.token = "";
  NodeProcess node(no_token);
  REQUIRE(node.Start("worker=127.0.0.1:0", "worker", 0, TlsFlags(dir, "worker0")));
  SessionOptions token_client;
  token_client.target = "tensoract://" + Local(node.port());
  token_client.cluster_token = local_cluster::kTestToken;
  {
    auto with_token = Session::New(token_client);
    REQUIRE(with_token.ok());
    CHECK_FALSE((*with_token)->Create(SpreadLoopDef(false)).ok());
  }  // the session's actor system stops here
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tensoract
