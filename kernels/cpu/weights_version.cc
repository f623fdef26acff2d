#include "kernels/cpu/weights_version.h"

#include <cstring>

namespace tensoract {

bool WeightsVersion::Matches(const Tensor& source, uint64_t epoch, const float* scale, int64_t channels) const {
  if (!recorded_ || epoch != epoch_ || !source_.SharesBufferWith(source) || source_.data() != source.data() ||
      source_.dtype() != source.dtype() || source_.shape() != source.shape()) {
    return false;
  }
  if (scale == nullptr) return scale_.empty();
  return static_cast<int64_t>(scale_.size()) == channels &&
         std::memcmp(scale_.data(), scale, channels * sizeof(float)) == 0;
}

void WeightsVersion::Record(const Tensor& source, uint64_t epoch, const float* scale, int64_t channels) {
  recorded_ = true;
  source_ = source;
  epoch_ = epoch;
  if (scale == nullptr) {
    scale_.clear();
  } else {
    scale_.assign(scale, scale + channels);
  }
}

}  // namespace tensoract
