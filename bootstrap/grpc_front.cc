#include "bootstrap/grpc_front.h"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include <grpcpp/generic/async_generic_service.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/security/server_credentials.h>

#include "base/proto_io.h"

namespace tensoract {

// Threads that run blocking handlers. A job goes to the thread that went idle last: one
// client's requests then keep to one thread, whose caches (and the runtime's per-thread
// state) stay warm; handed round-robin, a CNN's request on this 2-core VM took 1.1-1.2 ms
// in the handler instead of 0.8.
class GrpcFront::HandlerPool {
 public:
  explicit HandlerPool(int threads) {
    for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { Work(); });
  }
  ~HandlerPool() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
      for (Idle* idle : idle_) idle->wake.notify_one();
    }
    for (std::thread& t : threads_) t.join();
  }
  void Post(std::function<void()> job) {
    std::lock_guard<std::mutex> lock(mu_);
    if (idle_.empty()) {
      jobs_.push_back(std::move(job));
      return;
    }
    Idle* last = idle_.back();
    idle_.pop_back();
    last->job = std::move(job);
    last->wake.notify_one();
  }

 private:
  // A thread waiting for a job, on the stack of idle ones.
  struct Idle {
    std::condition_variable wake;
    std::function<void()> job;
  };

  void Work() {
    Idle me;
    for (;;) {
      std::function<void()> job;
      {
        std::unique_lock<std::mutex> lock(mu_);
        if (!jobs_.empty()) {
          job = std::move(jobs_.front());
          jobs_.pop_front();
        } else {
          if (stopping_) return;
          idle_.push_back(&me);
          me.wake.wait(lock, [&] { return me.job || stopping_; });
          if (!me.job) return;  // stopping (it is off the stack's use: no job comes any more)
          job = std::move(me.job);
          me.job = nullptr;
        }
      }
      job();
    }
  }

  std::mutex mu_;
  std::deque<std::function<void()>> jobs_;  // waiting for a thread
  std::vector<Idle*> idle_;                 // the last one went idle last
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

namespace {

// One call: reads the request, hands its bytes to the route's handler, writes what the
// handler answers and finishes. Deletes itself when gRPC is done with it.
class Call : public grpc::ServerGenericBidiReactor {
 public:
  Call(const GrpcFront::Handler* handler, const std::string& method, GrpcFront::HandlerPool* pool)
      : handler_(handler), pool_(pool) {
    if (handler_ == nullptr) {
      Finish(grpc::Status(grpc::StatusCode::UNIMPLEMENTED, "this server has no method '" + method + "'"));
      return;
    }
    StartRead(&request_);
  }

  void OnReadDone(bool ok) override {
    if (!ok) {
      Finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "the call sent no request message"));
      return;
    }
    std::vector<grpc::Slice> slices;
    grpc::Status dumped = request_.Dump(&slices);
    if (!dumped.ok()) {
      Finish(dumped);
      return;
    }
    size_t size = 0;
    for (const grpc::Slice& s : slices) size += s.size();
    std::string bytes;
    bytes.reserve(size);
    for (const grpc::Slice& s : slices) bytes.append(reinterpret_cast<const char*>(s.begin()), s.size());
    slices.clear();
    request_.Clear();
    GrpcFront::Reply reply = [this](const Status& status, std::string response) {
      Answer(status, std::move(response));
    };
    if (pool_ == nullptr) return (*handler_)(std::move(bytes), std::move(reply));
    pool_->Post([handler = handler_, bytes = std::move(bytes), reply = std::move(reply)]() mutable {
      (*handler)(std::move(bytes), std::move(reply));
    });
  }

  void OnDone() override { delete this; }

 private:
  void Answer(const Status& status, std::string response) {
    if (!status.ok()) {
      // TensorFlow's error codes are gRPC's, number for number.
      Finish(grpc::Status(static_cast<grpc::StatusCode>(status.code()), status.message()));
      return;
    }
    // The response's bytes go out without a copy: the slice owns the string.
    auto* owned = new std::string(std::move(response));
    grpc::Slice slice(owned->data(), owned->size(), [](void* s) { delete static_cast<std::string*>(s); }, owned);
    response_ = grpc::ByteBuffer(&slice, 1);
    StartWriteAndFinish(&response_, grpc::WriteOptions(), grpc::Status::OK);
  }

  const GrpcFront::Handler* handler_;
  GrpcFront::HandlerPool* pool_;  // null: the handler runs on gRPC's thread
  grpc::ByteBuffer request_, response_;
};

}  // namespace

class GrpcFront::Service : public grpc::CallbackGenericService {
 public:
  Service(std::map<std::string, GrpcFront::Handler> routes, HandlerPool* pool)
      : routes_(std::move(routes)), pool_(pool) {}

  grpc::ServerGenericBidiReactor* CreateReactor(grpc::GenericCallbackServerContext* context) override {
    auto route = routes_.find(context->method());
    return new Call(route == routes_.end() ? nullptr : &route->second, context->method(), pool_);
  }

 private:
  const std::map<std::string, GrpcFront::Handler> routes_;
  HandlerPool* pool_;
};

struct GrpcFront::ServerHolder {
  std::unique_ptr<grpc::Server> server;
};

StatusOr<std::unique_ptr<GrpcFront>> GrpcFront::Start(Options options) {
  std::shared_ptr<grpc::ServerCredentials> credentials;
  if (options.tls_cert_file.empty() != options.tls_key_file.empty()) {
    return errors::InvalidArgument("gRPC TLS needs both a certificate and a key file");
  }
  if (!options.tls_ca_file.empty() && options.tls_cert_file.empty()) {
    return errors::InvalidArgument("gRPC client certificates (a CA file) need TLS: a certificate and a key");
  }
  if (options.tls_cert_file.empty()) {
    credentials = grpc::InsecureServerCredentials();
  } else {
    grpc::SslServerCredentialsOptions::PemKeyCertPair pair;
    TA_RETURN_IF_ERROR(ReadFileToString(options.tls_key_file, &pair.private_key));
    TA_RETURN_IF_ERROR(ReadFileToString(options.tls_cert_file, &pair.cert_chain));
    grpc::SslServerCredentialsOptions ssl;
    ssl.pem_key_cert_pairs.push_back(std::move(pair));
    if (!options.tls_ca_file.empty()) {
      TA_RETURN_IF_ERROR(ReadFileToString(options.tls_ca_file, &ssl.pem_root_certs));
      ssl.client_certificate_request = GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY;
    }
    credentials = grpc::SslServerCredentials(ssl);
  }
  std::unique_ptr<GrpcFront> front(new GrpcFront);
  if (options.handler_threads > 0) front->pool_ = std::make_unique<HandlerPool>(options.handler_threads);
  front->service_ = std::make_unique<Service>(std::move(options.routes), front->pool_.get());
  grpc::ServerBuilder builder;
  builder.AddListeningPort(options.address, credentials, &front->port_);
  builder.SetMaxReceiveMessageSize(options.max_message_bytes);
  builder.SetMaxSendMessageSize(-1);  // what the runtime fetched: the client set its own limit
  builder.RegisterCallbackGenericService(front->service_.get());
  front->server_ = std::make_unique<ServerHolder>();
  front->server_->server = builder.BuildAndStart();
  if (!front->server_->server || front->port_ == 0) {
    return errors::Unavailable("gRPC cannot listen on ", options.address, " (is another process using the port?)");
  }
  return front;
}

GrpcFront::~GrpcFront() {
  if (server_ && server_->server) {
    // Calls still in flight are cancelled after a second; each still gets its handler's
    // answer (the handlers always answer), so none is left behind.
    server_->server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
    server_->server->Wait();
  }
}

}  // namespace tensoract
