#include "bootstrap/model_server.h"

#include <httplib.h>
#include <sys/stat.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <limits>
#include <filesystem>
#include <iostream>
#include <string_view>

#include "bootstrap/serving_examples.h"
#include "bootstrap/serving_status.h"
#include "client/saved_model.h"

namespace tensoract {

namespace fs = std::filesystem;
using serving::Json;

struct ModelServer::Servable {
  int64_t version = 0;
  std::unique_ptr<SavedModelBundle> bundle;
};

// A request path, taken apart as TensorFlow Serving's two regular expressions do
// (http_rest_api_util.cc):
//   POST (?i)/v1/models/([^/:]+)(?:(?:/versions/(\d+))|(?:/labels/([^/:]+)))?:(classify|regress|predict)
//   GET  (?i)/v1/models(?:/([^/:]+))?(?:(?:/versions/(\d+))|(?:/labels/([^/:]+)))?(?:\/(metadata))?
// by hand: std::regex backtracks by recursion, and a path is the client's to choose.
struct ModelServer::Route {
  std::string name;
  std::optional<int64_t> version;
  std::optional<std::string> label;
  std::string verb;         // POST: the text after ':', as written
  std::string subresource;  // GET: "metadata" as written, or ""
};

namespace {

bool ConsumeIcase(std::string_view* s, std::string_view prefix) {
  if (s->size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>((*s)[i])) != prefix[i]) return false;
  }
  s->remove_prefix(prefix.size());
  return true;
}

bool EqualsIcase(std::string_view s, std::string_view lower) {
  std::string_view rest = s;
  return ConsumeIcase(&rest, lower) && rest.empty();
}

// [^/:]+
std::string_view TakeSegment(std::string_view* s) {
  size_t n = 0;
  while (n < s->size() && (*s)[n] != '/' && (*s)[n] != ':') ++n;
  std::string_view seg = s->substr(0, n);
  s->remove_prefix(n);
  return seg;
}

// \d+
std::string_view TakeDigits(std::string_view* s) {
  size_t n = 0;
  while (n < s->size() && (*s)[n] >= '0' && (*s)[n] <= '9') ++n;
  std::string_view digits = s->substr(0, n);
  s->remove_prefix(n);
  return digits;
}

// (?:(?:/versions/(\d+))|(?:/labels/([^/:]+)))?  Leaves `s` alone when neither matches.
void TakeVersionOrLabel(std::string_view* s, std::string* version, std::optional<std::string>* label) {
  std::string_view rest = *s;
  if (ConsumeIcase(&rest, "/versions/")) {
    std::string_view digits = TakeDigits(&rest);
    if (!digits.empty()) {
      *version = std::string(digits);
      *s = rest;
    }
    return;
  }
  rest = *s;
  if (ConsumeIcase(&rest, "/labels/")) {
    std::string_view seg = TakeSegment(&rest);
    if (!seg.empty()) {
      *label = std::string(seg);
      *s = rest;
    }
  }
}

bool MatchPredictionPath(std::string_view s, std::string* name, std::string* version,
                         std::optional<std::string>* label, std::string* verb) {
  if (!ConsumeIcase(&s, "/v1/models/")) return false;
  std::string_view seg = TakeSegment(&s);
  if (seg.empty()) return false;
  *name = std::string(seg);
  TakeVersionOrLabel(&s, version, label);
  if (s.empty() || s[0] != ':') return false;
  s.remove_prefix(1);
  if (!EqualsIcase(s, "classify") && !EqualsIcase(s, "regress") && !EqualsIcase(s, "predict")) return false;
  *verb = std::string(s);
  return true;
}

// Everything after the model name: (?:/versions/N|/labels/L)?(?:/metadata)?, to the end.
bool MatchStatusTail(std::string_view s, std::string* version, std::optional<std::string>* label,
                     std::string* subresource) {
  TakeVersionOrLabel(&s, version, label);
  if (s.empty()) return true;
  std::string_view rest = s;
  if (ConsumeIcase(&rest, "/metadata") && rest.empty()) {
    *subresource = std::string(s.substr(1));
    return true;
  }
  return false;
}

bool MatchStatusPath(std::string_view s, std::string* name, std::string* version, std::optional<std::string>* label,
                     std::string* subresource) {
  if (!ConsumeIcase(&s, "/v1/models")) return false;
  // The model name is optional, so "/v1/models/versions/3" is version 3 of no model
  // when "versions" as a name leaves a tail that does not match.
  if (!s.empty() && s[0] == '/') {
    std::string_view rest = s.substr(1);
    std::string_view seg = TakeSegment(&rest);
    std::string v, sub;
    std::optional<std::string> l;
    if (!seg.empty() && MatchStatusTail(rest, &v, &l, &sub)) {
      *name = std::string(seg);
      *version = v;
      *label = l;
      *subresource = sub;
      return true;
    }
  }
  return MatchStatusTail(s, version, label, subresource);
}

std::string ServableRequestString(const std::string& name, std::optional<int64_t> version) {
  return version ? StrCat("Specific(", name, ", ", *version, ")") : StrCat("Latest(", name, ")");
}

// What changes when a SavedModel is rewritten: a version that failed to load is tried
// again only when this does.
std::string Fingerprint(const fs::path& dir) {
  std::string out;
  for (const char* name : {"saved_model.pb", "saved_model.pbtxt", "variables/variables.index"}) {
    struct stat st;
    if (::stat((dir / name).c_str(), &st) == 0) {
      out += StrCat(name, ":", st.st_size, ":", st.st_mtim.tv_sec, ".", st.st_mtim.tv_nsec, ";");
    }
  }
  return out;
}

// A version directory's name: digits only (TensorFlow Serving reads it as an int64).
std::optional<int64_t> VersionOf(const std::string& name) {
  if (name.empty() || name.size() > 18) return std::nullopt;
  for (char c : name) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  return std::stoll(name);
}

void Log(const std::string& line) { std::cerr << "tensoract-serve: " + line + "\n" << std::flush; }

// The numbered version directories under `base`, newest first.
StatusOr<std::map<int64_t, fs::path, std::greater<int64_t>>> ListVersionDirs(const std::string& base) {
  std::map<int64_t, fs::path, std::greater<int64_t>> versions;
  std::error_code ec;
  fs::directory_iterator it(base, ec);
  for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
    std::error_code dir_ec;
    if (!it->is_directory(dir_ec)) continue;
    if (auto v = VersionOf(it->path().filename().string())) versions[*v] = it->path();
  }
  if (ec) return errors::NotFound("cannot list the model base path ", base, ": ", ec.message());
  return versions;
}

}  // namespace

ModelServer::ModelServer(ModelServerOptions options) : options_(std::move(options)) {}

ModelServer::~ModelServer() { Stop(); }

std::optional<int64_t> ModelServer::serving_version() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (!serving_) return std::nullopt;
  return serving_->version;
}

void ModelServer::SetState(int64_t version, const std::string& state, const Status& status,
                           const std::string& fingerprint) {
  std::lock_guard<std::mutex> lock(mu_);
  versions_[version] = VersionState{state, status, fingerprint};
}

void ModelServer::PollOnce() {
  std::lock_guard<std::mutex> poll_lock(poll_mu_);
  auto on_disk = ListVersionDirs(options_.model_base_path);
  if (!on_disk.ok()) {
    // Nothing is known about the versions, so nothing changes (TensorFlow Serving's file
    // system source does the same). Said once, not every poll.
    if (on_disk.status().message() != last_list_error_) Log(on_disk.status().message());
    last_list_error_ = on_disk.status().message();
    ReleaseRetired();
    return;
  }
  last_list_error_.clear();
  // The newest version that holds a SavedModel (a directory still being written has none
  // yet). It replaces the one serving when it is newer, or when that one's directory is
  // gone.
  std::optional<int64_t> target;
  for (const auto& [v, path] : *on_disk) {
    if (MaybeSavedModelDirectory(path.string())) {
      target = v;
      break;
    }
  }
  std::optional<int64_t> current = serving_version();
  const bool current_on_disk = current && on_disk->count(*current);
  if (target && (!current || *target > *current || (!current_on_disk && *target != *current))) {
    LoadVersion(*target, on_disk->at(*target));
  }
  // A serving version whose directory is gone and that nothing replaced goes.
  current = serving_version();
  if (current && !on_disk->count(*current)) {
    Log(StrCat("version ", *current, " of model ", options_.model_name, " was removed; unloading it"));
    std::lock_guard<std::mutex> lock(mu_);
    versions_[*current] = VersionState{"UNLOADING", Status::OK(), ""};
    retiring_.push_back(std::move(serving_));
  }
  ReleaseRetired();
}

void ModelServer::LoadVersion(int64_t version, const fs::path& path) {
  const std::string fingerprint = Fingerprint(path);
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto state = versions_.find(version);
    if (state != versions_.end() && !state->second.status.ok() && state->second.fingerprint == fingerprint) {
      return;  // failed before, and unchanged since
    }
  }
  SetState(version, "LOADING");
  Log(StrCat("loading version ", version, " of model ", options_.model_name, " from ", path.string()));
  auto bundle = LoadSavedModel(path.string(), {kSavedModelTagServe});
  if (!bundle.ok()) {
    Log(StrCat("version ", version, " of model ", options_.model_name, " failed to load: ", bundle.status().ToString()));
    SetState(version, "END", bundle.status(), fingerprint);
    return;
  }
  auto servable = std::make_shared<Servable>();
  servable->version = version;
  servable->bundle = std::move(bundle).value();
  std::shared_ptr<Servable> old;
  {
    std::lock_guard<std::mutex> lock(mu_);
    old = std::move(serving_);
    serving_ = std::move(servable);
    versions_[version] = VersionState{"AVAILABLE", Status::OK(), ""};
    if (old) versions_[old->version] = VersionState{"UNLOADING", Status::OK(), ""};
  }
  if (old) retiring_.push_back(std::move(old));
  Log(StrCat("serving version ", version, " of model ", options_.model_name));
}

// Versions swapped out are unloaded here, on the polling thread, once no request holds
// them: a request copies the pointer under mu_ and only while it is serving_, so a count
// of one stays one.
void ModelServer::ReleaseRetired() {
  for (auto r = retiring_.begin(); r != retiring_.end();) {
    if (r->use_count() == 1) {
      const int64_t version = (*r)->version;
      r->reset();
      SetState(version, "END");
      r = retiring_.erase(r);
    } else {
      ++r;
    }
  }
}

void ModelServer::PollLoop() {
  const auto interval = std::chrono::duration<double>(options_.file_system_poll_wait_seconds);
  std::unique_lock<std::mutex> lock(stop_mu_);
  while (!stop_cv_.wait_for(lock, interval, [this] { return stopping_; })) {
    lock.unlock();
    PollOnce();
    lock.lock();
  }
}

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
  if (options_.file_system_poll_wait_seconds > 0) poller_ = std::thread([this] { PollLoop(); });
  return port;
}

void ModelServer::Stop() {
  {
    std::lock_guard<std::mutex> lock(stop_mu_);
    stopping_ = true;
  }
  stop_cv_.notify_all();
  if (http_) http_->stop();
  // listen_after_bind returns once the pool has finished the requests it holds.
  if (http_thread_.joinable()) http_thread_.join();
  if (poller_.joinable()) poller_.join();
  std::lock_guard<std::mutex> poll_lock(poll_mu_);  // a PollOnce of the owner's may still run
  std::shared_ptr<Servable> last;
  {
    std::lock_guard<std::mutex> lock(mu_);
    last = std::move(serving_);
  }
  last.reset();
  retiring_.clear();
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
  std::string_view p = path;
  if (!ConsumeIcase(&p, "/v1/")) return errors::NotFound("Not found: ", method, " ", path);
  Route route;
  std::string version;
  bool matched = false;
  if (method == "POST") {
    matched = MatchPredictionPath(path, &route.name, &version, &route.label, &route.verb);
  } else if (method == "GET") {
    matched = MatchStatusPath(path, &route.name, &version, &route.label, &route.subresource);
  }
  if (!version.empty()) {
    int64_t v = 0;
    auto [end, ec] = std::from_chars(version.data(), version.data() + version.size(), v);
    if (ec != std::errc() || end != version.data() + version.size()) {
      return errors::InvalidArgument("Failed to convert version: ", version, " to numeric.");
    }
    route.version = v;
  }
  if (matched && method == "POST") {
    if (route.verb == "predict") return Predict(route, body, output);
    if (route.verb == "classify") return ClassifyOrRegress(route, body, true, output);
    if (route.verb == "regress") return ClassifyOrRegress(route, body, false, output);
  } else if (matched) {
    if (route.subresource == "metadata") return Metadata(route, output);
    return ModelStatus(route, output);
  }
  return errors::InvalidArgument("Malformed request: ", method, " ", path);
}

StatusOr<std::shared_ptr<ModelServer::Servable>> ModelServer::ServableFor(const std::string& name,
                                                                          std::optional<int64_t> version) const {
  std::shared_ptr<Servable> servable;
  if (name == options_.model_name) {
    std::lock_guard<std::mutex> lock(mu_);
    if (serving_ && (!version || serving_->version == *version)) servable = serving_;
  }
  if (!servable) return errors::NotFound("Servable not found for request: ", ServableRequestString(name, version));
  return servable;
}

RunOptions ModelServer::RequestRunOptions() const {
  RunOptions run_options;
  run_options.timeout_ms = options_.rest_api_timeout_in_ms;
  return run_options;
}

namespace {

Status CheckLabel(const std::optional<std::string>& label) {
  // Labels name versions in a model config file; one model from a base path has none.
  if (label) return errors::InvalidArgument("Unrecognized servable version label: ", *label);
  return Status::OK();
}

}  // namespace

Status ModelServer::Predict(const Route& route, const std::string& body, std::string* output) {
  TA_ASSIGN_OR_RETURN(Json request, serving::ParseRequestJson(body));
  TA_ASSIGN_OR_RETURN(std::string signature_name, serving::RequestSignatureName(request));
  TA_RETURN_IF_ERROR(CheckLabel(route.label));
  TA_ASSIGN_OR_RETURN(std::shared_ptr<Servable> servable, ServableFor(route.name, route.version));
  const std::string key = signature_name.empty() ? kDefaultServingSignatureDefKey : signature_name;
  const auto& signatures = servable->bundle->meta_graph_def().signature_def();
  auto sig = signatures.find(key);
  if (sig == signatures.end()) {
    return errors::InvalidArgument("Serving signature name: \"", key, "\" not found in signature def");
  }
  TA_ASSIGN_OR_RETURN(serving::PredictInputs inputs,
                      serving::PredictInputsFromJson(request, sig->second, signature_name));
  const std::string& method = sig->second.method_name();
  if (options_.enable_signature_method_name_check && method != kPredictMethodName &&
      method != kClassifyMethodName && method != kRegressMethodName) {
    return errors::Internal("Expected prediction signature method_name to be one of {", kPredictMethodName, ", ",
                            kClassifyMethodName, ", ", kRegressMethodName, "}. Was: ", method);
  }
  TA_RETURN_IF_ERROR(serving::CheckPredictInputsCount(sig->second, inputs.tensors));
  std::vector<std::pair<std::string, Tensor>> outputs;
  TA_RETURN_IF_ERROR(servable->bundle->Run(key, inputs.tensors, &outputs, {}, RequestRunOptions()));
  TA_ASSIGN_OR_RETURN(*output, serving::PredictResponseJson(outputs, inputs.format));
  return Status::OK();
}

Status ModelServer::ClassifyOrRegress(const Route& route, const std::string& body, bool classify,
                                      std::string* output) {
  TA_ASSIGN_OR_RETURN(Json request, serving::ParseRequestJson(body));
  TA_ASSIGN_OR_RETURN(std::string signature_name, serving::RequestSignatureName(request));
  TA_ASSIGN_OR_RETURN(Tensor examples, serving::ExamplesFromJson(request));
  TA_RETURN_IF_ERROR(CheckLabel(route.label));
  TA_ASSIGN_OR_RETURN(std::shared_ptr<Servable> servable, ServableFor(route.name, route.version));
  const std::string key = signature_name.empty() ? kDefaultServingSignatureDefKey : signature_name;
  const auto& signatures = servable->bundle->meta_graph_def().signature_def();
  auto sig = signatures.find(key);
  if (sig == signatures.end()) return errors::InvalidArgument("No signature was found with the name: ", key);
  const bool check = options_.enable_signature_method_name_check;
  TA_RETURN_IF_ERROR(classify ? serving::CheckClassifySignature(sig->second, check)
                              : serving::CheckRegressSignature(sig->second, check));
  const int64_t num_examples = examples.dim_size(0);
  std::vector<std::string> fetch;
  if (classify) {
    for (const char* k : {kClassifyOutputClasses, kClassifyOutputScores}) {
      if (sig->second.outputs().count(k)) fetch.push_back(k);
    }
  } else {
    fetch.push_back(kRegressOutputs);
  }
  std::vector<std::pair<std::string, Tensor>> outputs;
  TA_RETURN_IF_ERROR(servable->bundle->Run(key, {{kClassifyInputs, examples}}, &outputs, fetch, RequestRunOptions()));
  auto find = [&outputs](const char* k) -> const Tensor* {
    for (const auto& [name, t] : outputs) {
      if (name == k) return &t;
    }
    return nullptr;
  };
  if (classify) {
    TA_ASSIGN_OR_RETURN(*output, serving::ClassifyResponseJson(find(kClassifyOutputClasses),
                                                               find(kClassifyOutputScores), num_examples));
  } else {
    const Tensor* values = find(kRegressOutputs);
    if (values == nullptr) return errors::InvalidArgument("Could not find output tensor '", kRegressOutputs, "'");
    TA_ASSIGN_OR_RETURN(*output, serving::RegressResponseJson(*values, num_examples));
  }
  return Status::OK();
}

Status ModelServer::Metadata(const Route& route, std::string* output) {
  if (route.name.empty()) return errors::InvalidArgument("Missing model name in request.");
  TA_RETURN_IF_ERROR(CheckLabel(route.label));
  TA_ASSIGN_OR_RETURN(std::shared_ptr<Servable> servable, ServableFor(route.name, route.version));
  TA_ASSIGN_OR_RETURN(*output,
                      serving::ModelMetadataJson(route.name, servable->version, servable->bundle->meta_graph_def()));
  return Status::OK();
}

Status ModelServer::ModelStatus(const Route& route, std::string* output) {
  if (route.name.empty()) return errors::InvalidArgument("Missing model name in request.");
  // A label is ignored here, as TensorFlow Serving's status call ignores it.
  std::vector<serving::VersionStatus> list;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (route.name == options_.model_name) {
      for (const auto& [version, state] : versions_) {
        if (!route.version || *route.version == version) list.push_back({version, state.state, state.status});
      }
    }
  }
  if (list.empty()) {
    if (route.version) {
      return errors::NotFound("Could not find version ", *route.version, " of model ", route.name);
    }
    return errors::NotFound("Could not find any versions of model ", route.name);
  }
  *output = serving::ModelStatusJson(list);
  return Status::OK();
}

}  // namespace tensoract
