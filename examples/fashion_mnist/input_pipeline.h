// Fashion-MNIST read inside the graph (fashion_mnist --input pipeline), as a TensorFlow 1
// program reads it, from one of two sources:
//   - Debian's gzipped IDX files through FixedLengthRecordReaders (headers skipped).
//     Images and labels live in two files read in lockstep: one enqueue op reads the same
//     number of records from each (ReaderReadUpTo, continuing into the next epoch's file),
//     so this source has one reading thread, which keeps every image with its label.
//   - a TFRecord file of tf.Examples ("image_raw": the 784 pixel bytes, "label": int64),
//     as TensorFlow writes them, through a TFRecordReader and ParseExample, two threads.
// The records are decoded, shuffled in a RandomShuffleQueue and batched, fed by queue
// runners. The model's images and labels default to the batches (examples/fashion_mnist/
// model.h), so a training step feeds nothing; the epochs end with OutOfRange.
#ifndef TENSORACT_EXAMPLES_FASHION_MNIST_INPUT_PIPELINE_H_
#define TENSORACT_EXAMPLES_FASHION_MNIST_INPUT_PIPELINE_H_

#include <string>

#include "graph/builder/scope.h"
#include "graph/training/input.h"

namespace tensoract {
namespace fashion_mnist {

struct PipelineOptions {
  std::string data_dir;  // the IDX files' directory
  std::string tfrecord;  // or a TFRecord file of tf.Examples (wins when set)
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

StatusOr<TrainingInput> BuildInputPipeline(const Scope& root, const PipelineOptions& options);

}  // namespace fashion_mnist
}  // namespace tensoract

#endif  // TENSORACT_EXAMPLES_FASHION_MNIST_INPUT_PIPELINE_H_
