// Faults in a collective at scale, on the cluster lab (bootstrap/cluster-lab.sh): N tasks,
// one client each, all-reducing a float variable round after round. For each fault, the
// other members start a round while the victim does not, and half a second later the lab
// kills the victim (SIGKILL), freezes it (SIGSTOP) or cuts its link (a black hole). Every
// other member's round must fail, naming the victim, within the heartbeat timeout and a
// second. Then the victim comes back (restarted, thawed, its link healed) and a round of
// all N must succeed (a member still holding the group's old formation fails once, with
// Aborted, and runs again). At the end, each node that was never restarted is compared
// with itself before the faults: open descriptors, threads, and the rendezvous steps and
// collective ops its worker still holds (tensoract-inspect). Before that comparison,
// training resumes from a checkpoint after a worker is replaced: one client trains every
// worker's replica (bench::AllReduceTraining) under a TrainingLoop that checkpoints every 3
// steps; after step 5 a random worker is killed and a replacement started, and at the end
// every replica's weights must equal, bit for bit, those of the same training without the
// fault.
//
//   collective_faults --env /tmp/tensoract-lab-NAME/env --lab bootstrap/cluster-lab.sh
//                     --inspect build/bootstrap/tensoract-inspect [--bytes 1048576]
//                     [--heartbeat-timeout-ms 1000]
// Prints a table; exit 0 when every check held, 1 otherwise.
#include <dirent.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <future>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "client/saver.h"
#include "client/session.h"
#include "tests/bench/allreduce_graph.h"
#include "tests/cluster/lab_env.h"

namespace tensoract {
namespace {

std::string Shell(const std::string& command) { return cluster_lab::Shell(command).out; }

int CountEntries(const std::string& dir) {
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return -1;
  int n = 0;
  while (dirent* e = readdir(d)) n += e->d_name[0] != '.';
  closedir(d);
  return n;
}

double Since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

struct Lab {
  std::map<std::string, std::string> env;
  std::string script, inspect, token;
  std::vector<std::string> addresses;
  std::string Run(const std::string& verb, int node) const {
    return Shell(StrCat("bash ", script, " ", verb, " --name ", env.at("LAB_NAME"), " --dir ", env.at("LAB_DIR"), " ",
                        node));
  }
  int Pid(int node) const { return std::atoi(Shell(StrCat("ip netns pids ", env.at("LAB_NS_PREFIX"), node)).c_str()); }
  // (rendezvous steps with entries, collective ops in flight) from the node's worker.
  std::pair<int, int> Held(int node) const {
    std::string text = Shell(StrCat(inspect, " ", addresses[node], " --token-file ", env.at("LAB_TOKEN_FILE")));
    int steps = -1, ops = 0;
    size_t at = text.find("steps with entries");
    if (at != std::string::npos) {
      size_t colon = text.rfind(": ", at);
      steps = std::atoi(text.c_str() + colon + 2);
    }
    for (size_t p = text.find("\n  collective "); p != std::string::npos; p = text.find("\n  collective ", p + 1)) ++ops;
    return {steps, ops};
  }
};

struct Members {
  const Lab& lab;
  int n;
  int64_t elements;
  std::vector<std::unique_ptr<Session>> sessions;

  Status Connect(int t) {
    SessionOptions options;
    options.target = "tensoract://" + lab.addresses[t];
    options.cluster_token = lab.token;
    options.step_timeout_ms = 60000;
    auto session = Session::New(options);
    if (!session.ok()) return session.status();
    sessions[t] = std::move(session).value();
    TA_RETURN_IF_ERROR(sessions[t]->Create(bench::AllReduceMemberGraph(t, n, elements, 1)));
    return sessions[t]->Run({}, {}, {"init"}, nullptr);
  }
  std::future<Status> Start(int t) {
    return std::async(std::launch::async, [this, t] { return sessions[t]->Run({}, {}, {"reduce"}, nullptr); });
  }
  // A round of every member; a member that fails with Aborted (it held a formation another
  // member left) runs again, up to `retries` times, while the others wait in the new one.
  bool Round(int retries, int* retried, std::string* error) {
    std::vector<std::future<Status>> runs;
    for (int t = 0; t < n; ++t) runs.push_back(Start(t));
    bool ok = true;
    for (int t = 0; t < n; ++t) {
      Status s = runs[t].get();
      for (int r = 0; !s.ok() && errors::IsAborted(s) && r < retries; ++r) {
        ++*retried;
        s = Start(t).get();
      }
      if (!s.ok()) {
        ok = false;
        *error = StrCat("task ", t, ": ", s.ToString());
      }
    }
    return ok;
  }
};

// The training of bench::AllReduceTraining for `steps` steps on every task of the lab, one
// client at task 0; with `victim` >= 0, under a TrainingLoop (checkpoints every 3 steps in
// a fresh folder), the lab kills the victim after step 5 and starts a replacement. Every
// replica's final weights into `weights`, the loop's recoveries into `recoveries`.
Status TrainAllReduce(const Lab& lab, int n, int steps, int victim, int instance_key,
                      std::vector<std::vector<float>>* weights, int* recoveries) {
  bench::AllReduceTraining model(victim < 0 ? "plain" : "resumed", n, instance_key);
  TA_ASSIGN_OR_RETURN(Saver saver, Saver::New(model.root, model.weights));
  TA_RETURN_IF_ERROR(model.Finish());
  SessionOptions options;
  options.target = "tensoract://" + lab.addresses[0];
  options.cluster_token = lab.token;
  options.step_timeout_ms = 15000;
  TA_ASSIGN_OR_RETURN(auto session, Session::New(options));
  TA_RETURN_IF_ERROR(session->Create(model.def));
  auto step_fn = [&](Session& s, int64_t step) { return s.Run(model.Feeds(step), {}, {model.train}, nullptr); };
  if (victim < 0) {
    TA_RETURN_IF_ERROR(session->Run({}, {}, {model.init}, nullptr));
    for (int64_t step = 0; step < steps; ++step) TA_RETURN_IF_ERROR(step_fn(*session, step));
    return model.Read(*session, weights);
  }
  char dir_template[] = "/tmp/tensoract_faults_ckpt_XXXXXX";
  const std::string dir = mkdtemp(dir_template);
  TrainingLoop loop(*session, saver, model.LoopOptions(dir, 3));
  Status status = loop.Start();
  bool replaced = false;
  while (status.ok() && loop.step() < steps) {
    if (loop.step() == 5 && !replaced) {
      lab.Run("kill", victim);
      lab.Run("restart", victim);  // as a supervisor would
      replaced = true;
    }
    status = loop.Step(step_fn);
  }
  *recoveries = loop.recoveries();
  if (status.ok()) status = model.Read(*session, weights);
  Shell(StrCat("rm -rf ", dir));
  return status;
}

int Main(int argc, char** argv) {
  std::string env_path, script = "bootstrap/cluster-lab.sh", inspect = "build/bootstrap/tensoract-inspect";
  int64_t bytes = 1 << 20;
  double bound_s = 2.0;  // heartbeat timeout + 1 s
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--env") env_path = value;
    else if (flag == "--lab") script = value;
    else if (flag == "--inspect") inspect = value;
    else if (flag == "--bytes") bytes = std::stoll(value);
    else if (flag == "--heartbeat-timeout-ms") bound_s = std::stod(value) / 1000 + 1;
    else {
      std::fprintf(stderr, "collective_faults: unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  Lab lab;
  lab.env = cluster_lab::ReadEnv(env_path);
  lab.script = script;
  lab.inspect = inspect;
  std::getline(std::ifstream(lab.env["LAB_TOKEN_FILE"]), lab.token);
  std::stringstream list(lab.env["LAB_ADDRESSES"]);
  for (std::string a; list >> a;) lab.addresses.push_back(a);
  const int n = static_cast<int>(lab.addresses.size());
  if (n < 4) {
    std::fprintf(stderr, "collective_faults: needs a lab of at least 4 nodes, got %d (%s)\n", n, env_path.c_str());
    return 2;
  }
  Members members{lab, n, bytes / 4, {}};
  members.sessions.resize(n);
  for (int t = 0; t < n; ++t) {
    if (Status s = members.Connect(t); !s.ok()) {
      std::fprintf(stderr, "collective_faults: task %d: %s\n", t, s.ToString().c_str());
      return 1;
    }
  }
  int retried = 0;
  std::string error;
  if (!members.Round(0, &retried, &error)) {
    std::fprintf(stderr, "collective_faults: the first round failed: %s\n", error.c_str());
    return 1;
  }
  // The training without a fault, before the snapshot: its client's paths (task 0 to every
  // task) are then open on both sides, as the faulted run's will be.
  constexpr int kSteps = 10;
  std::vector<std::vector<float>> expected;
  {
    int ignored = 0;
    if (Status s = TrainAllReduce(lab, n, kSteps, -1, /*instance_key=*/100, &expected, &ignored); !s.ok()) {
      std::fprintf(stderr, "collective_faults: the training without a fault failed: %s\n", s.ToString().c_str());
      return 1;
    }
  }
  // Before the faults: what every node holds.
  std::vector<int> pids(n), fds(n), threads(n);
  for (int t = 0; t < n; ++t) {
    pids[t] = lab.Pid(t);
    fds[t] = CountEntries(StrCat("/proc/", pids[t], "/fd"));
    threads[t] = CountEntries(StrCat("/proc/", pids[t], "/task"));
  }

  struct Fault {
    std::string name, inject;
    std::vector<std::string> recover;  // then a replacement task starts, as a supervisor would
    int victim;
  };
  // Three victims, away from task 0 (the collective leader).
  const std::vector<Fault> faults = {{"kill", "kill", {"restart"}, n / 2},
                                     {"freeze", "freeze", {"restart"}, 1},
                                     {"black hole", "cut", {"heal", "restart"}, n - 1}};
  bool all_ok = true;
  std::printf("# %d tasks, %lld-byte all-reduce, bound %.1f s (heartbeat timeout + 1 s)\n", n,
              static_cast<long long>(bytes), bound_s);
  std::printf("| fault | victim | others failed | naming it | slowest failure after the fault | recovered (retries) |\n");
  std::printf("|---|---|---|---|---|---|\n");
  std::vector<bool> restarted(n, false);
  for (const Fault& f : faults) {
    retried = 0;
    std::vector<std::future<Status>> runs;
    for (int t = 0; t < n; ++t) {
      if (t != f.victim) runs.push_back(members.Start(t));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    const auto fault_at = std::chrono::steady_clock::now();
    lab.Run(f.inject, f.victim);
    int failed = 0, named = 0;
    double slowest = 0;
    std::string sample;
    for (auto& r : runs) {
      Status s = r.get();
      slowest = std::max(slowest, Since(fault_at));
      failed += !s.ok();
      const bool names = s.message().find(StrCat("/job:worker/replica:0/task:", f.victim)) != std::string::npos;
      named += names;
      if (!names && !s.ok() && sample.empty()) sample = s.ToString();
    }
    for (const std::string& step : f.recover) lab.Run(step, f.victim);
    restarted[f.victim] = true;
    // As a supervisor would: give the others' masters a heartbeat round to meet the new
    // task before its own master dials them. Two masters dialling each other at the same
    // moment can see CAF 0.17 keep a route over a connection one side closed, and then a
    // heartbeat's answer is lost (a known limit: DESIGN notes, session 34's note); one more
    // try if the first contact fails anyway.
    std::this_thread::sleep_for(std::chrono::milliseconds(1000));
    Status reconnected = members.Connect(f.victim);
    if (errors::IsUnavailable(reconnected) || errors::IsDeadlineExceeded(reconnected)) {
      ++retried;
      reconnected = members.Connect(f.victim);
    }
    error.clear();
    const bool recovered = reconnected.ok() && members.Round(3, &retried, &error);
    const bool ok = failed == n - 1 && named == n - 1 && slowest <= bound_s && recovered;
    all_ok &= ok;
    std::printf("| %s | task %d | %d of %d | %d | %.2f s | %s (%d) |\n", f.name.c_str(), f.victim, failed, n - 1, named,
                slowest, recovered ? "yes" : "NO", retried);
    if (!sample.empty()) std::printf("#   an error not naming the victim: %s\n", sample.c_str());
    if (!recovered) std::printf("#   recovery: %s %s\n", reconnected.ToString().c_str(), error.c_str());
    std::fflush(stdout);
  }

  // Training resumed from its checkpoint after a random worker (not task 0, whose master
  // the client uses) is replaced.
  {
    std::mt19937 pick(std::random_device{}());
    const int victim = 1 + static_cast<int>(pick() % (n - 1));
    std::vector<std::vector<float>> resumed;
    int recoveries = 0;
    Status faulted = TrainAllReduce(lab, n, kSteps, victim, /*instance_key=*/200, &resumed, &recoveries);
    restarted[victim] = true;
    const bool equal = faulted.ok() && !expected.empty() && resumed == expected;
    all_ok &= equal && recoveries >= 1;
    std::printf("\n| training, %d steps, checkpoint every 3 | victim | recoveries | weights of every replica |\n", kSteps);
    std::printf("|---|---|---|---|\n");
    std::printf("| killed after step 5, replaced | task %d | %d | %s |\n", victim, recoveries,
                equal ? "equal to the uninterrupted run's, bit for bit" : "DIFFER");
    if (!faulted.ok()) std::printf("#   training: %s\n", faulted.ToString().c_str());
    std::fflush(stdout);
  }

  // After: a few quiet seconds for the connections of the faults to close, then compare.
  std::this_thread::sleep_for(std::chrono::seconds(3));
  std::printf("\n| node | fds before -> after | threads before -> after | rendezvous steps held | collective ops in flight |\n");
  std::printf("|---|---|---|---|---|\n");
  for (int t = 0; t < n; ++t) {
    if (restarted[t]) continue;
    const int fd_after = CountEntries(StrCat("/proc/", pids[t], "/fd"));
    const int threads_after = CountEntries(StrCat("/proc/", pids[t], "/task"));
    auto [steps, ops] = lab.Held(t);
    // A few descriptors and threads may differ: connections to the restarted task are new ones.
    const bool ok = fd_after <= fds[t] + 4 && threads_after <= threads[t] + 4 && steps == 0 && ops == 0;
    all_ok &= ok;
    std::printf("| task %d | %d -> %d | %d -> %d | %d | %d |%s\n", t, fds[t], fd_after, threads[t], threads_after, steps,
                ops, ok ? "" : " LEAK?");
  }
  std::printf("\n%s\n", all_ok ? "every check held" : "SOME CHECK FAILED");
  return all_ok ? 0 : 1;
}

}  // namespace
}  // namespace tensoract

int main(int argc, char** argv) { return tensoract::Main(argc, argv); }
