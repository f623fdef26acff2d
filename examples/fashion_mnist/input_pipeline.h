// Fashion-MNIST read inside the graph (fashion_mnist --input pipeline), as a TensorFlow 1
// program reads it: the gzipped IDX files through FixedLengthRecordReaders (header skipped),
// decoded, shuffled in a RandomShuffleQueue and batched, fed by a queue runner. The model's
// images and labels default to the batches (examples/fashion_mnist/model.h), so a training
// step feeds nothing; the epochs end with OutOfRange.
//
// Images and labels live in two files read in lockstep: one enqueue op reads the same
// number of records from each (ReaderReadUpTo, continuing into the next epoch's file), so
// the pipeline has one reading thread, which keeps every image with its label.
#ifndef TENSORACT_EXAMPLES_FASHION_MNIST_INPUT_PIPELINE_H_
#define TENSORACT_EXAMPLES_FASHION_MNIST_INPUT_PIPELINE_H_

#include <string>

#include "graph/builder/scope.h"
#include "graph/training/input.h"

namespace tensoract {
namespace fashion_mnist {

struct PipelineOptions {
  std::string data_dir;
  int64_t epochs = 1;
  int64_t batch_size = 64;
  int64_t seed = 42;
  bool flatten = true;            // images [784] (mlp) or [28, 28, 1] (cnn)
  int64_t read_batch = 256;       // records per read (and per enqueue-many)
  int64_t capacity = 20000;       // the shuffling queue's
  int64_t min_after_dequeue = 10000;
};

struct TrainingInput {
  Output images, labels;  // one batch each time they run
  InputPipeline pipeline;
};

StatusOr<TrainingInput> BuildIdxPipeline(const Scope& root, const PipelineOptions& options);

}  // namespace fashion_mnist
}  // namespace tensoract

#endif  // TENSORACT_EXAMPLES_FASHION_MNIST_INPUT_PIPELINE_H_
