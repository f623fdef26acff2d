// GFLOP/s of each GEMM-shaped kernel of the Fashion-MNIST CNN's training step (batch 64
// by default), run directly on a CPU device of N threads, no graph: where the step's time
// goes, kernel by kernel, and what each reaches against the machine's FMA peak.
//
//   cnn_kernels [--threads N] [--batch N] [--reps N] [--cold 1]
//   cnn_kernels --real 1 [--threads N] [--batch N]
//       instead: Conv2D on the shapes of real networks (ResNet50's and MobileNetV2's layers,
//       batch 1 by default), which choose between oneDNN's kernel and ours
//       (TENSORACT_ONEDNN=0 times ours: kernels/cpu/onednn_conv.h)
//   cnn_kernels --tokens 1 [--threads N] [--batch N]
//       instead: the products of the model zoo's transformers (128 tokens) and ViT (197),
//       4 heads of depth 16, batch 32 by default: _FusedAttention, the dense layers and
//       exact GELU's Erfc
//   cnn_kernels --blocks 1 [--threads N] [--batch N]
//       instead: MobileNetV2's inverted residual blocks as the remapper fuses them
//       (_FusedConv2DWithDepthwise), batch 1 by default
// Each line: the best run's ms and GFLOP/s, and the median's ms.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "graph/op_registry.h"
#include "graph/optimizer/pointwise_depthwise_fusion.h"
#include "kernels/cpu/gemm.h"
#include "kernels/kernel_registry.h"

using namespace tensoract;

namespace {

tensorflow::AttrValue IntsA(std::vector<int64_t> v) {
  tensorflow::AttrValue a;
  for (int64_t x : v) a.mutable_list()->add_i(x);
  return a;
}
tensorflow::AttrValue StrA(const std::string& s) { tensorflow::AttrValue a; a.set_s(s); return a; }
tensorflow::AttrValue TypeA(DataType t) { tensorflow::AttrValue a; a.set_type(t); return a; }
tensorflow::AttrValue BoolA(bool b) { tensorflow::AttrValue a; a.set_b(b); return a; }

Tensor Random(std::vector<int64_t> dims) {
  static std::mt19937 rng(1);
  std::normal_distribution<float> normal(0.f, 1.f);
  Tensor t(tensorflow::DT_FLOAT, TensorShape(dims));
  for (int64_t i = 0; i < t.NumElements(); ++i) t.base<float>()[i] = normal(rng);
  return t;
}
Tensor Sizes(std::vector<int32_t> v) {
  Tensor t(tensorflow::DT_INT32, TensorShape({static_cast<int64_t>(v.size())}));
  for (size_t i = 0; i < v.size(); ++i) t.base<int32_t>()[i] = v[i];
  return t;
}

// --cold: each run starts with its operands out of the caches, as inside a training step,
// where other kernels' tensors pass through between two runs of the same kernel.
bool g_cold = false;
void EvictCaches() {
  static std::vector<float> junk(64 << 20 >> 2);
  for (size_t i = 0; i < junk.size(); i += 16) junk[i] += 1.f;
}

// Times `reps` runs of `op` on `inputs`; prints ms per run and GFLOP/s for `flops` per run.
void Time(Device* device, const std::string& label, const std::string& op, const std::vector<Tensor>& inputs,
          std::map<std::string, tensorflow::AttrValue> attrs, double flops, int reps) {
  NodeDef def;
  def.set_name(label);
  def.set_op(op);
  for (auto& [k, v] : attrs) (*def.mutable_attr())[k] = v;
  auto op_def = OpRegistry::Global()->LookUp(op);
  AddDefaultsToNodeDef(**op_def, &def);
  std::unique_ptr<OpKernel> kernel;
  Status s = CreateOpKernel(device, def, **op_def, &kernel);
  if (!s.ok()) {
    std::fprintf(stderr, "%s: %s\n", label.c_str(), s.ToString().c_str());
    std::exit(1);
  }
  auto run = [&] {
    OpKernelContext::Params params;
    params.device = device;
    params.kernel = kernel.get();
    params.inputs = &inputs;
    OpKernelContext ctx(params);
    kernel->Compute(&ctx);
    if (!ctx.status().ok()) {
      std::fprintf(stderr, "%s: %s\n", label.c_str(), ctx.status().ToString().c_str());
      std::exit(1);
    }
  };
  run();
  std::vector<double> times;
  for (int r = 0; r < reps; ++r) {
    if (g_cold) EvictCaches();
    auto start = std::chrono::steady_clock::now();
    run();
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  const double best = times.front(), median = times[times.size() / 2];
  std::printf("%-34s %8.2f ms %7.1f GFLOP/s (median %.2f ms)\n", label.c_str(), best * 1e3, flops / best * 1e-9,
              median * 1e3);
}

// Conv2D of real networks' layers: [side, side, in] * [k, k, in, out], stride s, SAME.
void RealConvolutions(int threads, int64_t b, int reps) {
  Device device("/job:localhost/replica:0/task:0/device:CPU:0", DEVICE_CPU, threads);
  std::printf("Real networks' Conv2D (%s), batch %lld, %d thread(s), best of %d\n", gemm::KernelIsa(),
              static_cast<long long>(b), threads, reps);
  struct Layer {
    const char* name;
    int64_t side, in, k, out, stride;
  };
  const Layer layers[] = {
      {"resnet stem 7x7/2", 224, 3, 7, 64, 2},    {"resnet 1x1 56 64->64", 56, 64, 1, 64, 1},
      {"resnet 3x3 56 64->64", 56, 64, 3, 64, 1}, {"resnet 1x1 56 64->256", 56, 64, 1, 256, 1},
      {"resnet 1x1 56 256->64", 56, 256, 1, 64, 1}, {"resnet 1x1/2 56 256->128", 56, 256, 1, 128, 2},
      {"resnet 3x3 28 128->128", 28, 128, 3, 128, 1}, {"resnet 1x1 28 512->128", 28, 512, 1, 128, 1},
      {"resnet 3x3 14 256->256", 14, 256, 3, 256, 1}, {"resnet 1x1 14 1024->256", 14, 1024, 1, 256, 1},
      {"resnet 1x1 14 256->1024", 14, 256, 1, 1024, 1}, {"resnet 3x3 7 512->512", 7, 512, 3, 512, 1},
      {"resnet 1x1 7 2048->512", 7, 2048, 1, 512, 1}, {"mobilenet 3x3/2 224 3->32", 224, 3, 3, 32, 2},
      {"mobilenet 1x1 112 32->16", 112, 32, 1, 16, 1}, {"mobilenet 1x1 56 24->144", 56, 24, 1, 144, 1},
      {"mobilenet 1x1 14 64->384", 14, 64, 1, 384, 1}, {"mobilenet 1x1 7 320->1280", 7, 320, 1, 1280, 1},
      {"fashion conv2 5x5 14 32->64", 14, 32, 5, 64, 1}};
  for (const Layer& l : layers) {
    const int64_t out_side = (l.side + l.stride - 1) / l.stride;
    const double flops = 2.0 * b * out_side * out_side * l.out * l.k * l.k * l.in;
    const std::map<std::string, tensorflow::AttrValue> attrs = {{"T", TypeA(tensorflow::DT_FLOAT)},
                                                                {"strides", IntsA({1, l.stride, l.stride, 1})},
                                                                {"padding", StrA("SAME")}};
    Time(&device, l.name, "Conv2D", {Random({b, l.side, l.side, l.in}), Random({l.k, l.k, l.in, l.out})}, attrs,
         flops, reps);
  }
}

// The kernels of a transformer encoder block on [b, tokens, 64] (4 heads of 16, MLP 128).
void TokenProducts(int threads, int64_t b, int reps) {
  Device device("/job:localhost/replica:0/task:0/device:CPU:0", DEVICE_CPU, threads);
  std::printf("Transformer products (%s), batch %lld, %d thread(s), best of %d\n", gemm::KernelIsa(),
              static_cast<long long>(b), threads, reps);
  for (int64_t t : {int64_t{128}, int64_t{197}}) {
    const std::string at = " t" + std::to_string(t);
    const int64_t heads = 4, h = 16, d = heads * h;
    const double attention_flops = 2.0 * 2 * b * heads * t * t * h;
    Time(&device, "_FusedAttention" + at, "_FusedAttention",
         {Random({b, t, heads, h}), Random({b, t, heads, h}), Random({b, t, heads, h})},
         {{"T", TypeA(tensorflow::DT_FLOAT)}, {"scale", [] { tensorflow::AttrValue a; a.set_f(0.25f); return a; }()}},
         attention_flops, reps);
    auto mm = std::map<std::string, tensorflow::AttrValue>{{"T", TypeA(tensorflow::DT_FLOAT)}};
    Time(&device, "MatMul projection 64->64" + at, "MatMul", {Random({b * t, d}), Random({d, d})}, mm,
         2.0 * b * t * d * d, reps);
    Time(&device, "MatMul mlp 64->128" + at, "MatMul", {Random({b * t, d}), Random({d, 2 * d})}, mm,
         2.0 * b * t * d * 2 * d, reps);
    Time(&device, "MatMul mlp 128->64" + at, "MatMul", {Random({b * t, 2 * d}), Random({2 * d, d})}, mm,
         2.0 * b * t * d * 2 * d, reps);
    // Exact GELU's erfc over the MLP's hidden layer (its column: billions of elements a second).
    Time(&device, "Erfc [b*t, 128], Gelem/s" + at, "Erfc", {Random({b * t, 2 * d})}, mm, 1.0 * b * t * 2 * d, reps);
  }
}


// MobileNetV2's inverted residual blocks as the remapper fuses them
// (_FusedConv2DWithDepthwise: 1x1 expansion, 3x3 depthwise, 1x1 projection, each with its
// batch norm folded in as ChannelMul and BiasAdd, Relu6 after the first two, the block's
// input added where the shapes allow).
void InvertedResiduals(int threads, int64_t b, int reps) {
  Device device("/job:localhost/replica:0/task:0/device:CPU:0", DEVICE_CPU, threads);
  std::printf("MobileNetV2 blocks fused (%s), batch %lld, %d thread(s), best of %d\n", gemm::KernelIsa(),
              static_cast<long long>(b), threads, reps);
  struct Block {
    const char* name;
    int64_t side, in, expanded, stride, out;
  };
  const Block blocks[] = {{"block_1 112 16->96/2->24", 112, 16, 96, 2, 24},
                          {"block_2 56 24->144->24 +", 56, 24, 144, 1, 24},
                          {"block_3 56 24->144/2->32", 56, 24, 144, 2, 32},
                          {"block_4 28 32->192->32 +", 28, 32, 192, 1, 32},
                          {"block_7 14 64->384->64 +", 14, 64, 384, 1, 64},
                          {"block_14 7 160->960->160 +", 7, 160, 960, 1, 160}};
  auto list = [](std::vector<std::string> v) {
    tensorflow::AttrValue a;
    for (auto& s : v) a.mutable_list()->add_s(s);
    return a;
  };
  auto int_attr = [](int64_t i) { tensorflow::AttrValue a; a.set_i(i); return a; };
  auto types = [](int n) {
    tensorflow::AttrValue a;
    for (int i = 0; i < n; ++i) a.mutable_list()->add_type(tensorflow::DT_FLOAT);
    return a;
  };
  for (const Block& k : blocks) {
    const bool residual = k.stride == 1 && k.in == k.out;
    const int64_t out_side = (k.side + k.stride - 1) / k.stride;
    std::map<std::string, tensorflow::AttrValue> attrs = {
        {"T", TypeA(tensorflow::DT_FLOAT)}, {"num_pointwise_args", int_attr(2)},
        {"num_depthwise_args", int_attr(2)}, {"num_project_inputs", int_attr(residual ? 4 : 3)}};
    // Each convolution's attrs, defaults filled in, under its prefix.
    auto part = [&](const std::string& prefix, const std::string& op, int64_t stride, tensorflow::AttrValue fused,
                    int args, bool targs) {
      NodeDef def;
      def.set_op(op);
      auto& a = *def.mutable_attr();
      a["T"] = TypeA(tensorflow::DT_FLOAT);
      a["strides"] = IntsA({1, stride, stride, 1});
      a["padding"] = StrA("SAME");
      a["fused_ops"] = fused;
      a["num_args"] = int_attr(args);
      if (targs) a["TArgs"] = types(args);
      AddDefaultsToNodeDef(**OpRegistry::Global()->LookUp(op), &def);
      for (const auto& [name, value] : def.attr()) attrs[prefix + name] = value;
    };
    part(kPointwiseAttrPrefix, "_FusedConv2D", 1, list({"ChannelMul", "BiasAdd", "Relu6"}), 2, true);
    part(kDepthwiseAttrPrefix, "_FusedDepthwiseConv2dNative", k.stride, list({"ChannelMul", "BiasAdd", "Relu6"}), 2,
         false);
    part(kProjectAttrPrefix, "_FusedConv2D", 1,
         residual ? list({"ChannelMul", "BiasAdd", "Add"}) : list({"ChannelMul", "BiasAdd"}), residual ? 3 : 2, true);
    std::vector<Tensor> inputs = {Random({b, k.side, k.side, k.in}), Random({1, 1, k.in, k.expanded}),
                                  Random({k.expanded}), Random({k.expanded}), Random({3, 3, k.expanded, 1}),
                                  Random({k.expanded}), Random({k.expanded}), Random({1, 1, k.expanded, k.out}),
                                  Random({k.out}), Random({k.out})};
    if (residual) inputs.push_back(inputs[0]);
    const double flops = 2.0 * b *
                         (k.side * k.side * k.in * k.expanded +
                          out_side * out_side * k.expanded * (9 + k.out));
    Time(&device, k.name, "_FusedConv2DWithDepthwise", inputs, attrs, flops, reps);
  }
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 1, reps = 10;
  int64_t b = -1;  // -1: each mode's own default
  bool real = false, tokens = false, blocks = false;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--threads") threads = std::atoi(argv[i + 1]);
    else if (a == "--batch") b = std::atoll(argv[i + 1]);
    else if (a == "--reps") reps = std::atoi(argv[i + 1]);
    else if (a == "--cold") g_cold = std::atoi(argv[i + 1]) != 0;
    else if (a == "--real") real = std::atoi(argv[i + 1]) != 0;
    else if (a == "--tokens") tokens = std::atoi(argv[i + 1]) != 0;
    else if (a == "--blocks") blocks = std::atoi(argv[i + 1]) != 0;
  }
  if (blocks) {
    InvertedResiduals(threads, b > 0 ? b : 1, reps);
    return 0;
  }
  if (tokens) {
    TokenProducts(threads, b > 0 ? b : 32, reps);
    return 0;
  }
  if (real) {
    RealConvolutions(threads, b > 0 ? b : 1, reps);
    return 0;
  }
  if (b <= 0) b = 64;
  Device device("/job:localhost/replica:0/task:0/device:CPU:0", DEVICE_CPU, threads);
  std::printf("CNN kernels (%s), batch %lld, %d thread(s), best of %d%s\n", gemm::KernelIsa(),
              static_cast<long long>(b), threads, reps, g_cold ? ", caches evicted before each run" : "");
  const std::map<std::string, tensorflow::AttrValue> conv = {
      {"T", TypeA(tensorflow::DT_FLOAT)}, {"strides", IntsA({1, 1, 1, 1})}, {"padding", StrA("SAME")}};
  // conv1: [b,28,28,1] * [5,5,1,32]; conv2: [b,14,14,32] * [5,5,32,64].
  const double f1 = 2.0 * b * 28 * 28 * 32 * 25, f2 = 2.0 * b * 14 * 14 * 64 * 25 * 32;
  Time(&device, "conv1 Conv2D", "Conv2D", {Random({b, 28, 28, 1}), Random({5, 5, 1, 32})}, conv, f1, reps);
  Time(&device, "conv1 Conv2DBackpropFilter", "Conv2DBackpropFilter",
       {Random({b, 28, 28, 1}), Sizes({5, 5, 1, 32}), Random({b, 28, 28, 32})}, conv, f1, reps);
  Time(&device, "conv2 Conv2D", "Conv2D", {Random({b, 14, 14, 32}), Random({5, 5, 32, 64})}, conv, f2, reps);
  Time(&device, "conv2 Conv2DBackpropInput", "Conv2DBackpropInput",
       {Sizes({int32_t(b), 14, 14, 32}), Random({5, 5, 32, 64}), Random({b, 14, 14, 64})}, conv, f2, reps);
  Time(&device, "conv2 Conv2DBackpropFilter", "Conv2DBackpropFilter",
       {Random({b, 14, 14, 32}), Sizes({5, 5, 32, 64}), Random({b, 14, 14, 64})}, conv, f2, reps);
  // dense1: [b,3136] x [3136,1024]: forward, weight gradient (x^T dy), input gradient (dy W^T).
  const double fd = 2.0 * b * 3136 * 1024;
  auto mm = [](bool ta, bool tb) {
    return std::map<std::string, tensorflow::AttrValue>{
        {"T", TypeA(tensorflow::DT_FLOAT)}, {"transpose_a", BoolA(ta)}, {"transpose_b", BoolA(tb)}};
  };
  Time(&device, "dense1 MatMul", "MatMul", {Random({b, 3136}), Random({3136, 1024})}, mm(false, false), fd, reps);
  Time(&device, "dense1 MatMul x^T dy", "MatMul", {Random({b, 3136}), Random({b, 1024})}, mm(true, false), fd, reps);
  Time(&device, "dense1 MatMul dy W^T", "MatMul", {Random({b, 1024}), Random({3136, 1024})}, mm(false, true), fd,
       reps);
  // The element-wise kernels around conv1's output [b,28,28,32] (GB/s of tensor bytes
  // read and written, printed in the GFLOP/s column as GB/s).
  const int64_t e = b * 28 * 28 * 32;
  const double bytes = 4.0 * e;
  const std::map<std::string, tensorflow::AttrValue> f32 = {{"T", TypeA(tensorflow::DT_FLOAT)}};
  const Tensor act = Random({b, 28, 28, 32});
  Time(&device, "conv1 BiasAdd (GB/s)", "BiasAdd", {act, Random({32})}, f32, 2 * bytes, reps);
  Time(&device, "conv1 Relu (GB/s)", "Relu", {act}, f32, 2 * bytes, reps);
  Time(&device, "conv1 ReluGrad (GB/s)", "ReluGrad", {act, act}, f32, 3 * bytes, reps);
  Time(&device, "conv1 BiasAddGrad (GB/s)", "BiasAddGrad", {act}, f32, bytes, reps);
  const std::map<std::string, tensorflow::AttrValue> pool = {{"T", TypeA(tensorflow::DT_FLOAT)},
                                                             {"ksize", IntsA({1, 2, 2, 1})},
                                                             {"strides", IntsA({1, 2, 2, 1})},
                                                             {"padding", StrA("SAME")}};
  Time(&device, "conv1 MaxPool (GB/s)", "MaxPool", {act}, pool, 1.25 * bytes, reps);
  const Tensor pooled = Random({b, 14, 14, 32});
  Time(&device, "conv1 MaxPoolGrad (GB/s)", "MaxPoolGrad", {act, pooled, pooled}, pool, 2.5 * bytes, reps);
  // What the remapper makes of MaxPoolGrad -> ReluGrad: the same bytes as MaxPoolGrad alone.
  Time(&device, "conv1 MaxPoolGrad+ReluGrad (GB/s)", "_MaxPoolGradWithReluGrad", {act, pooled, pooled}, pool,
       2.5 * bytes, reps);
  return 0;
}
