// ModelServer: one model served over TensorFlow Serving's REST API (tensoract-serve).
//
// The model lives under a base path as numbered version directories, each a SavedModel,
// polled every file_system_poll_wait_seconds (bootstrap/servable_versions.h: the newest
// serves; one that fails to load leaves the previous one serving).
//
// Endpoints (paths as TensorFlow Serving's, case-insensitive: bootstrap/serving_routes.h):
//   GET  /v1/models/NAME[/versions/N]              model status
//   GET  /v1/models/NAME[/versions/N]/metadata     signatures
//   POST /v1/models/NAME[/versions/N]:predict      (and :classify, :regress)
// Bodies and errors are bootstrap/serving_json.h's; an unknown model or version is 404.
//
// Thread-safety: HandleRequest may be called from any number of threads at once (the HTTP
// server's pool does); PollOnce from one thread at a time. Start and Stop from the owner.
#ifndef TENSORACT_BOOTSTRAP_MODEL_SERVER_H_
#define TENSORACT_BOOTSTRAP_MODEL_SERVER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "base/status.h"
#include "bootstrap/grpc_front.h"
#include "bootstrap/served_model.h"
#include "bootstrap/serving_json.h"
#include "bootstrap/serving_routes.h"

namespace httplib {
class Server;
}

namespace tensoract {


struct ModelServerOptions {
  std::string model_name;
  std::string model_base_path;
  std::string rest_api_host = "127.0.0.1";  // TensorFlow Serving binds every address
  int rest_api_port = 8501;                 // 0: any free port (Start returns it)
  // Seconds between polls of the base path; 0 or less: look once, at start.
  double file_system_poll_wait_seconds = 1;
  int rest_api_num_threads = 0;             // 0: 4 per core, at least 64 (model_server.cc)
  int64_t rest_api_timeout_in_ms = 30000;   // each request's step deadline; 0: none
  size_t max_request_bytes = 64u << 20;     // larger bodies are answered 413
  // TensorFlow Serving's --enable_signature_method_name_check: classify and regress
  // want signatures of those methods (by default: of that shape).
  bool enable_signature_method_name_check = false;
  // Float convolutions and MatMuls multiply in bfloat16 where the CPU has bfloat16 units
  // (GraphOptimizerOptions::bfloat16_products): about twice as fast, results within ~1e-2.
  bool bfloat16_products = false;
  // bfloat16_products and the activations between convolutions in bfloat16 too
  // (GraphOptimizerOptions::bfloat16_activations), as OpenVINO's bfloat16 keeps them.
  bool bfloat16_activations = false;
  // Float convolutions multiply in 8-bit integers, dynamically quantized, where oneDNN has
  // integer kernels for the CPU (GraphOptimizerOptions::int8_products).
  bool int8_products = false;
  // TensorFlow Serving's gRPC API (its --port; bootstrap/serving_grpc.h) on rest_api_host:
  // -1 off, 0 any free port (grpc_port() says which). With a certificate and key: TLS.
  int grpc_port = -1;
  std::string grpc_tls_cert_file, grpc_tls_key_file;
  std::string grpc_tls_ca_file;  // with TLS: clients must present a certificate this CA signed
};

class ModelServer {
 public:
  explicit ModelServer(ModelServerOptions options);
  ~ModelServer();  // Stop()s
  ModelServer(const ModelServer&) = delete;
  ModelServer& operator=(const ModelServer&) = delete;

  // Loads the newest version (blocking; a model that fails to load is reported in its
  // status and is no reason not to start), starts polling and the HTTP server, and
  // returns the port it listens on. A port that cannot be bound is an error.
  StatusOr<int> Start();
  // Stops accepting, waits for the requests and the poller to finish, unloads the model.
  void Stop();

  // One look at the base path: loads and swaps in a newer version, unloads old ones.
  void PollOnce();

  // The REST API without the HTTP: a method, a path (no query) and a body give a status
  // code and a JSON body.
  struct Response {
    int status = 200;
    std::string body;
  };
  Response HandleRequest(const std::string& method, const std::string& path, const std::string& body);

  // The port of the gRPC API, once started (-1: not served).
  int grpc_port() const;

  // The version serving now (nullopt: none).
  std::optional<int64_t> serving_version() const;

 private:
  using Route = serving::Route;

  Status Dispatch(const std::string& method, const std::string& path, const std::string& body,
                  std::string* output);
  Status Predict(const Route& route, const std::string& body, std::string* output);
  Status ClassifyOrRegress(const Route& route, const std::string& body, bool classify, std::string* output);
  Status Metadata(const Route& route, std::string* output);
  Status ModelStatus(const Route& route, std::string* output);

  const ModelServerOptions options_;
  ServedModel model_;
  std::unique_ptr<httplib::Server> http_;
  std::unique_ptr<GrpcFront> grpc_;
  std::thread http_thread_;
};

}  // namespace tensoract

#endif  // TENSORACT_BOOTSTRAP_MODEL_SERVER_H_
