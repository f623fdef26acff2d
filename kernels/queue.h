// Queues as the kernels see them (whitepaper 4.6): what a queue holds, how its elements are
// checked, split and batched, and the asynchronous interface its kernels call.
//
// A queue is a resource on its device, made by the FIFOQueueV2 / RandomShuffleQueueV2 /
// PaddingFIFOQueueV2 / PriorityQueueV2 kernels. Its implementation is the runtime's queue
// actor (actors/queue_actor.h), which the worker installs on its devices as their
// QueueMaker; kernels see only QueueInterface. Every operation answers through a callback:
// at once, on the caller's thread, when it can be served now; else later, from the
// queue's thread. An enqueue into a full queue and a dequeue from an empty one wait without
// holding a thread, and a step that ends meanwhile cancels them through its
// CancellationManager.
//
// TensorFlow's semantics: after Close, enqueues fail with Cancelled and dequeues drain what
// is left, then fail with OutOfRange; a dequeue-many that cannot be served in full gives
// back what it had taken (DequeueUpTo instead returns the smaller batch).
#ifndef TENSORACT_KERNELS_QUEUE_H_
#define TENSORACT_KERNELS_QUEUE_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "base/tensor_shape.h"
#include "kernels/cancellation.h"
#include "kernels/resource_mgr.h"
#include "kernels/tensor.h"

namespace tensoract {

// A tensor per component: an element given or taken whole, or a batch of elements.
using QueueTuple = std::vector<Tensor>;

// One element in a queue: row `row` of the batch an EnqueueMany gave (each component's
// first dimension indexes the elements), or, with row < 0, the tensors an Enqueue gave.
// Elements of one batch share it: enqueuing many allocates nothing per element, and a
// dequeue-many copies each row once, into its output.
struct QueueElement {
  std::shared_ptr<const QueueTuple> tensors;
  int64_t row = -1;

  // Component i as a tensor of its own (a row is copied; a whole tensor is shared).
  Tensor Component(size_t i) const;
  // The element's shape in component i; its rank and dimension d, without making it.
  TensorShape ComponentShape(size_t i) const;
  int ComponentRank(size_t i) const;
  int64_t ComponentDim(size_t i, int d) const;
  // A priority queue's priority: component 0, an int64 scalar.
  int64_t Priority() const;
};

struct QueueSpec {
  enum class Kind { kFifo, kPaddingFifo, kRandomShuffle, kPriority };
  Kind kind = Kind::kFifo;
  std::string name;                         // the resource's name, for messages
  DataTypeVector component_types;           // a priority queue's starts with its int64 priority
  std::vector<PartialTensorShape> shapes;   // empty: any shapes; else one per component
  int64_t capacity = -1;                    // < 0: unbounded
  int64_t min_after_dequeue = 0;            // RandomShuffleQueue only
  int64_t seed = 0, seed2 = 0;              // RandomShuffleQueue only; both 0: nondeterministic

  // "FIFOQueue", "PaddingFIFOQueue", "RandomShuffleQueue" or "PriorityQueue".
  const char* KindName() const;
  // "FIFOQueue 'q'": how messages name the queue, as TensorFlow's do.
  std::string Describe() const;
  int64_t max_size() const;  // the capacity, or the largest int64 when unbounded
  // Checks one element for Enqueue (its dtypes and shapes against the queue's).
  Status ValidateElement(const QueueTuple& element) const;
  // Checks a batch for EnqueueMany (same dtypes, a common first dimension, shapes after it).
  Status ValidateBatch(const QueueTuple& batch) const;
  // An existing shared queue that a second kernel declares again must agree with it.
  Status CheckSameAs(const QueueSpec& other) const;
};

// The elements of a batch (EnqueueMany's components, split along their first dimension).
std::vector<QueueElement> SplitBatch(QueueTuple batch);
// One element given whole (Enqueue's components).
QueueElement WholeElement(QueueTuple tensors);
// An element's components as tensors of their own (a single dequeue's outputs).
QueueTuple ElementTensors(const QueueElement& element);
// Rows of a batch leave a shuffling queue in random order, and SplitBatch's elements share
// their batch, so a batch stays allocated until its last row leaves (fed 256 rows at a
// time, a queue of 10,000 held ~5x its rows' bytes). Packs the rows of every batch with
// fewer than half of its rows among `elements` into a new batch of just those rows (each
// row copied once per halving), so about twice the rows' bytes at most stay held.
void CompactElements(std::deque<QueueElement>* elements);
// A shuffling queue's elements when every component's shape is fully defined: rows of one
// tensor per component (a slab, grown by doubling up to the capacity), an element taken
// from row i leaving the last row in its place. Nothing is allocated per element, no batch
// is held by the rows left of it (CompactElements' work), and a dequeue-many gathers its
// random rows from one compact block: the Fashion-MNIST pipeline's shuffling queue had
// its 10,000 rows spread over ~100 MB of batches, and gathered them at 1 GB/s.
class RowSlab {
 public:
  // Whether `spec`'s elements can be kept so: all component shapes fully defined.
  static bool Fits(const QueueSpec& spec);
  explicit RowSlab(const QueueSpec& spec);
  int64_t size() const { return size_; }
  // Copies `element` (of the spec's shapes: validated by the caller) into the next row.
  void Push(const QueueElement& element);
  // Takes `k` <= size() elements, each from the row `pick(size)` chooses among the rows
  // left at its turn, into rows 0..k-1 of one new tuple (so that BatchElements hands that
  // tuple over as the batch, without copying it again).
  std::vector<QueueElement> Take(int64_t k, const std::function<int64_t(int64_t size)>& pick);

 private:
  void Grow();
  // Component c's shape for `rows` rows: [rows, element shape...].
  TensorShape RowsShape(size_t c, int64_t rows) const;
  std::vector<Tensor> rows_;                       // one per component, room for rows_[0].dim_size(0)
  std::vector<int64_t> row_elements_;              // elements per row, per component
  std::vector<std::vector<int64_t>> element_dims_;  // the spec's shapes
  int64_t size_ = 0, max_rows_ = 0;
};

// `elements` stacked along a new first dimension, one tensor per component; a padding
// queue's elements are first padded (zeros, empty strings) to each component's largest
// shape. With no elements: empty batches of the declared shapes. Elements that are rows
// 0..n-1, in order, of one n-row tuple (RowSlab::Take's) are that tuple, not copied.
StatusOr<QueueTuple> BatchElements(const QueueSpec& spec, const std::vector<QueueElement>& elements);

class QueueInterface : public ResourceBase {
 public:
  using DoneCallback = std::function<void(const Status&)>;
  using DequeueCallback = std::function<void(const Status&, QueueTuple)>;

  virtual const QueueSpec& spec() const = 0;
  // Adds `elements` (validated by the caller) in order, waiting for room as needed; `done`
  // runs when all are in, or with Cancelled when the queue closes with
  // cancel_pending_enqueues or `cancellation` fires first (those already in stay).
  virtual void Enqueue(std::vector<QueueElement> elements, CancellationManager* cancellation, DoneCallback done) = 0;
  // `num < 0`: one element, as is. Else `num` elements batched (BatchElements); with
  // `allow_small_batch`, fewer once the queue is closed (DequeueUpTo).
  virtual void Dequeue(int64_t num, bool allow_small_batch, CancellationManager* cancellation,
                       DequeueCallback done) = 0;
  virtual void Close(bool cancel_pending_enqueues, DoneCallback done) = 0;
  // Snapshots (another step may change them at once).
  virtual int64_t size() const = 0;
  virtual bool is_closed() const = 0;
};

// How a device makes a queue: installed by the runtime (actors/queue_actor.h) on the
// devices of a worker. Without one (a device outside a worker), queue ops fail.
using QueueMaker = std::function<StatusOr<std::shared_ptr<QueueInterface>>(const QueueSpec& spec)>;

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_QUEUE_H_
