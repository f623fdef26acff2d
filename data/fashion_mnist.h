// Fashion-MNIST (and MNIST, same files): 28x28 grey images of 10 classes, 60,000 for
// training and 10,000 for testing, as Debian's dataset-fashion-mnist installs them.
#ifndef TENSORACT_DATA_FASHION_MNIST_H_
#define TENSORACT_DATA_FASHION_MNIST_H_

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace tensoract {

struct ImageDataset {
  int64_t count = 0, rows = 0, cols = 0;
  std::vector<uint8_t> images;  // count * rows * cols pixels, 0..255
  std::vector<uint8_t> labels;  // count class ids
};

// $TENSORACT_FASHION_MNIST if set, else /usr/share/datasets/fashion-mnist.
std::string DefaultFashionMnistDir();

// `split` is "train" or "t10k": reads <dir>/<split>-images-idx3-ubyte(.gz) and the labels,
// and checks that they agree (InvalidArgument naming both files otherwise).
StatusOr<ImageDataset> LoadFashionMnist(const std::string& dir, const std::string& split);

}  // namespace tensoract

#endif  // TENSORACT_DATA_FASHION_MNIST_H_
