#include "kernels/io/png.h"

#include <png.h>

namespace tensoract {
namespace {

uint32_t FormatFor(int channels) {
  switch (channels) {
    case 1: return PNG_FORMAT_GRAY;
    case 2: return PNG_FORMAT_GA;
    case 3: return PNG_FORMAT_RGB;
    default: return PNG_FORMAT_RGBA;
  }
}

}  // namespace

StatusOr<std::string> EncodePng(const uint8_t* pixels, int height, int width, int channels) {
  if (channels < 1 || channels > 4 || height <= 0 || width <= 0) {
    return errors::InvalidArgument("cannot encode a PNG of ", height, "x", width, " pixels with ", channels,
                                   " channels");
  }
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  image.width = static_cast<png_uint_32>(width);
  image.height = static_cast<png_uint_32>(height);
  image.format = FormatFor(channels);
  const png_int_32 stride = width * channels;
  png_alloc_size_t size = 0;
  // First the size, then the bytes.
  if (!png_image_write_to_memory(&image, nullptr, &size, 0, pixels, stride, nullptr)) {
    return errors::Internal("libpng: ", image.message);
  }
  std::string out(size, '\0');
  if (!png_image_write_to_memory(&image, out.data(), &size, 0, pixels, stride, nullptr)) {
    return errors::Internal("libpng: ", image.message);
  }
  out.resize(size);
  return out;
}

StatusOr<DecodedPng> DecodePng(const std::string& bytes) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_memory(&image, bytes.data(), bytes.size())) {
    return errors::DataLoss("not a PNG image: ", image.message);
  }
  DecodedPng out;
  // The header's size is the file's word: refuse absurd ones before allocating.
  constexpr uint64_t kMaxPixelBytes = uint64_t{1} << 30;
  if (uint64_t{image.width} * image.height * PNG_IMAGE_SAMPLE_CHANNELS(image.format) > kMaxPixelBytes) {
    png_image_free(&image);
    return errors::InvalidArgument("a PNG image of ", image.width, "x", image.height, " pixels is too large");
  }
  out.channels = PNG_IMAGE_SAMPLE_CHANNELS(image.format);
  image.format = FormatFor(out.channels);
  out.height = static_cast<int>(image.height);
  out.width = static_cast<int>(image.width);
  out.pixels.resize(PNG_IMAGE_SIZE(image));
  if (!png_image_finish_read(&image, nullptr, out.pixels.data(), 0, nullptr)) {
    png_image_free(&image);
    return errors::DataLoss("a corrupt PNG image: ", image.message);
  }
  return out;
}

}  // namespace tensoract
