#include "bootstrap/node_config.h"

#include <arpa/inet.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>

#include "bootstrap/tf_config.h"

namespace tensoract {
namespace {

const std::set<std::string>& Keys() {
  static const std::set<std::string> keys = {"cluster", "job", "task", "listen", "token-file", "cpu-devices",
                                             "threads", "heartbeat-interval-ms", "heartbeat-timeout-ms",
                                             "bfloat16-sendrecv", "session-gc-seconds", "advertise",
                                             "tls-cert", "tls-key", "tls-ca", "gpus", "grpc-master",
                                             "grpc-tls-cert", "grpc-tls-key", "grpc-tls-ca"};
  return keys;
}

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

std::string NormalizeKey(std::string key) {
  std::replace(key.begin(), key.end(), '_', '-');
  return key;
}

StatusOr<int> ParseInt(const std::string& key, const std::string& value, int min) {
  bool digits = !value.empty() && value.size() <= 9;
  for (char c : value) digits = digits && c >= '0' && c <= '9';
  if (!digits || std::stoi(value) < min) {
    return errors::InvalidArgument(key, ": '", value, "' is not a whole number of at least ", min);
  }
  return std::stoi(value);
}

// Reads `key = value` lines into `values`; relative token files are from the file's folder,
// so a config file and its token can move together.
Status ReadConfigFile(const std::string& path, std::map<std::string, std::string>* values) {
  std::ifstream in(path);
  if (!in) return errors::InvalidArgument("--config: cannot read '", path, "'");
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    std::string text = Trim(line.substr(0, line.find('#')));
    if (text.empty()) continue;
    size_t eq = text.find('=');
    std::string where = StrCat(path, ":", number);
    if (eq == std::string::npos) return errors::InvalidArgument(where, ": expected 'key = value', got '", text, "'");
    std::string key = NormalizeKey(Trim(text.substr(0, eq)));
    std::string value = Trim(text.substr(eq + 1));  // a cluster spec has '=' of its own
    if (!Keys().count(key)) return errors::InvalidArgument(where, ": unknown key '", key, "'");
    if (values->count(key)) return errors::InvalidArgument(where, ": key '", key, "' given twice");
    const bool is_path = key == "token-file" || key == "tls-cert" || key == "tls-key" || key == "tls-ca";
    if (is_path && !value.empty() && value[0] != '/') {
      size_t slash = path.rfind('/');
      if (slash != std::string::npos) value = path.substr(0, slash + 1) + value;
    }
    (*values)[key] = value;
  }
  return Status::OK();
}

}  // namespace

StatusOr<NodeOptions> ParseNodeArgs(const std::vector<std::string>& args, const std::string& tf_config) {
  std::map<std::string, std::string> flags;
  std::string config;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg.rfind("--", 0) != 0) return errors::InvalidArgument("unexpected argument '", arg, "'");
    std::string key = arg.substr(2), value;
    size_t eq = key.find('=');
    if (eq != std::string::npos) {
      value = key.substr(eq + 1);
      key = key.substr(0, eq);
    } else if (i + 1 < args.size()) {
      value = args[++i];
    } else {
      return errors::InvalidArgument(arg, " needs a value");
    }
    key = NormalizeKey(key);
    if (key == "config") {
      config = value;
    } else if (Keys().count(key)) {
      flags[key] = value;
    } else {
      return errors::InvalidArgument("unknown flag '--", key, "'");
    }
  }
  std::map<std::string, std::string> values;
  if (!config.empty()) TA_RETURN_IF_ERROR(ReadConfigFile(config, &values));
  for (const auto& [key, value] : flags) values[key] = value;

  NodeOptions options;
  // TensorFlow's TF_CONFIG says what the flags and the file leave unsaid.
  if (!tf_config.empty() && (values["cluster"].empty() || values["job"].empty() || values["task"].empty())) {
    TA_ASSIGN_OR_RETURN(TfConfig config, ParseTfConfig(tf_config));
    if (values["cluster"].empty()) values["cluster"] = config.cluster.ToString();
    if (values["job"].empty()) values["job"] = config.job;
    if (values["task"].empty()) values["task"] = std::to_string(config.task);
  }
  for (const char* required : {"cluster", "job", "task"}) {
    if (values[required].empty()) {
      return errors::InvalidArgument("--", required, " is required (on the command line, in --config or in TF_CONFIG)");
    }
  }
  TA_ASSIGN_OR_RETURN(options.cluster, ClusterSpec::Parse(values["cluster"]));
  options.job = values["job"];
  TA_ASSIGN_OR_RETURN(options.task, ParseInt("--task", values["task"], 0));
  TA_ASSIGN_OR_RETURN(options.address, options.cluster.Task(options.job, options.task));
  if (values.count("listen")) options.listen = values["listen"];
  in_addr ipv4;
  if (inet_pton(AF_INET, options.listen.c_str(), &ipv4) != 1) {
    return errors::InvalidArgument("--listen: '", options.listen,
                                   "' is not an IPv4 address (the data plane listens on IPv4 only; "
                                   "0.0.0.0 listens everywhere)");
  }
  const bool everywhere = options.listen == "0.0.0.0";
  options.advertise = values.count("advertise") ? values["advertise"] : (everywhere ? options.address.host : options.listen);
  if (options.advertise.empty() || options.advertise == "0.0.0.0" || options.advertise == "::") {
    return errors::InvalidArgument("--advertise: '", options.advertise,
                                   "' is not an address peers can reach; name this host's address",
                                   everywhere ? " (--listen 0.0.0.0 announces the cluster spec's host unless told)" : "");
  }
  options.token_file = values["token-file"];
  options.tls_cert_file = values["tls-cert"];
  options.tls_key_file = values["tls-key"];
  options.tls_ca_file = values["tls-ca"];
  if (values.count("cpu-devices")) {
    TA_ASSIGN_OR_RETURN(options.cpu_devices, ParseInt("--cpu-devices", values["cpu-devices"], 1));
  }
  if (values.count("gpus")) options.gpus = values["gpus"];
  if (values.count("threads")) {
    TA_ASSIGN_OR_RETURN(options.threads, ParseInt("--threads", values["threads"], 0));
  }
  if (values.count("heartbeat-interval-ms")) {
    TA_ASSIGN_OR_RETURN(options.heartbeat_interval_ms,
                        ParseInt("--heartbeat-interval-ms", values["heartbeat-interval-ms"], 1));
  }
  if (values.count("bfloat16-sendrecv")) {
    const std::string& v = values["bfloat16-sendrecv"];
    if (v != "true" && v != "false" && v != "1" && v != "0") {
      return errors::InvalidArgument("--bfloat16-sendrecv: '", v, "' is not true or false");
    }
    options.bfloat16_sendrecv = v == "true" || v == "1";
  }
  if (values.count("heartbeat-timeout-ms")) {
    TA_ASSIGN_OR_RETURN(options.heartbeat_timeout_ms,
                        ParseInt("--heartbeat-timeout-ms", values["heartbeat-timeout-ms"], 1));
  }
  if (values.count("session-gc-seconds")) {
    TA_ASSIGN_OR_RETURN(options.session_gc_seconds,
                        ParseInt("--session-gc-seconds", values["session-gc-seconds"], 0));
  }
  if (values.count("grpc-master")) {
    // "PORT" alone: loopback; "HOST:PORT" as given.
    std::string address = values["grpc-master"];
    const size_t colon = address.rfind(':');
    const std::string port = colon == std::string::npos ? address : address.substr(colon + 1);
    TA_RETURN_IF_ERROR(ParseInt("--grpc-master (its port)", port, 0).status());
    options.grpc_master = colon == std::string::npos ? "127.0.0.1:" + address : address;
  }
  if (values.count("grpc-tls-cert")) options.grpc_tls_cert_file = values["grpc-tls-cert"];
  if (values.count("grpc-tls-key")) options.grpc_tls_key_file = values["grpc-tls-key"];
  if (values.count("grpc-tls-ca")) options.grpc_tls_ca_file = values["grpc-tls-ca"];
  if (!options.grpc_tls_ca_file.empty() && options.grpc_tls_cert_file.empty()) {
    return errors::InvalidArgument("--grpc-tls-ca needs --grpc-tls-cert and --grpc-tls-key");
  }
  if ((options.grpc_tls_cert_file.empty() != options.grpc_tls_key_file.empty()) ||
      (!options.grpc_tls_cert_file.empty() && options.grpc_master.empty())) {
    return errors::InvalidArgument("--grpc-tls-cert and --grpc-tls-key go together, with --grpc-master");
  }
  return options;
}

std::string NodeUsage() {
  return "usage: tensoract-node --cluster SPEC --job NAME --task INDEX [options]\n"
         "       tensoract-node --config FILE [options]\n"
         "       TF_CONFIG='{\"cluster\": {...}, \"task\": {...}}' tensoract-node [options]\n"
         "Starts one task of a cluster: its worker and a master (for tensoract://host:port\n"
         "sessions), reachable only by peers that prove they hold the cluster token.\n"
         "  --cluster SPEC     'ps=127.0.0.1:2222;worker=127.0.0.1:2223,127.0.0.1:2224'\n"
         "                     (port 0: any free port, printed in the ready line)\n"
         "                     (without it: TensorFlow's TF_CONFIG from the environment)\n"
         "  --job NAME         this task's job\n"
         "  --task INDEX       this task's index in its job (0-based)\n"
         "  --config FILE      'key = value' lines with the same keys (cluster, job, task,\n"
         "                     listen, token-file, cpu-devices, threads, heartbeat-...);\n"
         "                     flags win\n"
         "  --listen ADDRESS   the IPv4 address to accept peers on (default 127.0.0.1;\n"
         "                     0.0.0.0: everywhere)\n"
         "  --advertise HOST   the host peers are told to reach this node's data plane at\n"
         "                     (default: --listen, or the spec's host with --listen 0.0.0.0)\n"
         "  --token-file PATH  the cluster's shared token (default: $TENSORACT_CLUSTER_TOKEN)\n"
         "  --tls-cert PATH, --tls-key PATH, --tls-ca PATH\n"
         "                     TLS mode instead of the token: this task's certificate and key,\n"
         "                     and the cluster CA that signed every task's (PEM files;\n"
         "                     bootstrap/make-cluster-certs.sh makes them)\n"
         "  --cpu-devices N    CPU devices of the worker (default 1)\n"
         "  --gpus LIST        the GPUs the worker makes devices for: \"0,2\", or \"none\"\n"
         "                     (default: every GPU CUDA finds)\n"
         "  --threads N        scheduler and device threads (default 0: one per core)\n"
         "  --heartbeat-interval-ms N  how often this node's master checks the other tasks\n"
         "                     (default 1000)\n"
         "  --heartbeat-timeout-ms N   a task silent this long is unavailable (default 3000)\n"
         "  --bfloat16-sendrecv true   this node's master sends float tensors between devices\n"
         "                     and tasks as bfloat16 (half the bytes; default false)\n"
         "  --session-gc-seconds N     this node's master closes a session unused for N s\n"
         "                     (its client vanished without closing it; default 3600,\n"
         "                     0: never)\n"
         "  --grpc-master [HOST:]PORT  also serve TensorFlow's MasterService over gRPC there\n"
         "                     (tf.compat.v1.Session(\"grpc://HOST:PORT\")); PORT alone: on\n"
         "                     127.0.0.1. Its clients present no credentials: whoever reaches\n"
         "                     it runs graphs with this process's rights (default: off)\n"
         "  --grpc-tls-cert PATH, --grpc-tls-key PATH  TLS for --grpc-master (PEM files)\n"
         "  --grpc-tls-ca PATH  and clients must present a certificate this CA signed\n"
         "                     (mutual TLS; TensorFlow's own grpc:// client cannot)\n"
         "Prints 'tensoract-node ready: <task> on <host>:<port>; data plane: <host>:<port>' when\n"
         "listening; SIGTERM or SIGINT stops it (exit 0). Exit 2: bad arguments; 1: could\n"
         "not start (no token, port in use).\n";
}

}  // namespace tensoract
