// tensoract-observe: a live view of a whole running cluster, seen from any one of its nodes
// (bootstrap/observer.h): every task and its health, every actor with its mailbox and what
// it does, the steps in flight, each executor's running, ready and pending nodes, the
// rendezvous waits, and why the oldest step is not done yet.
//
//   tensoract-observe HOST:PORT [--token-file F | --tls-...] [--interval-ms N] [--timeout-ms N]
//   tensoract-observe HOST:PORT --once            one frame on stdout, then exit
//   tensoract-observe HOST:PORT --why [STEP]      why STEP (default: the oldest) is stuck
//   tensoract-observe HOST:PORT --slow            the critical path of the last traced step
//   tensoract-observe HOST:PORT --watch T1,T2 [--steps N] [--values]
//                                                 statistics of tensors in the next N steps
//   tensoract-observe HOST:PORT --find-nan        the first node of the next step whose
//                                                 output holds a NaN or an infinity (the step
//                                                 stops there), with its inputs
//
// Live, it redraws every --interval-ms (default 1000) until 'q', Ctrl-C or SIGTERM. It
// presents the cluster's token or TLS certificate like any peer. Exit 0, or 1 when the
// first node cannot be reached, 2 on bad arguments.
#include <poll.h>
#include <termios.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <set>
#include <thread>

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include "bootstrap/cluster_spec.h"
#include "bootstrap/node_auth.h"
#include "bootstrap/observer.h"

namespace tensoract {
namespace {

constexpr const char* kUsage =
    "usage: tensoract-observe HOST:PORT [--once | --why [STEP]] [--interval-ms N]\n"
    "                         [--token-file PATH | --tls-cert P --tls-key P --tls-ca P] [--timeout-ms N]\n"
    "A live view of the cluster of the tensoract-node at HOST:PORT ('q' quits).\n"
    "  --once             print one frame and exit\n"
    "  --why [STEP]       explain why STEP (default: the oldest step in flight) has not finished\n"
    "  --interval-ms N    time between frames (default 1000)\n"
    "  --slow             the critical path of the master's last traced step, and each task's busiest nodes\n"
    "  --watch T1,T2      watch tensors (\"node\" or \"node:k\") in the next --steps N steps (default 1):\n"
    "                     shape, min, max, mean, NaN and infinity counts (--values: the values too)\n"
    "  --find-nan         stop the next step at the first node producing a NaN or an infinity\n"
    "  --wait-ms N        how long --watch and --find-nan wait for the steps (default 30000)\n";

struct ObserveArgs {
  NodeClientFlags flags;
  bool once = false, why = false, slow = false;
  int64_t why_step = -1;
  int interval_ms = 1000;
  observe::WatchRequest watch;  // --watch / --find-nan
  int wait_ms = 30000;
};

StatusOr<ObserveArgs> ParseArgs(const std::vector<std::string>& args) {
  ObserveArgs parsed;
  parsed.flags.timeout_ms = 1500;
  auto number = [](const std::string& v) {
    return !v.empty() && v.size() <= 18 && v.find_first_not_of("0123456789") == std::string::npos;
  };
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--once") {
      parsed.once = true;
    } else if (args[i] == "--why") {
      parsed.why = true;
      if (i + 1 < args.size() && number(args[i + 1])) parsed.why_step = std::stoll(args[++i]);
    } else if (args[i] == "--watch" && i + 1 < args.size()) {
      std::string list = args[++i];
      for (size_t start = 0; start <= list.size();) {
        size_t comma = list.find(',', start);
        if (comma == std::string::npos) comma = list.size();
        if (comma > start) parsed.watch.add_tensors(list.substr(start, comma - start));
        start = comma + 1;
      }
    } else if (args[i] == "--slow") {
      parsed.slow = true;
    } else if (args[i] == "--find-nan") {
      parsed.watch.set_find_nan(true);
    } else if (args[i] == "--values") {
      parsed.watch.set_values(true);
    } else if ((args[i] == "--steps" || args[i] == "--wait-ms") && i + 1 < args.size() && number(args[i + 1]) &&
               args[i + 1].size() <= 7) {
      const int v = std::stoi(args[i + 1]);
      if (args[i] == "--steps") parsed.watch.set_steps(v);
      else parsed.wait_ms = v;
      ++i;
    } else if (args[i] == "--interval-ms") {
      if (i + 1 == args.size() || !number(args[i + 1]) || args[i + 1].size() > 7) {
        return errors::InvalidArgument("--interval-ms needs a number of milliseconds");
      }
      parsed.interval_ms = std::max(50, std::stoi(args[++i]));
    } else {
      TA_ASSIGN_OR_RETURN(bool taken, ParseNodeClientFlag(args, &i, &parsed.flags));
      if (!taken) return errors::InvalidArgument("unexpected argument '", args[i], "'");
    }
  }
  if (parsed.flags.address.empty()) return errors::InvalidArgument("which node? (HOST:PORT is required)");
  if (parsed.watch.steps() == 0) parsed.watch.set_steps(1);
  return parsed;
}

std::atomic<bool> g_stop{false};
void OnSignal(int) { g_stop = true; }

// 'q' on a terminal's stdin, read without waiting for a newline.
class KeyReader {
 public:
  KeyReader() : tty_(isatty(STDIN_FILENO)) {
    if (!tty_ || tcgetattr(STDIN_FILENO, &saved_) != 0) {
      tty_ = false;
      return;
    }
    termios raw = saved_;
    raw.c_lflag &= ~static_cast<tcflag_t>(ICANON | ECHO);
    tcsetattr(STDIN_FILENO, TCSANOW, &raw);
  }
  ~KeyReader() {
    if (tty_) tcsetattr(STDIN_FILENO, TCSANOW, &saved_);
  }
  // Waits up to `ms` for a key; true when it was 'q'.
  bool QuitWithin(int ms) {
    if (!tty_) {
      std::this_thread::sleep_for(std::chrono::milliseconds(ms));
      return false;
    }
    pollfd p{STDIN_FILENO, POLLIN, 0};
    if (poll(&p, 1, ms) <= 0) return false;
    char c = 0;
    return read(STDIN_FILENO, &c, 1) == 1 && (c == 'q' || c == 'Q');
  }

 private:
  bool tty_;
  termios saved_{};
};

std::string Frame(Observer& observer, const ObserveArgs& args) {
  ClusterView view = observer.Poll();
  std::string out = RenderView(view);
  const int64_t step = args.why_step >= 0 ? args.why_step : OldestStep(view);
  if (step >= 0) out += "\nWHY\n  " + ExplainStep(view, step);
  const std::string slow = ExplainSlowStep(view);
  if (!slow.empty()) out += "\nLAST TRACED STEP\n  " + slow;
  return out;
}

// --watch and --find-nan: arms every node, then polls until the watched steps are seen
// (or a NaN search's finding), printing each new report once.
int WatchAndReport(Observer& observer, const ObserveArgs& args) {
  ClusterView view = observer.Poll();
  if (view.nodes.empty()) {
    std::cerr << "tensoract-observe: " << args.flags.address << ": " << view.silent.begin()->second << "\n";
    return 1;
  }
  // What the nodes kept from earlier watches is not news.
  auto key = [](const observe::TensorStats& s) { return StrCat(s.step_id(), " ", s.device(), " ", s.node(), ":", s.output()); };
  std::set<std::string> shown;
  std::set<int64_t> nan_steps;
  for (const auto& node : view.nodes) {
    for (const auto& w : node.watched()) shown.insert(key(w));
    for (const auto& n : node.nans()) nan_steps.insert(n.step_id());
  }
  Status armed = observer.Watch(view, args.watch);
  if (!armed.ok()) {
    std::cerr << "tensoract-observe: " << armed << "\n";
    return 1;
  }
  std::cout << "watching " << (args.watch.find_nan() ? "for the first NaN or infinity in the next step" : "")
            << (args.watch.find_nan() && args.watch.tensors_size() > 0 ? " and " : "");
  for (int i = 0; i < args.watch.tensors_size(); ++i) std::cout << (i ? ", " : "") << args.watch.tensors(i);
  if (args.watch.tensors_size() > 0) std::cout << " in the next " << args.watch.steps() << " steps";
  std::cout << "\n" << std::flush;
  std::set<int64_t> steps_seen;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(args.wait_ms);
  bool nan_found = false;
  while (std::chrono::steady_clock::now() < deadline && !g_stop) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    view = observer.Poll();
    for (const auto& node : view.nodes) {
      for (const auto& w : node.watched()) {
        if (!shown.insert(key(w)).second) continue;
        std::cout << RenderStats(w) << "\n";
        steps_seen.insert(w.step_id());
      }
      for (const auto& n : node.nans()) {
        if (!nan_steps.insert(n.step_id()).second) continue;
        std::cout << RenderNan(n);
        nan_found = true;
      }
    }
    std::cout << std::flush;
    const bool watch_done = args.watch.tensors_size() == 0 || static_cast<int>(steps_seen.size()) >= args.watch.steps();
    if (watch_done && (!args.watch.find_nan() || nan_found)) return 0;
  }
  if (args.watch.find_nan() && !nan_found) std::cout << "no NaN or infinity seen within " << args.wait_ms << " ms\n";
  if (args.watch.tensors_size() > 0 && static_cast<int>(steps_seen.size()) < args.watch.steps()) {
    std::cout << "saw " << steps_seen.size() << " of " << args.watch.steps() << " steps within " << args.wait_ms
              << " ms\n";
  }
  return 0;
}

int Observe(const ObserveArgs& args, const ClusterCredentials& credentials) {
  caf::actor_system_config config;
  // A quiet guest on the cluster's cores, which needs no latency: one scheduler thread
  // (CAF's default is 4) whose idle polls sleep 100 ms (CAF: 10).
  config.set("scheduler.max-threads", size_t{1});
  config.set("work-stealing.relaxed-sleep-duration", caf::timespan{std::chrono::milliseconds(100)});
  Status configured = ConfigureClusterTransport(config, credentials, "tensoract-observe");
  if (!configured.ok()) {
    std::cerr << "tensoract-observe: " << configured << "\n";
    return 1;
  }
  caf::actor_system system{config};
  auto start = ParseTaskAddress(args.flags.address);
  Observer observer(system, *start, std::chrono::milliseconds(args.flags.timeout_ms));
  if (args.watch.tensors_size() > 0 || args.watch.find_nan()) return WatchAndReport(observer, args);
  if (args.slow) {
    ClusterView view = observer.Poll();
    if (view.nodes.empty()) {
      std::cerr << "tensoract-observe: " << args.flags.address << ": " << view.silent.begin()->second << "\n";
      return 1;
    }
    const std::string slow = ExplainSlowStep(view);
    std::cout << (slow.empty() ? "no step was traced yet (a Run with RunOptions::trace_level above NO_TRACE)\n" : slow)
              << std::flush;
    return 0;
  }
  if (args.once || args.why) {
    ClusterView view = observer.Poll();
    if (view.nodes.empty()) {
      std::cerr << "tensoract-observe: " << args.flags.address << ": " << view.silent.begin()->second << "\n";
      return 1;
    }
    if (args.once) std::cout << RenderView(view);
    if (args.why) {
      const int64_t step = args.why_step >= 0 ? args.why_step : OldestStep(view);
      std::cout << (step < 0 ? std::string("no step in flight\n") : ExplainStep(view, step));
    }
    std::cout << std::flush;
    return 0;
  }
  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
  KeyReader keys;
  while (!g_stop) {
    const std::string frame = Frame(observer, args);
    std::cout << "\x1b[H\x1b[2J" << frame << "\n(refreshing every " << args.interval_ms << " ms; q quits)"
              << std::flush;
    if (keys.QuitWithin(args.interval_ms)) break;
  }
  std::cout << "\n";
  return 0;
}

}  // namespace
}  // namespace tensoract

int main(int argc, char** argv) {
  return tensoract::NodeClientMain<tensoract::ObserveArgs>("tensoract-observe", tensoract::kUsage, argc, argv,
                                                          tensoract::ParseArgs, tensoract::Observe);
}
