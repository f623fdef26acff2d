// The master over many workers, simulated: N in-process actors speak the worker's protocol
// (heartbeats, RegisterGraph, RunGraph, cleanup) and answer at once, so what is timed is
// the master (and CAF's messaging), not the work. For N tasks it prints:
//   first_step_ms  the first step touching every task: pruning, placing and partitioning a
//                  graph spread over all of them, and RegisterGraph to each
//   all_us         a later step touching every task (one RunGraph and one CleanupGraph
//                  each), wall time from RunStep to its answer; all_us_per_task the same
//                  divided by N
//   cpu_us         the process's CPU time per such step (master and simulated workers
//                  together: an upper bound on the master's)
//   one_us         a step touching one task while N exist (it should not grow with N)
//   heartbeat_cpu  the process's CPU while idle with heartbeats every second to N tasks,
//                  as a share of one core (tasks 0: the idle process without a cluster,
//                  the baseline to subtract)
//
//   master_scale [--tasks 0,8,32,128,512,1000] [--seconds 1] [--heartbeat-interval-ms 1000]
// (a shorter interval multiplies the heartbeats' load, to see it above the idle baseline)
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <caf/all.hpp>

#include "actors/master.h"
#include "actors/messages.h"
#include "actors/scheduler_config.h"
#include "actors/worker.h"
#include "graph/builder/scope.h"
#include "graph/builder/ops.h"

namespace tensoract {
namespace {

std::string Task(int i) { return StrCat("/job:worker/replica:0/task:", i); }

struct SimWorkerState {
  WorkerInfo info;  // made once: its answer to every heartbeat (the worker's cost, not the master's)
  uint64_t graphs = 0;
  static inline const char* name = "simulated_worker";
};

caf::behavior SimWorker(caf::stateful_actor<SimWorkerState>* self, std::string task, uint64_t incarnation) {
  WorkerInfo& info = self->state.info;
  info.task = task;
  info.incarnation = incarnation;
  info.data_plane = "simulated:1";
  tensorflow::DeviceAttributes cpu;
  cpu.set_name(task + "/device:CPU:0");
  cpu.set_device_type("CPU");
  cpu.set_incarnation(incarnation);
  info.devices.push_back(cpu);
  return {
      [=](heartbeat_atom) { return self->state.info; },
      [=](set_peers_atom, PeerDirectory&) { return Status::OK(); },
      [=](register_graph_atom, const RegisterGraphRequest&) {
        return RegisterGraphResponse{Status::OK(), StrCat("graph-", ++self->state.graphs)};
      },
      [=](run_graph_atom, const RunGraphRequest&) {
        RunGraphResponse response;
        response.status = Status::OK();
        return response;
      },
      [=](deregister_graph_atom, const std::string&) { return Status::OK(); },
      [=](reset_atom, const std::vector<std::string>&) { return Status::OK(); },
      [=](cleanup_graph_atom, int64_t) {},
      [=](abort_step_atom, int64_t, const Status&) {},
      [=](peer_down_atom, const std::string&, uint64_t, const Status&) {},
  };
}

double CpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + 1e-6 * (u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

double Now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

void Fail(const Status& s) {
  std::fprintf(stderr, "master_scale: %s\n", s.ToString().c_str());
  std::exit(1);
}

void Measure(int n, double seconds, int64_t heartbeat_ms) {
  caf::actor_system_config config;
  ConfigureScheduler(config, 2);
  caf::actor_system system{config};
  WorkerOptions home;
  home.task_name = Task(0);
  caf::actor worker = SpawnWorker(system, home);
  MasterOptions options;
  options.heartbeat_interval_ms = heartbeat_ms;
  for (int i = 1; i <= n; ++i) {
    options.in_process_tasks.emplace_back(Task(i), system.spawn(SimWorker, Task(i), 1000 + i));
  }
  caf::actor master = SpawnMaster(system, worker, options);
  {
    // The master's own protocol, from a blocking actor: nothing but the master between
    // this thread and the simulated workers.
    caf::scoped_actor self{system};
    // A NoOp on every simulated task; a step's targets pick where it runs.
    Scope root = Scope::NewRootScope();
    std::vector<std::string> all;
    for (int i = 1; i <= n; ++i) {
      ops::NoOp(root.WithOpName(StrCat("t", i)).WithDevice(Task(i)));
      all.push_back(StrCat("t", i));
    }
    auto graph = std::make_shared<tensorflow::GraphDef>();
    if (Status s = root.ToGraphDef(graph.get()); !s.ok()) Fail(s);
    std::string handle;
    self->request(master, std::chrono::minutes(1), create_session_atom::value, CreateSessionRequest{graph, ""})
        .receive([&](CreateSessionResponse& r) {
                   if (!r.status.ok()) Fail(r.status);
                   handle = r.session_handle;
                 },
                 [&](caf::error& e) { Fail(errors::Internal(system.render(e))); });
    auto run = [&](const std::vector<std::string>& targets) {
      RunStepRequest request;
      request.session_handle = handle;
      request.targets = targets;
      Status status;
      self->request(master, std::chrono::minutes(5), run_step_atom::value, request)
          .receive([&](RunStepResponse& response) { status = response.status; },
                   [&](caf::error& e) { status = errors::Internal(system.render(e)); });
      if (!status.ok()) Fail(status);
    };

    if (n == 0) {  // the baseline: an idle actor system, no cluster, no heartbeats
      const double cpu0 = CpuSeconds(), t0 = Now();
      std::this_thread::sleep_for(std::chrono::duration<double>(std::max(3.0, seconds * 3)));
      std::printf("%6d %14s %10s %16s %10s %10s %14.4f\n", 0, "-", "-", "-", "-", "-",
                  (CpuSeconds() - cpu0) / (Now() - t0));
    } else {
      double start = Now();
      run(all);
      const double first_ms = (Now() - start) * 1e3;

      auto steps = [&](const std::vector<std::string>& targets, double* cpu_us) {
        int k = 0;
        const double cpu0 = CpuSeconds();
        const double t0 = Now();
        while (Now() - t0 < seconds || k < 3) {
          run(targets);
          ++k;
        }
        const double wall = Now() - t0;
        if (cpu_us != nullptr) *cpu_us = (CpuSeconds() - cpu0) / k * 1e6;
        return wall / k * 1e6;
      };
      double cpu_us = 0;
      const double all_us = steps(all, &cpu_us);
      run({"t1"});  // compiles the one-task call
      const double one_us = steps({"t1"}, nullptr);

      // Idle: only the membership's heartbeats (every second, to every task).
      const double idle = std::max(3.0, seconds * 3);
      const double cpu0 = CpuSeconds(), t0 = Now();
      std::this_thread::sleep_for(std::chrono::duration<double>(idle));
      const double heartbeat_share = (CpuSeconds() - cpu0) / (Now() - t0);

      std::printf("%6d %14.1f %10.0f %16.2f %10.0f %10.0f %14.4f\n", n, first_ms, all_us, all_us / n, cpu_us, one_us,
                  heartbeat_share);
      std::fflush(stdout);
    }
    self->request(master, std::chrono::minutes(1), close_session_atom::value, handle).receive([](Status&) {}, [](caf::error&) {});
  }
  caf::anon_send_exit(master, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(worker, caf::exit_reason::user_shutdown);
  for (auto& [name, actor] : options.in_process_tasks) caf::anon_send_exit(actor, caf::exit_reason::user_shutdown);
}

int Main(int argc, char** argv) {
  std::vector<int> counts = {0, 8, 32, 128, 512, 1000};
  double seconds = 1;
  int64_t heartbeat_ms = 1000;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--tasks") {
      counts.clear();
      std::stringstream in(value);
      std::string part;
      while (std::getline(in, part, ',')) counts.push_back(std::stoi(part));
    } else if (flag == "--seconds") {
      seconds = std::stod(value);
    } else if (flag == "--heartbeat-interval-ms") {
      heartbeat_ms = std::stoll(value);
    } else {
      std::fprintf(stderr, "usage: master_scale [--tasks 0,8,32,...] [--seconds 1] [--heartbeat-interval-ms 1000]\n");
      return 2;
    }
  }
  std::printf("# the master over N simulated workers (in-process actors answering at once)\n");
  std::printf("%6s %14s %10s %16s %10s %10s %14s\n", "tasks", "first_step_ms", "all_us", "all_us_per_task", "cpu_us",
              "one_us", "heartbeat_cpu");
  std::printf("# heartbeats every %lld ms\n", static_cast<long long>(heartbeat_ms));
  for (int n : counts) Measure(n, seconds, heartbeat_ms);
  return 0;
}

}  // namespace
}  // namespace tensoract

int main(int argc, char** argv) { return tensoract::Main(argc, argv); }
