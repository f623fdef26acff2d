// Serving throughput and latency: CLIENTS threads each send REQUESTS_PER_CLIENT requests
// of one body (TensorFlow Serving's row format) and time each; prints requests/s, p50 and
// p99. Run by run_serving_bench.sh beside TensorFlow's SavedModel called from Python
// (serving_tf.py).
//
//   serving_bench http HOST PORT MODEL BODY_FILE CLIENTS REQUESTS_PER_CLIENT
//       POST /v1/models/MODEL:predict to a running tensoract-serve (one keep-alive
//       connection per client)
//   serving_bench grpc HOST PORT MODEL BODY_FILE CLIENTS REQUESTS_PER_CLIENT
//       the body's tensors as a gRPC PredictRequest (TensorFlow Serving's gRPC API) to a
//       running tensoract-serve --port (one channel per client)
//   serving_bench direct MODEL_DIR BODY_FILE CLIENTS REQUESTS_PER_CLIENT
//       the same requests' tensor through SavedModelBundle::Run in this process (no HTTP,
//       no JSON): what the server's own work costs
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <memory>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bootstrap/serving_json.h"
#include "client/saved_model.h"
#include "messages/serving_apis.pb.h"

namespace tensoract {
namespace {

using Clock = std::chrono::steady_clock;

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs `request` (false: failed) from `clients` threads, `per_client` times each, after
// 20 warm-up calls, and prints the figures under `label`.
int Measure(const std::string& label, int clients, int per_client, const std::function<bool(int)>& request) {
  for (int i = 0; i < 20; ++i) {
    if (!request(0)) {
      std::fprintf(stderr, "%s: the warm-up request failed\n", label.c_str());
      return 1;
    }
  }
  std::vector<std::vector<double>> latencies(clients);
  std::atomic<int> failed{0};
  const auto start = Clock::now();
  std::vector<std::thread> threads;
  for (int c = 0; c < clients; ++c) {
    threads.emplace_back([&, c] {
      for (int i = 0; i < per_client; ++i) {
        const auto t0 = Clock::now();
        if (!request(c)) ++failed;
        latencies[c].push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
      }
    });
  }
  for (auto& t : threads) t.join();
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::vector<double> all;
  for (const auto& l : latencies) all.insert(all.end(), l.begin(), l.end());
  std::sort(all.begin(), all.end());
  const size_t n = all.size();
  std::printf("%s: %d clients, %zu requests, %.1f requests/s, p50 %.0f us, p99 %.0f us, max %.0f us%s\n", label.c_str(),
              clients, n, n / seconds, all[n / 2], all[std::min(n - 1, static_cast<size_t>(n * 0.99))], all.back(),
              failed ? (", " + std::to_string(failed.load()) + " FAILED").c_str() : "");
  return failed ? 1 : 0;
}

int Http(const std::vector<std::string>& a) {
  const std::string host = a[0], model = a[2], body = ReadAll(a[3]);
  const int port = std::stoi(a[1]), clients = std::stoi(a[4]), per_client = std::stoi(a[5]);
  std::vector<std::unique_ptr<httplib::Client>> conns;
  for (int c = 0; c < clients; ++c) {
    conns.push_back(std::make_unique<httplib::Client>(host, port));
    conns.back()->set_keep_alive(true);
    conns.back()->set_tcp_nodelay(true);  // a request is headers then body: two writes
    conns.back()->set_read_timeout(60, 0);
  }
  const std::string path = "/v1/models/" + model + ":predict";
  return Measure("tensoract-serve over HTTP", clients, per_client, [&](int c) {
    auto res = conns[c]->Post(path.c_str(), body, "application/json");
    return res && res->status == 200;
  });
}

// The body's tensors, parsed as the server parses a request, with the signature of the
// SavedModel in `model_dir` (loaded into `bundle`).
StatusOr<std::vector<std::pair<std::string, Tensor>>> BodyTensors(const std::string& model_dir,
                                                                  const std::string& body_file,
                                                                  std::unique_ptr<SavedModelBundle>* bundle) {
  TA_ASSIGN_OR_RETURN(*bundle, LoadSavedModel(model_dir));
  TA_ASSIGN_OR_RETURN(const tensorflow::SignatureDef* sig, (*bundle)->Signature(kDefaultServingSignatureDefKey));
  TA_ASSIGN_OR_RETURN(auto request, serving::ParseRequestJson(ReadAll(body_file)));
  TA_ASSIGN_OR_RETURN(auto inputs, serving::PredictInputsFromJson(request, *sig, kDefaultServingSignatureDefKey));
  return inputs.tensors;
}

int Grpc(const std::vector<std::string>& a) {
  const std::string address = a[0] + ":" + a[1], model = a[2];
  const int clients = std::stoi(a[5]), per_client = std::stoi(a[6]);
  std::unique_ptr<SavedModelBundle> bundle;
  auto feeds = BodyTensors(a[3], a[4], &bundle);
  if (!feeds.ok()) {
    std::cerr << feeds.status() << "\n";
    return 1;
  }
  tensorflow::serving::PredictRequest predict;
  predict.mutable_model_spec()->set_name(model);
  for (const auto& [alias, t] : *feeds) t.AsProtoTensorContent(&(*predict.mutable_inputs())[alias]);
  const std::string bytes = predict.SerializeAsString();
  struct Client {
    std::shared_ptr<grpc::Channel> channel;
    std::unique_ptr<grpc::GenericStub> stub;
    grpc::CompletionQueue queue;
  };
  std::vector<std::unique_ptr<Client>> conns;
  for (int c = 0; c < clients; ++c) {
    auto client = std::make_unique<Client>();
    grpc::ChannelArguments args;
    args.SetInt("grpc.use_local_subchannel_pool", 1);  // a connection of its own per client
    client->channel = grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args);
    client->stub = std::make_unique<grpc::GenericStub>(client->channel);
    conns.push_back(std::move(client));
  }
  return Measure("tensoract-serve over gRPC", clients, per_client, [&](int c) {
    Client& client = *conns[c];
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
    grpc::Slice slice(bytes);
    grpc::ByteBuffer request(&slice, 1), response;
    auto call = client.stub->PrepareUnaryCall(&context, "/tensorflow.serving.PredictionService/Predict", request,
                                              &client.queue);
    call->StartCall();
    grpc::Status status;
    call->Finish(&response, &status, &client);
    void* tag = nullptr;
    bool ok = false;
    return client.queue.Next(&tag, &ok) && ok && status.ok();
  });
}

int Direct(const std::vector<std::string>& a) {
  const int clients = std::stoi(a[2]), per_client = std::stoi(a[3]);
  std::unique_ptr<SavedModelBundle> bundle;
  auto body = BodyTensors(a[0], a[1], &bundle);
  if (!body.ok()) {
    std::cerr << body.status() << "\n";
    return 1;
  }
  const auto feeds = *body;
  return Measure("tensoract SavedModelBundle::Run in-process", clients, per_client, [&](int) {
    std::vector<std::pair<std::string, Tensor>> out;
    return bundle->Run(kDefaultServingSignatureDefKey, feeds, &out).ok();
  });
}

}  // namespace
}  // namespace tensoract

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() == 7 && args[0] == "http") return tensoract::Http({args.begin() + 1, args.end()});
  if (args.size() == 8 && args[0] == "grpc") return tensoract::Grpc({args.begin() + 1, args.end()});
  if (args.size() == 5 && args[0] == "direct") return tensoract::Direct({args.begin() + 1, args.end()});
  std::cerr << "usage: serving_bench http HOST PORT MODEL BODY CLIENTS REQUESTS\n"
               "       serving_bench grpc HOST PORT MODEL MODEL_DIR BODY CLIENTS REQUESTS\n"
               "       serving_bench direct MODEL_DIR BODY CLIENTS REQUESTS\n";
  return 2;
}
