// What watching costs a step: a ps and two workers as tensoract-node processes on loopback,
// and a client running either a step that spans all three (a [64, 784] x [784, 256] MatMul
// on worker 1 with weights from the ps, a bias add on the ps, the fetch on worker 0) or a
// training step (the Fashion-MNIST MLP, Adam, batch 64 of real images fed by the client,
// trained on worker 1), timed with nobody watching and with tensoract-observe's live view
// polling the cluster (every --interval-ms, default 1000 as a user runs it; 100 for a busy
// observer; 0: a process that only sleeps, the control), in alternating rounds. Prints the
// median microseconds per step of each and their ratio.
//   observer_overhead [steps_per_round] [rounds] [interval_ms] [spread|train]
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <thread>
#include <string>
#include <vector>

#include "bootstrap/node_process.h"
#include "client/session.h"
#include "data/batcher.h"
#include "data/fashion_mnist.h"
#include "examples/fashion_mnist/model.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/ops.h"
#include "graph/builder/array_ops.h"

extern char** environ;

namespace tensoract {
namespace {

using local_cluster::Local;
using local_cluster::NodeProcess;

tensorflow::GraphDef SpreadStep() {
  Scope root = Scope::NewRootScope();
  Scope ps = root.WithDevice("/job:ps/replica:0/task:0");
  Scope w1 = root.WithDevice("/job:worker/replica:0/task:1");
  Output w = ops::Identity(ps.WithOpName("w"), ops::Fill(ps, ops::Const(ps, {784, 256}), 0.01f));
  Output x = ops::Fill(w1, ops::Const(w1, {64, 784}), 0.5f);
  Output h = ops::MatMul(w1.WithOpName("h"), x, w);
  ops::Sum(root.WithOpName("out"), ops::Add(ps, h, 1.f), {0, 1});
  tensorflow::GraphDef def;
  if (!root.ToGraphDef(&def).ok()) std::exit(1);
  return def;
}

// What one step runs.
struct StepCall {
  std::vector<std::pair<std::string, Tensor>> feeds;
  std::vector<std::string> fetches, targets;
};

// The MLP on worker 1, and a batch of real images to feed it.
tensorflow::GraphDef TrainStep(StepCall* call, std::string* init) {
  Scope root = Scope::NewRootScope().WithDevice("/job:worker/replica:0/task:1");
  auto model = fashion_mnist::BuildModel(root, fashion_mnist::ModelKind::kMlp);
  auto data = LoadFashionMnist(DefaultFashionMnistDir(), "train");
  if (!model.ok() || !data.ok()) {
    std::fprintf(stderr, "cannot build the model or load the data\n");
    std::exit(1);
  }
  static ImageDataset dataset = std::move(data).value();  // the Batcher's, for the run
  Batcher batches(&dataset, {64, /*shuffle=*/true, 1, /*flatten=*/true});
  batches.StartEpoch(0);
  Tensor x, y;
  batches.Next(&x, &y);
  call->feeds = {{model->images.name(), x}, {model->labels.name(), y}};
  call->fetches = {model->loss.name()};
  call->targets = {model->train->name()};
  *init = model->init->name();
  tensorflow::GraphDef def;
  if (!root.ToGraphDef(&def).ok()) std::exit(1);
  return def;
}

double MedianStepUs(Session& session, const StepCall& call, int steps) {
  std::vector<double> times;
  std::vector<Tensor> out;
  for (int i = 0; i < steps; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    if (!session.Run(call.feeds, call.fetches, call.targets, &out).ok()) std::exit(1);
    times.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

pid_t StartObserver(int port, int interval_ms) {
  const char* dir = std::getenv("TENSORACT_BUILD_DIR");
  const std::string binary = std::string(dir ? dir : "build") + "/bootstrap/tensoract-observe";
  // The token comes from the environment. An interval of 0: a process that only sleeps,
  // to tell the observer's cost from that of the pause before the watched round.
  std::vector<std::string> args = {binary, "127.0.0.1:" + std::to_string(port), "--interval-ms",
                                   std::to_string(interval_ms)};
  if (interval_ms == 0) args = {"/bin/sleep", "1000"};
  setenv("TENSORACT_CLUSTER_TOKEN", local_cluster::kTestToken, 1);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  if (posix_spawn(&pid, args[0].c_str(), &actions, nullptr, argv.data(), environ) != 0) {
    std::fprintf(stderr, "cannot start %s\n", binary.c_str());
    std::exit(1);
  }
  posix_spawn_file_actions_destroy(&actions);
  return pid;
}

int Main(int steps, int rounds, int interval_ms, bool train) {
  NodeProcess ps, worker0, worker1;
  if (!ps.Start("ps=127.0.0.1:0;worker=127.0.0.1:0,127.0.0.1:0", "ps", 0) ||
      !worker1.Start("ps=127.0.0.1:0;worker=127.0.0.1:0,127.0.0.1:0", "worker", 1) ||
      !worker0.Start("ps=" + Local(ps.port()) + ";worker=127.0.0.1:0," + Local(worker1.port()), "worker", 0)) {
    std::fprintf(stderr, "cannot start the cluster: %s%s%s\n", ps.error().c_str(), worker0.error().c_str(),
                 worker1.error().c_str());
    return 1;
  }
  SessionOptions options;
  options.target = "tensoract://" + Local(worker0.port());
  options.cluster_token = local_cluster::kTestToken;
  auto session = Session::New(options);
  StepCall call;
  std::string init;
  const tensorflow::GraphDef graph = train ? TrainStep(&call, &init) : SpreadStep();
  if (!train) call.fetches = {"out"};
  if (!session.ok() || !(*session)->Create(graph).ok()) return 1;
  std::vector<Tensor> none;
  if (!init.empty() && !(*session)->Run({}, {}, {init}, &none).ok()) return 1;
  MedianStepUs(**session, call, steps);  // warm up: graphs registered, caches filled
  std::vector<double> alone, watched;
  // Both kinds of round start alike: a pause (the observer connects and polls meanwhile;
  // an idle cluster's threads go to sleep, which alone made the next steps ~10% slower),
  // then warm-up steps, then the timed ones.
  auto round = [&](bool watch) {
    const pid_t observer = watch ? StartObserver(worker0.port(), interval_ms) : 0;
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    MedianStepUs(**session, call, steps / 4);
    const double us = MedianStepUs(**session, call, steps);
    if (watch) {
      kill(observer, SIGTERM);
      waitpid(observer, nullptr, 0);
    }
    return us;
  };
  for (int r = 0; r < rounds; ++r) {
    alone.push_back(round(false));
    watched.push_back(round(true));
  }
  std::sort(alone.begin(), alone.end());
  std::sort(watched.begin(), watched.end());
  const double a = alone[alone.size() / 2], w = watched[watched.size() / 2];
  std::printf("observer_overhead: %s, median of %d rounds of %d steps\n",
              train ? "MLP training step on worker 1, fed by the client" : "step over 3 processes", rounds, steps);
  std::printf("  nobody watching        %8.1f us/step\n", a);
  std::printf("  observer every %4d ms %8.1f us/step  (%.3fx)\n", interval_ms, w, w / a);
  return 0;
}

}  // namespace
}  // namespace tensoract

int main(int argc, char** argv) {
  const int steps = argc > 1 ? std::atoi(argv[1]) : 300;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 5;
  const int interval = argc > 3 ? std::atoi(argv[3]) : 1000;
  const bool train = argc > 4 && std::string(argv[4]) == "train";
  return tensoract::Main(steps, rounds, interval, train);
}
