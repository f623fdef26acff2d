// Inference latency of a SavedModel's serving signature in this process (SavedModelBundle::
// Run, no serving layer): the model zoo's tensoract side (run_model_zoo_bench.sh, issue 54).
//
//   saved_model_latency DIR BATCH [SECONDS] [--signature KEY] [--ops] [--bf16] [--bf16-activations] [--int8]
//                       [--one-lane] [--no-loop-optimization] [--no-sequential-loops] [--no-freeze]
//                       [--threads N] [--caller-thread] [--graphs FILE] [--input FILE.npy]
//
// Feeds every input of the signature a tensor of its declared shape with the batch
// dimension (and any other unknown one) set to BATCH: floats uniform in [0, 1), integers
// (token ids) in [0, 50). --input feeds a signature of one input the array in FILE.npy
// instead (numpy's format, C order, float32, int32 or int64 little-endian, its first
// dimension BATCH): the zoo's own batch (model_zoo_export.py), which every peer is fed, so
// that the distances printed below are those of the inputs the model was made for.
// Runs three warm-up steps, then steps for at least SECONDS (default 3, at least 5 steps),
// and prints
//   saved_model_latency: DIR batch B: median M ms, min N ms over K runs
// With --ops, first the ops of the graph a step runs (after the optimizer), with their count
// and kernel time per step (5 traced steps): what the remapper fused, what is left, where
// the time goes; and how much of a step some kernel was running (the rest: the executor
// between kernels). With --bf16 the session multiplies in bfloat16
// (GraphOptimizerOptions::bfloat16_products), and before the last line it prints how far
// its outputs are from the float session's on the same feeds:
//   saved_model_latency: bfloat16 products: largest |bf16 - f32| / largest |f32| = E
// --bf16-activations keeps the activations between convolutions in bfloat16 as well
// (GraphOptimizerOptions::bfloat16_activations), and prints the same line. --int8 convolves
// in 8-bit integers (GraphOptimizerOptions::int8_products) and prints
//   saved_model_latency: int8 products: largest |int8 - f32| / largest |f32| = E, top-1 agreement A of R rows
// (the rows of the first output of rank 2 whose largest element is at the float session's place).
// With --one-lane independent loops share one executor (GraphOptimizerOptions::
// parallel_loops off), to measure what their lanes (graph/loop_lanes.h) buy, and
// --no-loop-optimization leaves loop bodies as written (GraphOptimizerOptions::
// do_loop_optimization off: no loop-invariant motion). --no-sequential-loops leaves loops to
// the executor, node by node (GraphOptimizerOptions::sequential_loops off,
// graph/optimizer/sequential_loops.h). --no-freeze keeps reading the
// variables every step (GraphOptimizerOptions::freeze_variables off, actors/frozen_variables.h).
// --threads N runs on N threads (SessionOptions::num_threads; default one per core).
// --caller-thread runs every kernel of the step on the calling thread
// (RunOptions::inter_op_thread_pool -1), none handed to the device's threads.
// --graphs FILE (with --ops' tracing) writes the graphs the workers ran, after the
// optimizer, as text GraphDefs one after another (RunOptions::output_partition_graphs): what
// a loop's _SequentialLoop body holds, what fused and what did not.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "base/proto_io.h"
#include "client/saved_model.h"

namespace tensoract {
namespace {

// The array in a .npy file (numpy's format, versions 1-3): C order, '<f4', '<i4' or '<i8'.
// Its header is checked before the tensor is allocated: a shape whose elements the file does
// not hold is an error naming the file.
StatusOr<Tensor> ReadNpy(const std::string& path) {
  std::string bytes;
  TA_RETURN_IF_ERROR(ReadFileToString(path, &bytes));
  const auto bad = [&](const std::string& why) { return errors::InvalidArgument("'", path, "' is not a .npy array this reads: ", why); };
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) return bad("no \\x93NUMPY magic");
  const int major = static_cast<unsigned char>(bytes[6]);
  const size_t len_bytes = major == 1 ? 2 : 4;
  if (major < 1 || major > 3 || bytes.size() < 8 + len_bytes) return bad("version " + std::to_string(major));
  size_t header_len = 0;
  for (size_t i = 0; i < len_bytes; ++i) header_len |= static_cast<size_t>(static_cast<unsigned char>(bytes[8 + i])) << (8 * i);
  const size_t data_at = 8 + len_bytes + header_len;
  if (data_at > bytes.size()) return bad("its header runs past the file's end");
  const std::string header = bytes.substr(8 + len_bytes, header_len);
  if (header.find("'fortran_order': False") == std::string::npos) return bad("not in C order");
  DataType dtype;
  size_t item = 4;
  if (header.find("'descr': '<f4'") != std::string::npos) dtype = tensorflow::DT_FLOAT;
  else if (header.find("'descr': '<i4'") != std::string::npos) dtype = tensorflow::DT_INT32;
  else if (header.find("'descr': '<i8'") != std::string::npos) dtype = tensorflow::DT_INT64, item = 8;
  else return bad("dtype other than float32, int32 or int64 (little-endian)");
  const size_t open = header.find("'shape': ("), close = header.find(')', open);
  if (open == std::string::npos || close == std::string::npos) return bad("no shape");
  std::vector<int64_t> dims;
  uint64_t elements = 1;
  for (size_t at = open + 10; at < close;) {
    const size_t comma = std::min(header.find(',', at), close);
    const std::string dim = header.substr(at, comma - at);
    if (dim.find_first_not_of(' ') != std::string::npos) {
      const long long d = std::atoll(dim.c_str());
      if (d < 0 || d > (int64_t{1} << 40)) return bad("dimension '" + dim + "'");
      dims.push_back(d);
      elements *= static_cast<uint64_t>(d);
      if (elements > (uint64_t{1} << 40)) return bad("too many elements");
    }
    at = comma + 1;
  }
  if (bytes.size() - data_at != elements * item) {
    return bad("its shape needs " + std::to_string(elements * item) + " bytes, it holds " +
               std::to_string(bytes.size() - data_at));
  }
  Tensor t(dtype, TensorShape(dims));
  std::memcpy(t.data(), bytes.data() + data_at, elements * item);
  return t;
}

// A tensor of `dtype` and `shape` with random values (see above); unknown dimensions take
// `batch`.
StatusOr<Tensor> RandomInput(DataType dtype, const tensorflow::TensorShapeProto& proto, int64_t batch,
                             std::mt19937* rng) {
  std::vector<int64_t> dims;
  for (const auto& d : proto.dim()) dims.push_back(d.size() < 0 ? batch : d.size());
  Tensor t(dtype, TensorShape(dims));
  std::uniform_real_distribution<float> uniform(0.f, 1.f);
  std::uniform_int_distribution<int> token(0, 49);
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    switch (dtype) {
      case tensorflow::DT_FLOAT: t.base<float>()[i] = uniform(*rng); break;
      case tensorflow::DT_DOUBLE: t.base<double>()[i] = uniform(*rng); break;
      case tensorflow::DT_INT32: t.base<int32_t>()[i] = token(*rng); break;
      case tensorflow::DT_INT64: t.base<int64_t>()[i] = token(*rng); break;
      default: return errors::Unimplemented("an input of type ", DataTypeString(dtype));
    }
  }
  return t;
}

// The largest difference between the float outputs of a and b over the largest magnitude
// of b's, over all outputs.
double RelativeDifference(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  double diff = 0, scale = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    if (a[i].dtype() != tensorflow::DT_FLOAT || a[i].NumElements() != b[i].NumElements()) continue;
    for (int64_t j = 0; j < a[i].NumElements(); ++j) {
      diff = std::max(diff, std::fabs(double{a[i].base<float>()[j]} - b[i].base<float>()[j]));
      scale = std::max(scale, std::fabs(double{b[i].base<float>()[j]}));
    }
  }
  return scale > 0 ? diff / scale : diff;
}

// Of the rows of the first float output of rank 2 in both, how many have their largest
// element at the same place; *rows: how many rows there are (0: no such output).
int64_t Top1Agreement(const std::vector<Tensor>& a, const std::vector<Tensor>& b, int64_t* rows) {
  *rows = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    if (a[i].dtype() != tensorflow::DT_FLOAT || a[i].dims() != 2 || a[i].shape() != b[i].shape()) continue;
    const int64_t n = a[i].dim_size(0), width = a[i].dim_size(1);
    int64_t same = 0;
    for (int64_t r = 0; r < n && width > 0; ++r) {
      const float* x = a[i].base<float>() + r * width;
      const float* y = b[i].base<float>() + r * width;
      same += std::max_element(x, x + width) - x == std::max_element(y, y + width) - y;
    }
    *rows = n;
    return same;
  }
  return 0;
}

int Main(int argc, char** argv) {
  std::vector<std::string> args;
  std::string signature = kDefaultServingSignatureDefKey;
  bool show_ops = false;
  int show_nodes = 0;  // --nodes N: the N nodes of longest kernel time, with --ops' tracing
  std::string graphs_file;  // --graphs FILE: the partition graphs, with --ops' tracing
  std::string input_file;   // --input FILE.npy: the one input's values
  SessionOptions session_options;
  RunOptions run_options;  // --caller-thread: every kernel on the calling thread
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--signature" && i + 1 < argc) signature = argv[++i];
    else if (std::string(argv[i]) == "--ops") show_ops = true;
    else if (std::string(argv[i]) == "--nodes" && i + 1 < argc) {
      show_ops = true;
      show_nodes = std::atoi(argv[++i]);
    }
    else if (std::string(argv[i]) == "--graphs" && i + 1 < argc) {
      show_ops = true;
      graphs_file = argv[++i];
    }
    else if (std::string(argv[i]) == "--bf16") session_options.optimizer.bfloat16_products = true;
    else if (std::string(argv[i]) == "--bf16-activations") {
      session_options.optimizer.bfloat16_products = true;
      session_options.optimizer.bfloat16_activations = true;
    }
    else if (std::string(argv[i]) == "--int8") session_options.optimizer.int8_products = true;
    else if (std::string(argv[i]) == "--one-lane") session_options.optimizer.parallel_loops = false;
    else if (std::string(argv[i]) == "--no-loop-optimization") session_options.optimizer.do_loop_optimization = false;
    else if (std::string(argv[i]) == "--no-sequential-loops") session_options.optimizer.sequential_loops = false;
    else if (std::string(argv[i]) == "--caller-thread") run_options.inter_op_thread_pool = -1;
    else if (std::string(argv[i]) == "--no-freeze") session_options.optimizer.freeze_variables = false;
    else if (std::string(argv[i]) == "--threads" && i + 1 < argc) session_options.num_threads = std::atoi(argv[++i]);
    else if (std::string(argv[i]) == "--input" && i + 1 < argc) input_file = argv[++i];
    else args.push_back(argv[i]);
  }
  if (args.size() < 2) {
    std::fprintf(stderr, "usage: saved_model_latency DIR BATCH [SECONDS] [--signature KEY] [--ops] [--nodes N] [--bf16] "
                         "[--bf16-activations] [--int8] [--one-lane] [--no-loop-optimization] [--no-sequential-loops] [--no-freeze] "
                         "[--threads N] [--caller-thread] [--graphs FILE] [--input FILE.npy]\n");
    return 2;
  }
  const std::string dir = args[0];
  const int64_t batch = std::atoll(args[1].c_str());
  const double seconds = args.size() > 2 ? std::atof(args[2].c_str()) : 3.0;
  auto bundle = LoadSavedModel(dir, {kSavedModelTagServe}, session_options);
  if (!bundle.ok()) {
    std::fprintf(stderr, "saved_model_latency: %s\n", bundle.status().ToString().c_str());
    return 1;
  }
  auto sig = (*bundle)->Signature(signature);
  if (!sig.ok()) {
    std::fprintf(stderr, "saved_model_latency: %s\n", sig.status().ToString().c_str());
    return 1;
  }
  std::mt19937 rng(1);
  std::vector<std::pair<std::string, Tensor>> feeds;
  if (!input_file.empty() && (*sig)->inputs().size() != 1) {
    std::fprintf(stderr, "saved_model_latency: --input feeds a signature of one input; '%s' has %zu\n",
                 signature.c_str(), (*sig)->inputs().size());
    return 2;
  }
  for (const auto& [key, info] : (*sig)->inputs()) {
    auto t = input_file.empty() ? RandomInput(info.dtype(), info.tensor_shape(), batch, &rng) : ReadNpy(input_file);
    if (t.ok() && !input_file.empty() && (t->dtype() != info.dtype() || t->dims() == 0 || t->dim_size(0) != batch)) {
      t = errors::InvalidArgument("'", input_file, "' holds ", DataTypeString(t->dtype()), " ",
                                  t->shape().DebugString(), "; the input takes ", DataTypeString(info.dtype()),
                                  " with a first dimension of ", batch);
    }
    if (!t.ok()) {
      std::fprintf(stderr, "saved_model_latency: input '%s': %s\n", key.c_str(), t.status().ToString().c_str());
      return 1;
    }
    feeds.emplace_back(key, std::move(t).value());
  }
  std::vector<std::pair<std::string, Tensor>> out;
  if (show_ops) {
    std::vector<std::pair<std::string, Tensor>> by_name;
    for (const auto& [key, t] : feeds) by_name.emplace_back((*sig)->inputs().at(key).name(), t);
    std::vector<std::string> fetches;
    for (const auto& [key, info] : (*sig)->outputs()) fetches.push_back(info.name());
    RunOptions options;
    options.trace_level = RunOptions::FULL_TRACE;
    options.output_partition_graphs = !graphs_file.empty();
    std::map<std::string, int> counts;
    std::map<std::string, double> micros;  // kernel time per op, summed over the traced steps
    std::map<std::string, std::string> op_of;
    std::map<std::string, double> node_micros;  // kernel time per node, summed over the traced steps
    double busy_micros = 0, step_micros = 0;  // some kernel running; first kernel's start to last's end
    constexpr int kTraced = 5;
    // Three steps first, untraced: one-time work (a lazily built table, the first touch of a
    // buffer, the second step's frozen variables: actors/frozen_variables.h) is not what a
    // served model pays per request.
    for (int i = 0; i < 3; ++i) {
      std::vector<Tensor> values;
      Status s = (*bundle)->session().Run(by_name, fetches, {}, &values);
      if (!s.ok()) {
        std::fprintf(stderr, "saved_model_latency: %s\n", s.ToString().c_str());
        return 1;
      }
    }
    for (int i = 0; i < kTraced; ++i) {
      RunMetadata metadata;
      std::vector<Tensor> values;
      Status s = (*bundle)->session().Run(options, by_name, fetches, {}, &values, &metadata);
      if (!s.ok()) {
        std::fprintf(stderr, "saved_model_latency: %s\n", s.ToString().c_str());
        return 1;
      }
      if (i == 0 && !graphs_file.empty()) {
        std::ofstream file(graphs_file);
        for (const tensorflow::GraphDef& g : metadata.partition_graphs) file << g.DebugString() << "\n";
        if (!file) {
          std::fprintf(stderr, "saved_model_latency: cannot write '%s'\n", graphs_file.c_str());
          return 1;
        }
      }
      std::vector<std::pair<int64_t, int64_t>> spans;  // each kernel's [start, end) in us
      for (const auto& dev : metadata.step_stats.dev_stats()) {
        for (const auto& ns : dev.node_stats()) {
          // The nodes the worker ran, which are not all the master's (actors/frozen_variables.h
          // folds some away): the op from the label, "name = Op(inputs)".
          const std::string& label = ns.timeline_label();
          const size_t eq = label.find(" = "), paren = label.find('(', eq);
          const std::string op = eq == std::string::npos ? "?" : label.substr(eq + 3, paren - eq - 3);
          if (i == 0) ++counts[op];
          op_of[ns.node_name()] = op;
          const double kernel_micros = static_cast<double>(ns.op_end_rel_micros() - ns.op_start_rel_micros());
          micros[op_of[ns.node_name()]] += kernel_micros;
          node_micros[ns.node_name()] += kernel_micros;
          const int64_t start = ns.all_start_micros() + ns.op_start_rel_micros();
          spans.emplace_back(start, std::max(start, ns.all_start_micros() + ns.op_end_rel_micros()));
        }
      }
      // How much of the step some kernel ran: the rest is the executor between kernels.
      std::sort(spans.begin(), spans.end());
      int64_t covered = 0, reach = spans.empty() ? 0 : spans.front().first;
      for (const auto& [start, end] : spans) {
        covered += std::max<int64_t>(0, end - std::max(start, reach));
        reach = std::max(reach, end);
      }
      if (!spans.empty()) {
        busy_micros += static_cast<double>(covered);
        step_micros += static_cast<double>(reach - spans.front().first);
      }
    }
    std::vector<std::pair<double, std::string>> sorted;
    for (const auto& [op, n] : counts) sorted.emplace_back(-micros[op], op);
    std::sort(sorted.begin(), sorted.end());
    std::printf("saved_model_latency: ops of a step (count, kernel ms per step):");
    for (const auto& [us, op] : sorted) std::printf(" %s %d %.2f", op.c_str(), counts[op], -us / kTraced / 1e3);
    std::printf("\n");
    std::vector<std::pair<double, std::string>> slowest;
    for (const auto& [node, us] : node_micros) slowest.emplace_back(-us, node);
    std::sort(slowest.begin(), slowest.end());
    for (int i = 0; i < show_nodes && i < static_cast<int>(slowest.size()); ++i) {
      std::printf("saved_model_latency: node %s (%s) %.3f ms\n", slowest[i].second.c_str(),
                  op_of[slowest[i].second].c_str(), -slowest[i].first / kTraced / 1e3);
    }
    std::printf("saved_model_latency: some kernel running %.1f%% of the traced steps' %.1f ms\n",
                step_micros > 0 ? 100 * busy_micros / step_micros : 0.0, step_micros / kTraced / 1e3);
  }
  for (int i = 0; i < 3; ++i) {
    Status s = (*bundle)->Run(signature, feeds, &out, {}, run_options);
    if (!s.ok()) {
      std::fprintf(stderr, "saved_model_latency: %s\n", s.ToString().c_str());
      return 1;
    }
  }
  std::vector<double> ms;
  const auto start = std::chrono::steady_clock::now();
  while (ms.size() < 5 || std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < seconds) {
    const auto t0 = std::chrono::steady_clock::now();
    Status s = (*bundle)->Run(signature, feeds, &out, {}, run_options);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    if (!s.ok()) {
      std::fprintf(stderr, "saved_model_latency: %s\n", s.ToString().c_str());
      return 1;
    }
  }
  if (session_options.optimizer.bfloat16_products || session_options.optimizer.int8_products) {
    auto float_bundle = LoadSavedModel(dir);
    std::vector<std::pair<std::string, Tensor>> float_out;
    Status s = float_bundle.ok() ? (*float_bundle)->Run(signature, feeds, &float_out) : float_bundle.status();
    if (!s.ok()) {
      std::fprintf(stderr, "saved_model_latency: the float session: %s\n", s.ToString().c_str());
      return 1;
    }
    std::vector<Tensor> mine, reference;
    for (const auto& [key, t] : out) mine.push_back(t);
    for (const auto& [key, t] : float_out) reference.push_back(t);
    if (session_options.optimizer.int8_products) {
      int64_t rows = 0;
      const int64_t same = Top1Agreement(mine, reference, &rows);
      std::printf("saved_model_latency: int8 products: largest |int8 - f32| / largest |f32| = %.2g, top-1 agreement "
                  "%lld of %lld rows\n",
                  RelativeDifference(mine, reference), static_cast<long long>(same), static_cast<long long>(rows));
    } else {
      std::printf("saved_model_latency: bfloat16 products: largest |bf16 - f32| / largest |f32| = %.2g\n",
                  RelativeDifference(mine, reference));
    }
  }
  std::sort(ms.begin(), ms.end());
  std::printf("saved_model_latency: %s batch %lld: median %.3f ms, min %.3f ms over %zu runs\n", dir.c_str(),
              static_cast<long long>(batch), ms[ms.size() / 2], ms[0], ms.size());
  return 0;
}

}  // namespace
}  // namespace tensoract

int main(int argc, char** argv) { return tensoract::Main(argc, argv); }
