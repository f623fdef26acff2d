// Opening a data file for the readers, plain or compressed (TensorFlow's compression_type
// and encoding attrs: "", "ZLIB" or "GZIP").
//
// A compressed file is inflated whole into memory when opened (the readers then see one
// stream either way); a plain one is read as it is consumed. Errors name the file:
// NotFound when it cannot be opened, DataLoss when its compressed data is corrupt or
// truncated, InvalidArgument for an unknown compression.
#ifndef TENSORACT_KERNELS_IO_INPUT_FILE_H_
#define TENSORACT_KERNELS_IO_INPUT_FILE_H_

#include <istream>
#include <memory>
#include <string>

#include "base/status.h"

namespace tensoract {

struct InputFile {
  std::unique_ptr<std::istream> stream;
  int64_t size = 0;  // bytes the stream holds (after inflating)
};

StatusOr<InputFile> OpenInputFile(const std::string& path, const std::string& compression);

// Checks a compression_type / encoding attr: "", "ZLIB" or "GZIP".
Status CheckCompression(const std::string& compression);

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_IO_INPUT_FILE_H_
