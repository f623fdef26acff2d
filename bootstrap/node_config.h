// NodeOptions: what one tensoract-node process is, read from its command line and,
// optionally, a config file.
//
//   tensoract-node --cluster 'ps=127.0.0.1:2222;worker=127.0.0.1:2223,127.0.0.1:2224'
//                  --job worker --task 1 --token-file cluster.token
//   tensoract-node --config worker1.conf
//
// The config file has one `key = value` per line; '#' starts a comment. Its keys are the
// long flags without the dashes (a '_' may stand for a '-'):
//
//   # worker1.conf
//   cluster = ps=127.0.0.1:2222; worker=127.0.0.1:2223,127.0.0.1:2224
//   job = worker
//   task = 1
//   token-file = /etc/tensoract/cluster.token   # relative paths: from the file's folder
//   listen = 127.0.0.1
//
// Or TensorFlow's TF_CONFIG (bootstrap/tf_config.h), which says the cluster, job and task
// that neither the flags nor the file say:
//
//   TF_CONFIG='{"cluster": {"worker": ["10.0.0.2:2222", "10.0.0.3:2222"]},
//               "task": {"type": "worker", "index": 1}}' tensoract-node --listen 10.0.0.3
//
// A flag on the command line wins over the same key in the file. --cluster, --job and
// --task are required (from one or the other); the task must be in the spec. --listen is
// an IPv4 address (the data plane listens on IPv4 only); --advertise (a host name or an
// address) must be one peers can dial, so never 0.0.0.0.
//
// The cluster token (every peer must prove it holds it: actors/cluster_transport.h) comes from
// --token-file, else from the environment variable TENSORACT_CLUSTER_TOKEN. There is no
// insecure mode: a node without a token refuses to start.
#ifndef TENSORACT_BOOTSTRAP_NODE_CONFIG_H_
#define TENSORACT_BOOTSTRAP_NODE_CONFIG_H_

#include <string>
#include <vector>

#include "base/status.h"
#include "bootstrap/cluster_spec.h"

namespace tensoract {

struct NodeOptions {
  ClusterSpec cluster;
  std::string job;
  int task = 0;
  TaskAddress address;              // the task's entry in the cluster spec
  std::string listen = "127.0.0.1"; // where the node accepts peers: loopback unless told (IPv4)
  // The host peers are told to reach this node's data plane at. Default: `listen`, or the
  // cluster spec's host for this task when `listen` is 0.0.0.0 (which no peer can dial).
  std::string advertise;
  std::string token_file;           // empty: TENSORACT_CLUSTER_TOKEN
  // TLS mode (instead of the token): this task's certificate and key, and the cluster CA
  // (bootstrap/make-cluster-certs.sh makes them).
  std::string tls_cert_file, tls_key_file, tls_ca_file;
  int cpu_devices = 1;
  std::string gpus;                 // GpuDeviceOptions::visible_device_list ("" all, "none")
  int threads = 0;                  // actor scheduler and CPU device threads; 0: one per core
  int heartbeat_interval_ms = 1000; // this node's master asks every other task this often
  int heartbeat_timeout_ms = 3000;  // and marks one that stays silent this long unavailable
  bool bfloat16_sendrecv = false;   // the master's lossy 16-bit transfers (SessionOptions)
  // The master closes sessions idle this long (0: never). On by default: a client that dies
  // without its process being noticed (a gRPC client presents no process at all) must not
  // leave its session, graphs and resources for good.
  int session_gc_seconds = 3600;
  // TensorFlow's MasterService over gRPC at this "host:port" (bootstrap/grpc_master.h);
  // empty: not served. Optionally over TLS with this certificate and key.
  std::string grpc_master;
  std::string grpc_tls_cert_file, grpc_tls_key_file;
  std::string grpc_tls_ca_file;  // clients must present a certificate this CA signed

  std::string task_name() const { return TaskName(job, task); }
};

// Parses the arguments after the program name; `tf_config` is the TF_CONFIG environment
// variable's value ("" when unset). InvalidArgument names the bad flag, key (with
// file:line), spec part or TF_CONFIG field.
StatusOr<NodeOptions> ParseNodeArgs(const std::vector<std::string>& args, const std::string& tf_config = "");

std::string NodeUsage();

}  // namespace tensoract

#endif  // TENSORACT_BOOTSTRAP_NODE_CONFIG_H_
