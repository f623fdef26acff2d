// The training and evaluation loops of examples/distributed_fashion_mnist: the same for
// the local baseline and every distributed mode, so the figures they print compare like
// with like. They only feed, fetch and run the names an MlpGraph gives.
//
// Blocking: every call runs session steps, each bounded by the session's step timeout.
// Thread-safety: a BatchStream belongs to one thread; Train and Evaluate may run on
// several threads at once with different streams (Session::Run is thread-safe).
#ifndef TENSORACT_EXAMPLES_DISTRIBUTED_FASHION_MNIST_RUNNER_H_
#define TENSORACT_EXAMPLES_DISTRIBUTED_FASHION_MNIST_RUNNER_H_

#include <string>
#include <utility>
#include <vector>

#include "client/session.h"
#include "data/batcher.h"
#include "examples/distributed_fashion_mnist/mlp_graphs.h"

namespace tensoract {
namespace distributed_mnist {

// The training batches of a run, epoch after epoch, in the order a Batcher with `seed`
// gives them: batch k is the same whichever loop (or replica) asks for it. Every batch
// has exactly `batch` rows (an epoch's smaller last batch is left out) so that it splits
// evenly among towers.
class BatchStream {
 public:
  BatchStream(const ImageDataset* data, int64_t batch, uint64_t seed);
  void Next(Tensor* images, Tensor* labels);
  void Skip();  // the next batch is another replica's

 private:
  Batcher batcher_;
  int64_t epoch_ = 0;
};

// What a training loop did.
struct TrainStats {
  int steps = 0;
  int64_t examples = 0;
  double seconds = 0;  // the training steps alone, without initialization or evaluation
  float last_loss = 0;
};

struct TrainOptions {
  int steps = 0;
  // This loop takes batches offset, offset + stride, ... of the stream (async replicas
  // share the stream's batches out between them; one loop alone takes every batch).
  int stride = 1, offset = 0;
  std::string label;          // prefixes the progress lines ("sync", "async replica 1")
  bool show_partitions = false;  // print where the first step's partitions ran
};

// The batch split evenly among the graph's towers, in order, as feeds; InvalidArgument
// when it does not split evenly.
StatusOr<std::vector<std::pair<std::string, Tensor>>> Feeds(const MlpGraph& graph, const Tensor& images,
                                                            const Tensor& labels);

// Runs the graph's train op for options.steps batches, printing the loss ten times.
// The first failing step's status, naming the step.
Status Train(Session& session, const MlpGraph& graph, BatchStream& stream, const TrainOptions& options,
             TrainStats* stats);

// The fraction of `test` the graph classifies right, in batches of 1000 split among the
// towers like training batches.
StatusOr<double> Evaluate(Session& session, const MlpGraph& graph, const ImageDataset& test);

}  // namespace distributed_mnist
}  // namespace tensoract

#endif  // TENSORACT_EXAMPLES_DISTRIBUTED_FASHION_MNIST_RUNNER_H_
