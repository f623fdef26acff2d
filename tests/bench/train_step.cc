// Training-step throughput of the Fashion-MNIST models (examples/fashion_mnist/model.h)
// through Session::Run, for the side-by-side comparison with PyTorch and TensorFlow
// (run_train_bench.sh runs all three).
//
//   train_step --model mlp|cnn --batch N --threads N [--steps N] [--warmup N] [--profile 1|2]
//              [--trace FILE] [--device cpu|gpu]
//
// --device gpu trains on the GPU (the nodes with GPU kernels go there; the batches are fed
// from host memory each step, as the peers' are); cpu (the default) hides every GPU.
//
// --profile 1 also traces 10 steps and prints the ops by their share of kernel time;
// --profile 2 prints the nodes instead (fused nodes under their last original node's name).
// --trace FILE writes the last traced step as a Chrome trace (chrome://tracing, Perfetto):
// which thread ran what, and where a step waits.
//
// The batches are real Fashion-MNIST images, prepared before timing (as the peers do), so
// only the step is measured: feed, forward, backward, Adam updates, fetch of the loss.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <cstdlib>
#include <string>

#include "actors/chrome_trace.h"
#include "client/session.h"
#include "data/batcher.h"
#include "data/fashion_mnist.h"
#include "examples/fashion_mnist/model.h"
#include "kernels/cpu/gemm.h"

using namespace tensoract;

// The machine's CPU time so far and the part of it the hypervisor stole, in ticks (the
// first line of /proc/stat; steal is its 8th value). Zeros where there is none.
struct CpuTicks {
  long long steal = 0, total = 0;
};

CpuTicks ReadCpuTicks() {
  CpuTicks t;
  std::FILE* f = std::fopen("/proc/stat", "r");
  if (f == nullptr) return t;
  long long v[10] = {};
  if (std::fscanf(f, "cpu %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld", &v[0], &v[1], &v[2], &v[3], &v[4],
                  &v[5], &v[6], &v[7], &v[8], &v[9]) >= 8) {
    for (long long x : v) t.total += x;
    t.steal = v[7];
  }
  std::fclose(f);
  return t;
}

// The percentage of the machine's CPU time stolen between two readings: printed with the
// rate, so the benchmark scripts judge the timed steps alone (bench_util.sh's quiet_run).
int StealPercent(const CpuTicks& before, const CpuTicks& after) {
  const long long total = after.total - before.total;
  return total > 0 ? static_cast<int>(100 * (after.steal - before.steal) / total) : 0;
}

int main(int argc, char** argv) {
  std::string model_name = "mlp";
  int64_t batch = 64, steps = 200, warmup = 20;
  int threads = 1;
  int profile = 0;  // 1: kernel time by op type; 2: by node
  std::string trace_path;
  std::string device = "cpu";
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i], v = argv[i + 1];
    if (a == "--model") model_name = v;
    else if (a == "--batch") batch = std::atoll(v.c_str());
    else if (a == "--threads") threads = std::atoi(v.c_str());
    else if (a == "--steps") steps = std::atoll(v.c_str());
    else if (a == "--warmup") warmup = std::atoll(v.c_str());
    else if (a == "--profile") profile = std::atoi(v.c_str());
    else if (a == "--trace") trace_path = v;
    else if (a == "--device") device = v;
    else {
      std::fprintf(stderr, "train_step: unknown option %s\n", a.c_str());
      return 2;
    }
  }
  auto fail = [](const Status& s) {
    std::fprintf(stderr, "train_step: %s\n", s.ToString().c_str());
    return 1;
  };
  auto kind = fashion_mnist::ParseModelKind(model_name);
  if (!kind.ok()) return fail(kind.status());
  auto train = LoadFashionMnist(DefaultFashionMnistDir(), "train");
  if (!train.ok()) return fail(train.status());

  Scope root = Scope::NewRootScope();
  auto model = fashion_mnist::BuildModel(root, *kind);
  if (!model.ok()) return fail(model.status());
  tensorflow::GraphDef graph;
  Status s = root.ToGraphDef(&graph);
  if (!s.ok()) return fail(s);
  SessionOptions options;
  options.num_threads = threads;
  if (device != "gpu") options.gpu.visible_device_list = "none";
  auto session = Session::New(options);
  if (!session.ok()) return fail(session.status());
  s = (*session)->Create(graph);
  if (s.ok()) s = (*session)->Run({}, {}, {model->init->name()}, nullptr);
  if (!s.ok()) return fail(s);

  const bool flatten = *kind == fashion_mnist::ModelKind::kMlp;
  Batcher batcher(&*train, {batch, /*shuffle=*/true, /*seed=*/1, flatten, /*drop_remainder=*/true});
  std::vector<std::pair<Tensor, Tensor>> batches(16);
  for (auto& b : batches) batcher.Next(&b.first, &b.second);

  const std::vector<std::string> fetches = {model->loss.name()};
  const std::vector<std::string> targets = {model->train->name()};
  std::vector<Tensor> out;
  auto run = [&](int64_t i) {
    const auto& b = batches[i % batches.size()];
    return (*session)->Run({{model->images.name(), b.first}, {model->labels.name(), b.second}}, fetches, targets, &out);
  };
  for (int64_t i = 0; i < warmup; ++i) {
    if (Status st = run(i); !st.ok()) return fail(st);
  }
  const CpuTicks ticks_before = ReadCpuTicks();
  auto start = std::chrono::steady_clock::now();
  for (int64_t i = 0; i < steps; ++i) {
    if (Status st = run(i); !st.ok()) return fail(st);
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("tensoract %s batch %lld threads %d device %s: %.1f steps/s (%.0f examples/s, last loss %.4f; steal %d%%; kernels %s)\n",
              model_name.c_str(), static_cast<long long>(batch), threads, device.c_str(), steps / secs,
              steps * batch / secs, out[0].base<float>()[0], StealPercent(ticks_before, ReadCpuTicks()),
              device == "gpu" ? "cuda" : gemm::KernelIsa());
  if (profile || !trace_path.empty()) {
    // Kernel time per op type over 10 traced steps.
    std::map<std::string, double> by_op;
    std::map<std::string, std::string> op_of;
    for (const auto& n : graph.node()) op_of[n.name()] = n.op();
    double total = 0;
    for (int i = 0; i < 10; ++i) {
      RunOptions ro;
      ro.trace_level = RunOptions::FULL_TRACE;
      RunMetadata md;
      const auto& b = batches[i % batches.size()];
      Status st = (*session)->Run(ro, {{model->images.name(), b.first}, {model->labels.name(), b.second}}, fetches,
                                  targets, &out, &md);
      if (!st.ok()) return fail(st);
      if (i == 9 && !trace_path.empty()) {
        if (Status w = WriteChromeTrace(md.step_stats, trace_path); !w.ok()) return fail(w);
      }
      for (const auto& dev : md.step_stats.dev_stats()) {
        for (const auto& ns : dev.node_stats()) {
          double us = (ns.op_end_rel_micros() - ns.op_start_rel_micros()) / 10.0;
          by_op[profile == 2 ? ns.node_name() : op_of[ns.node_name()]] += us;
          total += us;
        }
      }
    }
    std::vector<std::pair<double, std::string>> sorted;
    for (const auto& [op, us] : by_op) sorted.emplace_back(us, op);
    std::sort(sorted.rbegin(), sorted.rend());
    if (!profile) return 0;
    std::printf("kernel time per step: %.0f us\n", total);
    for (const auto& [us, op] : sorted) {
      if (us < total * 0.005) break;
      std::printf("  %-28s %9.0f us  %5.1f%%\n", op.c_str(), us, 100 * us / total);
    }
  }
  return 0;
}
