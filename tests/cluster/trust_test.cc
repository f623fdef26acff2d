// The trust boundary with real processes on loopback: a tensoract-node refuses every peer
// that cannot prove it holds the cluster's credentials, on the control channel (CAF's
// BASP behind TLS) and on the data plane (the token handshake), and what strangers do to
// its ports (plain CAF peers, garbage, thousands of connections, idle ones held open)
// leaves it serving with its descriptors flat. Every wait has a deadline.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <signal.h>
#include <dirent.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <future>
#include <limits>
#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include <openssl/ssl.h>

#include <fstream>

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include "actors/cluster_credentials.h"
#include "actors/cluster_transport.h"
#include "actors/data_plane/data_plane.h"
#include "actors/messages.h"
#include "actors/rpc.h"
#include "client/session.h"
#include "bootstrap/node_auth.h"
#include "bootstrap/node_process.h"
#include "tests/cluster/cluster_test_util.h"
#include "graph/builder/array_ops.h"
#include "graph/builder/data_flow_ops.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/ops.h"
#include "messages/master.pb.h"

namespace tensoract {
namespace {

using local_cluster::kTestToken;
using local_cluster::NodeProcess;
using local_cluster::NodeProcessOptions;

// A one-task cluster: its node is the target of every attack.
struct Target {
  explicit Target(int max_open_files = 0) : node(Options(max_open_files)) {
    INFO(node.error());
    REQUIRE(node.Start("worker=127.0.0.1:0", "worker", 0));
  }
  static NodeProcessOptions Options(int max_open_files) {
    NodeProcessOptions options;
    options.max_open_files = max_open_files;
    return options;
  }
  int data_plane_port() const { return std::stoi(node.data_plane().substr(node.data_plane().rfind(':') + 1)); }
  NodeProcess node;
};

// What a member of the cluster (or a holder of `token`) gets from the node's inspect.
std::string InspectAsMember(int port, const std::string& token = kTestToken) { return testing::InspectNode(port, token); }

// A connection to `port` on loopback, from `source` (any 127.x.y.z: a peer of another address).
int ConnectTcp(int port, const char* source = nullptr) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd >= 0 && source != nullptr) {
    sockaddr_in from{};
    from.sin_family = AF_INET;
    inet_pton(AF_INET, source, &from.sin_addr);
    if (bind(fd, reinterpret_cast<sockaddr*>(&from), sizeof(from)) != 0) {
      close(fd);
      return -1;
    }
  }
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    if (fd >= 0) close(fd);
    return -1;
  }
  return fd;
}

// Whether the peer closes `fd` within `ms` (reading and dropping whatever it sends).
bool ClosedByPeerWithin(int fd, int ms, std::string* received = nullptr) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  char buf[4096];
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    ssize_t n = recv(fd, buf, sizeof(buf), 0);
    if (n <= 0) return true;
    if (received != nullptr) received->append(buf, static_cast<size_t>(n));
  }
}

int OpenDescriptors(int pid) {
  DIR* dir = opendir(("/proc/" + std::to_string(pid) + "/fd").c_str());
  if (dir == nullptr) return -1;
  int n = 0;
  while (readdir(dir) != nullptr) ++n;
  closedir(dir);
  return n - 2;  // . and ..
}

// A request a member may make: step 1 does not exist, so the node holds it until the
// deadline. DeadlineExceeded shows the request got through the handshake.
Status FetchAsMember(const Target& target, const std::string& token, int64_t wait_ms = 300) {
  DataPlaneClient client(token);
  auto got = client.RecvTensor(target.node.data_plane(), 1, "no-such-key", false, data_plane::SteadyNowMs() + wait_ms);
  return got.status();
}

TEST_CASE("a plain CAF peer cannot reach any actor of a node, before or after a member connected", "[cluster][trust]") {
  Target target;
  auto plain_connect = [&] {
    caf::actor_system_config config;
    config.load<caf::io::middleman>();  // CAF's own backend: plain BASP, no credentials
    caf::actor_system system{config};
    caf::scoped_actor self{system};
    bool got_actor = false;
    std::string error;
    self->request(system.middleman().actor_handle(), std::chrono::seconds(15), caf::connect_atom::value,
                  std::string("127.0.0.1"), static_cast<uint16_t>(target.node.port()))
        .receive([&](const caf::node_id&, caf::strong_actor_ptr& p, const std::set<std::string>&) { got_actor = p != nullptr; },
                 [&](caf::error& e) { error = system.render(e); });
    return std::make_pair(got_actor, error);
  };
  auto [before, before_error] = plain_connect();
  CHECK_FALSE(before);
  CHECK_FALSE(before_error.empty());
  // A member connects (the attack of the issue found the node service by id after this).
  CHECK_THAT(InspectAsMember(target.node.port()), Catch::Contains("worker"));
  auto [after, after_error] = plain_connect();
  CHECK_FALSE(after);
  CHECK_FALSE(after_error.empty());
  // The node took no harm: members are served, the process still runs.
  CHECK_THAT(InspectAsMember(target.node.port()), Catch::Contains("worker"));
  CHECK(target.node.running());
}

TEST_CASE("a peer with another cluster's token is refused on both channels, naming the reason", "[cluster][trust]") {
  Target target;
  std::string refused = InspectAsMember(target.node.port(), "another-clusters-token");
  CHECK_THAT(refused, Catch::Contains("PERMISSION_DENIED") && Catch::Contains("wrong cluster token"));
  Status data = FetchAsMember(target, "another-clusters-token");
  CHECK(data.code() == error::PERMISSION_DENIED);
  CHECK_THAT(data.message(), Catch::Contains(target.node.data_plane()));
  CHECK(FetchAsMember(target, kTestToken).code() == error::DEADLINE_EXCEEDED);  // members still get through
}

TEST_CASE("bytes from a stranger are dropped unread: a data-plane request without the handshake, "
          "garbage on the control port", "[cluster][trust]") {
  Target target;
  // A RecvTensorRequest as the data plane spoke it before the handshake existed: segment
  // table (one segment of 3 words) and the words. The server answers nothing and hangs up.
  const uint32_t table[2] = {0, 3};
  std::string request(reinterpret_cast<const char*>(table), sizeof(table));
  request.append(24, '\x01');
  int dp = ConnectTcp(target.data_plane_port());
  REQUIRE(dp >= 0);
  REQUIRE(send(dp, request.data(), request.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(request.size()));
  std::string answer;
  CHECK(ClosedByPeerWithin(dp, 3000, &answer));
  CHECK(answer.empty());
  close(dp);

  int control = ConnectTcp(target.node.port());
  REQUIRE(control >= 0);
  std::string garbage(2048, '\0');
  for (size_t i = 0; i < garbage.size(); ++i) garbage[i] = static_cast<char>(i * 131 + 7);
  send(control, garbage.data(), garbage.size(), MSG_NOSIGNAL);
  CHECK(ClosedByPeerWithin(control, 3000));
  close(control);
  CHECK_THAT(InspectAsMember(target.node.port()), Catch::Contains("worker"));
}

TEST_CASE("5,000 connections opened and closed on each port under a 1,024-descriptor limit leave the "
          "node serving with its descriptors flat", "[cluster][trust]") {
  Target target(/*max_open_files=*/1024);
  // Warm both channels up first, so that what they keep for members counts in the baseline.
  CHECK(FetchAsMember(target, kTestToken).code() == error::DEADLINE_EXCEEDED);
  CHECK_THAT(InspectAsMember(target.node.port()), Catch::Contains("worker"));
  const int before = OpenDescriptors(target.node.pid());
  REQUIRE(before > 0);
  int failed_connects = 0;
  for (int i = 0; i < 5000; ++i) {
    for (int port : {target.data_plane_port(), target.node.port()}) {
      int fd = ConnectTcp(port);
      if (fd < 0) {
        ++failed_connects;
        continue;
      }
      close(fd);
    }
  }
  CHECK(failed_connects == 0);
  // Closed connections are reaped as the next ones arrive: a member's requests do that, and
  // must be served.
  CHECK(FetchAsMember(target, kTestToken).code() == error::DEADLINE_EXCEEDED);
  CHECK_THAT(InspectAsMember(target.node.port()), Catch::Contains("worker"));
  int after = -1;
  for (int attempt = 0; attempt < 50; ++attempt) {  // the control channel's last closes land asynchronously
    after = OpenDescriptors(target.node.pid());
    if (after <= before + 8) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  INFO("descriptors before " << before << ", after " << after);
  CHECK(after <= before + 8);
}

TEST_CASE("500 idle connections held on each port: members already connected are served, and all "
          "are served again once the strangers let go", "[cluster][trust]") {
  Target target(/*max_open_files=*/1024);
  DataPlaneClient member(kTestToken);  // connected before the attack
  auto fetch = [&] {
    return member.RecvTensor(target.node.data_plane(), 1, "no-such-key", false, data_plane::SteadyNowMs() + 300)
        .status()
        .code();
  };
  CHECK(fetch() == error::DEADLINE_EXCEEDED);
  std::vector<int> held;
  for (int i = 0; i < 500; ++i) {
    for (int port : {target.data_plane_port(), target.node.port()}) {
      int fd = ConnectTcp(port);
      if (fd >= 0) held.push_back(fd);
    }
  }
  CHECK(fetch() == error::DEADLINE_EXCEEDED);
  CHECK(target.node.running());
  for (int fd : held) close(fd);
  // The node drops the strangers' handshakes at their deadline (10 s) at the latest.
  std::string inspected;
  for (int attempt = 0; attempt < 30; ++attempt) {
    inspected = InspectAsMember(target.node.port());
    if (inspected.find("worker") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  CHECK_THAT(inspected, Catch::Contains("worker"));
  CHECK(FetchAsMember(target, kTestToken).code() == error::DEADLINE_EXCEEDED);
}

TEST_CASE("a 20-byte feed announcing 32 GiB is refused before the node allocates, and a huge "
          "timeout_in_ms runs the step", "[cluster][trust]") {
  Target target;
  caf::actor_system_config config;
  REQUIRE(ConfigureClusterTransport(config, ClusterCredentials::FromToken(kTestToken)).ok());
  caf::actor_system system{config};
  auto service = ConnectToNode(system, "127.0.0.1", static_cast<uint16_t>(target.node.port()), std::chrono::seconds(5));
  REQUIRE(service.ok());
  tensorflow::RunStepRequest request;
  request.set_session_handle("no-such-session");
  auto* feed = request.add_feed();
  feed->set_name("x:0");
  feed->mutable_tensor()->set_dtype(tensorflow::DT_FLOAT);
  feed->mutable_tensor()->mutable_tensor_shape()->add_dim()->set_size(int64_t{1} << 33);
  feed->mutable_tensor()->add_float_val(1);
  REQUIRE(feed->tensor().ByteSizeLong() <= 20);
  caf::scoped_actor self{system};
  int32_t code = -1;
  std::string message;
  const auto start = std::chrono::steady_clock::now();
  self->request(*service, std::chrono::seconds(10), rpc_atom::value, std::string("RunStep"), request.SerializeAsString())
      .receive([&](int32_t c, std::string& m, std::string&) { code = c, message = m; },
               [&](caf::error& e) { message = system.render(e); });
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(2));
  CHECK(code == error::INVALID_ARGUMENT);
  CHECK_THAT(message, Catch::Contains("x:0") && Catch::Contains("34359738368 bytes"));

  // A client asking for a deadline near INT64_MAX gets its step run, not an overflow.
  SessionOptions options;
  options.target = "tensoract://127.0.0.1:" + std::to_string(target.node.port());
  options.cluster_token = kTestToken;
  auto session = Session::New(options);
  REQUIRE(session.ok());
  Scope root = Scope::NewRootScope();
  ops::Add(root.WithOpName("sum"), ops::Const(root, 2.f), ops::Const(root, 3.f));
  tensorflow::GraphDef def;
  REQUIRE(root.ToGraphDef(&def).ok());
  REQUIRE((*session)->Create(def).ok());
  RunOptions run_options;
  run_options.timeout_ms = std::numeric_limits<int64_t>::max();
  std::vector<Tensor> out;
  Status s = (*session)->Run(run_options, {}, {"sum"}, {}, &out, nullptr);
  INFO(s);
  REQUIRE(s.ok());
  CHECK(out[0].base<float>()[0] == 5.f);
  CHECK(target.node.running());
}

// The node's resident memory in MiB (/proc/PID/status), or -1.
long ResidentMiB(int pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6)) / 1024;
  }
  return -1;
}

TEST_CASE("300 idle connections held on each port, more than its handshake slots: new members still get in",
          "[cluster][trust]") {
  Target target(/*max_open_files=*/1024);
  auto threads = [&] {
    int n = 0;
    DIR* dir = opendir(("/proc/" + std::to_string(target.node.pid()) + "/task").c_str());
    if (dir == nullptr) return -1;
    while (readdir(dir) != nullptr) ++n;
    closedir(dir);
    return n - 2;
  };
  const int threads_before = threads();
  std::vector<int> held;
  for (int i = 0; i < 300; ++i) {
    for (int port : {target.data_plane_port(), target.node.port()}) {
      int fd = ConnectTcp(port);
      if (fd >= 0) held.push_back(fd);
    }
  }
  // A new member on both channels, while the strangers hold 128 control and 256 data-plane
  // slots and more: their oldest make room.
  CHECK(FetchAsMember(target, kTestToken).code() == error::DEADLINE_EXCEEDED);
  CHECK_THAT(InspectAsMember(target.node.port()), Catch::Contains("worker"));
  CHECK(FetchAsMember(target, kTestToken).code() == error::DEADLINE_EXCEEDED);
  CHECK(target.node.running());
  // A stranger's data-plane connection holds one thread (its reader), not two: at most 256
  // of them live, beside the members' (2 each).
  const int threads_held = threads();
  INFO("node threads before " << threads_before << ", with the strangers " << threads_held);
  CHECK(threads_held - threads_before <= 256 + 8);
  for (int fd : held) close(fd);
}

TEST_CASE("a member announcing a 1 GiB BASP message has its connection closed before the node allocates it",
          "[cluster][trust]") {
  Target target;
  const long before = ResidentMiB(target.node.pid());
  // A member's TLS (the token's), then one 32-byte BASP header: a client handshake whose
  // payload is said to be 1 GiB. CAF would size its read buffer for it at once.
  auto ctx = MakeSslContext(ClusterCredentials::FromToken(kTestToken));
  REQUIRE(ctx.ok());
  const int fd = ConnectTcp(target.node.port());
  REQUIRE(fd >= 0);
  SSL* ssl = SSL_new(ctx->get());
  REQUIRE(ssl != nullptr);
  SSL_set_fd(ssl, fd);
  REQUIRE(SSL_connect(ssl) == 1);
  unsigned char header[32] = {};
  header[0] = 1;  // client_handshake
  const uint32_t payload = uint32_t{1} << 30;
  for (int i = 0; i < 4; ++i) header[4 + i] = static_cast<unsigned char>(payload >> (24 - 8 * i));  // big-endian
  REQUIRE(SSL_write(ssl, header, sizeof(header)) == static_cast<int>(sizeof(header)));
  // The node's own BASP handshake may come first; then it closes the connection.
  timeval timeout{5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  const auto sent = std::chrono::steady_clock::now();
  char buf[4096];
  int n = 1;
  for (int reads = 0; n > 0 && reads < 100; ++reads) n = SSL_read(ssl, buf, sizeof(buf));
  CHECK(n <= 0);
  CHECK(std::chrono::steady_clock::now() - sent < std::chrono::seconds(5));
  SSL_free(ssl);
  close(fd);
  const long after = ResidentMiB(target.node.pid());
  INFO("resident before " << before << " MiB, after " << after << " MiB");
  CHECK(after - before < 256);
  // Members are still served.
  CHECK_THAT(InspectAsMember(target.node.port()), Catch::Contains("master:"));
  CHECK(target.node.running());
}

// Whether the peer has closed `fd` already (without waiting).
bool ClosedByPeer(int fd) {
  pollfd p{fd, POLLIN, 0};
  if (poll(&p, 1, 0) <= 0) return false;
  char byte;
  return recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT) <= 0;
}

TEST_CASE("one address holds at most 64 handshake slots per port: its 65th connection closes its own oldest, "
          "another address's stay, and every stranger is closed at the 5 s inbound deadline",
          "[cluster][trust]") {
  Target target;
  for (int port : {target.node.port(), target.data_plane_port()}) {
    INFO((port == target.node.port() ? "the control port" : "the data plane port"));
    std::vector<int> flood, other;
    for (int i = 0; i < 100; ++i) flood.push_back(ConnectTcp(port, "127.0.0.2"));
    for (int i = 0; i < 10; ++i) other.push_back(ConnectTcp(port, "127.0.0.3"));
    const auto opened = std::chrono::steady_clock::now();
    REQUIRE(std::count(flood.begin(), flood.end(), -1) + std::count(other.begin(), other.end(), -1) == 0);
    // 110 connections: fewer than the port's 128 (control) or 256 (data plane) slots, yet
    // 127.0.0.2's 36 oldest are closed to keep it within 64.
    int closed_oldest = 0, closed_newest = 0, closed_other = 0;
    for (int tries = 0; tries < 50 && closed_oldest < 36; ++tries) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      closed_oldest = static_cast<int>(std::count_if(flood.begin(), flood.begin() + 36, ClosedByPeer));
    }
    closed_newest = static_cast<int>(std::count_if(flood.begin() + 36, flood.end(), ClosedByPeer));
    closed_other = static_cast<int>(std::count_if(other.begin(), other.end(), ClosedByPeer));
    const double checked_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - opened).count();
    INFO("checked " << checked_s << " s after opening");
    CHECK(closed_oldest == 36);
    if (checked_s < 4) {  // before the inbound deadline closes them all
      CHECK(closed_newest == 0);
      CHECK(closed_other == 0);
    }
    // None of them ever handshakes: each is closed at the inbound deadline (5 s; it was 10).
    for (int fd : other) CHECK(ClosedByPeerWithin(fd, 8000));
    CHECK(std::chrono::steady_clock::now() - opened < std::chrono::seconds(9));
    for (int fd : flood) close(fd);
    for (int fd : other) close(fd);
  }
  CHECK(FetchAsMember(target, kTestToken).code() == error::DEADLINE_EXCEEDED);
  CHECK_THAT(InspectAsMember(target.node.port()), Catch::Contains("worker"));
}

// "x" (a float vector) summed with what "wait" dequeues from the session's own queue "gate",
// which "open" fills: a step fetching "y" holds its feed until "open" runs.
tensorflow::GraphDef GatedSumGraph() {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), tensorflow::DT_FLOAT);
  ops::QueueAttrs attrs;
  attrs.shapes = {PartialTensorShape(std::vector<int64_t>{})};
  Output gate = ops::FIFOQueue(root.WithOpName("gate"), {tensorflow::DT_FLOAT}, attrs);
  OutputList waited = ops::QueueDequeue(root.WithOpName("wait"), gate, {tensorflow::DT_FLOAT});
  ops::Add(root.WithOpName("y"), ops::Sum(root, x, ops::Const(root, 0)), waited[0]);
  ops::QueueEnqueue(root.WithOpName("open"), gate, {ops::Const(root, 1.f)});
  tensorflow::GraphDef def;
  REQUIRE(root.ToGraphDef(&def).ok());
  return def;
}

TEST_CASE("a session's running steps hold at most its feed budget: one more step's feeds are refused with "
          "ResourceExhausted, another session's are not, and the budget comes back when the step ends",
          "[cluster][trust]") {
  // 1 MB a session (the master's: 4 MB): two waiting steps of 600 KB feeds are one too many.
  setenv("TENSORACT_MAX_SESSION_FEED_BYTES", "1000000", 1);
  Target target;
  unsetenv("TENSORACT_MAX_SESSION_FEED_BYTES");
  const std::string url = "tensoract://127.0.0.1:" + std::to_string(target.node.port());
  auto first = testing::Connect(url);
  auto second = testing::Connect(url);
  REQUIRE(first->Create(GatedSumGraph()).ok());
  REQUIRE(second->Create(GatedSumGraph()).ok());
  const Tensor big = Tensor::FromVector<float>(std::vector<float>(150000, 1.f));  // 600 KB
  auto run_y = [&](Session& session) {
    std::vector<Tensor> out;
    return session.Run({{"x", big}}, {"y"}, {}, &out);
  };
  auto held = std::async(std::launch::async, [&] { return run_y(*first); });
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // its step waits at "wait", holding 600 KB
  REQUIRE(held.wait_for(std::chrono::seconds(0)) == std::future_status::timeout);
  Status refused = run_y(*first);
  INFO(refused.ToString());
  CHECK(refused.code() == error::RESOURCE_EXHAUSTED);
  CHECK_THAT(refused.message(), Catch::Contains("exceed the session's budget of 1000000 bytes"));
  // Another session has a budget of its own.
  auto other = std::async(std::launch::async, [&] { return run_y(*second); });
  std::vector<Tensor> out;
  REQUIRE(second->Run({}, {}, {"open"}, &out).ok());
  CHECK(other.get().ok());
  // The waiting step ends: its feeds' bytes come back to the session.
  REQUIRE(first->Run({}, {}, {"open"}, &out).ok());
  CHECK(held.get().ok());
  REQUIRE(first->Run({}, {}, {"open"}, &out).ok());
  Status again = run_y(*first);
  INFO(again.ToString());
  CHECK(again.ok());
}

}  // namespace
}  // namespace tensoract
