// PNG images through libpng (its simplified API): what ImageSummary writes into a Summary,
// and what tests read back.
#ifndef TENSORACT_KERNELS_IO_PNG_H_
#define TENSORACT_KERNELS_IO_PNG_H_

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace tensoract {

// `pixels`: height rows of width * channels bytes (1 grey, 2 grey and alpha, 3 RGB, 4 RGBA).
StatusOr<std::string> EncodePng(const uint8_t* pixels, int height, int width, int channels);

struct DecodedPng {
  int height = 0, width = 0, channels = 0;
  std::vector<uint8_t> pixels;
};
// The image with its own channels (the file's colour type); DataLoss when it is no PNG.
StatusOr<DecodedPng> DecodePng(const std::string& bytes);

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_IO_PNG_H_
