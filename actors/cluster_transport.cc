#include "actors/cluster_transport.h"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <caf/io/basp_broker.hpp>
#include <caf/io/middleman_actor_impl.hpp>
#include <caf/io/network/acceptor_impl.hpp>
#include <caf/io/network/default_multiplexer.hpp>
#include <caf/io/network/stream.hpp>
#include <cstdlib>

#include "actors/sigpipe_block.h"
#include "base/env_limit.h"
#include "base/log_line.h"

namespace tensoract {
namespace {

namespace net = caf::io::network;
using net::native_socket;
using net::rw_state;

constexpr auto kHandshakeDeadline = std::chrono::seconds(10);
// A peer that dialled us is a stranger until its handshake proves otherwise: it gets less.
constexpr auto kInboundHandshakeDeadline = std::chrono::seconds(5);
constexpr size_t kMaxInboundHandshakes = 128;
// One address's share of those (64: the 32 nodes of a benchmark on one host all dial at once).
constexpr size_t kMaxInboundHandshakesPerAddress = 64;
constexpr size_t kMaxRemembered = 1024;  // logged peers, recorded failures
// The largest BASP message a peer may announce (a member's RunStep with its feeds is one):
// BASP allocates what a header announces before it reads a byte of it.
constexpr uint64_t kDefaultMaxControlMessageBytes = uint64_t{512} << 20;

uint64_t MaxControlMessageBytes() {
  static const uint64_t limit = EnvLimit(kMaxControlMessageBytesEnv, kDefaultMaxControlMessageBytes);
  return limit;
}

using Clock = std::chrono::steady_clock;


// The failures of outbound handshakes, by "host:port", for the caller's error message.
struct HandshakeFailure {
  bool rejected = false;  // the peer spoke but refused our credentials (or is not TLS)
  std::string detail;
};
std::mutex failures_mu;
std::unordered_map<std::string, HandshakeFailure> failures;

void RecordFailure(const std::string& endpoint, const HandshakeFailure& reason) {
  std::lock_guard<std::mutex> lock(failures_mu);
  if (failures.size() >= kMaxRemembered) failures.clear();
  failures[endpoint] = reason;
}

void ClearFailure(const std::string& endpoint) {
  std::lock_guard<std::mutex> lock(failures_mu);
  failures.erase(endpoint);
}

std::string PeerAddress(native_socket fd) {
  auto addr = net::remote_addr_of_fd(fd);
  return addr ? *addr : std::string("an unknown address");
}

class TlsChannel;
class TlsStream;

// What every connection of one transport shares: the TLS context, the handshake watchdog,
// the once-per-peer log and the descriptor kept in reserve for shedding connections.
class TransportState {
 public:
  TransportState(std::shared_ptr<SSL_CTX> ctx, std::string fingerprint, std::string log_name)
      : ctx_(std::move(ctx)), fingerprint_(std::move(fingerprint)), log_name_(std::move(log_name)) {
    reserve_fd_ = open("/dev/null", O_RDONLY | O_CLOEXEC);
    watchdog_ = std::thread([this] { WatchdogLoop(); });
  }
  ~TransportState() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
    }
    cv_.notify_all();
    watchdog_.join();
    if (reserve_fd_ >= 0) close(reserve_fd_);
  }

  SSL_CTX* ctx() const { return ctx_.get(); }
  const std::string& fingerprint() const { return fingerprint_; }

  // Registers a handshake in progress. An inbound one (a stranger until it is proven) has
  // kInboundHandshakeDeadline. When its address already holds kMaxInboundHandshakesPerAddress
  // slots, that address's oldest is shut down to make room; when every inbound slot is taken,
  // the oldest of all is. A member's handshake takes milliseconds: strangers holding slots
  // idle only ever lose their own oldest, and one address cannot take every slot.
  bool BeginHandshake(const TlsChannel* channel, native_socket fd, bool inbound, const std::string& source) {
    std::unique_lock<std::mutex> lock(mu_);
    if (inbound) {
      size_t from_source = 0;
      for (const auto& [c, h] : handshakes_) from_source += h.inbound && h.source == source;
      if (from_source >= kMaxInboundHandshakesPerAddress) {
        EvictOldestInboundLocked(&source);
        lock.unlock();
        LogOncePerPeer(source, StrCat(kMaxInboundHandshakesPerAddress, " handshakes from ", source,
                                      " waited: its oldest are closed to make room for its new ones"));
        lock.lock();
      } else if (inbound_ >= kMaxInboundHandshakes) {
        if (!EvictOldestInboundLocked(nullptr)) return false;
        lock.unlock();
        LogOncePerPeer("", StrCat(kMaxInboundHandshakes, " inbound handshakes waited: the oldest are closed to "
                                  "make room for new ones"));
        lock.lock();
      }
    }
    handshakes_[channel] =
        Handshake{Clock::now() + (inbound ? kInboundHandshakeDeadline : kHandshakeDeadline), fd, inbound, source};
    if (inbound) ++inbound_;
    cv_.notify_all();
    return true;
  }
  // Called when the handshake ends (either way) and when the channel goes: the socket is
  // still open then, so the watchdog never shuts down a descriptor that was reused.
  void EndHandshake(const TlsChannel* channel) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = handshakes_.find(channel);
    if (it == handshakes_.end()) return;
    if (it->second.inbound) --inbound_;
    handshakes_.erase(it);
  }

  // A log line for `peer`, the first time it says `what` (until the memory of peers fills up).
  void LogOncePerPeer(const std::string& peer, const std::string& what) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (logged_.size() >= kMaxRemembered) logged_.clear();
      if (!logged_.insert(peer + '\n' + what).second) return;
    }
    LogLine(StrCat(log_name_, ": ", what, " (logged once per peer and reason)"));
  }

  // The process is out of descriptors: accept the waiting connection with the reserve
  // descriptor and close it at once. Otherwise it stays in the backlog, the listening
  // socket stays readable and the multiplexer spins on it.
  void Shed(native_socket listen_fd) {
    if (reserve_fd_ >= 0) {
      close(reserve_fd_);
      reserve_fd_ = -1;
    }
    int fd = accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd >= 0) close(fd);
    reserve_fd_ = open("/dev/null", O_RDONLY | O_CLOEXEC);
    LogOncePerPeer("", "out of file descriptors: shedding new control connections");
  }

 private:
  struct Handshake {
    Clock::time_point deadline;
    native_socket fd;
    bool inbound;
    std::string source;  // the peer's address
  };

  // Shuts down the inbound handshake waiting longest (from `source` only, if given); its
  // handshake fails on the multiplexer, as at its deadline. False when there is none.
  bool EvictOldestInboundLocked(const std::string* source) {
    auto oldest = handshakes_.end();
    for (auto it = handshakes_.begin(); it != handshakes_.end(); ++it) {
      if (!it->second.inbound || (source != nullptr && it->second.source != *source)) continue;
      if (oldest == handshakes_.end() || it->second.deadline < oldest->second.deadline) oldest = it;
    }
    if (oldest == handshakes_.end()) return false;
    shutdown(oldest->second.fd, SHUT_RDWR);
    --inbound_;
    handshakes_.erase(oldest);
    return true;
  }

  void WatchdogLoop() {
    std::unique_lock<std::mutex> lock(mu_);
    while (!stopping_) {
      auto next = Clock::time_point::max();
      const auto now = Clock::now();
      for (auto it = handshakes_.begin(); it != handshakes_.end();) {
        if (it->second.deadline <= now) {
          // The multiplexer sees the shut-down socket, the handshake fails and the
          // connection is closed there.
          shutdown(it->second.fd, SHUT_RDWR);
          if (it->second.inbound) --inbound_;
          it = handshakes_.erase(it);
        } else {
          next = std::min(next, it->second.deadline);
          ++it;
        }
      }
      if (next == Clock::time_point::max()) {
        cv_.wait(lock);
      } else {
        cv_.wait_until(lock, next);
      }
    }
  }

  std::shared_ptr<SSL_CTX> ctx_;
  const std::string fingerprint_;
  const std::string log_name_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<const TlsChannel*, Handshake> handshakes_;
  size_t inbound_ = 0;
  std::unordered_set<std::string> logged_;
  bool stopping_ = false;
  int reserve_fd_ = -1;  // touched by the multiplexer thread only
  std::thread watchdog_;
};

// One connection's TLS session, driven by CAF's multiplexer through TlsStream: the
// handshake first (no byte reaches BASP before it completes), then records.
class TlsChannel {
 public:
  TlsChannel(std::shared_ptr<TransportState> state, bool inbound, std::string endpoint)
      : state_(std::move(state)), inbound_(inbound), endpoint_(std::move(endpoint)) {}
  ~TlsChannel() {
    state_->EndHandshake(this);
    if (ssl_ != nullptr) SSL_free(ssl_);
  }

  // False (and the caller closes the socket) when no session can be made or too many
  // handshakes wait.
  bool Init(native_socket fd) {
    fd_ = fd;
    peer_ = PeerAddress(fd);
    ssl_ = SSL_new(state_->ctx());
    if (ssl_ == nullptr || SSL_set_fd(ssl_, fd) != 1) return false;
    if (inbound_) {
      SSL_set_accept_state(ssl_);
    } else {
      SSL_set_connect_state(ssl_);
    }
    return state_->BeginHandshake(this, fd, inbound_, peer_);
  }

  void Attach(TlsStream* stream) { stream_ = stream; }

  rw_state Read(size_t& result, void* buf, size_t len) {
    result = 0;
    if (refused_) return rw_state::failure;
    SigpipeBlock guard;
    if (!established_) {
      rw_state s = Handshake(/*writing=*/false, len);
      if (!established_) return s;
    }
    if (len == 0) return rw_state::indeterminate;
    ERR_clear_error();  // see Handshake
    int n = SSL_read(ssl_, buf, static_cast<int>(std::min<size_t>(len, INT32_MAX)));
    if (n > 0) {
      result = static_cast<size_t>(n);
      heard_ = true;
      return rw_state::success;
    }
    int err = SSL_get_error(ssl_, n);
    if (!inbound_ && !heard_ && (err == SSL_ERROR_SSL || err == SSL_ERROR_ZERO_RETURN)) {
      // TLS 1.3: our side of the handshake ends before the peer checks our certificate
      // (or finds we hold the token where it wants one); its refusal is this alert, before
      // a single byte of BASP. Recorded, so the caller hears PermissionDenied and why.
      RecordFailure(endpoint_, HandshakeFailure{true, err == SSL_ERROR_SSL ? SslErrorText()
                                                                         : "the node closed the connection"});
    }
    return err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE ? rw_state::success : rw_state::failure;
  }

  rw_state Write(size_t& result, const void* buf, size_t len) {
    result = 0;
    SigpipeBlock guard;
    if (!established_) {
      rw_state s = Handshake(/*writing=*/true, len);
      if (!established_) return s;
    }
    if (len == 0) return rw_state::indeterminate;
    // SSL_write returns after each 16 KiB record: keep going while the socket takes more,
    // or a 1 MiB message would cost 64 trips through the multiplexer.
    const char* bytes = static_cast<const char*>(buf);
    while (result < len) {
      ERR_clear_error();  // see Handshake
      int n = SSL_write(ssl_, bytes + result, static_cast<int>(std::min<size_t>(len - result, INT32_MAX)));
      if (n > 0) {
        result += static_cast<size_t>(n);
        continue;
      }
      int err = SSL_get_error(ssl_, n);
      if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) break;
      return rw_state::failure;
    }
    return rw_state::success;
  }

  // Decrypted bytes wait inside OpenSSL: the socket will not signal them, so read on.
  bool MustReadMore() const { return !refused_ && established_ && SSL_pending(ssl_) > 0; }

  // The peer asked for something it may not have (`why`): the next read fails, and CAF
  // closes the connection as for any broken one.
  void Refuse(const std::string& why) {
    refused_ = true;
    state_->LogOncePerPeer(peer_, StrCat("closed a control connection from ", peer_, ": ", why));
  }

 private:
  rw_state Handshake(bool writing, size_t len) {
    // OpenSSL's error queue is per thread, and one multiplexer thread drives every
    // connection: an error another connection left there would make SSL_get_error report
    // this healthy one as failed (and close it). So every call starts with an empty queue.
    ERR_clear_error();
    int r = SSL_do_handshake(ssl_);
    if (r == 1) {
      established_ = true;
      state_->EndHandshake(this);
      if (!inbound_) ClearFailure(endpoint_);
      if (write_paused_) {  // BASP's queued bytes may go now
        write_paused_ = false;
        ResumeWrites();
      }
      return rw_state::success;
    }
    int err = SSL_get_error(ssl_, r);
    if (err == SSL_ERROR_WANT_READ) {
      if (writing && len == 0) return rw_state::indeterminate;
      if (writing) {
        // BASP has bytes queued but TLS waits for the peer: stop polling for writability,
        // or the multiplexer spins until the peer answers.
        write_paused_ = true;
        PauseWrites();
      }
      return rw_state::success;
    }
    if (err == SSL_ERROR_WANT_WRITE) return rw_state::success;
    Fail(err);
    return rw_state::failure;
  }

  void PauseWrites();
  void ResumeWrites();

  void Fail(int err) {
    int os_error = errno;
    // A refused non-blocking connect shows up as EPIPE on the first write: the socket's
    // own error says what happened.
    int so_error = 0;
    socklen_t so_len = sizeof(so_error);
    if (getsockopt(fd_, SOL_SOCKET, SO_ERROR, &so_error, &so_len) == 0 && so_error != 0) os_error = so_error;
    std::string detail;
    if (err == SSL_ERROR_ZERO_RETURN) {
      detail = "the peer closed the handshake";
    } else if (err != SSL_ERROR_SYSCALL) {
      detail = SslErrorText();
    } else if (os_error == 0 || os_error == EAGAIN || os_error == EWOULDBLOCK) {
      detail = "the connection closed during the handshake";
    } else {
      detail = std::strerror(os_error);
    }
    const std::string& peer = peer_;
    if (!inbound_) {
      // An alert, or a close_notify, in the middle of the handshake: the peer speaks TLS and
      // ended it on purpose (a node that refused our token does either, depending on timing).
      RecordFailure(endpoint_, HandshakeFailure{err == SSL_ERROR_SSL || err == SSL_ERROR_ZERO_RETURN, detail});
    } else {
      state_->LogOncePerPeer(peer, StrCat("refused a control connection from ", peer,
                                          ": it did not complete the cluster handshake (", detail, ")"));
    }
  }

  std::shared_ptr<TransportState> state_;
  const bool inbound_;
  const std::string endpoint_;  // "host:port" for an outbound connection
  std::string peer_;            // the peer's address, for log lines
  SSL* ssl_ = nullptr;
  TlsStream* stream_ = nullptr;
  native_socket fd_ = net::invalid_native_socket;
  bool established_ = false;
  bool write_paused_ = false;
  bool refused_ = false;
  bool heard_ = false;  // some application data came: the peer accepted us
};

// CAF's stream with the TLS channel as its read/write policy.
class TlsStream : public net::stream {
 public:
  TlsStream(net::default_multiplexer& mpx, native_socket fd, std::unique_ptr<TlsChannel> channel)
      : net::stream(mpx, fd), policy_{std::move(channel)} {
    policy_.channel->Attach(this);
  }
  void handle_event(net::operation op) override { handle_event_impl(op, policy_); }

  // The scribe this stream belongs to (it owns the stream, so it outlives it).
  void SetOwner(net::stream_manager* owner) { owner_ = owner; }
  TlsChannel& channel() { return *policy_.channel; }
  // The scribe left the loop: nothing may register the stream again.
  void MarkDetached() { detached_ = true; }

  // While the handshake waits for the peer, BASP's queued bytes must not keep the socket
  // polled for writing (the multiplexer would spin). Leaving the loop for writing drops
  // CAF's reference to the writing manager, so resuming must register it again, the way
  // CAF itself starts writing (force_empty_write): re-adding the write event alone left
  // a stream polled for writing with no manager, which crashed on a failed write and kept
  // the multiplexer (and the actor system's shutdown) waiting forever.
  void PauseWrites() { backend().del(net::operation::write, fd(), this); }
  void ResumeWrites() {
    if (owner_ == nullptr || detached_) return;
    state_.writing = false;
    force_empty_write(manager_ptr{owner_});
  }

 private:
  net::stream_manager* owner_ = nullptr;
  bool detached_ = false;
  struct Policy {
    std::unique_ptr<TlsChannel> channel;
    rw_state read_some(size_t& result, native_socket, void* buf, size_t len) { return channel->Read(result, buf, len); }
    rw_state write_some(size_t& result, native_socket, const void* buf, size_t len) {
      return channel->Write(result, buf, len);
    }
    bool must_read_more(native_socket, size_t) { return channel->MustReadMore(); }
  };
  Policy policy_;
};

void TlsChannel::PauseWrites() { stream_->PauseWrites(); }
void TlsChannel::ResumeWrites() { stream_->ResumeWrites(); }

class TlsScribe : public caf::io::scribe {
 public:
  TlsScribe(net::default_multiplexer& mpx, native_socket fd, std::unique_ptr<TlsChannel> channel)
      : scribe(net::conn_hdl_from_socket(fd)), stream_(mpx, fd, std::move(channel)) {
    stream_.SetOwner(this);
  }

  void configure_read(caf::io::receive_policy::config config) override {
    // BASP reads a message as exactly the bytes its header announced: past the limit the
    // connection is closed instead, before the buffer is sized for them.
    if (config.first == caf::io::receive_policy_flag::exactly && config.second > MaxControlMessageBytes()) {
      stream_.channel().Refuse(StrCat("a message of ", config.second, " bytes was announced; at most ",
                                      MaxControlMessageBytes(), " are read (", kMaxControlMessageBytesEnv, ")"));
      config.second = 1;
    }
    stream_.configure_read(config);
    if (!launched_) {
      launched_ = true;
      stream_.start(this);
      // A writable event drives the handshake even before BASP has anything to send.
      stream_.force_empty_write(this);
    }
  }
  void ack_writes(bool enable) override { stream_.ack_writes(enable); }
  std::vector<char>& wr_buf() override { return stream_.wr_buf(); }
  std::vector<char>& rd_buf() override { return stream_.rd_buf(); }
  void graceful_shutdown() override {
    stream_.MarkDetached();
    stream_.graceful_shutdown();
    detach(&stream_.backend(), false);
  }
  void flush() override { stream_.flush(this); }
  std::string addr() const override {
    auto x = net::remote_addr_of_fd(stream_.fd());
    return x ? *x : "";
  }
  uint16_t port() const override {
    auto x = net::remote_port_of_fd(stream_.fd());
    return x ? *x : 0;
  }
  void add_to_loop() override { stream_.activate(this); }
  void remove_from_loop() override {
    stream_.MarkDetached();
    stream_.passivate();
  }

 private:
  bool launched_ = false;
  TlsStream stream_;
};

// A scribe for `fd`, or nullptr after closing `fd`.
caf::io::scribe_ptr MakeScribe(net::default_multiplexer& mpx, native_socket fd,
                               const std::shared_ptr<TransportState>& state, bool inbound, std::string endpoint) {
  auto channel = std::make_unique<TlsChannel>(state, inbound, std::move(endpoint));
  if (!channel->Init(fd)) {
    if (inbound) {
      const std::string peer = PeerAddress(fd);
      state->LogOncePerPeer(peer, StrCat("refused a control connection from ", peer, ": ", kMaxInboundHandshakes,
                                         " handshakes already wait"));
    }
    channel.reset();
    close(fd);
    return nullptr;
  }
  return caf::make_counted<TlsScribe>(mpx, fd, std::move(channel));
}

struct AcceptPolicy {
  explicit AcceptPolicy(std::shared_ptr<TransportState> state) : state(std::move(state)) {}
  bool try_accept(native_socket& result, native_socket listen_fd) {
    result = accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (result >= 0) {
      int one = 1;
      setsockopt(result, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
      return true;
    }
    if (errno == EMFILE || errno == ENFILE) state->Shed(listen_fd);
    result = net::invalid_native_socket;
    return false;
  }
  std::shared_ptr<TransportState> state;
};

class TlsDoorman : public caf::io::doorman {
 public:
  TlsDoorman(net::default_multiplexer& mpx, native_socket fd, std::shared_ptr<TransportState> state)
      : doorman(net::accept_hdl_from_socket(fd)), acceptor_(mpx, fd, state), state_(std::move(state)) {}

  bool new_connection() override {
    if (detached()) return false;
    auto& mpx = acceptor_.backend();
    auto scribe = MakeScribe(mpx, acceptor_.accepted_socket(), state_, /*inbound=*/true, "");
    if (!scribe) return false;
    auto hdl = scribe->hdl();
    parent()->add_scribe(std::move(scribe));
    return doorman::new_connection(&mpx, hdl);
  }
  void graceful_shutdown() override {
    acceptor_.graceful_shutdown();
    detach(&acceptor_.backend(), false);
  }
  void launch() override { acceptor_.start(this); }
  std::string addr() const override {
    auto x = net::local_addr_of_fd(acceptor_.fd());
    return x ? *x : "";
  }
  uint16_t port() const override {
    auto x = net::local_port_of_fd(acceptor_.fd());
    return x ? *x : 0;
  }
  void add_to_loop() override { acceptor_.activate(this); }
  void remove_from_loop() override { acceptor_.passivate(); }

 private:
  net::acceptor_impl<AcceptPolicy> acceptor_;
  std::shared_ptr<TransportState> state_;
};

// A socket connecting to host:port without waiting for the connection: the multiplexer
// polls it like any other, so a peer that never answers (a black hole) blocks no thread;
// the caller's request deadline ends the wait. IP literals involve no look-up.
caf::expected<native_socket> StartConnect(const std::string& host, uint16_t port) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  if (getaddrinfo(host == "localhost" ? "127.0.0.1" : host.c_str(), service.c_str(), &hints, &found) != 0 ||
      found == nullptr) {
    return caf::make_error(caf::sec::cannot_connect_to_node, "cannot resolve " + host);
  }
  int fd = socket(found->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  int rc = fd < 0 ? -1 : connect(fd, found->ai_addr, found->ai_addrlen);
  int err = errno;
  freeaddrinfo(found);
  if (fd < 0 || (rc != 0 && err != EINPROGRESS)) {
    if (fd >= 0) close(fd);
    return caf::make_error(caf::sec::cannot_connect_to_node, StrCat("cannot connect to ", host, ":", port, ": ",
                                                                    std::strerror(err)));
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  return fd;
}

// The credentials' TLS contexts, by fingerprint: ConfigureClusterTransport puts one here and
// names it in the actor system's config, where the network backend finds it.
std::mutex contexts_mu;
std::map<std::string, std::shared_ptr<SSL_CTX>> contexts;
constexpr char kConfigKey[] = "tensoract.cluster-credentials";
constexpr char kConfigLogName[] = "tensoract.cluster-log-name";

// CAF's network backend, with TLS connections: CAF's middleman actor, BASP, publish and
// connect all go through new_tcp_scribe and new_tcp_doorman, so none can bypass them.
class TlsMultiplexer : public net::default_multiplexer {
 public:
  explicit TlsMultiplexer(caf::actor_system* sys) : default_multiplexer(sys) {
    const std::string fingerprint = caf::get_or(sys->config(), kConfigKey, std::string());
    std::shared_ptr<SSL_CTX> ctx;
    {
      std::lock_guard<std::mutex> lock(contexts_mu);
      auto it = contexts.find(fingerprint);
      if (it != contexts.end()) ctx = it->second;
    }
    if (ctx) {
      state_ = std::make_shared<TransportState>(std::move(ctx), fingerprint,
                                                caf::get_or(sys->config(), kConfigLogName, std::string("tensoract")));
    }
  }

  caf::expected<caf::io::scribe_ptr> new_tcp_scribe(const std::string& host, uint16_t port) override {
    if (!state_) return caf::make_error(caf::sec::cannot_connect_to_node, "no cluster credentials");
    auto fd = StartConnect(host, port);
    if (!fd) {
      RecordFailure(StrCat(host, ":", port), HandshakeFailure{false, system().render(fd.error())});
      return std::move(fd.error());
    }
    auto scribe = MakeScribe(*this, *fd, state_, /*inbound=*/false, StrCat(host, ":", port));
    if (!scribe) return caf::make_error(caf::sec::cannot_connect_to_node, "cannot start a TLS session");
    return scribe;
  }

  caf::expected<caf::io::doorman_ptr> new_tcp_doorman(uint16_t port, const char* in, bool reuse) override {
    if (!state_) return caf::make_error(caf::sec::cannot_open_port, "no cluster credentials");
    auto fd = net::new_tcp_acceptor_impl(port, in, reuse);
    if (!fd) return std::move(fd.error());
    return caf::make_counted<TlsDoorman>(*this, *fd, state_);
  }

 private:
  std::shared_ptr<TransportState> state_;
};

}  // namespace

Status ConfigureClusterTransport(caf::actor_system_config& config, const ClusterCredentials& credentials,
                                 const std::string& log_name) {
  const std::string fingerprint = credentials.Fingerprint();
  {
    std::lock_guard<std::mutex> lock(contexts_mu);
    if (contexts.find(fingerprint) == contexts.end()) {
      TA_ASSIGN_OR_RETURN(SslContextPtr ctx, MakeSslContext(credentials));
      contexts[fingerprint] = std::shared_ptr<SSL_CTX>(ctx.release(), SslContextDeleter());
    }
  }
  caf::put(config.content, kConfigKey, fingerprint);
  caf::put(config.content, kConfigLogName, log_name);
  config.load<caf::io::middleman, TlsMultiplexer>();
  return Status::OK();
}

bool HasClusterTransport(caf::actor_system& system) {
  return system.has_middleman() && dynamic_cast<TlsMultiplexer*>(&system.middleman().backend()) != nullptr;
}

Status DescribeConnectFailure(caf::actor_system& system, const caf::error& error, const std::string& host,
                              uint16_t port, const std::string& where) {
  HandshakeFailure failure;
  {
    std::lock_guard<std::mutex> lock(failures_mu);
    auto it = failures.find(StrCat(host, ":", port));
    if (it != failures.end()) failure = it->second;
  }
  if (failure.rejected) {
    return errors::PermissionDenied(where, " refused: wrong cluster token or credentials, or not a tensoract node (TLS: ",
                                    failure.detail, ")");
  }
  if (error == caf::sec::request_timeout) return errors::DeadlineExceeded(where, ": no answer in time");
  return errors::Unavailable("cannot reach ", where, ": ",
                             failure.detail.empty() ? system.render(error) : failure.detail);
}

}  // namespace tensoract
