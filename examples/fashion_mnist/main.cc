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
// (gpu: train on the GPU, an error where there is none; cpu, the default, hides GPUs),
// --input feed|pipeline (feed, the default: batches fed from the client; pipeline: read
// inside the graph from the IDX files by readers, shuffled in a RandomShuffleQueue and
// batched, trained under a MonitoredSession: examples/fashion_mnist/input_pipeline.h),
// --tfrecord FILE (with --input pipeline: read a TFRecord file of tf.Examples instead),
// --logdir DIR (default logs/fashion_mnist_<model>; "" for none: TensorBoard's event file
// with the graph, one traced step's run metadata, and every --summary-every N steps
// (default 100) the loss, the accuracy, histograms of the weights and three input images;
// `tensorboard --logdir logs` shows them).
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "client/file_writer.h"
#include "client/monitored_session.h"
#include "client/saver.h"
#include "client/session.h"
#include "data/batcher.h"
#include "data/fashion_mnist.h"
#include "examples/fashion_mnist/input_pipeline.h"
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
  std::string input = "feed";
  std::string tfrecord;
  std::string logdir;
  bool logdir_set = false;
  int64_t summary_every = 100;
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

// The run's event file in --logdir, starting with the graph and a START at `start_step`
// unless it is negative (no writer when --logdir is "").
StatusOr<std::unique_ptr<FileWriter>> OpenSummaries(const Flags& flags, const tensorflow::GraphDef& graph,
                                                    int64_t start_step) {
  if (flags.logdir.empty()) return std::unique_ptr<FileWriter>();
  FileWriterOptions options;
  options.flush_secs = 10;
  TA_ASSIGN_OR_RETURN(std::unique_ptr<FileWriter> writer, FileWriter::Open(flags.logdir, options));
  TA_RETURN_IF_ERROR(writer->AddGraph(graph));
  if (start_step >= 0) TA_RETURN_IF_ERROR(writer->AddSessionLog(tensorflow::SessionLog::START, start_step));
  std::fprintf(stderr, "fashion_mnist: summaries for TensorBoard in %s\n", writer->path().c_str());
  return writer;
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
    } else if (a == "--input") {
      TA_ASSIGN_OR_RETURN(f->input, value("--input"));
      if (f->input != "feed" && f->input != "pipeline") {
        return errors::InvalidArgument("--input must be feed or pipeline, not '", f->input, "'");
      }
    } else if (a == "--logdir") {
      TA_ASSIGN_OR_RETURN(f->logdir, value("--logdir"));
      f->logdir_set = true;
    } else if (a == "--summary-every") {
      TA_RETURN_IF_ERROR(number("--summary-every", &f->summary_every));
    } else if (a == "--tfrecord") {
      TA_ASSIGN_OR_RETURN(f->tfrecord, value("--tfrecord"));
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
  if (f->summary_every < 1) return errors::InvalidArgument("--summary-every must be at least 1");
  if (!f->logdir_set) f->logdir = "logs/fashion_mnist_" + f->model;
  if (!f->tfrecord.empty() && f->input != "pipeline") {
    return errors::InvalidArgument("--tfrecord needs --input pipeline");
  }
  if (f->input == "pipeline" && f->train_examples > 0) {
    return errors::InvalidArgument("--train-examples applies to --input feed (the pipeline reads the whole files)");
  }
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

// A Saver of every model variable, under `root`; none when checkpoints are off ("").
StatusOr<std::optional<Saver>> NewSaver(const Scope& root, const Model& model, const std::string& ckpt_dir) {
  if (ckpt_dir.empty()) return std::optional<Saver>();
  std::vector<Output> handles;
  for (const Variable& v : model.variables) handles.push_back(v.handle);
  // Each checkpoint's .meta names the train op and the variables, so TensorFlow's
  // import_meta_graph (or ImportMetaGraph here) can train on from it.
  SaverOptions options;
  options.collections.nodes = {{"train_op", {model.train->name()}}};
  options.collections.trainable_variables = model.weights;
  options.collections.variables = model.variables;
  TA_ASSIGN_OR_RETURN(Saver saver, Saver::New(root, handles, options));
  return std::optional<Saver>(std::move(saver));
}

// The session the flags ask for: its threads, and GPUs hidden unless --device gpu.
SessionOptions TrainingSessionOptions(const Flags& flags) {
  SessionOptions options;
  options.num_threads = flags.threads;
  if (flags.device == "cpu") options.gpu.visible_device_list = "none";
  return options;
}

// The step number of a checkpoint prefix ("dir/model.ckpt-938" -> 938); 0 when none.
int64_t StepOf(const std::string& prefix) {
  const size_t dash = prefix.rfind('-');
  return dash == std::string::npos ? 0 : std::strtoll(prefix.c_str() + dash + 1, nullptr, 10);
}

// --input pipeline: the batches come from readers and queues inside the graph; a
// MonitoredSession restores or initialises, runs the queue runners and the hooks
// (checkpoints every epoch's worth of steps and at the end, NaN loss check), and the
// input's OutOfRange after the last epoch ends training.
Status TrainFromPipeline(const Flags& flags, ModelKind kind, int64_t epochs, const std::string& ckpt_dir,
                         const ImageDataset& test) {
  constexpr int64_t kTrainExamples = 60000;
  const int64_t steps_per_epoch = (kTrainExamples + flags.batch_size - 1) / flags.batch_size;
  // Resuming: the checkpoint's step says how many epochs are done; the pipeline reads the rest.
  std::string latest;
  if (!ckpt_dir.empty() && !flags.fresh) {
    StatusOr<std::string> found = LatestCheckpoint(ckpt_dir);
    if (found.ok()) latest = *found;
  }
  const int64_t start_epoch = std::min(epochs, StepOf(latest) * flags.batch_size / kTrainExamples);
  if (!latest.empty()) {
    std::fprintf(stderr, "fashion_mnist: resuming from %s (step %lld, epoch %lld done)\n", latest.c_str(),
                 static_cast<long long>(StepOf(latest)), static_cast<long long>(start_epoch));
  }
  const bool flatten = kind == ModelKind::kMlp;
  Scope root = Scope::NewRootScope();
  fashion_mnist::PipelineOptions input_options;
  input_options.data_dir = flags.data;
  input_options.tfrecord = flags.tfrecord;
  input_options.epochs = epochs - start_epoch;
  input_options.batch_size = flags.batch_size;
  input_options.seed = flags.seed;
  input_options.flatten = flatten;
  if (input_options.epochs > 0) {
    TA_ASSIGN_OR_RETURN(fashion_mnist::TrainingInput input, fashion_mnist::BuildInputPipeline(root, input_options));
    fashion_mnist::ModelOptions model_options;
    model_options.learning_rate = flags.learning_rate;
    model_options.seed = flags.seed;
    model_options.images_source = input.images;
    model_options.labels_source = input.labels;
    TA_ASSIGN_OR_RETURN(Model model, fashion_mnist::BuildModel(root, kind, model_options));
    Node* local_init = PipelineLocalInit(root.WithOpName("local_init"), input.pipeline);
    // TensorFlow's Scaffold default: the names of the variables not initialised yet.
    Output ready = ReportUninitializedVariables(root.WithOpName("ready"), model.variables);
    TA_ASSIGN_OR_RETURN(std::optional<Saver> saver, NewSaver(root, model, ckpt_dir));
    tensorflow::GraphDef graph;
    TA_RETURN_IF_ERROR(root.ToGraphDef(&graph));
    const SessionOptions options = TrainingSessionOptions(flags);
    if (flags.device == "gpu") TA_RETURN_IF_ERROR(RequireGpu(options));
    TA_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, Session::New(options));
    TA_RETURN_IF_ERROR(session->Create(graph));

    MonitoredSessionOptions monitored;
    monitored.checkpoint_dir = latest.empty() ? "" : ckpt_dir;
    monitored.scaffold.init_op = model.init->name();
    monitored.scaffold.local_init_op = local_init->name();
    monitored.scaffold.ready_op = ready.name();
    monitored.scaffold.saver = saver ? &*saver : nullptr;
    monitored.queue_runners = input.pipeline.queue_runners;
    std::shared_ptr<CheckpointSaverHook> checkpoints;
    if (saver) {
      checkpoints = std::make_shared<CheckpointSaverHook>(ckpt_dir, &*saver, model.global_step.value.name(),
                                                          steps_per_epoch);
      monitored.hooks.push_back(checkpoints);
    }
    monitored.hooks.push_back(std::make_shared<NanTensorHook>(model.loss.name()));
    // The hook marks the START at the step it first sees.
    TA_ASSIGN_OR_RETURN(std::unique_ptr<FileWriter> summaries, OpenSummaries(flags, graph, /*start_step=*/-1));
    if (summaries) {
      monitored.hooks.push_back(std::make_shared<SummarySaverHook>(summaries.get(), model.summary.name(),
                                                                   model.global_step.value.name(), flags.summary_every));
    }
    TA_ASSIGN_OR_RETURN(std::unique_ptr<MonitoredSession> training, MonitoredSession::New(session.get(), monitored));

    const std::vector<std::string> fetches = {model.loss.name(), model.correct.name(), model.labels.name()};
    int64_t epoch = start_epoch, examples = 0, done = 0;
    double loss_sum = 0, correct = 0;
    auto bar = std::make_unique<ProgressBar>(epoch, epochs, steps_per_epoch);
    std::vector<Tensor> out;
    while (!training->ShouldStop()) {
      Status s = training->Run({}, fetches, {model.train->name()}, &out);
      if (s.code() == error::OUT_OF_RANGE) break;  // the last epoch is done
      TA_RETURN_IF_ERROR(s);
      const int64_t b = out[2].NumElements();
      loss_sum += out[0].base<float>()[0] * b;
      correct += out[1].base<float>()[0];
      examples += b;
      bar->Update(std::min(++done, steps_per_epoch), examples, loss_sum / examples, correct / examples);
      if (examples >= kTrainExamples && epoch + 1 < epochs) {  // an epoch's worth: a new bar
        examples = done = 0;
        loss_sum = correct = 0;
        bar = std::make_unique<ProgressBar>(++epoch, epochs, steps_per_epoch);
      }
    }
    // The last epoch's batches straddle the epochs' boundaries: close its bar.
    if (examples > 0 && done < steps_per_epoch) bar->Update(steps_per_epoch, examples, loss_sum / examples, correct / examples);
    TA_RETURN_IF_ERROR(training->Close());
    if (summaries) TA_RETURN_IF_ERROR(summaries->Close());
    if (checkpoints) {
      for (const std::string& path : checkpoints->saved()) std::fprintf(stderr, "fashion_mnist: saved %s\n", path.c_str());
    }
    TA_ASSIGN_OR_RETURN(double accuracy, Evaluate(session.get(), model, test, flatten));
    std::printf("fashion_mnist %s: test accuracy %.4f after %lld epochs\n", fashion_mnist::ModelName(kind), accuracy,
                static_cast<long long>(epochs));
    return Status::OK();
  }
  return errors::FailedPrecondition("fashion_mnist: all ", epochs, " epochs are done already (", latest,
                                    "); pass --fresh to start over or more --epochs");
}

Status Main(const Flags& flags) {
  TA_ASSIGN_OR_RETURN(ModelKind kind, fashion_mnist::ParseModelKind(flags.model));
  const int64_t epochs = flags.epochs >= 0 ? flags.epochs : (kind == ModelKind::kMlp ? 10 : 5);
  const std::string ckpt_dir =
      flags.checkpoint_dir_set ? flags.checkpoint_dir : std::string("checkpoints/fashion_mnist_") + flags.model;

  TA_ASSIGN_OR_RETURN(ImageDataset test, LoadFashionMnist(flags.data, "t10k"));
  if (flags.input == "pipeline") {
    std::fprintf(stderr, "fashion_mnist: %s, the training images read inside the graph from %s\n",
                 fashion_mnist::ModelName(kind), flags.tfrecord.empty() ? flags.data.c_str() : flags.tfrecord.c_str());
    return TrainFromPipeline(flags, kind, epochs, ckpt_dir, test);
  }
  TA_ASSIGN_OR_RETURN(ImageDataset train, LoadFashionMnist(flags.data, "train"));
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
  TA_ASSIGN_OR_RETURN(std::optional<Saver> saver, NewSaver(root, model, ckpt_dir));
  tensorflow::GraphDef graph;
  TA_RETURN_IF_ERROR(root.ToGraphDef(&graph));

  const SessionOptions options = TrainingSessionOptions(flags);
  TA_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, Session::New(options));
  if (flags.device == "gpu") TA_RETURN_IF_ERROR(RequireGpu(options));
  TA_RETURN_IF_ERROR(session->Create(graph));

  const bool flatten = kind == ModelKind::kMlp;
  Batcher batches(&train, {flags.batch_size, /*shuffle=*/true, static_cast<uint64_t>(flags.seed), flatten});
  int64_t start_epoch = 0, global_step = 0;
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
    global_step = step;
  } else {
    TA_RETURN_IF_ERROR(session->Run({}, {}, {model.init->name()}, nullptr));
  }
  TA_ASSIGN_OR_RETURN(std::unique_ptr<FileWriter> summaries, OpenSummaries(flags, graph, global_step));
  // One step traced for TensorBoard's graph view (compute time and memory per node), once
  // the first steps have warmed the caches.
  const int64_t traced_step = global_step + 10;

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
      const std::vector<std::pair<std::string, Tensor>> feeds = {{model.images.name(), x}, {model.labels.name(), y}};
      if (summaries && (global_step % flags.summary_every == 0 || global_step == traced_step)) {
        std::vector<std::string> with_summary = fetches;
        with_summary.push_back(model.summary.name());
        RunOptions run_options;
        RunMetadata metadata;
        if (global_step == traced_step) run_options.trace_level = RunOptions::FULL_TRACE;
        TA_RETURN_IF_ERROR(session->Run(run_options, feeds, with_summary, targets, &out, &metadata));
        TA_RETURN_IF_ERROR(summaries->AddSummary(out[2].base<std::string>()[0], global_step));
        if (global_step == traced_step) {
          TA_RETURN_IF_ERROR(summaries->AddRunMetadata(metadata, "step_" + std::to_string(global_step), global_step));
        }
      } else {
        TA_RETURN_IF_ERROR(session->Run(feeds, fetches, targets, &out));
      }
      ++global_step;
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
  if (summaries) TA_RETURN_IF_ERROR(summaries->Close());
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
