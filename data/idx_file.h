// Reading IDX files, the format of MNIST and Fashion-MNIST: a magic number whose third
// byte is the element type and fourth the rank, the dimensions as big-endian uint32s,
// then the elements. Gzipped files (".gz", or any file starting with gzip's magic) are
// decompressed while reading.
#ifndef TENSORACT_DATA_IDX_FILE_H_
#define TENSORACT_DATA_IDX_FILE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace tensoract {

struct IdxArray {
  std::vector<int64_t> dims;
  std::vector<uint8_t> values;  // row-major
};

// Only unsigned-byte elements (type 0x08), which is what the (Fashion-)MNIST files hold.
// Errors name the file: NotFound when it cannot be opened, DataLoss when the header is
// not IDX or the file ends before its dimensions say it should.
StatusOr<IdxArray> ReadIdxFile(const std::string& path);

}  // namespace tensoract

#endif  // TENSORACT_DATA_IDX_FILE_H_
