// The data plane between a DataPlaneServer and a DataPlaneClient over loopback: exact
// bytes for every numeric dtype, big and empty tensors, late and out-of-order replies,
// lossy16's bit patterns, and every way a request can fail (provider error, deadline,
// nobody listening, server stopped, server process killed) ending in an error, not a hang.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <future>
#include <map>
#include <filesystem>
#include <mutex>
#include <thread>

#include <catch2/catch.hpp>

#include "actors/data_plane/data_plane.h"
#include "actors/data_plane/auth.h"
#include "actors/data_plane/egress_order.h"
#include "kernels/tensor_list.h"
#include "messages/tensor_frame.capnp.h"
#include "tests/actors/test_util.h"

#include <capnp/message.h>
#include <capnp/serialize.h>
#include <sys/socket.h>

namespace tensoract {
namespace {

using data_plane::SteadyNowMs;

constexpr const char* kToken = "data-plane-test-token";

DataPlaneServer::Options TestOptions() {
  DataPlaneServer::Options options;
  options.credentials.token = kToken;
  return options;
}

// A provider backed by a map: answers at once when the key is there, otherwise when Put
// comes. Keys starting with "fail:" are answered with NotFound naming the key.
class Store {
 public:
  void Put(const std::string& key, const Tensor& value, bool is_dead = false) {
    std::vector<DataPlaneServer::Reply> waiting;
    {
      std::lock_guard<std::mutex> lock(mu_);
      values_[key] = {value, is_dead};
      waiting.swap(waiting_[key]);
    }
    for (auto& reply : waiting) reply(Status::OK(), value, is_dead);
  }
  // Requests waiting for a value not yet Put.
  size_t num_waiting() {
    std::lock_guard<std::mutex> lock(mu_);
    size_t n = 0;
    for (const auto& [key, replies] : waiting_) n += replies.size();
    return n;
  }
  DataPlaneServer::Provider provider() {
    return [this](int64_t step, const std::string& key, DataPlaneServer::Reply reply) {
      if (key.rfind("fail:", 0) == 0) {
        reply(errors::NotFound("no tensor '", key, "' in step ", step), Tensor(), false);
        return;
      }
      std::unique_lock<std::mutex> lock(mu_);
      auto it = values_.find(key);
      if (it == values_.end()) {
        waiting_[key].push_back(std::move(reply));
        return;
      }
      auto [value, dead] = it->second;
      lock.unlock();
      reply(Status::OK(), value, dead);
    };
  }

 private:
  std::mutex mu_;
  std::map<std::string, std::pair<Tensor, bool>> values_;
  std::map<std::string, std::vector<DataPlaneServer::Reply>> waiting_;
};

std::unique_ptr<DataPlaneServer> StartServer(Store& store) {
  auto server = DataPlaneServer::Start(store.provider(), TestOptions());
  REQUIRE(server.ok());
  return std::move(server).value();
}

std::string PeerOf(const DataPlaneServer& server) { return "127.0.0.1:" + std::to_string(server.port()); }

int64_t In(int64_t ms) { return SteadyNowMs() + ms; }

bool SameBytes(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() && a.TotalBytes() == b.TotalBytes() &&
         (a.TotalBytes() == 0 || std::memcmp(a.data(), b.data(), a.TotalBytes()) == 0);
}

template <class T>
Tensor Iota(int64_t n, TensorShape shape) {
  std::vector<T> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<T>(i * 3 - 7);
  return Tensor::FromVector(v, shape);
}

TEST_CASE("numeric tensors, a scalar and an empty tensor arrive with their exact bytes", "[data_plane]") {
  Store store;
  auto server = StartServer(store);
  std::map<std::string, Tensor> sent = {
      {"f32", Iota<float>(6, TensorShape({2, 3}))},
      {"f64", Iota<double>(5, TensorShape({5}))},
      {"i32", Iota<int32_t>(4, TensorShape({2, 2}))},
      {"i64", Iota<int64_t>(3, TensorShape({3, 1}))},
      {"u8", Iota<uint8_t>(7, TensorShape({7}))},
      {"bool", Tensor::FromVector<bool>({true, false, true})},
      {"scalar", Tensor::Scalar<float>(2.5f)},
      {"empty", Tensor(tensorflow::DT_FLOAT, TensorShape({0, 4}))},
  };
  for (auto& [key, value] : sent) store.Put(key, value);
  DataPlaneClient client(kToken);
  for (auto& [key, value] : sent) {
    auto got = client.RecvTensor(PeerOf(*server), 1, key, false, In(5000));
    REQUIRE(got.ok());
    CHECK_FALSE(got->is_dead);
    CHECK(SameBytes(got->value, value));
  }
  // Asking for lossy16 leaves non-float tensors exact.
  auto ints = client.RecvTensor(PeerOf(*server), 1, "i64", true, In(5000));
  REQUIRE(ints.ok());
  CHECK(SameBytes(ints->value, sent["i64"]));
}

TEST_CASE("a 64 MB tensor arrives whole, into the given allocator", "[data_plane]") {
  Store store;
  auto server = StartServer(store);
  const int64_t n = 16 << 20;  // floats
  Tensor big(tensorflow::DT_FLOAT, TensorShape({n}));
  float* p = big.base<float>();
  for (int64_t i = 0; i < n; ++i) p[i] = static_cast<float>(i % 100003) * 0.5f;
  store.Put("big", big);
  CPUAllocator allocator("receiver");
  DataPlaneClient client(kToken);
  auto got = client.RecvTensor(PeerOf(*server), 1, "big", false, In(30000), &allocator);
  REQUIRE(got.ok());
  CHECK(SameBytes(got->value, big));
  CHECK(allocator.GetStats().bytes_in_use == n * 4);
}

TEST_CASE("a request waits for a value sent after it, and the dead flag travels", "[data_plane]") {
  Store store;
  auto server = StartServer(store);
  DataPlaneClient client(kToken);
  auto late = std::async(std::launch::async,
                         [&] { return client.RecvTensor(PeerOf(*server), 7, "late", false, In(10000)); });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  store.Put("late", Tensor::Scalar<int32_t>(42));
  auto got = late.get();
  REQUIRE(got.ok());
  CHECK(got->value.base<int32_t>()[0] == 42);

  store.Put("dead", Tensor(), /*is_dead=*/true);
  auto dead = client.RecvTensor(PeerOf(*server), 7, "dead", false, In(5000));
  REQUIRE(dead.ok());
  CHECK(dead->is_dead);
}

TEST_CASE("many requests in flight on one connection are answered out of order", "[data_plane]") {
  Store store;
  auto server = StartServer(store);
  DataPlaneClient client(kToken);
  constexpr int kRequests = 64;
  std::vector<std::future<std::pair<Status, Tensor>>> results;
  for (int i = 0; i < kRequests; ++i) {
    auto p = std::make_shared<std::promise<std::pair<Status, Tensor>>>();
    results.push_back(p->get_future());
    client.RecvTensorAsync(PeerOf(*server), 3, "k" + std::to_string(i), false, In(20000), cpu_allocator(),
                           [p](const Status& s, const Tensor& v, bool) { p->set_value({s, v}); });
  }
  // Answer from the last to the first; a large one in the middle must not hold up the rest.
  store.Put("k32", Iota<float>(3 << 20, TensorShape({3 << 20})));
  for (int i = kRequests - 1; i >= 0; --i) {
    if (i != 32) store.Put("k" + std::to_string(i), Tensor::Scalar<int64_t>(i));
  }
  for (int i = 0; i < kRequests; ++i) {
    REQUIRE(results[i].wait_for(std::chrono::seconds(20)) == std::future_status::ready);
    auto [status, value] = results[i].get();
    REQUIRE(status.ok());
    if (i == 32) {
      CHECK(value.NumElements() == (3 << 20));
    } else {
      CHECK(value.base<int64_t>()[0] == i);
    }
  }
}

TEST_CASE("strings and variants arrive as values: a TensorList with its unset elements, strings over chunks",
          "[data_plane]") {
  Store store;
  auto server = StartServer(store);
  // Larger than a chunk in all, so the encoded payload is split and joined again.
  std::vector<std::string> words = {"", "a", std::string(3 << 20, 'x'), "tail"};
  store.Put("strings", Tensor::FromVector<std::string>(words, TensorShape({2, 2})));
  store.Put("no_strings", Tensor(tensorflow::DT_STRING, TensorShape({0})));
  TensorList list;
  list.element_dtype = tensorflow::DT_FLOAT;
  list.element_shape = PartialTensorShape(std::vector<int64_t>{-1});
  list.tensors = {Tensor::FromVector<float>({1, 2}), std::nullopt, Tensor::FromVector<float>({3})};
  store.Put("list", TensorListTensor(list));
  DataPlaneClient client(kToken);
  auto strings = client.RecvTensor(PeerOf(*server), 1, "strings", false, In(5000));
  INFO(strings.status());
  REQUIRE(strings.ok());
  REQUIRE(strings->value.shape() == TensorShape({2, 2}));
  for (int i = 0; i < 4; ++i) CHECK(strings->value.base<std::string>()[i] == words[i]);
  auto none = client.RecvTensor(PeerOf(*server), 1, "no_strings", false, In(5000));
  REQUIRE(none.ok());
  CHECK(none->value.shape() == TensorShape({0}));
  auto got = client.RecvTensor(PeerOf(*server), 1, "list", false, In(5000));
  INFO(got.status());
  REQUIRE(got.ok());
  auto received = TensorListFrom(got->value, "the received list");
  REQUIRE(received.ok());
  const TensorList& l = *received.value();
  REQUIRE(l.tensors.size() == 3);
  CHECK(!l.tensors[1]);
  CHECK(l.tensors[2]->base<float>()[0] == 3);
  CHECK(l.element_shape.DebugString() == "[?]");
}

TEST_CASE("lossy16 keeps the upper 16 bits of each float and zeroes the rest", "[data_plane]") {
  Store store;
  auto server = StartServer(store);
  std::vector<uint32_t> bits = {0x3f800000u, 0x3fffffffu, 0xbf8123abu, 0x7f800000u, 0x00000001u,
                                0x7fc00001u, 0x12345678u, 0xffffffffu, 0x80000000u};
  Tensor t(tensorflow::DT_FLOAT, TensorShape({static_cast<int64_t>(bits.size())}));
  std::memcpy(t.data(), bits.data(), bits.size() * 4);
  store.Put("x", t);
  // And one that needs several chunks.
  const int64_t n = 3 << 20;
  Tensor big(tensorflow::DT_FLOAT, TensorShape({n}));
  for (int64_t i = 0; i < n; ++i) reinterpret_cast<uint32_t*>(big.data())[i] = static_cast<uint32_t>(i * 2654435761u);
  store.Put("big", big);
  DataPlaneClient client(kToken);
  auto got = client.RecvTensor(PeerOf(*server), 1, "x", true, In(5000));
  REQUIRE(got.ok());
  REQUIRE(got->value.dtype() == tensorflow::DT_FLOAT);
  const uint32_t* out = static_cast<const uint32_t*>(got->value.data());
  for (size_t i = 0; i < bits.size(); ++i) CHECK(out[i] == (bits[i] & 0xffff0000u));
  auto got_big = client.RecvTensor(PeerOf(*server), 1, "big", true, In(20000));
  REQUIRE(got_big.ok());
  const uint32_t* in = static_cast<const uint32_t*>(big.data());
  const uint32_t* wide = static_cast<const uint32_t*>(got_big->value.data());
  int64_t wrong = 0;
  for (int64_t i = 0; i < n; ++i) wrong += wide[i] != (in[i] & 0xffff0000u);
  CHECK(wrong == 0);
}

TEST_CASE("the provider's error reaches the client naming the key", "[data_plane]") {
  Store store;
  auto server = StartServer(store);
  DataPlaneClient client(kToken);
  auto got = client.RecvTensor(PeerOf(*server), 9, "fail:weights", false, In(5000));
  REQUIRE_FALSE(got.ok());
  CHECK(got.status().code() == error::NOT_FOUND);
  CHECK_THAT(got.status().message(), Catch::Contains("fail:weights"));
  CHECK_THAT(got.status().message(), Catch::Contains(PeerOf(*server)));
  // The connection still works afterwards.
  store.Put("ok", Tensor::Scalar<float>(1));
  CHECK(client.RecvTensor(PeerOf(*server), 9, "ok", false, In(5000)).ok());
}

TEST_CASE("a value that never comes ends in DeadlineExceeded naming the peer and key", "[data_plane]") {
  Store store;
  auto server = StartServer(store);
  DataPlaneClient client(kToken);
  const auto start = std::chrono::steady_clock::now();
  auto got = client.RecvTensor(PeerOf(*server), 1, "never", false, In(200));
  const auto waited = std::chrono::steady_clock::now() - start;
  REQUIRE(got.status().code() == error::DEADLINE_EXCEEDED);
  CHECK_THAT(got.status().message(), Catch::Contains("never"));
  CHECK_THAT(got.status().message(), Catch::Contains(PeerOf(*server)));
  CHECK(waited >= std::chrono::milliseconds(190));
  CHECK(waited < std::chrono::seconds(3));
  // The late answer is dropped, and the connection goes on serving.
  store.Put("never", Iota<float>(2 << 20, TensorShape({2 << 20})));
  store.Put("next", Tensor::Scalar<float>(3));
  auto next = client.RecvTensor(PeerOf(*server), 1, "next", false, In(5000));
  REQUIRE(next.ok());
  CHECK(next->value.base<float>()[0] == 3);
}

TEST_CASE("a peer nobody listens on is Unavailable, naming it", "[data_plane]") {
  int port;
  {
    Store store;
    auto server = StartServer(store);
    port = server->port();
  }  // stopped: the port is free now
  DataPlaneClient client(kToken);
  const std::string peer = "127.0.0.1:" + std::to_string(port);
  auto got = client.RecvTensor(peer, 1, "k", false, In(5000));
  REQUIRE(got.status().code() == error::UNAVAILABLE);
  CHECK_THAT(got.status().message(), Catch::Contains(peer));
  auto bad = client.RecvTensor("no-port-here", 1, "k", false, In(5000));
  CHECK(bad.status().code() == error::INVALID_ARGUMENT);
}

TEST_CASE("stopping the server mid-request fails the request instead of hanging", "[data_plane]") {
  Store store;
  auto server = StartServer(store);
  const std::string peer = PeerOf(*server);
  DataPlaneClient client(kToken);
  store.Put("warm", Tensor::Scalar<float>(1));
  REQUIRE(client.RecvTensor(peer, 1, "warm", false, In(5000)).ok());
  auto pending = std::async(std::launch::async, [&] { return client.RecvTensor(peer, 1, "waits", false, In(30000)); });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const auto start = std::chrono::steady_clock::now();
  server->Stop();
  auto got = pending.get();
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(3));
  REQUIRE(got.status().code() == error::UNAVAILABLE);
  CHECK_THAT(got.status().message(), Catch::Contains(peer));
  CHECK_THAT(got.status().message(), Catch::Contains("waits"));
  // A reply after Stop is dropped, not written to a closed socket.
  store.Put("waits", Tensor::Scalar<float>(2));
  // And the next request reconnects (and is refused).
  CHECK(client.RecvTensor(peer, 1, "warm", false, In(5000)).status().code() == error::UNAVAILABLE);
}

TEST_CASE("a server process killed mid-request gives Unavailable promptly", "[data_plane]") {
  // The child serves from its own address space; it must never return into Catch.
  int port_pipe[2];
  REQUIRE(pipe(port_pipe) == 0);
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    alarm(60);  // never outlive a parent that failed to kill it
    close(port_pipe[0]);
    static Store store;
    store.Put("small", Tensor::Scalar<int32_t>(5));
    // "slow" is never sent: the parent's request is in flight when the child dies.
    auto server = DataPlaneServer::Start(store.provider(), TestOptions());
    int port = server.ok() ? (*server)->port() : -1;
    if (write(port_pipe[1], &port, sizeof(port)) != sizeof(port)) _exit(1);
    for (;;) pause();
  }
  close(port_pipe[1]);
  int port = -1;
  REQUIRE(read(port_pipe[0], &port, sizeof(port)) == sizeof(port));
  close(port_pipe[0]);
  REQUIRE(port > 0);
  const std::string peer = "127.0.0.1:" + std::to_string(port);
  DataPlaneClient client(kToken);
  auto small = client.RecvTensor(peer, 1, "small", false, In(5000));
  REQUIRE(small.ok());
  CHECK(small->value.base<int32_t>()[0] == 5);

  auto pending = std::async(std::launch::async, [&] { return client.RecvTensor(peer, 1, "slow", false, In(30000)); });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const auto start = std::chrono::steady_clock::now();
  kill(child, SIGKILL);
  auto got = pending.get();
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(3));
  int wstatus = 0;
  waitpid(child, &wstatus, 0);
  REQUIRE(got.status().code() == error::UNAVAILABLE);
  CHECK_THAT(got.status().message(), Catch::Contains(peer));
}

// A client speaking the protocol by hand: connected and through the handshake, so that a
// test can stall midway or stop reading.
int HandshakenSocket(const DataPlaneServer& server, const std::string& token = kToken) {
  auto fd = data_plane::ConnectTo(PeerOf(server), In(5000));
  REQUIRE(fd.ok());
  Status s = data_plane::AuthenticateServer(*fd, data_plane::HandshakeKey(token), In(5000), PeerOf(server));
  if (!s.ok()) {
    close(*fd);
    return -1;
  }
  return *fd;
}

std::string RequestBytes(uint64_t id, int64_t step, const std::string& key) {
  capnp::MallocMessageBuilder message;
  auto request = message.initRoot<RecvTensorRequest>();
  request.setRequestId(id);
  request.setStepId(step);
  request.setKey(key);
  auto words = capnp::messageToFlatArray(message);
  return std::string(reinterpret_cast<const char*>(words.begin()), words.size() * sizeof(capnp::word));
}

bool ClosedWithin(int fd, int ms) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  std::vector<char> buf(1 << 16);
  while (std::chrono::steady_clock::now() < deadline) {
    timeval tv{0, 50000};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    ssize_t n = recv(fd, buf.data(), buf.size(), 0);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) return true;
  }
  return false;
}

TEST_CASE("a server refuses to start without a token, and a client with another token is refused",
          "[data_plane][trust]") {
  Store store;
  auto none = DataPlaneServer::Start(store.provider(), DataPlaneServer::Options());
  REQUIRE_FALSE(none.ok());
  CHECK_THAT(none.status().message(), Catch::Contains("no cluster token"));
  auto server = StartServer(store);
  store.Put("secret", Tensor::Scalar<float>(42));
  DataPlaneClient stranger("not-the-token");
  auto got = stranger.RecvTensor(PeerOf(*server), 1, "secret", false, In(3000));
  REQUIRE(got.status().code() == error::PERMISSION_DENIED);
  CHECK_THAT(got.status().message(), Catch::Contains(PeerOf(*server)));
  DataPlaneClient member(kToken);
  auto ok = member.RecvTensor(PeerOf(*server), 1, "secret", false, In(3000));
  REQUIRE(ok.ok());
  CHECK(ok->value.base<float>()[0] == 42);
}

TEST_CASE("half a request is dropped at the frame deadline, a silent stranger at the handshake deadline",
          "[data_plane][trust]") {
  Store store;
  DataPlaneServer::Options options = TestOptions();
  options.frame_timeout_ms = 300;
  options.handshake_timeout_ms = 300;
  auto server = DataPlaneServer::Start(store.provider(), options);
  REQUIRE(server.ok());
  int fd = HandshakenSocket(**server);
  REQUIRE(fd >= 0);
  const std::string request = RequestBytes(1, 1, "k");
  REQUIRE(send(fd, request.data(), 5, MSG_NOSIGNAL) == 5);  // and nothing more
  CHECK(ClosedWithin(fd, 3000));
  close(fd);
  auto silent = data_plane::ConnectTo(PeerOf(**server), In(3000));
  REQUIRE(silent.ok());
  CHECK(ClosedWithin(*silent, 3000));
  close(*silent);
  size_t live = 2;
  for (int i = 0; i < 40 && live > 0; ++i) {  // the server's threads end just after the close
    live = (*server)->live_connections();
    if (live > 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  CHECK(live == 0);
}

TEST_CASE("a client that never reads: replying to it never blocks the caller, and it is dropped at the "
          "send deadline", "[data_plane][trust]") {
  Store store;
  // 64 replies of 1 MB: each small enough for the caller's own non-blocking write, together
  // far more than the socket buffers hold.
  Tensor big(tensorflow::DT_FLOAT, TensorShape({1 << 18}));
  std::memset(big.data(), 0, big.TotalBytes());
  DataPlaneServer::Options options = TestOptions();
  options.send_timeout_ms = 500;
  auto server = DataPlaneServer::Start(store.provider(), options);
  REQUIRE(server.ok());
  int fd = HandshakenSocket(**server);
  REQUIRE(fd >= 0);
  int small = 1 << 12;
  setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
  std::string requests;
  for (int i = 0; i < 64; ++i) requests += RequestBytes(static_cast<uint64_t>(i + 1), 1, "big" + std::to_string(i));
  REQUIRE(send(fd, requests.data(), requests.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(requests.size()));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the requests wait in the store
  // Put answers the waiting requests from this thread, as the rendezvous actor would.
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 64; ++i) store.Put("big" + std::to_string(i), big);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::milliseconds(500));
  // The writer gives up on the client at the send deadline and the connection goes.
  bool gone = false;
  for (int i = 0; i < 60 && !gone; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    gone = (*server)->live_connections() == 0;
  }
  CHECK(gone);
  close(fd);
}

TEST_CASE("EgressOrder: a reply waits for older ones at work, not for idle ones or ones stalled past the bound",
          "[data_plane]") {
  auto patient = std::make_shared<data_plane::EgressOrder>(std::chrono::seconds(60));
  auto older = patient->Join();
  auto younger = patient->Join();
  CHECK(younger->WaitTurn());  // the older one is idle (queued behind another reply): no wait
  younger->Idle();
  CHECK(older->WaitTurn());
  std::atomic<bool> went{false};
  std::thread waiter([&] {
    younger->WaitTurn();
    went = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  CHECK_FALSE(went);  // the older one writes
  older->Polling();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  CHECK_FALSE(went);  // the older one waits for its socket, well within the stall bound
  older.reset();      // done: it leaves the line
  waiter.join();
  CHECK(went);
  CHECK_FALSE(younger->WaitTurn());  // alone now

  // An older reply whose peer takes nothing holds the others up for the stall bound only.
  auto brief = std::make_shared<data_plane::EgressOrder>(std::chrono::milliseconds(50));
  auto stalled = brief->Join();
  auto next = brief->Join();
  stalled->WaitTurn();
  stalled->Polling();
  CHECK(next->WaitTurn());
}

TEST_CASE("large replies to several peers at once all arrive whole", "[data_plane]") {
  Store store;
  auto server = StartServer(store);
  constexpr int kPeers = 3;
  std::vector<Tensor> tensors;
  for (int i = 0; i < kPeers; ++i) {
    tensors.push_back(Iota<float>(int64_t{2} << 20, TensorShape({int64_t{2} << 20})));
    tensors.back().base<float>()[0] = static_cast<float>(i);
    store.Put("big" + std::to_string(i), tensors.back());
  }
  std::vector<std::future<bool>> arrived;
  for (int i = 0; i < kPeers; ++i) {
    arrived.push_back(std::async(std::launch::async, [&, i] {
      DataPlaneClient client(kToken);  // a connection of its own, as a peer's
      auto got = client.RecvTensor(PeerOf(*server), 1, "big" + std::to_string(i), false, In(30000));
      return got.ok() && SameBytes(got->value, tensors[i]);
    }));
  }
  for (auto& a : arrived) CHECK(a.get());
}

TEST_CASE("a peer that stops reading its large reply holds another peer's up no longer than the stall bound",
          "[data_plane]") {
  Store store;
  DataPlaneServer::Options options = TestOptions();
  options.send_timeout_ms = 60000;  // the stalled peer stays connected throughout
  auto server = DataPlaneServer::Start(store.provider(), options);
  REQUIRE(server.ok());
  Tensor big = Iota<float>(int64_t{8} << 20, TensorShape({int64_t{8} << 20}));  // 32 MB
  store.Put("stalled", big);
  store.Put("other", big);
  int fd = HandshakenSocket(**server);
  REQUIRE(fd >= 0);
  int small = 1 << 12;
  setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
  const std::string request = RequestBytes(1, 1, "stalled");
  REQUIRE(send(fd, request.data(), request.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(request.size()));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // its reply is first in line, and stuck
  DataPlaneClient client(kToken);
  auto got = client.RecvTensor(PeerOf(**server), 1, "other", false, In(20000));
  INFO(got.status().ToString());
  REQUIRE(got.ok());
  CHECK(SameBytes(got->value, big));
  close(fd);
}

TEST_CASE("requests beyond a connection's bound are answered ResourceExhausted, not kept",
          "[data_plane][trust]") {
  Store store;
  DataPlaneServer::Options options = TestOptions();
  options.max_pending_replies = 100;
  auto server = DataPlaneServer::Start(store.provider(), options);
  REQUIRE(server.ok());
  DataPlaneClient client(kToken);
  std::vector<std::future<StatusOr<DataPlaneClient::Received>>> waiting;
  for (int i = 0; i < 100; ++i) {
    waiting.push_back(std::async(std::launch::async, [&, i] {
      return client.RecvTensor(PeerOf(**server), 7, "later" + std::to_string(i), false, In(5000));
    }));
  }
  // Until the server holds all 100 (on a loaded machine the threads take a while).
  for (int i = 0; i < 1000 && store.num_waiting() < 100; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  REQUIRE(store.num_waiting() == 100);
  auto refused = client.RecvTensor(PeerOf(**server), 7, "one-too-many", false, In(5000));
  CHECK(refused.status().code() == error::RESOURCE_EXHAUSTED);
  for (int i = 0; i < 100; ++i) store.Put("later" + std::to_string(i), Tensor::Scalar<int32_t>(i));
  for (auto& w : waiting) CHECK(w.get().ok());
}

TEST_CASE("the first request to a peer that never answers the handshake returns at once and fails at its deadline",
          "[data_plane]") {
  // A socket that listens and never reads: the kernel completes TCP's handshake, nobody
  // answers ours. The caller (an actor, in the runtime) must not wait for the connection.
  int bound_port = 0;
  auto listener = data_plane::ListenOn("127.0.0.1", 0, &bound_port);
  REQUIRE(listener.ok());
  const std::string peer = "127.0.0.1:" + std::to_string(bound_port);
  auto client = std::make_unique<DataPlaneClient>(kToken);
  auto start = std::chrono::steady_clock::now();
  std::promise<Status> first;
  client->RecvTensorAsync(peer, 1, "silent", false, In(2000), cpu_allocator(),
                          [&](const Status& s, const Tensor&, bool) { first.set_value(s); });
  // Before the handshake's deadline by far (a caller that connected would wait all of it).
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::milliseconds(1000));
  auto failed = first.get_future();
  REQUIRE(failed.wait_for(std::chrono::seconds(5)) == std::future_status::ready);
  const auto waited = std::chrono::steady_clock::now() - start;
  Status s = failed.get();
  CHECK(s.code() == error::DEADLINE_EXCEEDED);
  CHECK_THAT(s.message(), Catch::Contains(peer) && Catch::Contains("silent"));
  CHECK(waited >= std::chrono::milliseconds(1990));
  CHECK(waited < std::chrono::seconds(6));
  // A client destroyed while it connects: the request waiting for it ends Cancelled, and
  // the destructor does not wait out the handshake.
  std::promise<Status> ended;
  client->RecvTensorAsync(peer, 1, "never", false, In(60000), cpu_allocator(),
                          [&](const Status& s, const Tensor&, bool) { ended.set_value(s); });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  start = std::chrono::steady_clock::now();
  client.reset();
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::milliseconds(1500));
  auto cancelled = ended.get_future();
  REQUIRE(cancelled.wait_for(std::chrono::seconds(1)) == std::future_status::ready);
  CHECK(cancelled.get().code() == error::CANCELLED);
  close(*listener);
}

TEST_CASE("a burst of first requests to a new peer shares one connection", "[data_plane][trust]") {
  Store store;
  DataPlaneServer::Options options = TestOptions();
  options.max_pending_replies = 200;
  auto server = DataPlaneServer::Start(store.provider(), options);
  REQUIRE(server.ok());
  DataPlaneClient client(kToken);
  // 150 threads ask at once, more than the 64 unfinished handshakes the server allows one
  // address: one of them connects, the others wait for its connection.
  std::vector<std::future<StatusOr<DataPlaneClient::Received>>> waiting;
  for (int i = 0; i < 150; ++i) {
    waiting.push_back(std::async(std::launch::async, [&, i] {
      return client.RecvTensor(PeerOf(**server), 7, "burst" + std::to_string(i), false, In(20000));
    }));
  }
  for (int i = 0; i < 2000 && store.num_waiting() < 150; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  REQUIRE(store.num_waiting() == 150);
  CHECK((*server)->accepted_connections() == 1);
  for (int i = 0; i < 150; ++i) store.Put("burst" + std::to_string(i), Tensor::Scalar<int32_t>(i));
  for (auto& w : waiting) CHECK(w.get().ok());
}

TEST_CASE("a thousand connections opened and closed are reaped: threads joined, descriptors closed",
          "[data_plane][trust]") {
  Store store;
  auto server = StartServer(store);
  for (int i = 0; i < 1000; ++i) {
    auto fd = data_plane::ConnectTo(PeerOf(*server), In(3000));
    REQUIRE(fd.ok());
    close(*fd);
  }
  size_t live = 1000;
  for (int i = 0; i < 50 && live > 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    live = server->live_connections();
  }
  CHECK(live == 0);
  store.Put("x", Tensor::Scalar<float>(1));
  DataPlaneClient client(kToken);
  CHECK(client.RecvTensor(PeerOf(*server), 1, "x", false, In(3000)).ok());
}

TEST_CASE("in TLS mode tensors travel in mutual TLS; a peer without the cluster CA's certificate is refused",
          "[data_plane][trust][tls]") {
  const std::string dir = std::filesystem::temp_directory_path() / ("data_plane_tls_" + std::to_string(getpid()));
  testing::MakeClusterCerts(dir, {"server", "client"});
  testing::MakeClusterCerts(dir + "/other", {"stranger"});
  auto cert = [](const std::string& d, const std::string& name) {
    ClusterCredentials c;
    c.tls_cert_file = d + "/" + name + ".pem";
    c.tls_key_file = d + "/" + name + ".key";
    c.tls_ca_file = d + "/ca.pem";
    return c;
  };
  Store store;
  DataPlaneServer::Options options = TestOptions();
  options.credentials = cert(dir, "server");
  auto server = DataPlaneServer::Start(store.provider(), options);
  INFO(server.status().ToString());
  REQUIRE(server.ok());
  std::vector<float> values(300000);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i) * 0.5f;
  store.Put("big", Tensor::FromVector<float>(values));
  store.Put("small", Tensor::Scalar<int32_t>(7));

  DataPlaneClient member(cert(dir, "client"));
  auto big = member.RecvTensor(PeerOf(**server), 1, "big", false, In(5000));
  INFO(big.status().ToString());
  REQUIRE(big.ok());
  CHECK(testing::Values(big->value) == values);
  auto small = member.RecvTensor(PeerOf(**server), 1, "small", false, In(5000));
  REQUIRE(small.ok());
  CHECK(small->value.base<int32_t>()[0] == 7);
  auto missing = member.RecvTensor(PeerOf(**server), 1, "fail:nothing", false, In(5000));
  CHECK(missing.status().code() == error::NOT_FOUND);

  // A certificate from another CA: refused by the server (and the server refused by it).
  DataPlaneClient stranger(cert(dir + "/other", "stranger"));
  auto refused = stranger.RecvTensor(PeerOf(**server), 1, "small", false, In(5000));
  INFO(refused.status().ToString());
  CHECK(refused.status().code() == error::PERMISSION_DENIED);
  // The token's handshake is not TLS: refused too, and it never reaches the provider.
  DataPlaneClient token_holder(kToken);
  auto plain = token_holder.RecvTensor(PeerOf(**server), 1, "small", false, In(5000));
  CHECK_FALSE(plain.ok());
  // A token-mode server does not take a TLS client either.
  auto token_server = StartServer(store);
  auto crossed = member.RecvTensor(PeerOf(*token_server), 1, "small", false, In(5000));
  CHECK_FALSE(crossed.ok());
  // Certificates that do not load fail every request with the reason.
  ClusterCredentials broken = cert(dir, "client");
  broken.tls_key_file = dir + "/server.key";
  DataPlaneClient mismatched(broken);
  auto bad = mismatched.RecvTensor(PeerOf(**server), 1, "small", false, In(5000));
  CHECK_THAT(bad.status().message(), Catch::Contains("cannot load the TLS key"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tensoract
