// GrpcFront: a gRPC server whose methods are byte handlers, for speaking a protocol that is
// defined by protobuf messages and method names (TensorFlow's MasterService, TensorFlow
// Serving's PredictionService) without generated service code.
//
//   GrpcFront::Options options;
//   options.address = "127.0.0.1:8470";
//   options.routes["/tensorflow.MasterService/RunStep"] =
//       [](std::string request, GrpcFront::Reply reply) { ... reply(Status::OK(), response_bytes); };
//   TA_ASSIGN_OR_RETURN(auto front, GrpcFront::Start(std::move(options)));
//
// Every call is unary: one request message, one response message or a status. A handler
// may answer from any thread, later (it must answer exactly once). A method without a
// route gets UNIMPLEMENTED naming it; a request larger than max_message_bytes gets
// RESOURCE_EXHAUSTED from gRPC before it is read. A Status's code maps to the gRPC code of
// the same number (TensorFlow's error codes are gRPC's).
#ifndef TENSORACT_BOOTSTRAP_GRPC_FRONT_H_
#define TENSORACT_BOOTSTRAP_GRPC_FRONT_H_

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "base/status.h"

namespace tensoract {

class GrpcFront {
 public:
  // Answers a call: OK with the response's bytes, or an error (the bytes are then ignored).
  using Reply = std::function<void(const Status&, std::string)>;
  using Handler = std::function<void(std::string request, Reply reply)>;

  struct Options {
    std::string address;  // "host:port"; port 0 picks one (see port())
    // TLS: PEM files of the server's certificate chain and key; both empty: plaintext.
    std::string tls_cert_file, tls_key_file;
    // With TLS: a CA's certificate (PEM); clients must then present a certificate it signed
    // (mutual TLS). Empty: any client may connect.
    std::string tls_ca_file;
    int max_message_bytes = 256 << 20;
    // Handlers that block (a model's run) get a pool of this many threads; 0: they run on
    // gRPC's own threads, which suits handlers that only pass the request on.
    int handler_threads = 0;
    std::map<std::string, Handler> routes;  // by full method name, "/package.Service/Method"
  };

  static StatusOr<std::unique_ptr<GrpcFront>> Start(Options options);
  ~GrpcFront();  // stops accepting, cancels the calls in flight and waits for them

  int port() const { return port_; }

  class HandlerPool;  // grpc_front.cc's

 private:
  class Service;
  GrpcFront() = default;
  std::unique_ptr<HandlerPool> pool_;  // declared first: destroyed after the server
  std::unique_ptr<Service> service_;
  struct ServerHolder;
  std::unique_ptr<ServerHolder> server_;
  int port_ = 0;
};

}  // namespace tensoract

#endif  // TENSORACT_BOOTSTRAP_GRPC_FRONT_H_
