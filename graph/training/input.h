// Input pipelines inside the graph, as TensorFlow 1's tf.train input functions build them
// (whitepaper 4.7; string_input_producer, batch, shuffle_batch): queues fed by enqueue ops
// that queue runners (client/queue_runner.h) run in background threads, and dequeue ops
// the model reads its batches from.
//
//   InputPipeline pipeline;
//   Output files = StringInputProducer(root, ops::StringVector({path}), {.num_epochs = 10}, &pipeline);
//   Output reader = ops::FixedLengthRecordReader(root, {.header_bytes = 16, .record_bytes = 784});
//   auto [key, value] = ops::ReaderRead(root, reader, files);
//   OutputList batch = ShuffleBatch(root, {image, label}, {.batch_size = 64, .capacity = 2000,
//                                                        .min_after_dequeue = 1000}, &pipeline);
//   ... run pipeline.local_init once, start pipeline.queue_runners, train until OutOfRange.
//
// Errors go to the scope's status, as for every builder.
#ifndef TENSORACT_GRAPH_TRAINING_INPUT_H_
#define TENSORACT_GRAPH_TRAINING_INPUT_H_

#include <string>
#include <vector>

#include "graph/builder/scope.h"
#include "graph/training/variables.h"

namespace tensoract {

// What keeps a queue filled, by node names (TensorFlow's QueueRunnerDef).
struct QueueRunnerSpec {
  std::string queue_name;
  std::vector<std::string> enqueue_op_names;  // each run again and again by a thread of its own
  std::string close_op_name;                  // run once every enqueue has hit OutOfRange
  std::string cancel_op_name;                 // run on a stop request: fails enqueues waiting
};

// What the input builders made besides their outputs.
struct InputPipeline {
  std::vector<QueueRunnerSpec> queue_runners;
  // Local state (the epoch counters) that must be initialised before the runners start;
  // never checkpointed (TensorFlow's LOCAL_VARIABLES).
  std::vector<Variable> local_variables;
};

struct StringInputProducerOptions {
  int64_t num_epochs = 0;  // 0: forever; else OutOfRange after that many passes
  bool shuffle = true;     // each pass in a new random order
  int64_t seed = 0;
  int64_t capacity = 32;
  std::string name = "input_producer";
};

// A FIFO queue of the strings of the 1-D `strings`, refilled pass after pass: the queue of
// file names a reader dequeues from.
Output StringInputProducer(const Scope& scope, const Input& strings, const StringInputProducerOptions& options,
                           InputPipeline* pipeline);

struct BatchOptions {
  int64_t batch_size = 32;
  int num_threads = 1;     // enqueue threads (each runs the enqueue op)
  int64_t capacity = 32;
  bool enqueue_many = false;  // the tensors are batches of examples already
  // One per tensor; empty: the tensors' own (which must then be fully known).
  std::vector<PartialTensorShape> shapes;
  bool dynamic_pad = false;               // pad each batch to its longest example (PaddingFIFOQueue)
  bool allow_smaller_final_batch = false;  // the last batch may be smaller (DequeueUpTo)
  std::string name = "batch";
  // shuffle_batch only: a RandomShuffleQueue keeping min_after_dequeue examples to mix.
  int64_t min_after_dequeue = 0;
  int64_t seed = 0;
};

// Batches of `tensors` in order (a FIFO queue) ...
OutputList Batch(const Scope& scope, const OutputList& tensors, const BatchOptions& options, InputPipeline* pipeline);
// ... or shuffled (a RandomShuffleQueue; options.name defaults to "shuffle_batch" there).
OutputList ShuffleBatch(const Scope& scope, const OutputList& tensors, BatchOptions options, InputPipeline* pipeline);

struct PrefetchOptions {
  int64_t capacity = 2;  // batches made ahead
  int num_threads = 1;
  std::string name = "prefetch_queue";
};

// TensorFlow 1's prefetch_queue (tf.contrib.slim): a small FIFO queue of whole batches, each
// `tensors` one element, which a runner fills while the steps run. A step's dequeue then
// hands over a batch made during the previous step instead of assembling (and converting)
// it on the step's own critical path. The outputs have the tensors' static shapes.
OutputList PrefetchQueue(const Scope& scope, const OutputList& tensors, const PrefetchOptions& options,
                         InputPipeline* pipeline);

// A NoOp that initialises the pipeline's local variables.
Node* PipelineLocalInit(const Scope& scope, const InputPipeline& pipeline);

}  // namespace tensoract

#endif  // TENSORACT_GRAPH_TRAINING_INPUT_H_
