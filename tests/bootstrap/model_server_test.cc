// ModelServer (bootstrap/model_server.h) on SavedModels written here: the REST API's
// answers, versions appearing, failing, being replaced and disappearing, requests racing a
// swap, and the HTTP listener. TensorFlow's own models are tests/compat/serving_compat.py's.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <thread>

#include <catch2/catch.hpp>

#include "bootstrap/model_server.h"
#include "client/meta_graph.h"
#include "client/saved_model.h"
#include "client/saver.h"
#include "graph/builder/array_ops.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/ops.h"
#include "tests/bootstrap/serving_test_support.h"
#include "tests/temp_dir.h"

namespace tensoract {
namespace {

namespace fs = std::filesystem;
using serving::Json;
using serving::StringValue;
using serving::testing::JsonOf;

// Version `version` of a model computing y = x * w (x: float [?, 2], w a variable holding
// {w0, w1}), written the way a server must see it appear: complete, then renamed.
void WriteVersion(const fs::path& base, int64_t version, float w0, float w1) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), tensorflow::DT_FLOAT, PartialTensorShape({-1, 2}));
  auto w = ops::VarHandleOp(root.WithOpName("w"), tensorflow::DT_FLOAT, PartialTensorShape({2}));
  ops::AssignVariableOp(root.WithOpName("init_w"), w, Input({w0, w1}));
  ops::Mul(root.WithOpName("y"), x, ops::ReadVariableOp(root, w, tensorflow::DT_FLOAT));
  auto saver = Saver::New(root, {w});
  REQUIRE(saver.ok());
  tensorflow::GraphDef graph;
  REQUIRE(root.ToGraphDef(&graph).ok());
  auto session = Session::New();
  REQUIRE(session.ok());
  REQUIRE((*session)->Create(graph).ok());
  REQUIRE((*session)->Run({}, {}, {"init_w"}, nullptr).ok());
  const tensorflow::SaverDef saver_def = saver->saver_def();
  tensorflow::MetaGraphDef meta = MakeMetaGraph((*session)->graph_def(), &saver_def);
  tensorflow::SignatureDef& sig = (*meta.mutable_signature_def())[kDefaultServingSignatureDefKey];
  sig.set_method_name(kPredictMethodName);
  (*sig.mutable_inputs())["x"] = MakeTensorInfo("x:0", tensorflow::DT_FLOAT, {-1, 2});
  (*sig.mutable_outputs())["y"] = MakeTensorInfo("y:0", tensorflow::DT_FLOAT, {-1, 2});
  const fs::path tmp = base.parent_path() / ("tmp_" + base.filename().string() + "_" + std::to_string(version));
  fs::remove_all(tmp);
  SavedModelWriter writer(tmp.string());
  REQUIRE(writer.AddMetaGraphAndVariables(**session, meta, {kSavedModelTagServe}).ok());
  REQUIRE(writer.Save().ok());
  fs::create_directories(base);
  fs::rename(tmp, base / std::to_string(version));
}

ModelServerOptions Options(const fs::path& base) {
  ModelServerOptions options;
  options.model_name = "m";
  options.model_base_path = base.string();
  options.rest_api_port = 0;
  options.file_system_poll_wait_seconds = 0;  // the tests poll by hand
  return options;
}

Json Body(const ModelServer::Response& r) {
  auto parsed = serving::ParseRequestJson(r.body);
  INFO(r.body);
  REQUIRE(parsed.ok());
  return std::move(parsed).value();
}

std::string Error(const ModelServer::Response& r) { return StringValue(Body(r)["error"]); }

// A list of numbers (empty when `list` is not one); no Catch2 macro, for the client threads.
std::vector<double> Doubles(const rapidjson::Value& list) {
  std::vector<double> out;
  if (!list.IsArray()) return out;
  for (const rapidjson::Value& v : list.GetArray()) out.push_back(v.IsNumber() ? v.GetDouble() : std::nan(""));
  return out;
}

// {version: state} from the model status.
std::map<int64_t, std::string> States(ModelServer& server) {
  auto r = server.HandleRequest("GET", "/v1/models/m", "");
  std::map<int64_t, std::string> states;
  if (r.status != 200) return states;
  const Json body = Body(r);
  for (const rapidjson::Value& v : body["model_version_status"].GetArray()) {
    states[std::stoll(StringValue(v["version"]))] = StringValue(v["state"]);
  }
  return states;
}

// y for x = [[1, 2]] from the version serving (or the one named).
std::vector<double> Predict(ModelServer& server, const std::string& version_path = "") {
  auto r = server.HandleRequest("POST", "/v1/models/m" + version_path + ":predict", R"({"instances": [[1, 2]]})");
  INFO(r.body);
  REQUIRE(r.status == 200);
  return Doubles(Body(r)["predictions"][0]);
}

TEST_CASE("the model server answers the REST API for the newest version") {
  testing::TempDir dir;
  const fs::path base = dir.path / "m";
  WriteVersion(base, 1, 2, 3);
  ModelServer server(Options(base));
  server.PollOnce();
  REQUIRE(server.serving_version() == 1);

  CHECK(States(server) == std::map<int64_t, std::string>{{1, "AVAILABLE"}});
  auto status = server.HandleRequest("GET", "/v1/models/m/versions/1", "");
  CHECK(status.status == 200);
  CHECK(Body(status)["model_version_status"][0]["status"]["error_code"] == "OK");

  auto row = server.HandleRequest("POST", "/v1/models/m:predict", R"({"instances": [[1, 2], [-1, 0.5]]})");
  REQUIRE(row.status == 200);
  CHECK(Body(row)["predictions"] == JsonOf("[[2.0, 6.0], [-2.0, 1.5]]"));
  auto column = server.HandleRequest("POST", "/V1/Models/m/versions/1:predict",
                                     R"({"signature_name": "serving_default", "inputs": {"x": [[1, 1]]}})");
  REQUIRE(column.status == 200);
  CHECK(Body(column)["outputs"] == JsonOf("[[2.0, 3.0]]"));

  auto metadata = server.HandleRequest("GET", "/v1/models/m/metadata", "");
  REQUIRE(metadata.status == 200);
  Json meta = Body(metadata);
  CHECK(meta["model_spec"]["version"] == "1");
  CHECK(meta["metadata"]["signature_def"]["signature_def"]["serving_default"]["inputs"]["x"]["dtype"] == "DT_FLOAT");
}

TEST_CASE("requests the model server cannot answer get TensorFlow Serving's status and text") {
  testing::TempDir dir;
  const fs::path base = dir.path / "m";
  WriteVersion(base, 1, 2, 3);
  ModelServer server(Options(base));
  server.PollOnce();
  struct Case {
    const char* method;
    const char* path;
    const char* body;
    int status;
    const char* error;
  };
  const Case cases[] = {
      {"POST", "/v1/models/m:predict", "{", 400, "JSON Parse error: Missing a name for object member. at offset: 1"},
      {"POST", "/v1/models/m:predict", R"({"instances": [["a", "b"]]})", 400,
       "Failed to process element: 0 of 'instances' list. Error: INVALID_ARGUMENT: JSON Value: \"a\" Type: String is "
       "not of expected type: float"},
      {"POST", "/v1/models/m:predict", R"({"instances": [[1, 2, 3]]})", 400,
       "input 'x' has shape [1,3] but signature 'serving_default' wants [?,2]"},
      {"POST", "/v1/models/m:predict", R"({"signature_name": "s", "instances": [[1, 2]]})", 400,
       "Serving signature name: \"s\" not found in signature def"},
      {"POST", "/v1/models/other:predict", R"({"instances": [[1, 2]]})", 404,
       "Servable not found for request: Latest(other)"},
      {"POST", "/v1/models/m/versions/2:predict", R"({"instances": [[1, 2]]})", 404,
       "Servable not found for request: Specific(m, 2)"},
      {"POST", "/v1/models/m/versions/99999999999999999999:predict", "{}", 400,
       "Failed to convert version: 99999999999999999999 to numeric."},
      {"POST", "/v1/models/m:regress", R"({"examples": [{"a": 1}]})", 400, "No regression inputs found in SignatureDef: "},
      {"POST", "/v1/models/m", "{}", 400, "Malformed request: POST /v1/models/m"},
      {"PUT", "/v1/models/m:predict", "{}", 400, "Malformed request: PUT /v1/models/m:predict"},
      {"GET", "/v1/models", "", 400, "Missing model name in request."},
      {"GET", "/v1/models/other", "", 404, "Could not find any versions of model other"},
      {"GET", "/v1/models/m/versions/5", "", 404, "Could not find version 5 of model m"},
      {"GET", "/v1/models/m/versions/5/metadata", "", 404, "Servable not found for request: Specific(m, 5)"},
      {"GET", "/v1/models/m/labels/canary/metadata", "", 400, "Unrecognized servable version label: canary"},
      {"GET", "/v1/models/m/bogus", "", 400, "Malformed request: GET /v1/models/m/bogus"},
      {"GET", "/elsewhere", "", 404, "Not found: GET /elsewhere"},
  };
  for (const Case& c : cases) {
    auto r = server.HandleRequest(c.method, c.path, c.body);
    INFO(c.method << " " << c.path << " " << c.body << " -> " << r.status << " " << r.body);
    CHECK(r.status == c.status);
    const std::string error = Error(r);
    if (std::string(c.error).back() == ' ') {
      CHECK(error.rfind(c.error, 0) == 0);
    } else {
      CHECK(error == c.error);
    }
  }
  // And it still answers.
  CHECK(Predict(server) == std::vector<double>{2, 6});
}

TEST_CASE("a new version replaces the one serving; the old one is unloaded") {
  testing::TempDir dir;
  const fs::path base = dir.path / "m";
  WriteVersion(base, 1, 2, 3);
  ModelServer server(Options(base));
  server.PollOnce();
  CHECK(Predict(server) == std::vector<double>{2, 6});

  WriteVersion(base, 2, -1, 10);
  server.PollOnce();
  CHECK(server.serving_version() == 2);
  CHECK(Predict(server) == std::vector<double>{-1, 20});
  CHECK(States(server) == std::map<int64_t, std::string>{{1, "END"}, {2, "AVAILABLE"}});
  CHECK(server.HandleRequest("POST", "/v1/models/m/versions/1:predict", R"({"instances": [[1, 2]]})").status == 404);
  CHECK(Predict(server, "/versions/2") == std::vector<double>{-1, 20});

  // An older version appearing later changes nothing.
  WriteVersion(base, 0, 5, 5);
  server.PollOnce();
  CHECK(server.serving_version() == 2);
}

TEST_CASE("a version that fails to load leaves the previous one serving, and is retried once it changes") {
  testing::TempDir dir;
  const fs::path base = dir.path / "m";
  WriteVersion(base, 1, 2, 3);
  ModelServer server(Options(base));
  server.PollOnce();

  fs::create_directories(base / "3");
  std::ofstream(base / "3" / "saved_model.pb") << "\x0a\xff\xff not a SavedModel";
  server.PollOnce();
  CHECK(server.serving_version() == 1);
  CHECK(Predict(server) == std::vector<double>{2, 6});
  auto r = server.HandleRequest("GET", "/v1/models/m/versions/3", "");
  REQUIRE(r.status == 200);
  const Json status = Body(r);
  const rapidjson::Value& v3 = status["model_version_status"][0];
  CHECK(v3["state"] == "END");
  CHECK(v3["status"]["error_code"] != "OK");
  CHECK(v3["status"]["error_message"].GetStringLength() > 0);
  server.PollOnce();  // unchanged: not tried again
  CHECK(server.serving_version() == 1);

  // Rewritten whole: loaded.
  fs::remove_all(base / "3");
  WriteVersion(base, 3, 4, 4);
  server.PollOnce();
  CHECK(server.serving_version() == 3);
  CHECK(Predict(server) == std::vector<double>{4, 8});
}

TEST_CASE("a version whose directory disappears is unloaded, and an older one takes over") {
  testing::TempDir dir;
  const fs::path base = dir.path / "m";
  WriteVersion(base, 1, 2, 3);
  WriteVersion(base, 2, 1, 1);
  ModelServer server(Options(base));
  server.PollOnce();
  CHECK(server.serving_version() == 2);
  fs::remove_all(base / "2");
  server.PollOnce();
  CHECK(server.serving_version() == 1);
  CHECK(Predict(server) == std::vector<double>{2, 6});
  fs::remove_all(base / "1");
  server.PollOnce();
  CHECK_FALSE(server.serving_version().has_value());
  auto r = server.HandleRequest("POST", "/v1/models/m:predict", R"({"instances": [[1, 2]]})");
  CHECK(r.status == 404);
  CHECK(Error(r) == "Servable not found for request: Latest(m)");
  CHECK(States(server) == std::map<int64_t, std::string>{{1, "END"}, {2, "END"}});
}

TEST_CASE("a base path without versions serves nothing and says so") {
  testing::TempDir dir;
  const fs::path base = dir.path / "m";
  ModelServer server(Options(base));
  server.PollOnce();  // the path does not even exist
  auto r = server.HandleRequest("GET", "/v1/models/m", "");
  CHECK(r.status == 404);
  CHECK(Error(r) == "Could not find any versions of model m");
}

TEST_CASE("requests racing version swaps each get one version's answer") {
  testing::TempDir dir;
  const fs::path base = dir.path / "m";
  WriteVersion(base, 1, 1, 1);
  ModelServer server(Options(base));
  server.PollOnce();
  std::atomic<bool> done{false};
  std::atomic<int> good{0}, bad{0};
  std::vector<std::thread> clients;
  for (int i = 0; i < 4; ++i) {
    clients.emplace_back([&] {
      while (!done) {
        auto r = server.HandleRequest("POST", "/v1/models/m:predict", R"({"instances": [[1, 2]]})");
        // No Catch2 macro here: they are not thread-safe.
        bool ok = false;
        auto body = serving::ParseRequestJson(r.body);
        if (r.status == 200 && body.ok()) {
          auto y = Doubles((*body)["predictions"][0]);
          // Version v has w = {v, v}.
          ok = y.size() == 2 && y[1] == 2 * y[0] && y[0] >= 1 && y[0] <= 4;
        }
        (ok ? good : bad)++;
      }
    });
  }
  for (int v = 2; v <= 4; ++v) {
    WriteVersion(base, v, static_cast<float>(v), static_cast<float>(v));
    server.PollOnce();
    CHECK(server.serving_version() == v);
  }
  done = true;
  for (auto& t : clients) t.join();
  CHECK(bad == 0);
  CHECK(good > 0);
  server.PollOnce();  // the swapped-out versions go once no request holds them
  CHECK(States(server) == std::map<int64_t, std::string>{{1, "END"}, {2, "END"}, {3, "END"}, {4, "AVAILABLE"}});
}

// One HTTP/1.1 request over a plain socket; returns the whole response.
std::string HttpRequest(int port, const std::string& request) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  timeval timeout{10, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0);
  REQUIRE(::send(fd, request.data(), request.size(), 0) == static_cast<ssize_t>(request.size()));
  std::string response;
  char buf[4096];
  for (ssize_t n; (n = ::recv(fd, buf, sizeof(buf), 0)) > 0;) response.append(buf, n);
  ::close(fd);
  return response;
}

TEST_CASE("the model server listens on a free port, limits bodies, and stops") {
  testing::TempDir dir;
  const fs::path base = dir.path / "m";
  WriteVersion(base, 1, 2, 3);
  ModelServerOptions options = Options(base);
  options.max_request_bytes = 1000;
  ModelServer server(options);
  auto port = server.Start();
  REQUIRE(port.ok());
  CHECK(*port > 0);

  std::string body = R"({"instances": [[1, 2]]})";
  std::string r = HttpRequest(*port, "POST /v1/models/m:predict HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                                     "Content-Type: application/json\r\nContent-Length: " +
                                         std::to_string(body.size()) + "\r\n\r\n" + body);
  CHECK(r.rfind("HTTP/1.1 200", 0) == 0);
  CHECK(r.find("application/json") != std::string::npos);
  CHECK(r.find("\"predictions\": [[2.0, 6.0]") != std::string::npos);

  std::string big(5000, ' ');
  r = HttpRequest(*port, "POST /v1/models/m:predict HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 5000"
                         "\r\n\r\n" + big);
  CHECK(r.rfind("HTTP/1.1 413", 0) == 0);
  CHECK(r.find("request body larger than 1000 bytes") != std::string::npos);

  r = HttpRequest(*port, "GET /v1/models/nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  CHECK(r.rfind("HTTP/1.1 404", 0) == 0);

  // The same port again is an error, not a crash.
  ModelServerOptions same = options;
  same.rest_api_port = *port;
  ModelServer second(same);
  auto taken = second.Start();
  CHECK_FALSE(taken.ok());
  second.Stop();

  server.Stop();
  server.Stop();  // twice is harmless
}

}  // namespace
}  // namespace tensoract
