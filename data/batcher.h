// Minibatches of an ImageDataset as Tensors ready to feed: float images scaled to [0, 1]
// and int32 labels, in an order reshuffled every epoch. The order depends only on the
// seed and the epoch, so a run resumed at epoch k sees the batches an uninterrupted run
// would have.
//
//   Batcher train(&dataset, {.batch_size = 64, .shuffle = true, .seed = 1});
//   train.StartEpoch(epoch);
//   Tensor x, y;
//   while (train.Next(&x, &y)) session->Run({{"images", x}, {"labels", y}}, ...);
#ifndef TENSORACT_DATA_BATCHER_H_
#define TENSORACT_DATA_BATCHER_H_

#include <cstdint>
#include <vector>

#include "data/fashion_mnist.h"
#include "kernels/tensor.h"

namespace tensoract {

struct BatcherOptions {
  int64_t batch_size = 64;
  bool shuffle = true;
  uint64_t seed = 0;
  // Images as [batch, rows * cols] (for dense layers) or [batch, rows, cols, 1] (NHWC).
  bool flatten = true;
  // Leave out the last, smaller batch of an epoch.
  bool drop_remainder = false;
};

class Batcher {
 public:
  // `dataset` must outlive the Batcher.
  Batcher(const ImageDataset* dataset, BatcherOptions options);

  // Rewinds to the start of `epoch`, in that epoch's order.
  void StartEpoch(int64_t epoch);
  // The next batch of this epoch; false once the epoch is used up.
  bool Next(Tensor* images, Tensor* labels);

  int64_t batches_per_epoch() const;
  int64_t examples_per_epoch() const;

 private:
  const ImageDataset* dataset_;
  BatcherOptions options_;
  std::vector<int32_t> order_;
  int64_t position_ = 0;
};

}  // namespace tensoract

#endif  // TENSORACT_DATA_BATCHER_H_
