#include "graph/training/input.h"

#include "graph/builder/attr_util.h"
#include "graph/builder/data_flow_ops.h"
#include "graph/builder/ops.h"
#include "graph/builder/random_ops.h"

namespace tensoract {
namespace {

// The queue runner of `queue`: `num_threads` copies of `enqueue`, closing on the way out.
QueueRunnerSpec RunnerFor(const Scope& scope, const Output& queue, Node* enqueue, int num_threads) {
  QueueRunnerSpec spec;
  spec.queue_name = queue.node->name();
  for (int i = 0; i < num_threads; ++i) spec.enqueue_op_names.push_back(enqueue->name());
  Node* close = ops::QueueClose(scope.WithOpName(spec.queue_name + "_Close"), queue);
  Node* cancel = ops::QueueClose(scope.WithOpName(spec.queue_name + "_Close_1"), queue, true);
  if (close == nullptr || cancel == nullptr) return spec;
  spec.close_op_name = close->name();
  spec.cancel_op_name = cancel->name();
  return spec;
}

OutputList BuildBatch(const Scope& root, const OutputList& tensors, const BatchOptions& options, bool shuffle,
                      InputPipeline* pipeline) {
  Scope scope = root.NewSubScope(options.name);
  if (tensors.empty()) {
    scope.UpdateStatus(errors::InvalidArgument(options.name, ": nothing to batch"));
    return {};
  }
  DataTypeVector types;
  std::vector<PartialTensorShape> shapes = options.shapes;
  for (size_t i = 0; i < tensors.size(); ++i) {
    types.push_back(tensors[i].type());
    if (options.shapes.empty()) {
      PartialTensorShape shape = tensors[i].shape();
      if (options.enqueue_many && !shape.unknown_rank() && shape.dims() > 0) {
        std::vector<int64_t> dims;
        for (int d = 1; d < shape.dims(); ++d) dims.push_back(shape.dim_size(d));
        shape = PartialTensorShape(dims);
      }
      if (!options.dynamic_pad && !shape.IsFullyDefined()) {
        scope.UpdateStatus(errors::InvalidArgument(options.name, ": tensor ", i, " has shape ", shape.DebugString(),
                                                   "; all shapes must be fully defined (or pass shapes, or dynamic_pad)"));
        return {};
      }
      shapes.push_back(shape);
    }
  }
  if (shapes.size() != tensors.size()) {
    scope.UpdateStatus(errors::InvalidArgument(options.name, ": ", shapes.size(), " shapes for ", tensors.size(), " tensors"));
    return {};
  }
  ops::QueueAttrs attrs;
  attrs.shapes = shapes;
  attrs.capacity = options.capacity;
  Output queue;
  if (shuffle) {
    attrs.min_after_dequeue = options.min_after_dequeue;
    attrs.seed = options.seed;
    queue = ops::RandomShuffleQueue(scope.WithOpName("random_shuffle_queue"), types, attrs);
  } else if (options.dynamic_pad) {
    queue = ops::PaddingFIFOQueue(scope.WithOpName("padding_fifo_queue"), types, attrs);
  } else {
    queue = ops::FIFOQueue(scope.WithOpName("fifo_queue"), types, attrs);
  }
  if (!scope.ok()) return {};
  InputList components(tensors);
  Node* enqueue = options.enqueue_many ? ops::QueueEnqueueMany(scope, queue, components)
                                       : ops::QueueEnqueue(scope, queue, components);
  if (enqueue == nullptr) return {};
  pipeline->queue_runners.push_back(RunnerFor(scope, queue, enqueue, std::max(options.num_threads, 1)));
  Output n = ops::Const(scope.WithOpName("n"), static_cast<int32_t>(options.batch_size));
  return options.allow_smaller_final_batch ? ops::QueueDequeueUpTo(scope, queue, n, types, shapes)
                                           : ops::QueueDequeueMany(scope, queue, n, types, shapes);
}

}  // namespace

Output StringInputProducer(const Scope& root, const Input& strings, const StringInputProducerOptions& options,
                           InputPipeline* pipeline) {
  Scope scope = root.NewSubScope(options.name);
  Output input = ops::Identity(scope, strings);
  if (options.num_epochs > 0) {
    // limit_epochs: each pass counts up an epoch counter first; past num_epochs it fails
    // with OutOfRange, which ends the runner and closes the queue.
    Scope limit = scope.NewSubScope("limit_epochs");
    Variable epochs = NewVariable(limit, "epochs", ops::Const(limit, int64_t{0}));
    if (!scope.ok()) return Output();
    pipeline->local_variables.push_back(epochs);
    Node* count = limit.AddOp("ResourceCountUpTo", "CountUpTo", {epochs.handle},
                              {{"limit", ops::IntAttr(options.num_epochs)}, {"T", ops::TypeAttr(tensorflow::DT_INT64)}});
    if (count == nullptr) return Output();
    input = ops::Identity(limit.WithControlDependencies({Output(count, 0)}), input);
  }
  if (options.shuffle) {
    ops::RandomAttrs seeds;
    seeds.seed = options.seed;
    input = ops::RandomShuffle(scope, input, seeds);
  }
  ops::QueueAttrs attrs;
  attrs.shapes = {PartialTensorShape(std::vector<int64_t>{})};
  attrs.capacity = options.capacity;
  Output queue = ops::FIFOQueue(scope.WithOpName("input_producer"), {tensorflow::DT_STRING}, attrs);
  if (!scope.ok()) return Output();
  Node* enqueue = ops::QueueEnqueueMany(scope, queue, {input});
  if (enqueue == nullptr) return Output();
  pipeline->queue_runners.push_back(RunnerFor(scope, queue, enqueue, 1));
  return queue;
}

OutputList Batch(const Scope& scope, const OutputList& tensors, const BatchOptions& options, InputPipeline* pipeline) {
  return BuildBatch(scope, tensors, options, /*shuffle=*/false, pipeline);
}

OutputList ShuffleBatch(const Scope& scope, const OutputList& tensors, BatchOptions options, InputPipeline* pipeline) {
  if (options.name == "batch") options.name = "shuffle_batch";
  return BuildBatch(scope, tensors, options, /*shuffle=*/true, pipeline);
}

OutputList PrefetchQueue(const Scope& root, const OutputList& tensors, const PrefetchOptions& options,
                         InputPipeline* pipeline) {
  Scope scope = root.NewSubScope(options.name);
  if (tensors.empty()) {
    scope.UpdateStatus(errors::InvalidArgument(options.name, ": nothing to prefetch"));
    return {};
  }
  DataTypeVector types;
  std::vector<PartialTensorShape> shapes;
  for (const Output& t : tensors) {
    types.push_back(t.type());
    shapes.push_back(t.shape());
  }
  ops::QueueAttrs attrs;  // no shapes: a final batch may be smaller
  attrs.capacity = options.capacity;
  Output queue = ops::FIFOQueue(scope.WithOpName("fifo_queue"), types, attrs);
  if (!scope.ok()) return {};
  Node* enqueue = ops::QueueEnqueue(scope, queue, InputList(tensors));
  if (enqueue == nullptr) return {};
  pipeline->queue_runners.push_back(RunnerFor(scope, queue, enqueue, std::max(options.num_threads, 1)));
  // The queue keeps no shapes; the outputs have the tensors' (TensorFlow's set_shape).
  return ops::QueueDequeue(scope, queue, types, shapes);
}

Node* PipelineLocalInit(const Scope& scope, const InputPipeline& pipeline) {
  return GroupInitializers(scope, pipeline.local_variables);
}

}  // namespace tensoract
