#include "data/batcher.h"

#include <algorithm>
#include <numeric>
#include <random>

namespace tensoract {

Batcher::Batcher(const ImageDataset* dataset, BatcherOptions options)
    : dataset_(dataset), options_(options), order_(dataset->count) {
  if (options_.batch_size < 1) options_.batch_size = 1;
  StartEpoch(0);
}

void Batcher::StartEpoch(int64_t epoch) {
  std::iota(order_.begin(), order_.end(), 0);
  if (options_.shuffle) {
    // mt19937_64 is specified exactly by the standard, and so is this Fisher-Yates loop
    // (std::shuffle's algorithm is not), so the order is the same on every platform.
    std::mt19937_64 rng(options_.seed * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(epoch));
    for (size_t i = order_.size(); i > 1; --i) {
      size_t j = static_cast<size_t>(rng() % i);
      std::swap(order_[i - 1], order_[j]);
    }
  }
  position_ = 0;
}

int64_t Batcher::examples_per_epoch() const {
  return options_.drop_remainder ? batches_per_epoch() * options_.batch_size : dataset_->count;
}

int64_t Batcher::batches_per_epoch() const {
  const int64_t n = dataset_->count, b = options_.batch_size;
  return options_.drop_remainder ? n / b : (n + b - 1) / b;
}

bool Batcher::Next(Tensor* images, Tensor* labels) {
  const int64_t remaining = dataset_->count - position_;
  int64_t b = std::min(options_.batch_size, remaining);
  if (b <= 0 || (options_.drop_remainder && b < options_.batch_size)) return false;
  const int64_t pixels = dataset_->rows * dataset_->cols;
  TensorShape image_shape = options_.flatten ? TensorShape({b, pixels})
                                             : TensorShape({b, dataset_->rows, dataset_->cols, 1});
  *images = Tensor(tensorflow::DT_FLOAT, image_shape);
  *labels = Tensor(tensorflow::DT_INT32, TensorShape({b}));
  float* x = images->base<float>();
  int32_t* y = labels->base<int32_t>();
  for (int64_t i = 0; i < b; ++i) {
    const int64_t k = order_[position_ + i];
    const uint8_t* src = dataset_->images.data() + k * pixels;
    for (int64_t p = 0; p < pixels; ++p) x[i * pixels + p] = src[p] * (1.0f / 255.0f);
    y[i] = dataset_->labels[k];
  }
  position_ += b;
  return true;
}

}  // namespace tensoract
