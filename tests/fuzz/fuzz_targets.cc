#include "tests/fuzz/fuzz_targets.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstdio>
#include <memory>
#include <mutex>
#include <thread>

#include <google/protobuf/stubs/logging.h>

#include "actors/data_plane/auth.h"
#include "actors/data_plane/client.h"
#include "actors/data_plane/server.h"
#include "actors/data_plane/wire.h"
#include "actors/executor_plan.h"
#include "actors/rpc_requests.h"
#include "kernels/device.h"
#include "kernels/io/readers.h"
#include "kernels/tensor.h"
#include "messages/graph.pb.h"
#include "messages/tensor.pb.h"

namespace tensoract {
namespace fuzz {
namespace {

constexpr char kToken[] = "fuzz-token";

// Protobuf logs every string field that is not UTF-8 as an error: millions of lines under
// a fuzzer. The node quiets it the same way (bootstrap/tensoract_node_main.cc).
const bool kProtobufQuiet = [] {
  google::protobuf::SetLogHandler(nullptr);
  return true;
}();
// Longer than any correct exchange on loopback takes; past it the target is stuck.
constexpr int64_t kStuckMs = 10000;

[[noreturn]] void Stuck(const char* what) {
  std::fprintf(stderr, "fuzz target stuck: %s\n", what);
  std::abort();  // a hang is a finding too: libFuzzer keeps the input
}

// Reads and drops what `fd` sends until the peer closes or `deadline_ms` passes.
void Drain(int fd, int64_t deadline_ms) {
  char buf[4096];
  for (;;) {
    const int64_t left = deadline_ms - data_plane::SteadyNowMs();
    if (left <= 0) Stuck("the peer neither answered nor hung up");
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left)) <= 0) continue;
    if (read(fd, buf, sizeof buf) <= 0) return;
  }
}

// What the fuzzed server serves: a float vector, a dead value, a string tensor (sent as a
// TensorProto), and NotFound for every other key.
void Provide(int64_t step_id, const std::string& key, DataPlaneServer::Reply reply) {
  if (key == "float") {
    reply(Status::OK(), Tensor::FromVector<float>({1.f, 2.f, 3.f}), false);
  } else if (key == "dead") {
    reply(Status::OK(), Tensor(), true);
  } else if (key == "string") {
    reply(Status::OK(), Tensor::FromVector<std::string>({"a", "bc"}), false);
  } else {
    reply(errors::NotFound("no tensor '", key, "' in step ", step_id), Tensor(), false);
  }
}

}  // namespace

int GraphDef(const uint8_t* data, size_t size) {
  static Device* device = new Device("/job:localhost/replica:0/task:0/device:CPU:0", DEVICE_CPU, 1);
  tensorflow::GraphDef def;
  if (!def.ParseFromArray(data, static_cast<int>(size))) return 0;
  (void)ExecutorPlan::Build(def, device);
  return 0;
}

int TensorProto(const uint8_t* data, size_t size) {
  tensorflow::TensorProto proto;
  if (!proto.ParseFromArray(data, static_cast<int>(size))) return 0;
  auto tensor = Tensor::FromProto(proto);
  if (tensor.ok()) {
    // What a fetch does with it: back to a proto, both ways of writing one.
    tensorflow::TensorProto out;
    tensor->AsProtoTensorContent(&out);
    tensor->AsProtoField(&out);
  }
  return 0;
}

int ControlRequest(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const auto& methods = rpc::Methods();
  (void)rpc::Decode(methods[data[0] % methods.size()], std::string(reinterpret_cast<const char*>(data) + 1, size - 1));
  return 0;
}

int DataPlaneServer(const uint8_t* data, size_t size) {
  static tensoract::DataPlaneServer* server = [] {
    tensoract::DataPlaneServer::Options options;
    options.credentials.token = kToken;
    options.max_connections = 4096;
    options.idle_timeout_ms = options.frame_timeout_ms = options.send_timeout_ms = 2000;
    auto started = tensoract::DataPlaneServer::Start(Provide, options);
    if (!started.ok()) Stuck(started.status().ToString().c_str());
    return std::move(started).value().release();
  }();
  static const Digest key = data_plane::HandshakeKey(kToken);
  const int64_t deadline = data_plane::SteadyNowMs() + kStuckMs;
  const std::string peer = "127.0.0.1:" + std::to_string(server->port());
  auto fd = data_plane::ConnectTo(peer, deadline);
  if (!fd.ok()) Stuck(fd.status().ToString().c_str());
  if (data_plane::AuthenticateServer(*fd, key, deadline, peer).ok()) {
    // The server may hang up before it has read everything: a refusal, not a failure here.
    (void)data_plane::WriteExactly(*fd, data, size, deadline);
    shutdown(*fd, SHUT_WR);
    Drain(*fd, deadline);
  }
  close(*fd);
  return 0;
}

int DataPlaneClient(const uint8_t* data, size_t size) {
  static int port = 0;
  static const int listener = [] {
    auto fd = data_plane::ListenOn("127.0.0.1", 0, &port);
    if (!fd.ok()) Stuck(fd.status().ToString().c_str());
    return *fd;
  }();
  static const Digest key = data_plane::HandshakeKey(kToken);
  const int64_t deadline = data_plane::SteadyNowMs() + kStuckMs;
  // The fake server: on the first connection it proves the token, sends the input as its
  // replies and stops writing; later connections (the client reconnects for a request made
  // after the stream ended) are hung up at once. It runs until the client is gone.
  std::atomic<bool> client_gone{false};
  std::thread server([&] {
    std::vector<int> accepted;
    while (!client_gone) {
      pollfd p{listener, POLLIN, 0};
      if (poll(&p, 1, 20) <= 0) continue;
      int fd = accept(listener, nullptr, nullptr);
      if (fd < 0) continue;
      if (!accepted.empty()) {
        close(fd);
        continue;
      }
      accepted.push_back(fd);
      if (data_plane::AuthenticateClient(fd, key, deadline).ok()) {
        (void)data_plane::WriteExactly(fd, data, size, deadline);
        shutdown(fd, SHUT_WR);
      }
    }
    for (int fd : accepted) close(fd);
  });
  {
    tensoract::DataPlaneClient client(kToken);
    std::mutex mu;
    std::condition_variable cv;
    int done = 0;
    // Request ids 1, 2, 3 on the connection: a float, a lossy16 float and a third that
    // the replies may leave unanswered (it fails when the stream ends).
    const char* keys[] = {"a", "b", "c"};
    for (int i = 0; i < 3; ++i) {
      client.RecvTensorAsync("127.0.0.1:" + std::to_string(port), 1, keys[i], i == 1, deadline, cpu_allocator(),
                             [&](const Status&, const Tensor&, bool) {
                               std::lock_guard<std::mutex> lock(mu);
                               ++done;
                               cv.notify_all();
                             });
    }
    std::unique_lock<std::mutex> lock(mu);
    if (!cv.wait_for(lock, std::chrono::milliseconds(kStuckMs + 2000), [&] { return done == 3; })) {
      Stuck("a request never ended");
    }
  }
  client_gone = true;
  server.join();
  return 0;
}

int RecordFile(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  // One file per process, rewritten for every input.
  static const std::string path = "/tmp/tensoract_fuzz_record_file_" + std::to_string(::getpid());
  {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (f == nullptr) return 0;
    std::fwrite(data + 1, 1, size - 1, f);
    std::fclose(f);
  }
  std::shared_ptr<WorkReader> reader;
  switch (data[0] % 4) {
    case 0: reader = NewTFRecordReader(""); break;
    case 1: reader = NewTFRecordReader("GZIP"); break;
    case 2: reader = NewTextLineReader(1); break;
    default: {
      FixedLengthRecordOptions options;
      options.header_bytes = data[0] >> 4;
      options.record_bytes = 1 + (data[0] >> 2) % 8;
      options.hop_bytes = data[0] % 3;
      reader = NewFixedLengthRecordReader(options);
    }
  }
  reader->AddWork(path);
  std::vector<std::string> keys, values;
  bool needs_work = false;
  (void)reader->Read(1 << 20, &keys, &values, &needs_work);
  return 0;
}

const std::vector<Target>& Targets() {
  static const std::vector<Target> targets = {
      {"graph_def", GraphDef},
      {"tensor_proto", TensorProto},
      {"control_request", ControlRequest},
      {"data_plane_server", DataPlaneServer},
      {"data_plane_client", DataPlaneClient},
      {"record_file", RecordFile},
  };
  return targets;
}

}  // namespace fuzz
}  // namespace tensoract
