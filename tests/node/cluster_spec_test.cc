// Cluster specs, node options, TF_CONFIG and the token comparison: what a user types and the errors
// that name what is wrong with it.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

#include "bootstrap/cluster_spec.h"
#include "bootstrap/node_auth.h"
#include "bootstrap/node_config.h"
#include "bootstrap/tf_config.h"

namespace tensoract {
namespace {

std::string ErrorOf(const std::string& spec) {
  auto parsed = ClusterSpec::Parse(spec);
  REQUIRE_FALSE(parsed.ok());
  CHECK(parsed.status().code() == error::INVALID_ARGUMENT);
  return parsed.status().message();
}

TEST_CASE("a cluster spec lists each job's tasks in index order") {
  auto spec = ClusterSpec::Parse("ps=127.0.0.1:2222;worker=127.0.0.1:2223,127.0.0.1:2224");
  REQUIRE(spec.ok());
  CHECK(spec->jobs() == std::vector<std::string>{"ps", "worker"});
  CHECK(spec->num_tasks("worker") == 2);
  CHECK(spec->num_tasks("chief") == 0);
  auto task = spec->Task("worker", 1);
  REQUIRE(task.ok());
  CHECK(task->host == "127.0.0.1");
  CHECK(task->port == 2224);
  CHECK(TaskName("worker", 1) == "/job:worker/replica:0/task:1");
}

TEST_CASE("a cluster spec tolerates whitespace and line breaks and prints canonically") {
  auto spec = ClusterSpec::Parse("  worker = 127.0.0.1:2223 , localhost:2224 ;\n ps=[::1]:2222 ; ");
  REQUIRE(spec.ok());
  CHECK(spec->ToString() == "ps=[::1]:2222;worker=127.0.0.1:2223,localhost:2224");
  CHECK(spec->Task("ps", 0)->host == "::1");
}

TEST_CASE("a bad cluster spec gets an InvalidArgument naming the bad part") {
  CHECK_THAT(ErrorOf("worker=127.0.0.1"), Catch::Contains("job 'worker', task 0") &&
                                              Catch::Contains("'127.0.0.1' has no port"));
  CHECK_THAT(ErrorOf("worker=a:1,b:70000"), Catch::Contains("task 1") && Catch::Contains("bad port '70000'"));
  CHECK_THAT(ErrorOf("worker=a:x1"), Catch::Contains("bad port 'x1'"));
  CHECK_THAT(ErrorOf("worker=a:1;worker=b:2"), Catch::Contains("job 'worker' appears twice"));
  CHECK_THAT(ErrorOf("worker=a:1,,b:2"), Catch::Contains("task 1: empty address"));
  CHECK_THAT(ErrorOf("worker=a:1;ps=a:1"), Catch::Contains("a:1 is already another task's"));
  CHECK_THAT(ErrorOf("1st=a:1"), Catch::Contains("bad job name '1st'"));
  CHECK_THAT(ErrorOf("a:1"), Catch::Contains("'a:1' is not job=host:port"));
  CHECK_THAT(ErrorOf(" ; "), Catch::Contains("cluster spec is empty"));
  CHECK_THAT(ErrorOf("ps=[::1]"), Catch::Contains("has no port"));
}

TEST_CASE("asking for a task the spec does not have names the job and its range") {
  auto spec = ClusterSpec::Parse("ps=h:1;worker=h:2,h:3");
  REQUIRE(spec.ok());
  auto out_of_range = spec->Task("worker", 2);
  REQUIRE_FALSE(out_of_range.ok());
  CHECK_THAT(out_of_range.status().message(),
             Catch::Contains("task 2 of job 'worker' is out of range") && Catch::Contains("indices 0 to 1"));
  auto unknown = spec->Task("chief", 0);
  REQUIRE_FALSE(unknown.ok());
  CHECK_THAT(unknown.status().message(),
             Catch::Contains("job 'chief' is not in the cluster spec (its jobs: ps, worker)"));
}

TEST_CASE("node options come from flags, a config file, or both with the flags winning") {
  auto flags = ParseNodeArgs({"--cluster", "ps=127.0.0.1:2222;worker=127.0.0.1:2223,127.0.0.1:2224", "--job",
                              "worker", "--task=1", "--cpu-devices", "2", "--gpus", "none"});
  REQUIRE(flags.ok());
  CHECK(flags->gpus == "none");
  CHECK(flags->task_name() == "/job:worker/replica:0/task:1");
  CHECK(flags->address.port == 2224);
  CHECK(flags->listen == "127.0.0.1");
  CHECK(flags->cpu_devices == 2);

  std::string path =
      (std::filesystem::temp_directory_path() / ("node_config_test_" + std::to_string(getpid()) + ".conf")).string();
  {
    std::ofstream out(path);
    out << "# a worker\ncluster = ps=127.0.0.1:2222; worker=127.0.0.1:2223,127.0.0.1:2224\n"
        << "job = worker\ntask = 0   # the first\ntoken_file = cluster.token\nlisten = 0.0.0.0\n";
  }
  auto file = ParseNodeArgs({"--config", path, "--task", "1"});
  REQUIRE(file.ok());
  CHECK(file->task == 1);
  CHECK(file->listen == "0.0.0.0");
  // A relative token file is next to the config file.
  CHECK(file->token_file == path.substr(0, path.rfind('/') + 1) + "cluster.token");

  {
    std::ofstream out(path);
    out << "job = worker\ncolour = blue\n";
  }
  auto bad = ParseNodeArgs({"--config", path});
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.status().message(), Catch::Contains(path + ":2: unknown key 'colour'"));
  std::remove(path.c_str());
}

TEST_CASE("a node announces an address peers can dial") {
  const std::vector<std::string> task = {"--cluster", "worker=10.1.2.3:2222", "--job", "worker", "--task", "0"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = task;
    args.insert(args.end(), extra.begin(), extra.end());
    return ParseNodeArgs(args);
  };
  auto loopback = with({});
  REQUIRE(loopback.ok());
  CHECK(loopback->advertise == "127.0.0.1");
  auto everywhere = with({"--listen", "0.0.0.0"});
  REQUIRE(everywhere.ok());
  CHECK(everywhere->advertise == "10.1.2.3");  // the spec's host, not 0.0.0.0
  auto told = with({"--listen", "0.0.0.0", "--advertise", "node7.example"});
  REQUIRE(told.ok());
  CHECK(told->advertise == "node7.example");
  auto ipv6 = with({"--listen", "::"});
  REQUIRE_FALSE(ipv6.ok());
  CHECK_THAT(ipv6.status().message(), Catch::Contains("--listen: '::' is not an IPv4 address"));
  auto unreachable = with({"--advertise", "0.0.0.0"});
  REQUIRE_FALSE(unreachable.ok());
  CHECK_THAT(unreachable.status().message(), Catch::Contains("--advertise: '0.0.0.0' is not an address peers can reach"));
}

TEST_CASE("bad node flags are named") {
  auto missing = ParseNodeArgs({"--cluster", "worker=h:1", "--job", "worker"});
  REQUIRE_FALSE(missing.ok());
  CHECK_THAT(missing.status().message(), Catch::Contains("--task is required"));
  auto range = ParseNodeArgs({"--cluster", "worker=h:1", "--job", "worker", "--task", "3"});
  REQUIRE_FALSE(range.ok());
  CHECK_THAT(range.status().message(), Catch::Contains("task 3 of job 'worker' is out of range"));
  auto negative = ParseNodeArgs({"--cluster", "worker=h:1", "--job", "worker", "--task", "-1"});
  REQUIRE_FALSE(negative.ok());
  CHECK_THAT(negative.status().message(), Catch::Contains("--task: '-1'"));
  auto unknown = ParseNodeArgs({"--clutser", "worker=h:1"});
  REQUIRE_FALSE(unknown.ok());
  CHECK_THAT(unknown.status().message(), Catch::Contains("unknown flag '--clutser'"));
}

TEST_CASE("--grpc-master serves TensorFlow's MasterService on loopback unless a host is given") {
  const std::vector<std::string> base = {"--cluster", "worker=127.0.0.1:1", "--job", "worker", "--task", "0"};
  auto with = [&](std::vector<std::string> more) {
    std::vector<std::string> args = base;
    args.insert(args.end(), more.begin(), more.end());
    return ParseNodeArgs(args);
  };
  CHECK(with({}).value().grpc_master.empty());
  CHECK(with({}).value().session_gc_seconds == 3600);  // idle sessions are collected by default
  CHECK(with({"--session-gc-seconds", "0"}).value().session_gc_seconds == 0);
  CHECK(with({"--grpc-master", "8470"}).value().grpc_master == "127.0.0.1:8470");
  CHECK(with({"--grpc-master", "10.0.0.2:8470"}).value().grpc_master == "10.0.0.2:8470");
  auto tls = with({"--grpc-master", "0", "--grpc-tls-cert", "c.pem", "--grpc-tls-key", "k.pem"}).value();
  CHECK(tls.grpc_tls_cert_file == "c.pem");
  CHECK(tls.grpc_tls_key_file == "k.pem");
  auto bad_port = with({"--grpc-master", "host:http"});
  REQUIRE_FALSE(bad_port.ok());
  CHECK_THAT(bad_port.status().message(), Catch::Contains("--grpc-master"));
  auto half_tls = with({"--grpc-master", "0", "--grpc-tls-cert", "c.pem"});
  REQUIRE_FALSE(half_tls.ok());
  CHECK_THAT(half_tls.status().message(), Catch::Contains("go together"));
  CHECK_FALSE(with({"--grpc-tls-cert", "c.pem", "--grpc-tls-key", "k.pem"}).ok());  // TLS for no front
  CHECK(with({"--grpc-master", "0", "--grpc-tls-cert", "c.pem", "--grpc-tls-key", "k.pem", "--grpc-tls-ca", "ca.pem"})
            .value()
            .grpc_tls_ca_file == "ca.pem");
  CHECK_FALSE(with({"--grpc-master", "0", "--grpc-tls-ca", "ca.pem"}).ok());  // client certificates need TLS
}

}  // namespace
}  // namespace tensoract

namespace tensoract {
namespace {

TEST_CASE("TF_CONFIG says which task a node is, as TensorFlow's launchers write it") {
  const std::string tf_config = R"({"cluster": {"chief": ["10.0.0.1:2222"],
                                                "worker": ["10.0.0.2:2222", "10.0.0.3:2223"]},
                                    "task": {"type": "worker", "index": 1},
                                    "rpc_layer": "grpc", "environment": "cloud"})";
  auto config = ParseTfConfig(tf_config);
  REQUIRE(config.ok());
  CHECK(config->cluster.ToString() == "chief=10.0.0.1:2222;worker=10.0.0.2:2222,10.0.0.3:2223");
  CHECK(config->job == "worker");
  CHECK(config->task == 1);

  auto node = ParseNodeArgs({"--listen", "0.0.0.0"}, tf_config);
  REQUIRE(node.ok());
  CHECK(node->task_name() == "/job:worker/replica:0/task:1");
  CHECK(node->address.port == 2223);
  CHECK(node->advertise == "10.0.0.3");
  // Flags win over TF_CONFIG: --task picks another task of its cluster.
  auto chief = ParseNodeArgs({"--job", "chief", "--task", "0"}, tf_config);
  REQUIRE(chief.ok());
  CHECK(chief->task_name() == "/job:chief/replica:0/task:0");
  // A --cluster with --job and --task leaves TF_CONFIG unread, even a broken one.
  auto flags = ParseNodeArgs({"--cluster", "worker=h:1", "--job", "worker", "--task", "0"}, "{broken");
  CHECK(flags.ok());
}

TEST_CASE("a malformed TF_CONFIG is refused naming the field") {
  auto error_of = [](const std::string& json) {
    auto config = ParseNodeArgs({}, json);
    REQUIRE_FALSE(config.ok());
    CHECK(errors::IsInvalidArgument(config.status()));
    return config.status().message();
  };
  CHECK_THAT(error_of("{\"cluster\": "), Catch::Contains("TF_CONFIG: not JSON"));
  CHECK_THAT(error_of("[]"), Catch::Contains("TF_CONFIG: (top level): must be an object"));
  CHECK_THAT(error_of(R"({"task": {"type": "worker", "index": 0}})"), Catch::Contains("TF_CONFIG: cluster: missing"));
  CHECK_THAT(error_of(R"({"cluster": {"worker": ["h:1"]}})"), Catch::Contains("TF_CONFIG: task: missing"));
  CHECK_THAT(error_of(R"({"cluster": {"worker": ["h:1"]}, "task": {"index": 0}})"),
             Catch::Contains("TF_CONFIG: task.type: missing"));
  CHECK_THAT(error_of(R"({"cluster": {"worker": ["h:1"]}, "task": {"type": "worker", "index": "0"}})"),
             Catch::Contains("TF_CONFIG: task.index: missing or not a whole number"));
  CHECK_THAT(error_of(R"({"cluster": {"worker": ["h:1"]}, "task": {"type": "worker", "index": 2}})"),
             Catch::Contains("TF_CONFIG: task: task 2 of job 'worker' is out of range"));
  CHECK_THAT(error_of(R"({"cluster": {"worker": ["h:1"]}, "task": {"type": "ps", "index": 0}})"),
             Catch::Contains("TF_CONFIG: task: job 'ps' is not in the cluster spec"));
  CHECK_THAT(error_of(R"({"cluster": {"worker": {"1": "h:1"}}, "task": {"type": "worker", "index": 1}})"),
             Catch::Contains("TF_CONFIG: cluster.worker: sparse jobs"));
  CHECK_THAT(error_of(R"({"cluster": {"worker": ["h:1", 7]}, "task": {"type": "worker", "index": 0}})"),
             Catch::Contains("TF_CONFIG: cluster.worker[1]: must be a \"host:port\" string"));
  CHECK_THAT(error_of(R"({"cluster": {"worker": ["h"]}, "task": {"type": "worker", "index": 0}})"),
             Catch::Contains("TF_CONFIG: cluster:"));
  CHECK_THAT(error_of(R"({"cluster": {"worker": ["h:1"]}, "task": {"type": "evaluator", "index": 0}})"),
             Catch::Contains("an evaluator runs outside the cluster"));
}

}  // namespace
}  // namespace tensoract
