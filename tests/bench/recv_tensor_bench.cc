// RecvTensor over the data plane against raw loopback TCP, between two processes, in one
// run: throughput of a 1 MiB and a 64 MiB float tensor and the round trip of a 4-byte one.
//
//   recv_tensor_bench [reps_1mb] [reps_64mb] [reps_4b]
//
// A server process is forked first (before any thread exists). It serves both sides: a
// raw TCP loop (read an 8-byte size, write that many bytes from a buffer it already holds)
// and a DataPlaneServer holding the same tensors. The parent times each transfer and
// prints the median per request, one line per measurement:
//   <impl> <size> <value> <unit>      e.g. "raw_tcp 64MB 3.91 GB/s", "tensoract 4B 61.2 us"
// With $TENSORACT_BENCH_TLS_DIR (ca.pem, server.pem/.key, client.pem/.key, as
// bootstrap/make-cluster-certs.sh makes them) the same requests also go to a TLS-mode
// server ("tensoract_tls" lines, and their ratio to the token mode's plain bytes).
// Received tensors come from a caching allocator (as a device's pool would be), so the
// 64 MiB case measures the transfer rather than the kernel's first touch of fresh pages;
// "tensoract_fresh_pages" shows the same with the plain CPU allocator.
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

#include "actors/data_plane/data_plane.h"

namespace tensoract {
namespace {

using data_plane::SteadyNowMs;

struct Case {
  const char* name;
  size_t bytes;
  int reps;
};

// Keeps freed blocks by size and hands them out again.
class CachingAllocator : public Allocator {
 public:
  std::string Name() const override { return "bench_cache"; }
  void* AllocateRaw(size_t alignment, size_t num_bytes) override {
    std::lock_guard<std::mutex> lock(mu_);
    auto& free = free_[num_bytes];
    if (!free.empty()) {
      void* p = free.back();
      free.pop_back();
      return p;
    }
    return std::aligned_alloc(alignment, (num_bytes + alignment - 1) / alignment * alignment);
  }
  void DeallocateRaw(void* ptr, size_t num_bytes) override {
    std::lock_guard<std::mutex> lock(mu_);
    free_[num_bytes].push_back(ptr);
  }
  AllocatorStats GetStats() const override { return {}; }

 private:
  std::mutex mu_;
  std::map<size_t, std::vector<void*>> free_;
};

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void Report(const char* impl, const Case& c, double seconds) {
  if (c.bytes <= 4) {
    std::printf("%s %s %.1f us\n", impl, c.name, seconds * 1e6);
  } else {
    std::printf("%s %s %.2f GB/s\n", impl, c.name, c.bytes / seconds / 1e9);
  }
  std::fflush(stdout);
}

bool ReadFull(int fd, void* p, size_t n) {
  char* out = static_cast<char*>(p);
  while (n > 0) {
    ssize_t got = recv(fd, out, n, MSG_WAITALL);
    if (got <= 0) return false;
    out += got;
    n -= static_cast<size_t>(got);
  }
  return true;
}

bool WriteFull(int fd, const void* p, size_t n) {
  iovec iov{const_cast<void*>(p), n};
  return data_plane::Stream(fd).WriteAll(&iov, 1).ok();
}

// TLS-mode credentials of `name` from $TENSORACT_BENCH_TLS_DIR; empty without it.
ClusterCredentials TlsCredentials(const std::string& name) {
  ClusterCredentials c;
  const char* dir = std::getenv("TENSORACT_BENCH_TLS_DIR");
  if (dir == nullptr || *dir == '\0') return c;
  c.tls_cert_file = std::string(dir) + "/" + name + ".pem";
  c.tls_key_file = std::string(dir) + "/" + name + ".key";
  c.tls_ca_file = std::string(dir) + "/ca.pem";
  return c;
}

// The child: a DataPlaneServer on the tensors (and a TLS-mode one, when asked) and a raw
// TCP loop on the same bytes.
[[noreturn]] void Serve(int report_fd, const std::vector<Case>& cases) {
  std::map<std::string, Tensor> tensors;
  size_t largest = 0;
  for (const Case& c : cases) {
    Tensor t(tensorflow::DT_FLOAT, TensorShape({static_cast<int64_t>(c.bytes / 4)}));
    std::memset(t.data(), 0x3c, c.bytes);
    tensors[c.name] = t;
    largest = std::max(largest, c.bytes);
  }
  DataPlaneServer::Options options;
  options.credentials.token = "bench-token";
  auto provider = [&](int64_t, const std::string& key, DataPlaneServer::Reply reply) {
    auto it = tensors.find(key);
    if (it == tensors.end()) {
      reply(errors::NotFound("no tensor ", key), Tensor(), false);
    } else {
      reply(Status::OK(), it->second, false);
    }
  };
  auto server = DataPlaneServer::Start(provider, options);
  StatusOr<std::unique_ptr<DataPlaneServer>> tls_server = errors::NotFound("no TLS");
  if (TlsCredentials("server").tls()) {
    options.credentials = TlsCredentials("server");
    tls_server = DataPlaneServer::Start(provider, options);
    if (!tls_server.ok()) {
      std::fprintf(stderr, "TLS server: %s\n", tls_server.status().ToString().c_str());
      _exit(1);
    }
  }
  int raw_port = 0;
  auto raw_listener = data_plane::ListenOn("127.0.0.1", 0, &raw_port);
  if (!server.ok() || !raw_listener.ok()) _exit(1);
  int ports[3] = {(*server)->port(), raw_port, tls_server.ok() ? (*tls_server)->port() : 0};
  if (write(report_fd, ports, sizeof(ports)) != sizeof(ports)) _exit(1);
  std::vector<char> buffer(largest, 0x3c);
  int fd = accept(*raw_listener, nullptr, nullptr);
  if (fd < 0) _exit(1);
  data_plane::TuneSocket(fd);
  uint64_t size;
  while (ReadFull(fd, &size, sizeof(size)) && size > 0 && size <= largest) {
    if (!WriteFull(fd, buffer.data(), size)) break;
  }
  for (;;) pause();  // the parent kills us when it is done with the data plane too
}

int Main(int argc, char** argv) {
  std::vector<Case> cases = {{"1MB", size_t{1} << 20, argc > 1 ? std::atoi(argv[1]) : 200},
                             {"64MB", size_t{64} << 20, argc > 2 ? std::atoi(argv[2]) : 15},
                             {"4B", 4, argc > 3 ? std::atoi(argv[3]) : 3000}};
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return 1;
  const pid_t child = fork();
  if (child < 0) return 1;
  if (child == 0) {
    alarm(600);
    close(pipe_fds[0]);
    Serve(pipe_fds[1], cases);
  }
  close(pipe_fds[1]);
  int ports[3];
  if (read(pipe_fds[0], ports, sizeof(ports)) != sizeof(ports)) {
    std::fprintf(stderr, "the server process did not start\n");
    return 1;
  }
  const std::string peer = "127.0.0.1:" + std::to_string(ports[0]);
  const std::string raw_peer = "127.0.0.1:" + std::to_string(ports[1]);

  // Raw TCP: request = the size, reply = that many bytes into a buffer we already hold.
  auto raw = data_plane::ConnectTo(raw_peer, SteadyNowMs() + 5000);
  if (!raw.ok()) return 1;
  std::vector<char> sink(size_t{64} << 20);
  std::map<std::string, double> raw_seconds;
  for (const Case& c : cases) {
    std::vector<double> times;
    for (int i = -3; i < c.reps; ++i) {  // 3 warm-up requests
      const auto start = std::chrono::steady_clock::now();
      uint64_t size = c.bytes;
      if (!WriteFull(*raw, &size, sizeof(size)) || !ReadFull(*raw, sink.data(), c.bytes)) return 1;
      if (i >= 0) times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    raw_seconds[c.name] = Median(times);
    Report("raw_tcp", c, raw_seconds[c.name]);
  }

  CachingAllocator cache;
  DataPlaneClient token_client("bench-token");
  DataPlaneClient tls_client(TlsCredentials("client"));
  const std::string tls_peer = "127.0.0.1:" + std::to_string(ports[2]);
  auto run = [&](const char* impl, Allocator* allocator, const Case& c, bool tls = false) {
    std::vector<double> times;
    DataPlaneClient& client = tls ? tls_client : token_client;
    for (int i = -3; i < c.reps; ++i) {
      const auto start = std::chrono::steady_clock::now();
      auto got = client.RecvTensor(tls ? tls_peer : peer, 1, c.name, false, SteadyNowMs() + 30000, allocator);
      if (!got.ok() || got->value.TotalBytes() != c.bytes) {
        std::fprintf(stderr, "%s\n", got.status().ToString().c_str());
        std::exit(1);
      }
      if (i >= 0) times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    const double t = Median(times);
    Report(impl, c, t);
    return t;
  };
  for (const Case& c : cases) {
    const double t = run("tensoract", &cache, c);
    std::printf("ratio %s tensoract/raw_tcp %s %.2f\n", c.name, c.bytes <= 4 ? "time" : "throughput",
                c.bytes <= 4 ? t / raw_seconds[c.name] : raw_seconds[c.name] / t);
  }
  run("tensoract_fresh_pages", cpu_allocator(), cases[1]);
  if (ports[2] != 0) {
    for (const Case& c : cases) {
      const double plain = run("tensoract", &cache, c);
      const double tls = run("tensoract_tls", &cache, c, /*tls=*/true);
      std::printf("ratio %s tls/token %s %.2f\n", c.name, c.bytes <= 4 ? "time" : "throughput",
                  c.bytes <= 4 ? tls / plain : plain / tls);
      std::printf("ratio %s tls/raw_tcp %s %.2f\n", c.name, c.bytes <= 4 ? "time" : "throughput",
                  c.bytes <= 4 ? tls / raw_seconds[c.name] : raw_seconds[c.name] / tls);
    }
  }

  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  return 0;
}

}  // namespace
}  // namespace tensoract

int main(int argc, char** argv) { return tensoract::Main(argc, argv); }
