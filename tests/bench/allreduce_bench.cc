// All-reduce bus bandwidth across a cluster: one client per task (as TensorFlow's
// MultiWorkerMirroredStrategy runs), each running its task's CollectiveReduceV2 of a float
// variable of S bytes, all at once; a round's time is the slowest member's. Prints, per
// size, the median round, the bus bandwidth 2(N-1)/N x S / t (NCCL's convention) and its
// ratio to the link's rate when given.
//
//   allreduce_bench --targets 10.77.3.1:2222,10.77.3.2:2222 --token-file F
//                   [--sizes 4096,1048576] [--rounds 5] [--link-gbit 1]
//                   [--master-heartbeat-timeout-ms 3000]
//
// The lab (bootstrap/cluster-lab.sh) gives the targets; run_allreduce_bench.sh drives it.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <future>
#include <sstream>
#include <string>
#include <vector>

#include "client/session.h"
#include "tests/bench/allreduce_graph.h"

namespace tensoract {
namespace {

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string part;
  while (std::getline(in, part, sep)) {
    if (!part.empty()) out.push_back(part);
  }
  return out;
}

int Main(int argc, char** argv) {
  std::vector<std::string> targets;
  std::string token_file;
  std::vector<int64_t> sizes = {4096, 65536, 1 << 20, 16 << 20, 64 << 20, 256 << 20};
  int rounds = 5;
  double link_gbit = 0;
  int64_t master_heartbeat_timeout_ms = SessionOptions().master_heartbeat_timeout_ms;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--targets") {
      targets = Split(value, ',');
    } else if (flag == "--token-file") {
      token_file = value;
    } else if (flag == "--sizes") {
      sizes.clear();
      for (const auto& s : Split(value, ',')) sizes.push_back(std::stoll(s));
    } else if (flag == "--rounds") {
      rounds = std::stoi(value);
    } else if (flag == "--link-gbit") {
      link_gbit = std::stod(value);
    } else if (flag == "--master-heartbeat-timeout-ms") {
      master_heartbeat_timeout_ms = std::stoll(value);
    } else {
      std::fprintf(stderr, "allreduce_bench: unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  if (targets.empty() || token_file.empty()) {
    std::fprintf(stderr, "usage: allreduce_bench --targets host:port,... --token-file F [--sizes ...]\n");
    return 2;
  }
  std::string token;
  std::getline(std::ifstream(token_file), token);
  const int n = static_cast<int>(targets.size());
  std::printf("# all-reduce (Add, Div) of float32 across %d tasks, %d rounds per size%s\n", n, rounds,
              link_gbit > 0 ? StrCat(", links ", link_gbit, " Gbit/s").c_str() : "");
  std::printf("%12s %12s %14s %10s\n", "bytes", "median_ms", "busbw_GB/s", "of_link");
  for (size_t k = 0; k < sizes.size(); ++k) {
    const int64_t elements = sizes[k] / 4;
    std::vector<std::unique_ptr<Session>> sessions;
    for (int t = 0; t < n; ++t) {
      SessionOptions options;
      options.target = "tensoract://" + targets[t];
      options.cluster_token = token;
      options.step_timeout_ms = 600000;
      options.master_heartbeat_timeout_ms = master_heartbeat_timeout_ms;
      auto session = Session::New(options);
      if (!session.ok()) {
        std::fprintf(stderr, "allreduce_bench: %s\n", session.status().ToString().c_str());
        return 1;
      }
      sessions.push_back(std::move(session).value());
      Status s = sessions[t]->Create(bench::AllReduceMemberGraph(t, n, elements, static_cast<int>(k) + 1));
      if (s.ok()) s = sessions[t]->Run({}, {}, {"init"}, nullptr);
      if (!s.ok()) {
        std::fprintf(stderr, "allreduce_bench: task %d: %s\n", t, s.ToString().c_str());
        return 1;
      }
    }
    auto round = [&]() -> double {
      const auto start = std::chrono::steady_clock::now();
      std::vector<std::future<Status>> runs;
      for (int t = 0; t < n; ++t) {
        runs.push_back(std::async(std::launch::async, [&, t] { return sessions[t]->Run({}, {}, {"reduce"}, nullptr); }));
      }
      for (int t = 0; t < n; ++t) {
        Status s = runs[t].get();
        if (!s.ok()) {
          std::fprintf(stderr, "allreduce_bench: task %d: %s\n", t, s.ToString().c_str());
          std::exit(1);
        }
      }
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    round();  // the group forms, connections open
    std::vector<double> times;
    for (int r = 0; r < rounds; ++r) times.push_back(round());
    std::sort(times.begin(), times.end());
    const double t = times[times.size() / 2];
    const double busbw = 2.0 * (n - 1) / n * static_cast<double>(sizes[k]) / t / 1e9;
    std::printf("%12lld %12.3f %14.4f %10s\n", static_cast<long long>(sizes[k]), t * 1e3, busbw,
                link_gbit > 0 ? StrCat(static_cast<int>(100 * busbw * 8 / link_gbit + 0.5), "%").c_str() : "-");
    std::fflush(stdout);
    for (auto& session : sessions) session->Close();
  }
  return 0;
}

}  // namespace
}  // namespace tensoract

int main(int argc, char** argv) { return tensoract::Main(argc, argv); }
