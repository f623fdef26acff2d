// fashion_mnist: trains a classifier on Fashion-MNIST with the local actor runtime,
// evaluates it on the test images, saves a checkpoint every epoch and resumes from the
// latest one when started again.
//
//   fashion_mnist --model mlp --epochs 10
//   fashion_mnist --model cnn --epochs 5 --checkpoint-dir /tmp/cnn
//
// Options: --model mlp|cnn, --epochs N, --batch-size N, --learning-rate X, --threads N
// (0: one per core), --seed N, --data DIR (default $TENSORACT_FASHION_MNIST or Debian's
// /usr/share/datasets/fashion-mnist), --checkpoint-dir DIR (default
// checkpoints/fashion_mnist_<model>; "" for none), --fresh (ignore existing checkpoints),
// --train-examples N (use the first N training images, for quick runs), --device cpu|gpu
// (gpu: train on the GPU, an error where there is none; cpu, the default, hides GPUs).
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "client/saver.h"
#include "client/session.h"
#include "data/batcher.h"
#include "data/fashion_mnist.h"
#include "examples/fashion_mnist/model.h"
#include "graph/builder/ops.h"

using namespace tensoract;
using fashion_mnist::Model;
using fashion_mnist::ModelKind;

namespace {

struct Flags {
  std::string model = "mlp";
  int64_t epochs = -1;  // per model default
  int64_t batch_size = 64;
  double learning_rate = 0.001;
  int threads = 0;
  int64_t seed = 42;
  std::string data = DefaultFashionMnistDir();
  std::string checkpoint_dir;
  bool checkpoint_dir_set = false;
  bool fresh = false;
  int64_t train_examples = 0;
  std::string device = "cpu";
};

// --device gpu: fails unless this machine's worker has a GPU device (the model's nodes then
// go to it, as every node with a GPU kernel does), rather than training on the CPU.
Status RequireGpu(const SessionOptions& options) {
  Scope probe = Scope::NewRootScope();
  ops::Identity(probe.WithOpName("on_gpu").WithDevice("/device:GPU:0"), ops::Const(probe, 1.f));
  tensorflow::GraphDef def;
  TA_RETURN_IF_ERROR(probe.ToGraphDef(&def));
  TA_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, Session::New(options));
  Status s = session->Create(def);
  std::vector<Tensor> out;
  if (s.ok()) s = session->Run({}, {"on_gpu"}, {}, &out);
  if (!s.ok()) return errors::FailedPrecondition("--device gpu: this machine has no usable GPU (", s.message(), ")");
  return Status::OK();
}

Status ParseFlags(int argc, char** argv, Flags* f) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char* name) -> StatusOr<std::string> {
      if (i + 1 >= argc) return errors::InvalidArgument(name, " needs a value");
      return std::string(argv[++i]);
    };
    auto number = [&](const char* name, auto* out) -> Status {
      TA_ASSIGN_OR_RETURN(std::string v, value(name));
      char* end = nullptr;
      double d = std::strtod(v.c_str(), &end);
      if (end == v.c_str() || *end != '\0') return errors::InvalidArgument(name, " wants a number, got '", v, "'");
      *out = static_cast<std::remove_pointer_t<decltype(out)>>(d);
      return Status::OK();
    };
    if (a == "--device") {
      TA_ASSIGN_OR_RETURN(f->device, value("--device"));
      if (f->device != "cpu" && f->device != "gpu") {
        return errors::InvalidArgument("--device must be cpu or gpu, not '", f->device, "'");
      }
    } else if (a == "--model") {
      TA_ASSIGN_OR_RETURN(f->model, value("--model"));
    } else if (a == "--epochs") {
      TA_RETURN_IF_ERROR(number("--epochs", &f->epochs));
    } else if (a == "--batch-size") {
      TA_RETURN_IF_ERROR(number("--batch-size", &f->batch_size));
    } else if (a == "--learning-rate") {
      TA_RETURN_IF_ERROR(number("--learning-rate", &f->learning_rate));
    } else if (a == "--threads") {
      TA_RETURN_IF_ERROR(number("--threads", &f->threads));
    } else if (a == "--seed") {
      TA_RETURN_IF_ERROR(number("--seed", &f->seed));
    } else if (a == "--data") {
      TA_ASSIGN_OR_RETURN(f->data, value("--data"));
    } else if (a == "--checkpoint-dir") {
      TA_ASSIGN_OR_RETURN(f->checkpoint_dir, value("--checkpoint-dir"));
      f->checkpoint_dir_set = true;
    } else if (a == "--fresh") {
      f->fresh = true;
    } else if (a == "--train-examples") {
      TA_RETURN_IF_ERROR(number("--train-examples", &f->train_examples));
    } else {
      return errors::InvalidArgument("unknown option '", a, "' (see the comment at the top of examples/fashion_mnist/main.cc)");
    }
  }
  if (f->batch_size < 1) return errors::InvalidArgument("--batch-size must be at least 1");
  return Status::OK();
}

// One line, redrawn in place on a terminal; on a pipe or file a line per tenth of an epoch.
class ProgressBar {
 public:
  ProgressBar(int64_t epoch, int64_t epochs, int64_t total)
      : epoch_(epoch), epochs_(epochs), total_(total), tty_(isatty(fileno(stderr))),
        start_(std::chrono::steady_clock::now()) {}

  void Update(int64_t done, int64_t examples, double loss, double accuracy) {
    const bool last = done == total_;
    const int64_t tenth = std::max<int64_t>(1, total_ / 10);
    if (!tty_ && !last && done % tenth != 0) return;
    if (tty_ && !last && done % 5 != 0) return;
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const int width = 30;
    const int filled = static_cast<int>(width * done / std::max<int64_t>(total_, 1));
    std::string bar(filled, '=');
    if (filled < width) bar += '>' + std::string(width - filled - 1, ' ');
    std::fprintf(stderr, "%sepoch %lld/%lld [%s] %lld/%lld  loss %.4f  acc %.4f  %.0f ex/s%s", tty_ ? "\r" : "",
                 static_cast<long long>(epoch_ + 1), static_cast<long long>(epochs_), bar.c_str(),
                 static_cast<long long>(done), static_cast<long long>(total_), loss, accuracy,
                 secs > 0 ? examples / secs : 0.0, tty_ && !last ? "" : "\n");
    std::fflush(stderr);
  }

 private:
  int64_t epoch_, epochs_, total_;
  bool tty_;
  std::chrono::steady_clock::time_point start_;
};

StatusOr<double> Evaluate(Session* session, const Model& model, const ImageDataset& test, bool flatten) {
  Batcher batches(&test, {/*batch_size=*/1000, /*shuffle=*/false, /*seed=*/0, flatten});
  double correct = 0;
  Tensor x, y;
  std::vector<Tensor> out;
  while (batches.Next(&x, &y)) {
    TA_RETURN_IF_ERROR(session->Run({{model.images.name(), x}, {model.labels.name(), y}}, {model.correct.name()}, {}, &out));
    correct += out[0].base<float>()[0];
  }
  return correct / static_cast<double>(test.count);
}

Status Main(const Flags& flags) {
  TA_ASSIGN_OR_RETURN(ModelKind kind, fashion_mnist::ParseModelKind(flags.model));
  const int64_t epochs = flags.epochs >= 0 ? flags.epochs : (kind == ModelKind::kMlp ? 10 : 5);
  const std::string ckpt_dir =
      flags.checkpoint_dir_set ? flags.checkpoint_dir : std::string("checkpoints/fashion_mnist_") + flags.model;

  TA_ASSIGN_OR_RETURN(ImageDataset train, LoadFashionMnist(flags.data, "train"));
  TA_ASSIGN_OR_RETURN(ImageDataset test, LoadFashionMnist(flags.data, "t10k"));
  if (flags.train_examples > 0 && flags.train_examples < train.count) {
    train.count = flags.train_examples;
    train.images.resize(train.count * train.rows * train.cols);
    train.labels.resize(train.count);
  }
  std::fprintf(stderr, "fashion_mnist: %s, %lld training and %lld test images from %s\n",
               fashion_mnist::ModelName(kind), static_cast<long long>(train.count),
               static_cast<long long>(test.count), flags.data.c_str());

  Scope root = Scope::NewRootScope();
  fashion_mnist::ModelOptions model_options;
  model_options.learning_rate = flags.learning_rate;
  model_options.seed = flags.seed;
  TA_ASSIGN_OR_RETURN(Model model, fashion_mnist::BuildModel(root, kind, model_options));
  std::optional<Saver> saver;
  if (!ckpt_dir.empty()) {
    std::vector<Output> handles;
    for (const Variable& v : model.variables) handles.push_back(v.handle);
    TA_ASSIGN_OR_RETURN(Saver made, Saver::New(root, handles));
    saver.emplace(std::move(made));
  }
  tensorflow::GraphDef graph;
  TA_RETURN_IF_ERROR(root.ToGraphDef(&graph));

  SessionOptions options;
  options.num_threads = flags.threads;
  if (flags.device == "cpu") options.gpu.visible_device_list = "none";
  TA_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, Session::New(options));
  if (flags.device == "gpu") TA_RETURN_IF_ERROR(RequireGpu(options));
  TA_RETURN_IF_ERROR(session->Create(graph));

  const bool flatten = kind == ModelKind::kMlp;
  Batcher batches(&train, {flags.batch_size, /*shuffle=*/true, static_cast<uint64_t>(flags.seed), flatten});
  int64_t start_epoch = 0;
  std::string latest;
  if (saver && !flags.fresh) {
    StatusOr<std::string> found = LatestCheckpoint(ckpt_dir);
    if (found.ok()) latest = *found;
  }
  if (!latest.empty()) {
    TA_RETURN_IF_ERROR(saver->Restore(*session, latest));
    TA_RETURN_IF_ERROR(saver->RecoverLastCheckpoints(ckpt_dir));
    std::vector<Tensor> out;
    TA_RETURN_IF_ERROR(session->Run({}, {model.global_step.value.name()}, {}, &out));
    const int64_t step = out[0].base<int64_t>()[0];
    start_epoch = step / batches.batches_per_epoch();
    std::fprintf(stderr, "fashion_mnist: resumed from %s (step %lld, epoch %lld done)\n", latest.c_str(),
                 static_cast<long long>(step), static_cast<long long>(start_epoch));
  } else {
    TA_RETURN_IF_ERROR(session->Run({}, {}, {model.init->name()}, nullptr));
  }

  const std::vector<std::string> fetches = {model.loss.name(), model.correct.name()};
  const std::vector<std::string> targets = {model.train->name()};
  for (int64_t epoch = start_epoch; epoch < epochs; ++epoch) {
    batches.StartEpoch(epoch);
    ProgressBar bar(epoch, epochs, batches.batches_per_epoch());
    double loss_sum = 0, correct = 0;
    int64_t examples = 0, done = 0;
    Tensor x, y;
    std::vector<Tensor> out;
    while (batches.Next(&x, &y)) {
      TA_RETURN_IF_ERROR(session->Run({{model.images.name(), x}, {model.labels.name(), y}}, fetches, targets, &out));
      const int64_t b = x.dim_size(0);
      loss_sum += out[0].base<float>()[0] * b;
      correct += out[1].base<float>()[0];
      examples += b;
      bar.Update(++done, examples, loss_sum / examples, correct / examples);
    }
    if (saver) {
      std::vector<Tensor> step;
      TA_RETURN_IF_ERROR(session->Run({}, {model.global_step.value.name()}, {}, &step));
      TA_ASSIGN_OR_RETURN(std::string path,
                          saver->Save(*session, ckpt_dir + "/model.ckpt", step[0].base<int64_t>()[0]));
      std::fprintf(stderr, "fashion_mnist: saved %s\n", path.c_str());
    }
  }
  TA_ASSIGN_OR_RETURN(double accuracy, Evaluate(session.get(), model, test, flatten));
  std::printf("fashion_mnist %s: test accuracy %.4f after %lld epochs\n", fashion_mnist::ModelName(kind), accuracy,
              static_cast<long long>(epochs));
  return Status::OK();
}

}  // namespace

int main(int argc, char** argv) {
  Flags flags;
  Status s = ParseFlags(argc, argv, &flags);
  if (s.ok()) s = Main(flags);
  if (!s.ok()) {
    std::fprintf(stderr, "fashion_mnist: %s\n", s.ToString().c_str());
    return 1;
  }
  return 0;
}
