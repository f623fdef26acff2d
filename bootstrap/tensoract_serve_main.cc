// tensoract-serve: serves one SavedModel over TensorFlow Serving's REST API, and its gRPC
// API when asked (--port).
//
//   tensoract-serve --model_name NAME --model_base_path DIR [--rest_api_port 8501] [--port 8500]
//       [--rest_api_host 127.0.0.1] [--file_system_poll_wait_seconds 1]
//       [--rest_api_num_threads N] [--rest_api_timeout_in_ms 30000]
//       [--rest_api_max_request_bytes 67108864] [--enable_signature_method_name_check]
//       [--bfloat16_products] [--bfloat16_activations] [--int8_products]
//       [--grpc_tls_cert PEM --grpc_tls_key PEM [--grpc_tls_ca PEM]]
//
// DIR holds numbered version directories (DIR/1, DIR/2, ...), each a SavedModel; the
// newest is served, and a newer one written while the server runs replaces it (see
// bootstrap/model_server.h). --rest_api_port 0 picks a free port. Once it listens, one line
// on stdout says where: "Exporting HTTP/REST API at:HOST:PORT ...", after "Running gRPC
// ModelServer at HOST:PORT ..." with --port (0: a free port). SIGTERM or SIGINT stop
// it cleanly (requests in flight are answered first). Flags are written --flag=value or
// --flag value, as TensorFlow Serving's. Exit status: 0 after a signal, 1 when the server
// cannot start, 2 for a bad command line.
#include <pthread.h>
#include <signal.h>

#include <cerrno>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "bootstrap/model_server.h"

namespace {

const char kUsage[] =
    "usage: tensoract-serve --model_name NAME --model_base_path DIR [--rest_api_port 8501]\n"
    "           [--port 8500] [--grpc_tls_cert PEM --grpc_tls_key PEM [--grpc_tls_ca PEM]]\n"
    "           [--rest_api_host 127.0.0.1] [--file_system_poll_wait_seconds 1]\n"
    "           [--rest_api_num_threads N] [--rest_api_timeout_in_ms 30000]\n"
    "           [--rest_api_max_request_bytes BYTES] [--enable_signature_method_name_check]\n"
    "           [--bfloat16_products] [--bfloat16_activations] [--int8_products]\n"
    "Serves the newest numbered version under DIR over TensorFlow Serving's REST API\n"
    "(GET /v1/models/NAME[/metadata], POST /v1/models/NAME:predict|:classify|:regress).\n"
    "--port serves TensorFlow Serving's gRPC API too (PredictionService: Predict, Classify,\n"
    "Regress, GetModelMetadata; ModelService: GetModelStatus), on --rest_api_host.\n"
    "Port 0 picks a free port; the ports are printed on stdout.\n";

bool ParseInt(const std::string& text, long long lo, long long hi, long long* out) {
  if (text.empty()) return false;
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (errno != 0 || *end != '\0' || v < lo || v > hi) return false;
  *out = v;
  return true;
}

// Fills `options` from the command line; an error names the flag.
bool ParseArgs(const std::vector<std::string>& args, tensoract::ModelServerOptions* options, std::string* error) {
  for (size_t i = 0; i < args.size(); ++i) {
    std::string flag = args[i];
    if (flag.rfind("--", 0) != 0) {
      *error = "unexpected argument '" + flag + "'";
      return false;
    }
    flag = flag.substr(2);
    std::string value;
    bool has_value = false;
    if (size_t eq = flag.find('='); eq != std::string::npos) {
      value = flag.substr(eq + 1);
      flag = flag.substr(0, eq);
      has_value = true;
    }
    if (flag == "enable_signature_method_name_check" || flag == "bfloat16_products" ||
        flag == "bfloat16_activations" || flag == "int8_products") {
      bool* on = flag == "bfloat16_products"      ? &options->bfloat16_products
                 : flag == "bfloat16_activations" ? &options->bfloat16_activations
                 : flag == "int8_products"        ? &options->int8_products
                                                  : &options->enable_signature_method_name_check;
      if (!has_value || value == "true" || value == "1") {
        *on = true;
      } else if (value == "false" || value == "0") {
        *on = false;
      } else {
        *error = "--" + flag + " takes true or false, not '" + value + "'";
        return false;
      }
      continue;
    }
    if (!has_value) {
      if (i + 1 >= args.size()) {
        *error = "--" + flag + " needs a value";
        return false;
      }
      value = args[++i];
    }
    long long n = 0;
    if (flag == "model_name") {
      options->model_name = value;
    } else if (flag == "model_base_path") {
      options->model_base_path = value;
    } else if (flag == "rest_api_host") {
      options->rest_api_host = value;
    } else if (flag == "rest_api_port") {
      if (!ParseInt(value, 0, 65535, &n)) {
        *error = "--rest_api_port takes a port number 0..65535, not '" + value + "'";
        return false;
      }
      options->rest_api_port = static_cast<int>(n);
    } else if (flag == "port") {
      if (!ParseInt(value, 0, 65535, &n)) {
        *error = "--port takes a port number 0..65535, not '" + value + "'";
        return false;
      }
      options->grpc_port = static_cast<int>(n);
    } else if (flag == "grpc_tls_cert") {
      options->grpc_tls_cert_file = value;
    } else if (flag == "grpc_tls_key") {
      options->grpc_tls_key_file = value;
    } else if (flag == "grpc_tls_ca") {
      options->grpc_tls_ca_file = value;
    } else if (flag == "file_system_poll_wait_seconds") {
      char* end = nullptr;
      const double s = std::strtod(value.c_str(), &end);
      if (value.empty() || *end != '\0' || !(s < 1e9)) {
        *error = "--file_system_poll_wait_seconds takes a number of seconds, not '" + value + "'";
        return false;
      }
      options->file_system_poll_wait_seconds = s;
    } else if (flag == "rest_api_num_threads") {
      if (!ParseInt(value, 0, 4096, &n)) {
        *error = "--rest_api_num_threads takes 0..4096, not '" + value + "'";
        return false;
      }
      options->rest_api_num_threads = static_cast<int>(n);
    } else if (flag == "rest_api_timeout_in_ms") {
      if (!ParseInt(value, 0, 1LL << 40, &n)) {
        *error = "--rest_api_timeout_in_ms takes milliseconds, not '" + value + "'";
        return false;
      }
      options->rest_api_timeout_in_ms = n;
    } else if (flag == "rest_api_max_request_bytes") {
      if (!ParseInt(value, 1, 1LL << 40, &n)) {
        *error = "--rest_api_max_request_bytes takes a byte count, not '" + value + "'";
        return false;
      }
      options->max_request_bytes = static_cast<size_t>(n);
    } else {
      *error = "unknown flag --" + flag;
      return false;
    }
  }
  if (options->model_name.empty() || options->model_base_path.empty()) {
    *error = "--model_name and --model_base_path are required";
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  for (const std::string& arg : args) {
    if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      return 0;
    }
  }
  tensoract::ModelServerOptions options;
  std::string error;
  if (!ParseArgs(args, &options, &error)) {
    std::cerr << "tensoract-serve: " << error << "\n" << kUsage;
    return 2;
  }
  // The signals are taken by sigwait below, never by a handler: blocked here, before any
  // thread starts, so that every thread inherits the mask.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  tensoract::ModelServer server(options);
  auto port = server.Start();
  if (!port.ok()) {
    std::cerr << "tensoract-serve: " << port.status() << "\n";
    return 1;
  }
  if (server.grpc_port() >= 0) {
    std::cout << "Running gRPC ModelServer at " << options.rest_api_host << ":" << server.grpc_port() << " ..."
              << std::endl;
  }
  std::cout << "Exporting HTTP/REST API at:" << options.rest_api_host << ":" << *port << " ..." << std::endl;
  int signal = 0;
  sigwait(&stop_signals, &signal);
  std::cerr << "tensoract-serve: " << (signal == SIGTERM ? "SIGTERM" : "SIGINT") << ", stopping\n";
  server.Stop();
  return 0;
}
