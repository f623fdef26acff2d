// The soak test: the distributed example's synchronous MLP (examples/distributed_fashion_mnist,
// one ps and two workers, each a tensoract-node process) trains on Fashion-MNIST under a
// TrainingLoop for as long as asked, while a chaos thread kills and restarts the ps, kills
// and restarts worker 1, freezes worker 1 past the heartbeat timeout, and kills a client
// process mid-step (its session's step waits on a queue), in turn, every --chaos-every-s
// seconds. A monitor prints, every --sample-every-s seconds, each node's open descriptors,
// threads, resident memory, rendezvous entries, sessions and queues (from its inspect).
// At the end the trained model's test accuracy is compared with the local runtime's after
// the same steps on the same batches (no faults), and the resources with their first
// sample after the warm-up.
//
//   soak [--minutes M] [--chaos-every-s S] [--sample-every-s S] [--data-dir DIR]
//        [--node-binary PATH]
//
// Exit status 0 when the accuracy is within 0.02 of the uninterrupted run's and every node's
// descriptors, threads, rendezvous entries, sessions and queues ended within a small margin of where they
// started (memory is printed, not judged: allocator caches grow in steps); 1 otherwise.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include "actors/messages.h"
#include "client/session.h"
#include "client/training_loop.h"
#include "bootstrap/node_auth.h"
#include "bootstrap/node_process.h"
#include "data/batcher.h"
#include "data/fashion_mnist.h"
#include "graph/builder/data_flow_ops.h"
#include "examples/distributed_fashion_mnist/mlp_graphs.h"
#include "examples/distributed_fashion_mnist/runner.h"

namespace tensoract {
namespace {

using distributed_mnist::MlpGraph;
using distributed_mnist::MlpOptions;
using local_cluster::kTestToken;
using local_cluster::Local;
using local_cluster::NodeProcess;
using local_cluster::NodeProcessOptions;

constexpr int64_t kBatch = 100;
constexpr uint64_t kSeed = 7;

struct Flags {
  double minutes = 30;
  int chaos_every_s = 30;
  int sample_every_s = 30;
  std::string data_dir = DefaultFashionMnistDir();
  std::string node_binary;
};

// Batch k of the run, whichever order the steps come in (a recovery replays some).
class StepBatches {
 public:
  explicit StepBatches(const ImageDataset* data)
      : batcher_(data, {kBatch, /*shuffle=*/true, kSeed, /*flatten=*/true, /*drop_remainder=*/true}) {}
  void Get(int64_t step, Tensor* images, Tensor* labels) {
    const int64_t per_epoch = batcher_.batches_per_epoch();
    const int64_t epoch = step / per_epoch, index = step % per_epoch;
    if (epoch != epoch_ || index < next_) {
      batcher_.StartEpoch(epoch);
      epoch_ = epoch;
      next_ = 0;
    }
    for (; next_ < index; ++next_) batcher_.Next(images, labels);  // skipped
    batcher_.Next(images, labels);
    ++next_;
  }

 private:
  Batcher batcher_;
  int64_t epoch_ = -1, next_ = 0;
};

// One node's figures, from /proc and its inspect.
struct Sample {
  int fds = -1, threads = -1;
  long rss_kb = -1;
  long rendezvous_steps = -1;
  long sessions = -1;  // its master's
  long queues = -1;    // on its devices (inspect's resource lines)
};

long Occurrences(const std::string& text, const std::string& what) {
  long n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

long NumberBefore(const std::string& text, const std::string& what) {
  size_t at = text.find(what);
  if (at == std::string::npos) return -1;
  size_t start = at;
  while (start > 0 && std::isdigit(static_cast<unsigned char>(text[start - 1]))) --start;
  return start == at ? -1 : std::stol(text.substr(start, at - start));
}

Sample Measure(int pid, int port) {
  Sample s;
  std::error_code ec;
  const std::string proc = "/proc/" + std::to_string(pid);
  int fds = 0;
  for (auto it = std::filesystem::directory_iterator(proc + "/fd", ec); !ec && it != std::filesystem::directory_iterator();
       it.increment(ec)) {
    ++fds;
  }
  if (!ec) s.fds = fds;
  std::ifstream status(proc + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("Threads:", 0) == 0) s.threads = std::atoi(line.c_str() + 8);
    if (line.rfind("VmRSS:", 0) == 0) s.rss_kb = std::atol(line.c_str() + 6);
  }
  caf::actor_system_config config;
  if (!ConfigureClusterTransport(config, ClusterCredentials::FromToken(kTestToken)).ok()) return s;
  caf::actor_system system{config};
  auto service = ConnectToNode(system, "127.0.0.1", static_cast<uint16_t>(port), std::chrono::seconds(3));
  if (!service.ok()) return s;
  caf::scoped_actor self{system};
  self->request(*service, std::chrono::seconds(3), inspect_atom::value)
      .receive([&](std::string& text) {
                 s.rendezvous_steps = NumberBefore(text, " steps with entries");
                 s.sessions = NumberBefore(text, " sessions,");
                 s.queues = Occurrences(text, "Queue '");
               },
               [](caf::error&) {});
  return s;
}

struct Cluster {
  NodeProcess ps, worker0, worker1;
  int ps_port = 0, worker1_port = 0;
  std::mutex mu;  // the chaos thread restarts nodes while the monitor reads their pids
  explicit Cluster(const NodeProcessOptions& options) : ps(options), worker0(options), worker1(options) {}
};

bool StartCluster(Cluster& c, const std::vector<std::string>& flags) {
  const std::string any = "ps=127.0.0.1:0;worker=127.0.0.1:0,127.0.0.1:0";
  if (!c.ps.Start(any, "ps", 0, flags) || !c.worker1.Start(any, "worker", 1, flags)) return false;
  c.ps_port = c.ps.port();
  c.worker1_port = c.worker1.port();
  return c.worker0.Start("ps=" + Local(c.ps_port) + ";worker=127.0.0.1:0," + Local(c.worker1_port), "worker", 0,
                         flags);
}

// A client that a chaos round kills: a session on `target` whose step waits on a queue
// that nobody fills (a queue, a waiting dequeue and a step on every node it spans).
int ClientChild(const std::string& target) {
  SessionOptions options;
  options.target = target;
  options.cluster_token = kTestToken;
  auto session = Session::New(options);
  if (!session.ok()) return 1;
  Scope root = Scope::NewRootScope();
  auto queue = ops::FIFOQueue(root.WithOpName("never_filled"), {tensorflow::DT_FLOAT});
  ops::QueueDequeue(root.WithOpName("waits"), queue, {tensorflow::DT_FLOAT});
  tensorflow::GraphDef def;
  if (!root.ToGraphDef(&def).ok() || !(*session)->Create(def).ok()) return 1;
  (void)(*session)->Run({}, {"waits:0"}, {}, nullptr);  // until killed
  return 0;
}

// Starts this binary as a ClientChild of `target`; its pid, or -1.
pid_t StartClientChild(const std::string& target) {
  pid_t child = fork();
  if (child == 0) {
    execl("/proc/self/exe", "soak", "--client-child", target.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  return child;
}

int Main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "--client-child") return ClientChild(argv[2]);
  Flags f;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i], v = argv[i + 1];
    if (a == "--minutes") f.minutes = std::atof(v.c_str());
    else if (a == "--chaos-every-s") f.chaos_every_s = std::atoi(v.c_str());
    else if (a == "--sample-every-s") f.sample_every_s = std::atoi(v.c_str());
    else if (a == "--data-dir") f.data_dir = v;
    else if (a == "--node-binary") f.node_binary = v;
    else {
      std::fprintf(stderr, "soak: unknown flag %s\n", a.c_str());
      return 2;
    }
  }
  auto train = LoadFashionMnist(f.data_dir, "train");
  auto test = train.ok() ? LoadFashionMnist(f.data_dir, "t10k") : train;
  if (!test.ok()) {
    std::fprintf(stderr, "soak: %s\n", test.status().ToString().c_str());
    return 2;
  }
  NodeProcessOptions node_options;
  node_options.binary = f.node_binary;
  Cluster cluster(node_options);
  const std::vector<std::string> node_flags = {"--heartbeat-interval-ms", "500", "--heartbeat-timeout-ms", "1500"};
  if (!StartCluster(cluster, node_flags)) {
    std::fprintf(stderr, "soak: the cluster did not start: %s %s %s\n", cluster.ps.error().c_str(),
                 cluster.worker0.error().c_str(), cluster.worker1.error().c_str());
    return 1;
  }
  MlpOptions mlp;
  mlp.with_saver = true;
  auto graph = distributed_mnist::BuildSync(mlp, 2);
  if (!graph.ok()) return 1;
  SessionOptions session_options;
  session_options.target = "tensoract://" + Local(cluster.worker0.port());
  session_options.cluster_token = kTestToken;
  session_options.step_timeout_ms = 30000;
  auto session = Session::New(session_options);
  if (!session.ok() || !(*session)->Create(graph->def).ok()) return 1;
  char dir_template[] = "/tmp/tensoract_soak_XXXXXX";
  const std::string dir = mkdtemp(dir_template);
  TrainingLoopOptions loop_options;
  loop_options.checkpoint_dir = dir;
  loop_options.save_every_steps = 500;
  loop_options.init_op = graph->init;
  loop_options.recovery_deadline_ms = 120000;
  TrainingLoop loop(**session, *graph->saver, loop_options);
  Status started = loop.Start();
  if (!started.ok()) {
    std::fprintf(stderr, "soak: %s\n", started.ToString().c_str());
    return 1;
  }

  std::atomic<bool> done{false};
  // The chaos thread lives until the end: the nodes it restarted die with the thread that
  // started them (NodeProcess's PR_SET_PDEATHSIG follows the forking thread).
  std::atomic<bool> finished{false};
  std::atomic<int64_t> progress{0};
  std::atomic<int> faults{0};
  std::atomic<int> recoveries{0};
  // Chaos: the ps killed and restarted, worker 1 killed and restarted, worker 1 frozen.
  std::thread chaos([&] {
    for (int round = 0; !done; ++round) {
      for (int s = 0; s < f.chaos_every_s * 10 && !done; ++s) std::this_thread::sleep_for(std::chrono::milliseconds(100));
      if (done) break;
      std::lock_guard<std::mutex> lock(cluster.mu);
      const char* what = "";
      if (round % 4 == 3) {
        // A client process killed mid-step: its session, step and queue must go.
        what = "killed a client mid-step";
        const pid_t client = StartClientChild("tensoract://" + Local(cluster.worker0.port()));
        std::this_thread::sleep_for(std::chrono::milliseconds(1500));
        if (client > 0) {
          kill(client, SIGKILL);
          waitpid(client, nullptr, 0);
        }
      } else if (round % 4 == 0) {
        what = "killed and restarted the ps";
        cluster.ps.Signal(SIGKILL);
        cluster.ps.Wait(5000);
        if (!cluster.ps.Start("ps=" + Local(cluster.ps_port) + ";worker=127.0.0.1:0,127.0.0.1:0", "ps", 0, node_flags)) {
          std::fprintf(stderr, "soak: the ps did not restart: %s\n", cluster.ps.error().c_str());
        }
      } else if (round % 4 == 1) {
        what = "killed and restarted worker 1";
        cluster.worker1.Signal(SIGKILL);
        cluster.worker1.Wait(5000);
        if (!cluster.worker1.Start("ps=127.0.0.1:0;worker=127.0.0.1:0," + Local(cluster.worker1_port), "worker", 1,
                                   node_flags)) {
          std::fprintf(stderr, "soak: worker 1 did not restart: %s\n", cluster.worker1.error().c_str());
        }
      } else {
        what = "froze worker 1 for 3 s";
        cluster.worker1.Signal(SIGSTOP);
        std::this_thread::sleep_for(std::chrono::seconds(3));
        cluster.worker1.Signal(SIGCONT);
      }
      ++faults;
      std::printf("chaos: %s (at step %lld)\n", what, static_cast<long long>(progress.load()));
      std::fflush(stdout);
    }
    while (!finished) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  });
  // The monitor: every node's figures over time.
  std::map<std::string, std::vector<Sample>> samples;
  std::thread monitor([&] {
    const auto begin = std::chrono::steady_clock::now();
    while (!done) {
      for (int s = 0; s < f.sample_every_s * 10 && !done; ++s) std::this_thread::sleep_for(std::chrono::milliseconds(100));
      std::vector<std::pair<std::string, std::pair<int, int>>> nodes;
      {
        std::lock_guard<std::mutex> lock(cluster.mu);
        nodes = {{"ps", {cluster.ps.pid(), cluster.ps.port()}},
                 {"worker0", {cluster.worker0.pid(), cluster.worker0.port()}},
                 {"worker1", {cluster.worker1.pid(), cluster.worker1.port()}}};
      }
      const double minutes = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count() / 60;
      std::printf("monitor %.1f min, step %lld, %d faults, %d recoveries:", minutes,
                  static_cast<long long>(progress.load()), faults.load(), recoveries.load());
      for (const auto& [name, where] : nodes) {
        Sample s = Measure(where.first, where.second);
        samples[name].push_back(s);
        std::printf("  %s fds %d threads %d rss %ld MB rendezvous %ld sessions %ld queues %ld", name.c_str(), s.fds,
                    s.threads, s.rss_kb / 1024, s.rendezvous_steps, s.sessions, s.queues);
      }
      std::printf("\n");
      std::fflush(stdout);
    }
  });

  StepBatches batches(&*train);
  auto step_fn = [&](Session& s, int64_t step) -> Status {
    Tensor images, labels;
    batches.Get(step, &images, &labels);
    TA_ASSIGN_OR_RETURN(auto feeds, distributed_mnist::Feeds(*graph, images, labels));
    return s.Run(feeds, {}, {graph->train}, nullptr);
  };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(f.minutes * 60);
  Status trained;
  while (std::chrono::steady_clock::now() < deadline) {
    trained = loop.Step(step_fn);
    if (!trained.ok()) break;
    progress = loop.step();
    recoveries = loop.recoveries();
  }
  done = true;
  monitor.join();
  auto finish = [&](int rc) {
    finished = true;
    chaos.join();
    return rc;
  };
  if (!trained.ok()) {
    std::printf("soak: training failed at step %lld: %s\n", static_cast<long long>(loop.step()),
                trained.ToString().c_str());
    return finish(1);
  }
  const int64_t steps = loop.step();
  auto accuracy = distributed_mnist::Evaluate(**session, *graph, *test);
  // The same steps on the same batches, locally and without faults.
  auto local_graph = distributed_mnist::BuildLocal(MlpOptions{});
  auto local = Session::New();
  if (!accuracy.ok() || !local_graph.ok() || !local.ok() || !(*local)->Create(local_graph->def).ok() ||
      !(*local)->Run({}, {}, {local_graph->init}, nullptr).ok()) {
    std::printf("soak: evaluation failed: %s\n", accuracy.status().ToString().c_str());
    return finish(1);
  }
  StepBatches replay(&*train);
  for (int64_t step = 0; step < steps; ++step) {
    Tensor images, labels;
    replay.Get(step, &images, &labels);
    auto feeds = distributed_mnist::Feeds(*local_graph, images, labels);
    if (!feeds.ok() || !(*local)->Run(*feeds, {}, {local_graph->train}, nullptr).ok()) return finish(1);
  }
  auto local_accuracy = distributed_mnist::Evaluate(**local, *local_graph, *test);
  if (!local_accuracy.ok()) return finish(1);
  bool flat = true;
  for (const auto& [name, list] : samples) {
    if (list.size() < 3) continue;
    const Sample& first = list[1];  // after the warm-up
    const Sample& last = list.back();
    const bool ok = last.fds <= first.fds + 8 && last.threads <= first.threads + 8 &&
                    last.rendezvous_steps <= std::max<long>(first.rendezvous_steps, 0) + 2 &&
                    last.sessions <= std::max<long>(first.sessions, 0) + 1 &&
                    last.queues <= std::max<long>(first.queues, 0) + 1;
    std::printf("resources %s: fds %d -> %d, threads %d -> %d, rss %ld -> %ld MB, rendezvous %ld -> %ld, "
                "sessions %ld -> %ld, queues %ld -> %ld: %s\n",
                name.c_str(), first.fds, last.fds, first.threads, last.threads, first.rss_kb / 1024,
                last.rss_kb / 1024, first.rendezvous_steps, last.rendezvous_steps, first.sessions, last.sessions,
                first.queues, last.queues, ok ? "flat" : "GREW");
    flat = flat && ok;
  }
  const bool close = *accuracy >= *local_accuracy - 0.02;
  std::printf("soak: %.1f min, %lld steps, %d faults, %d recoveries; accuracy %.4f (uninterrupted %.4f): %s\n",
              f.minutes, static_cast<long long>(steps), faults.load(), loop.recoveries(), *accuracy, *local_accuracy,
              close && flat ? "ok" : "FAILED");
  std::filesystem::remove_all(dir);
  return finish(close && flat ? 0 : 1);
}

}  // namespace
}  // namespace tensoract

int main(int argc, char** argv) { return tensoract::Main(argc, argv); }
