// Opening a data file for the readers, plain or compressed (TensorFlow's compression_type
// and encoding attrs: "", "ZLIB" or "GZIP").
//
// A compressed file is inflated whole into memory when opened (the readers then see one
// stream either way); a plain one is read as it is consumed. A reader passes the file it
// has finished to the next open, which reuses its memory: reading the same compressed file
// every epoch then touches no fresh pages (Fashion-MNIST's gzipped images, 26 MB read and
// 47 MB inflated, faulted in about 18,000 pages an epoch otherwise). When that file is the
// one it held, unchanged (same inode, size, mtime and ctime, and not changed in the two
// seconds before it was inflated), its inflated bytes are read again as they are: the
// page cache's service for plain files, which inflating every epoch cost a fifth of the
// Fashion-MNIST pipeline's CPU. Errors name the file:
// NotFound when it cannot be opened, DataLoss when its compressed data is corrupt or
// truncated, InvalidArgument for an unknown compression.
#ifndef TENSORACT_KERNELS_IO_INPUT_FILE_H_
#define TENSORACT_KERNELS_IO_INPUT_FILE_H_

#include <istream>
#include <memory>
#include <string>

#include "base/status.h"

namespace tensoract {

struct InputMemory;  // a compressed file's bytes, read and inflated (input_file.cc)

struct InputFile {
  std::unique_ptr<std::istream> stream;
  int64_t size = 0;  // bytes the stream holds (after inflating)
  std::shared_ptr<InputMemory> memory;  // what `stream` reads, for a compressed file

  // Closes the stream; the memory stays, for OpenInputFile to reuse.
  void Close() {
    stream.reset();
    size = 0;
  }
};

// `reuse` (optional): a file its reader is done with; it is closed, and its memory serves
// the new file.
StatusOr<InputFile> OpenInputFile(const std::string& path, const std::string& compression,
                                  InputFile* reuse = nullptr);

// Checks a compression_type / encoding attr: "", "ZLIB" or "GZIP".
Status CheckCompression(const std::string& compression);

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_IO_INPUT_FILE_H_
