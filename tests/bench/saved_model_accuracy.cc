// Accuracy of a classifier SavedModel in float and with products in 8-bit integers
// (GraphOptimizerOptions::int8_products), on a labelled test set: what dynamic quantization
// costs a trained network (run_int8_accuracy.sh, issue 54).
//
//   saved_model_accuracy DIR IMAGES LABELS [--batch B] [--signature KEY]
//
// IMAGES holds n examples as raw float32, each of the shape the signature's one input takes
// (its batch dimension aside); LABELS n raw uint8 class indices. The signature's first
// output of rank 2 is read as [batch, classes] scores. Prints
//   saved_model_accuracy: float32 accuracy A, int8 accuracy B, top-1 agreement C of n, largest |int8 - f32| / largest |f32| E
//   saved_model_accuracy: batch B: float32 M ms, int8 N ms a batch (medians)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "client/saved_model.h"

namespace tensoract {
namespace {

std::vector<char> ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The scores of every example, [n, classes], and each batch's time in ms.
struct Scored {
  std::vector<float> scores;
  int64_t classes = 0;
  std::vector<double> batch_ms;
};

StatusOr<Scored> Score(const std::string& dir, const std::string& signature, bool int8, const std::vector<float>& images,
                       int64_t n, int64_t batch) {
  SessionOptions options;
  options.optimizer.int8_products = int8;
  TA_ASSIGN_OR_RETURN(auto bundle, LoadSavedModel(dir, {kSavedModelTagServe}, options));
  TA_ASSIGN_OR_RETURN(const auto* sig, bundle->Signature(signature));
  if (sig->inputs().size() != 1) return errors::InvalidArgument("the signature takes ", sig->inputs().size(), " inputs, not 1");
  const auto& [key, info] = *sig->inputs().begin();
  std::vector<int64_t> example_dims;
  int64_t example = 1;
  for (int i = 1; i < info.tensor_shape().dim_size(); ++i) {
    const int64_t d = info.tensor_shape().dim(i).size();
    if (d < 0) return errors::InvalidArgument("input '", key, "' has an unknown dimension ", i);
    example_dims.push_back(d);
    example *= d;
  }
  if (static_cast<int64_t>(images.size()) != n * example) {
    return errors::InvalidArgument("IMAGES holds ", images.size(), " floats, not ", n, " examples of ", example);
  }
  Scored scored;
  for (int64_t first = 0; first < n; first += batch) {
    const int64_t b = std::min(batch, n - first);
    std::vector<int64_t> dims = {b};
    dims.insert(dims.end(), example_dims.begin(), example_dims.end());
    Tensor input(tensorflow::DT_FLOAT, TensorShape(dims));
    std::copy(images.begin() + first * example, images.begin() + (first + b) * example, input.base<float>());
    std::vector<std::pair<std::string, Tensor>> out;
    const auto start = std::chrono::steady_clock::now();
    TA_RETURN_IF_ERROR(bundle->Run(signature, {{key, input}}, &out));
    scored.batch_ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    const Tensor* scores = nullptr;
    for (const auto& [name, t] : out) {
      if (scores == nullptr && t.dtype() == tensorflow::DT_FLOAT && t.dims() == 2 && t.dim_size(0) == b) scores = &t;
    }
    if (scores == nullptr) return errors::InvalidArgument("no output of shape [batch, classes] in float");
    scored.classes = scores->dim_size(1);
    scored.scores.insert(scored.scores.end(), scores->base<float>(), scores->base<float>() + scores->NumElements());
  }
  return scored;
}

int64_t Predicted(const Scored& s, int64_t i) {
  const float* row = s.scores.data() + i * s.classes;
  return std::max_element(row, row + s.classes) - row;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

int Main(int argc, char** argv) {
  std::vector<std::string> args;
  std::string signature = kDefaultServingSignatureDefKey;
  int64_t batch = 100;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--batch" && i + 1 < argc) batch = std::atoll(argv[++i]);
    else if (std::string(argv[i]) == "--signature" && i + 1 < argc) signature = argv[++i];
    else args.push_back(argv[i]);
  }
  if (args.size() != 3 || batch < 1) {
    std::fprintf(stderr, "usage: saved_model_accuracy DIR IMAGES LABELS [--batch B] [--signature KEY]\n");
    return 2;
  }
  const std::vector<char> image_bytes = ReadAll(args[1]), labels = ReadAll(args[2]);
  const int64_t n = static_cast<int64_t>(labels.size());
  if (n == 0 || image_bytes.size() % sizeof(float) != 0) {
    std::fprintf(stderr, "saved_model_accuracy: no labels in %s, or %s is not whole floats\n", args[2].c_str(),
                 args[1].c_str());
    return 1;
  }
  std::vector<float> images(image_bytes.size() / sizeof(float));
  std::copy(image_bytes.begin(), image_bytes.end(), reinterpret_cast<char*>(images.data()));
  auto f32 = Score(args[0], signature, false, images, n, batch);
  auto int8 = f32.ok() ? Score(args[0], signature, true, images, n, batch) : f32.status();
  if (!int8.ok()) {
    std::fprintf(stderr, "saved_model_accuracy: %s\n", int8.status().ToString().c_str());
    return 1;
  }
  int64_t right_f32 = 0, right_int8 = 0, agree = 0;
  double diff = 0, scale = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t p = Predicted(*f32, i), q = Predicted(*int8, i), label = static_cast<uint8_t>(labels[i]);
    right_f32 += p == label;
    right_int8 += q == label;
    agree += p == q;
  }
  for (size_t j = 0; j < f32->scores.size(); ++j) {
    diff = std::max(diff, std::fabs(double{int8->scores[j]} - f32->scores[j]));
    scale = std::max(scale, std::fabs(double{f32->scores[j]}));
  }
  std::printf("saved_model_accuracy: float32 accuracy %.4f, int8 accuracy %.4f, top-1 agreement %lld of %lld, largest "
              "|int8 - f32| / largest |f32| %.2g\n",
              static_cast<double>(right_f32) / n, static_cast<double>(right_int8) / n, static_cast<long long>(agree),
              static_cast<long long>(n), scale > 0 ? diff / scale : diff);
  // The first batch of each pays for the primitives and the weights' layouts: left out.
  f32->batch_ms.erase(f32->batch_ms.begin());
  int8->batch_ms.erase(int8->batch_ms.begin());
  std::printf("saved_model_accuracy: batch %lld: float32 %.3f ms, int8 %.3f ms a batch (medians)\n",
              static_cast<long long>(batch), Median(f32->batch_ms), Median(int8->batch_ms));
  return 0;
}

}  // namespace
}  // namespace tensoract

int main(int argc, char** argv) { return tensoract::Main(argc, argv); }
