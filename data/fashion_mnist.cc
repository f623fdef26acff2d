#include "data/fashion_mnist.h"

#include <cstdlib>
#include <fstream>

#include "data/idx_file.h"

namespace tensoract {
namespace {

// The gzipped name Debian installs, or the unpacked one a user may have.
std::string Existing(const std::string& base) {
  if (std::ifstream(base + ".gz").good()) return base + ".gz";
  return base;
}

}  // namespace

std::string DefaultFashionMnistDir() {
  const char* env = std::getenv("TENSORACT_FASHION_MNIST");
  return env && *env ? env : "/usr/share/datasets/fashion-mnist";
}

StatusOr<ImageDataset> LoadFashionMnist(const std::string& dir, const std::string& split) {
  if (split != "train" && split != "t10k") {
    return errors::InvalidArgument("Fashion-MNIST split '", split, "' is neither \"train\" nor \"t10k\"");
  }
  const std::string images_path = Existing(dir + "/" + split + "-images-idx3-ubyte");
  const std::string labels_path = Existing(dir + "/" + split + "-labels-idx1-ubyte");
  TA_ASSIGN_OR_RETURN(IdxArray images, ReadIdxFile(images_path));
  TA_ASSIGN_OR_RETURN(IdxArray labels, ReadIdxFile(labels_path));
  if (images.dims.size() != 3 || labels.dims.size() != 1 || images.dims[0] != labels.dims[0]) {
    return errors::InvalidArgument("Fashion-MNIST files disagree: ", images_path, " should hold [n, rows, cols] images and ",
                                   labels_path, " [n] labels, but they have ", images.dims.size(), " and ",
                                   labels.dims.size(), " dimensions and ", images.dims.empty() ? 0 : images.dims[0],
                                   " and ", labels.dims.empty() ? 0 : labels.dims[0], " entries");
  }
  for (uint8_t l : labels.values) {
    if (l > 9) return errors::DataLoss("Fashion-MNIST labels in ", labels_path, " include ", int(l), ", not a class 0..9");
  }
  ImageDataset ds;
  ds.count = images.dims[0];
  ds.rows = images.dims[1];
  ds.cols = images.dims[2];
  ds.images = std::move(images.values);
  ds.labels = std::move(labels.values);
  return ds;
}

}  // namespace tensoract
