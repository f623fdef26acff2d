#include "bootstrap/model_server.h"

#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <limits>

#include "bootstrap/serving_examples.h"
#include "bootstrap/serving_grpc.h"
#include "bootstrap/serving_status.h"
#include "client/saved_model.h"

namespace tensoract {

using serving::Json;

namespace {

ServedModelOptions ServedModelOptionsFor(const ModelServerOptions& options) {
  ServedModelOptions served;
  served.model_name = options.model_name;
  served.model_base_path = options.model_base_path;
  served.timeout_ms = options.rest_api_timeout_in_ms;
  served.enable_signature_method_name_check = options.enable_signature_method_name_check;
  served.bfloat16_products = options.bfloat16_products;
  served.bfloat16_activations = options.bfloat16_activations;
  served.int8_products = options.int8_products;
  return served;
}

}  // namespace

ModelServer::ModelServer(ModelServerOptions options)
    : options_(std::move(options)),
      model_(ServedModelOptionsFor(options_)) {}

ModelServer::~ModelServer() { Stop(); }

std::optional<int64_t> ModelServer::serving_version() const { return model_.versions().serving_version(); }

void ModelServer::PollOnce() { model_.versions().PollOnce(); }

StatusOr<int> ModelServer::Start() {
  if (options_.model_name.empty()) return errors::InvalidArgument("a model name is needed (--model_name)");
  if (options_.model_base_path.empty()) return errors::InvalidArgument("a model base path is needed (--model_base_path)");
  PollOnce();

  http_ = std::make_unique<httplib::Server>();
  int threads = options_.rest_api_num_threads;
  // httplib gives each kept-alive connection a pool thread until it closes or idles out
  // (5 s), where TensorFlow Serving's event loop needs none: with TensorFlow Serving's 4
  // per core, a 9th client on this 2-core machine waited seconds for a free thread. Idle
  // threads cost little, so the default is at least 64 (64 connections at once).
  if (threads <= 0) threads = std::max(64, 4 * static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  http_->new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  http_->set_payload_max_length(options_.max_request_bytes);
  // A response goes out as two writes (headers, body): with Nagle's algorithm the body
  // waits for the client's delayed ACK, 40 ms per request on Linux.
  http_->set_tcp_nodelay(true);
  // httplib closes a kept-alive connection after 5 requests by default. Clients then
  // reconnect all at once, overflow its listen backlog of 5 (compiled into Debian's
  // library) and wait out a SYN retry: 1 s stalls under 8 clients. A connection serves
  // requests until it idles out or the client closes it, as with TensorFlow Serving.
  http_->set_keep_alive_max_count(std::numeric_limits<int>::max());
  // httplib's default sets SO_REUSEPORT, with which a second server binds a port already
  // in use and the kernel splits the connections between the two. SO_REUSEADDR alone
  // lets a restart reuse a port in TIME_WAIT and refuses one that someone listens on.
  auto listening = std::make_shared<std::vector<socket_t>>();
  http_->set_socket_options([listening](socket_t sock) {
    int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    listening->push_back(sock);
  });
  auto handler = [this](const httplib::Request& req, httplib::Response& res) {
    Response r = HandleRequest(req.method, req.path, req.body);
    res.status = r.status;
    res.set_content(r.body, "application/json");
  };
  // Every path goes to HandleRequest, which answers the ones TensorFlow Serving does not
  // know as it would.
  const httplib::Server::Handler all(handler);
  // Bodies are read by the handler itself: httplib reads one of a request that says it is
  // a form (what `curl -d` sends, and TensorFlow Serving accepts) only up to 8 KiB,
  // a limit compiled into Debian's library. The payload limit above still applies.
  const httplib::Server::HandlerWithContentReader with_body =
      [this](const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& read) {
        std::string body;
        const bool complete = read([&](const char* data, size_t n) {
          body.append(data, n);
          return true;
        });
        if (!complete) {  // over the payload limit, or the connection broke
          res.status = 413;
          res.set_content(serving::ErrorJson(Status(error::INVALID_ARGUMENT,
                                                    StrCat("request body larger than ", options_.max_request_bytes,
                                                           " bytes, or cut short"))),
                          "application/json");
          return;
        }
        Response r = HandleRequest(req.method, req.path, body);
        res.status = r.status;
        res.set_content(r.body, "application/json");
      };
  http_->Get(".*", all);
  http_->Post(".*", with_body);
  http_->Put(".*", with_body);
  http_->Delete(".*", with_body);
  http_->Patch(".*", with_body);
  // A CORS preflight, as TensorFlow Serving answers one.
  http_->Options(".*", [](const httplib::Request& req, httplib::Response& res) {
    const std::string origin = req.get_header_value("Origin");
    if (origin.find("http://") != std::string::npos || origin.find("https://") != std::string::npos) {
      res.status = 200;
      res.set_content("", "application/json");
    } else {
      res.status = 400;
      res.set_content(serving::ErrorJson(errors::FailedPrecondition("Origin header is missing in CORS preflight")),
                      "application/json");
    }
  });
  // What httplib answers by itself (a body over the limit: 413) gets a JSON body too.
  http_->set_error_handler(httplib::Server::HandlerWithResponse([this](const httplib::Request&,
                                                                       httplib::Response& res) {
    if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
    std::string message = StrCat("HTTP ", res.status);
    if (res.status == 413) message = StrCat("request body larger than ", options_.max_request_bytes, " bytes");
    if (res.status == 404) message = "Not found";
    res.set_content(serving::ErrorJson(Status(error::INVALID_ARGUMENT, message)), "application/json");
    return httplib::Server::HandlerResponse::Handled;
  }));

  int port = options_.rest_api_port;
  if (port == 0) {
    port = http_->bind_to_any_port(options_.rest_api_host);
    if (port < 0) return errors::Unavailable("cannot bind any port on ", options_.rest_api_host);
  } else if (!http_->bind_to_port(options_.rest_api_host, port)) {
    return errors::Unavailable("cannot bind ", options_.rest_api_host, ":", port, " (in use, or not an address here)");
  }
  // httplib listens with a backlog of 5, compiled into Debian's library: a burst of new
  // connections while the accepting thread waits for a core overflows it, and a dropped
  // SYN costs its client a 1 s retry. Listening again on the bound socket raises it.
  if (!listening->empty()) ::listen(listening->back(), SOMAXCONN);  // the socket bound last
  http_thread_ = std::thread([this] { http_->listen_after_bind(); });
  // httplib's stop() is ignored until the server runs; wait for that, so that Stop works.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!http_->is_running() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  if (options_.grpc_port >= 0) {
    GrpcFront::Options grpc;
    grpc.address = StrCat(options_.rest_api_host, ":", options_.grpc_port);
    grpc.tls_cert_file = options_.grpc_tls_cert_file;
    grpc.tls_key_file = options_.grpc_tls_key_file;
    grpc.tls_ca_file = options_.grpc_tls_ca_file;
    grpc.max_message_bytes = static_cast<int>(std::min<size_t>(options_.max_request_bytes, INT32_MAX));
    // As many requests at once as the REST API's pool takes at its smallest; they go to the
    // thread that went idle last (GrpcFront::HandlerPool).
    grpc.handler_threads = std::max(8, 2 * static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
    grpc.routes = ServingRoutes(&model_);
    auto started = GrpcFront::Start(std::move(grpc));
    if (!started.ok()) {
      Stop();
      return started.status();
    }
    grpc_ = std::move(started).value();
  }
  model_.versions().StartPolling(options_.file_system_poll_wait_seconds);
  return port;
}

int ModelServer::grpc_port() const { return grpc_ ? grpc_->port() : -1; }

void ModelServer::Stop() {
  grpc_.reset();  // its calls in flight answered first
  if (http_) http_->stop();
  // listen_after_bind returns once the pool has finished the requests it holds.
  if (http_thread_.joinable()) http_thread_.join();
  model_.versions().Clear();
}

ModelServer::Response ModelServer::HandleRequest(const std::string& method, const std::string& path,
                                                 const std::string& body) {
  Response response;
  std::string output;
  Status status;
  try {
    status = Dispatch(method, path, body, &output);
  } catch (const std::bad_alloc&) {
    status = errors::ResourceExhausted("out of memory answering ", method, " ", path);
  } catch (const std::exception& e) {
    status = errors::Internal("answering ", method, " ", path, ": ", e.what());
  }
  response.status = serving::HttpStatusFor(status);
  response.body = status.ok() ? std::move(output) : serving::ErrorJson(status);
  return response;
}

Status ModelServer::Dispatch(const std::string& method, const std::string& path, const std::string& body,
                             std::string* output) {
  TA_ASSIGN_OR_RETURN(Route route, serving::ParseRoute(method, path));
  if (method == "GET") return route.subresource == "metadata" ? Metadata(route, output) : ModelStatus(route, output);
  if (route.verb == "predict") return Predict(route, body, output);
  if (route.verb == "classify") return ClassifyOrRegress(route, body, true, output);
  if (route.verb == "regress") return ClassifyOrRegress(route, body, false, output);
  return errors::InvalidArgument("Malformed request: ", method, " ", path);
}

Status ModelServer::Predict(const Route& route, const std::string& body, std::string* output) {
  TA_ASSIGN_OR_RETURN(Json request, serving::ParseRequestJson(body));
  TA_ASSIGN_OR_RETURN(std::string signature_name, serving::RequestSignatureName(request));
  TA_ASSIGN_OR_RETURN(ServedModel::Signature signature,
                      model_.PredictSignature(route.name, route.version, route.label, signature_name));
  TA_ASSIGN_OR_RETURN(serving::PredictInputs inputs,
                      serving::PredictInputsFromJson(request, *signature.def, signature_name));
  std::vector<std::pair<std::string, Tensor>> outputs;
  TA_RETURN_IF_ERROR(model_.Predict(signature, inputs.tensors, {}, &outputs));
  TA_ASSIGN_OR_RETURN(*output, serving::PredictResponseJson(outputs, inputs.format));
  return Status::OK();
}

Status ModelServer::ClassifyOrRegress(const Route& route, const std::string& body, bool classify,
                                      std::string* output) {
  TA_ASSIGN_OR_RETURN(Json request, serving::ParseRequestJson(body));
  TA_ASSIGN_OR_RETURN(std::string signature_name, serving::RequestSignatureName(request));
  TA_ASSIGN_OR_RETURN(Tensor examples, serving::ExamplesFromJson(request));
  TA_ASSIGN_OR_RETURN(ServedModel::Signature signature,
                      model_.ExamplesSignature(route.name, route.version, route.label, signature_name, classify));
  ServedModel::ExampleResults results;
  TA_RETURN_IF_ERROR(model_.ClassifyOrRegress(signature, examples, classify, &results));
  const int64_t num_examples = examples.dim_size(0);
  if (classify) {
    TA_ASSIGN_OR_RETURN(*output, serving::ClassifyResponseJson(results.classes ? &*results.classes : nullptr,
                                                               results.scores ? &*results.scores : nullptr,
                                                               num_examples));
  } else {
    TA_ASSIGN_OR_RETURN(*output, serving::RegressResponseJson(*results.values, num_examples));
  }
  return Status::OK();
}

Status ModelServer::Metadata(const Route& route, std::string* output) {
  if (route.name.empty()) return errors::InvalidArgument("Missing model name in request.");
  TA_ASSIGN_OR_RETURN(std::shared_ptr<Servable> servable, model_.Find(route.name, route.version, route.label));
  TA_ASSIGN_OR_RETURN(*output,
                      serving::ModelMetadataJson(route.name, servable->version, servable->bundle->meta_graph_def()));
  return Status::OK();
}

Status ModelServer::ModelStatus(const Route& route, std::string* output) {
  // A label is ignored here, as TensorFlow Serving's status call ignores it.
  TA_ASSIGN_OR_RETURN(std::vector<serving::VersionStatus> list, model_.Statuses(route.name, route.version));
  *output = serving::ModelStatusJson(list);
  return Status::OK();
}

}  // namespace tensoract
