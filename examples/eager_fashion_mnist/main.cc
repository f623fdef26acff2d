// eager_fashion_mnist: the main job's MLP (784 -> dense 256 ReLU -> dense 10, Adam, batch
// 64) trained the TensorFlow 2 way: first eagerly, every op running as it is called and a
// GradientTape taking the gradients; then with the same step traced once into a Function
// whose graph the runtime's actors run for every batch.
//
//   eager_fashion_mnist                       # both, 10 epochs each
//   eager_fashion_mnist --mode function --epochs 2 --train-examples 12800
//
// Options: --mode eager|function|both, --epochs N, --batch-size N, --learning-rate X,
// --seed N, --threads N (0: one per core), --train-examples N (the first N training
// images), --data DIR (default
// $TENSORACT_FASHION_MNIST or Debian's /usr/share/datasets/fashion-mnist).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "client/eager_context.h"
#include "client/eager_variable.h"
#include "client/function.h"
#include "client/gradient_tape.h"
#include "data/batcher.h"
#include "data/fashion_mnist.h"
#include "graph/builder/array_ops.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/nn_ops.h"
#include "graph/builder/ops.h"
#include "graph/builder/random_ops.h"
#include "graph/training/optimizers.h"

using namespace tensoract;

namespace {

struct Flags {
  std::string mode = "both";
  int64_t epochs = 10;
  int64_t batch_size = 64;
  double learning_rate = 0.001;
  int64_t seed = 42;
  int64_t train_examples = 0;
  int threads = 0;
  std::string data = DefaultFashionMnistDir();
};

StatusOr<std::unique_ptr<EagerContext>> NewContext(const Flags& flags) {
  SessionOptions options;
  options.num_threads = flags.threads;
  return EagerContext::New(options);
}

// The model's variables and its forward pass, which works in an eager scope (the values)
// and in a Function's trace (the graph) alike.
struct Mlp {
  Variable w1, b1, w2, b2;

  std::vector<Variable> variables() const { return {w1, b1, w2, b2}; }

  Output Logits(const Scope& s, const Output& images) const {
    Output hidden = ops::Relu(s, ops::BiasAdd(s, ops::MatMul(s, images, w1.Read(s)), b1.Read(s)));
    return ops::BiasAdd(s, ops::MatMul(s, hidden, w2.Read(s)), b2.Read(s));
  }
};

// Glorot-uniform weights (Keras' default) from fixed seeds, zero biases; made eagerly.
StatusOr<Mlp> NewMlp(const Scope& s, int64_t seed) {
  auto glorot = [&](int64_t op_seed, int32_t fan_in, int32_t fan_out) {
    ops::RandomAttrs attrs;
    attrs.seed = seed;
    attrs.seed2 = op_seed;
    Output u = ops::RandomUniform(s, ops::Const(s, {fan_in, fan_out}), tensorflow::DT_FLOAT, attrs);
    const float limit = static_cast<float>(std::sqrt(6.0 / (fan_in + fan_out)));
    return ops::Sub(s, ops::Mul(s, u, 2 * limit), limit);
  };
  Mlp m;
  TA_ASSIGN_OR_RETURN(m.w1, MakeVariable(s, "dense/kernel", glorot(1, 784, 256)));
  TA_ASSIGN_OR_RETURN(m.b1, MakeVariable(s, "dense/bias", ops::Fill(s, {256}, 0.f)));
  TA_ASSIGN_OR_RETURN(m.w2, MakeVariable(s, "dense_1/kernel", glorot(2, 256, 10)));
  TA_ASSIGN_OR_RETURN(m.b2, MakeVariable(s, "dense_1/bias", ops::Fill(s, {10}, 0.f)));
  return m;
}

Output MeanLoss(const Scope& s, const Output& logits, const Output& labels) {
  return ops::Mean(s, ops::SparseSoftmaxCrossEntropyWithLogits(s, logits, labels).loss, {0});
}

Output CorrectCount(const Scope& s, const Output& logits, const Output& labels) {
  Output predicted = ops::ArgMax(s, logits, 1, tensorflow::DT_INT32);
  return ops::Sum(s, ops::Cast(s, ops::Equal(s, predicted, labels), tensorflow::DT_FLOAT), {0});
}

float ScalarOf(const Output& out) {
  auto t = ValueOf(out);
  return t.ok() ? t.value().base<float>()[0] : NAN;
}

// Test accuracy, eagerly, 1,000 images at a time.
StatusOr<double> Evaluate(const Scope& s, const Mlp& mlp, const ImageDataset& test) {
  Batcher batches(&test, {.batch_size = 1000, .shuffle = false});
  batches.StartEpoch(0);
  Tensor images, labels;
  double correct = 0;
  while (batches.Next(&images, &labels)) {
    correct += ScalarOf(CorrectCount(s, mlp.Logits(s, FromTensor(s, images)), FromTensor(s, labels)));
  }
  TA_RETURN_IF_ERROR(s.status());
  return correct / static_cast<double>(test.count);
}

// One epoch of `step` over the training batches; prints the mean loss and the rate.
template <class Step>
Status RunEpoch(const char* mode, int64_t epoch, const Flags& flags, Batcher* train, Step step, double* steps_per_s) {
  train->StartEpoch(epoch);
  Tensor images, labels;
  double loss_sum = 0;
  int64_t steps = 0;
  auto start = std::chrono::steady_clock::now();
  while (train->Next(&images, &labels)) {
    TA_ASSIGN_OR_RETURN(float loss, step(images, labels));
    loss_sum += loss;
    ++steps;
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  *steps_per_s = steps / seconds;
  std::fprintf(stderr, "%s: epoch %lld/%lld: mean loss %.4f, %.0f steps/s (%.0f examples/s)\n", mode,
               static_cast<long long>(epoch + 1), static_cast<long long>(flags.epochs), loss_sum / steps,
               *steps_per_s, *steps_per_s * flags.batch_size);
  return Status::OK();
}

Status TrainEagerly(const Flags& flags, const ImageDataset& train_set, const ImageDataset& test) {
  TA_ASSIGN_OR_RETURN(auto ctx, NewContext(flags));
  Scope s = ctx->scope();
  TA_ASSIGN_OR_RETURN(Mlp mlp, NewMlp(s, flags.seed));
  AdamOptimizer adam(flags.learning_rate);
  Batcher train(&train_set, {.batch_size = flags.batch_size, .shuffle = true, .seed = 1});
  auto step = [&](const Tensor& images, const Tensor& labels) -> StatusOr<float> {
    GradientTape tape(*ctx);  // watches the variables the forward pass reads
    Output loss = MeanLoss(s, mlp.Logits(s, FromTensor(s, images)), FromTensor(s, labels));
    TA_ASSIGN_OR_RETURN(std::vector<Output> grads, tape.Gradient(loss, mlp.variables()));
    adam.ApplyGradients(s, mlp.variables(), grads);
    TA_RETURN_IF_ERROR(s.status());
    return ScalarOf(loss);
  };
  double rate = 0;
  for (int64_t epoch = 0; epoch < flags.epochs; ++epoch) TA_RETURN_IF_ERROR(RunEpoch("eager", epoch, flags, &train, step, &rate));
  TA_ASSIGN_OR_RETURN(double accuracy, Evaluate(s, mlp, test));
  std::printf("eager_fashion_mnist eager: test accuracy %.4f after %lld epochs, %.0f steps/s\n", accuracy,
              static_cast<long long>(flags.epochs), rate);
  return Status::OK();
}

Status TrainWithFunction(const Flags& flags, const ImageDataset& train_set, const ImageDataset& test) {
  TA_ASSIGN_OR_RETURN(auto ctx, NewContext(flags));
  Scope s = ctx->scope();
  TA_ASSIGN_OR_RETURN(Mlp mlp, NewMlp(s, flags.seed));
  AdamOptimizer adam(flags.learning_rate);
  adam.Build(s, mlp.variables());  // its slots exist before the trace, which cannot make variables later
  FunctionOptions options;  // any batch size, one trace
  options.input_signature = {{tensorflow::DT_FLOAT, PartialTensorShape({-1, 784})},
                             {tensorflow::DT_INT32, PartialTensorShape({-1})}};
  Function train_step(
      *ctx, "train_step",
      [&](const Scope& g, const std::vector<FunctionArg>& args) {
        Output images = std::get<Output>(args[0]), labels = std::get<Output>(args[1]);
        Output loss = MeanLoss(g, mlp.Logits(g, images), labels);
        adam.Minimize(g, loss, mlp.variables());  // graph gradients and Adam's updates, traced
        return std::vector<Output>{loss};
      },
      options);
  Batcher train(&train_set, {.batch_size = flags.batch_size, .shuffle = true, .seed = 1});
  int64_t calls = 0;
  auto step = [&](const Tensor& images, const Tensor& labels) -> StatusOr<float> {
    TA_ASSIGN_OR_RETURN(std::vector<Output> out, train_step(s, {FromTensor(s, images), FromTensor(s, labels)}));
    ++calls;
    return ScalarOf(out[0]);
  };
  double rate = 0;
  for (int64_t epoch = 0; epoch < flags.epochs; ++epoch) {
    TA_RETURN_IF_ERROR(RunEpoch("function", epoch, flags, &train, step, &rate));
  }
  TA_ASSIGN_OR_RETURN(double accuracy, Evaluate(s, mlp, test));
  std::printf("eager_fashion_mnist function: test accuracy %.4f after %lld epochs, %.0f steps/s, "
              "traced %d time(s) for %lld calls\n",
              accuracy, static_cast<long long>(flags.epochs), rate, train_step.trace_count(),
              static_cast<long long>(calls));
  return Status::OK();
}

Status ParseFlags(int argc, char** argv, Flags* f) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (i + 1 >= argc) return errors::InvalidArgument(a, " needs a value");
    std::string v = argv[++i];
    auto number = [&](auto* out) -> Status {
      char* end = nullptr;
      double d = std::strtod(v.c_str(), &end);
      if (end == v.c_str() || *end != '\0') return errors::InvalidArgument(a, " wants a number, got '", v, "'");
      *out = static_cast<std::remove_pointer_t<decltype(out)>>(d);
      return Status::OK();
    };
    if (a == "--mode") {
      if (v != "eager" && v != "function" && v != "both") {
        return errors::InvalidArgument("unknown mode '", v, "': choose eager, function or both");
      }
      f->mode = v;
    } else if (a == "--epochs") {
      TA_RETURN_IF_ERROR(number(&f->epochs));
    } else if (a == "--batch-size") {
      TA_RETURN_IF_ERROR(number(&f->batch_size));
    } else if (a == "--learning-rate") {
      TA_RETURN_IF_ERROR(number(&f->learning_rate));
    } else if (a == "--seed") {
      TA_RETURN_IF_ERROR(number(&f->seed));
    } else if (a == "--threads") {
      TA_RETURN_IF_ERROR(number(&f->threads));
    } else if (a == "--train-examples") {
      TA_RETURN_IF_ERROR(number(&f->train_examples));
    } else if (a == "--data") {
      f->data = v;
    } else {
      return errors::InvalidArgument("unknown option ", a);
    }
  }
  if (f->epochs < 1 || f->batch_size < 1) return errors::InvalidArgument("--epochs and --batch-size must be positive");
  return Status::OK();
}

Status Main(int argc, char** argv) {
  Flags flags;
  TA_RETURN_IF_ERROR(ParseFlags(argc, argv, &flags));
  TA_ASSIGN_OR_RETURN(ImageDataset train, LoadFashionMnist(flags.data, "train"));
  TA_ASSIGN_OR_RETURN(ImageDataset test, LoadFashionMnist(flags.data, "t10k"));
  if (flags.train_examples > 0 && flags.train_examples < train.count) {
    train.count = flags.train_examples;
    train.images.resize(static_cast<size_t>(train.count) * train.rows * train.cols);
    train.labels.resize(static_cast<size_t>(train.count));
  }
  if (flags.mode != "function") TA_RETURN_IF_ERROR(TrainEagerly(flags, train, test));
  if (flags.mode != "eager") TA_RETURN_IF_ERROR(TrainWithFunction(flags, train, test));
  return Status::OK();
}

}  // namespace

int main(int argc, char** argv) {
  Status s = Main(argc, argv);
  if (!s.ok()) {
    std::fprintf(stderr, "eager_fashion_mnist: %s\n", s.ToString().c_str());
    return 2;
  }
  return 0;
}
