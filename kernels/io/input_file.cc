#include "kernels/io/input_file.h"

#include <fstream>
#include <sstream>

#include <zlib.h>
#ifdef TENSORACT_HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif

namespace tensoract {
namespace {

#ifdef TENSORACT_HAVE_LIBDEFLATE
// A whole one-member gzip file in one call of libdeflate (2-3x zlib's speed): the size
// comes from the gzip trailer, trusted only up to deflate's largest ratio (1032:1). False
// when it cannot (then zlib streams it, and reports what is wrong).
bool QuickInflate(const std::string& compressed, bool gzip, std::string* out) {
  if (!gzip || compressed.size() < 18) return false;
  const auto* tail = reinterpret_cast<const unsigned char*>(compressed.data() + compressed.size() - 4);
  const uint64_t size = tail[0] | (tail[1] << 8) | (tail[2] << 16) | (static_cast<uint64_t>(tail[3]) << 24);
  if (size > 1032 * static_cast<uint64_t>(compressed.size())) return false;
  libdeflate_decompressor* d = libdeflate_alloc_decompressor();
  if (d == nullptr) return false;
  out->resize(size);
  size_t in_used = 0, out_used = 0;
  const libdeflate_result r = libdeflate_gzip_decompress_ex(d, compressed.data(), compressed.size(), out->data(),
                                                            out->size(), &in_used, &out_used);
  libdeflate_free_decompressor(d);
  return r == LIBDEFLATE_SUCCESS && in_used == compressed.size() && out_used == size;
}
#endif

StatusOr<std::string> Inflate(const std::string& path, const std::string& compressed, bool gzip) {
#ifdef TENSORACT_HAVE_LIBDEFLATE
  std::string quick;
  if (QuickInflate(compressed, gzip, &quick)) return quick;
#endif
  z_stream z{};
  // 15: the largest window; +16: a gzip header and trailer instead of zlib's.
  if (inflateInit2(&z, gzip ? 15 + 16 : 15) != Z_OK) return errors::Internal("zlib failed to start on ", path);
  std::string out;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
  z.avail_in = static_cast<uInt>(compressed.size());
  char chunk[1 << 16];
  int rc = Z_OK;
  while (rc == Z_OK) {
    z.next_out = reinterpret_cast<Bytef*>(chunk);
    z.avail_out = sizeof(chunk);
    rc = inflate(&z, Z_NO_FLUSH);
    out.append(chunk, sizeof(chunk) - z.avail_out);
    if (rc == Z_BUF_ERROR && z.avail_in == 0) break;  // input ended before the stream did
  }
  const uLong consumed = z.total_in;
  inflateEnd(&z);
  if (rc != Z_STREAM_END) {
    return errors::DataLoss(path, ": its ", gzip ? "GZIP" : "ZLIB", " data is ",
                            rc == Z_BUF_ERROR ? "truncated" : "corrupt", " (after ", consumed, " compressed bytes)");
  }
  return out;
}

}  // namespace

Status CheckCompression(const std::string& compression) {
  if (compression.empty() || compression == "ZLIB" || compression == "GZIP") return Status::OK();
  return errors::InvalidArgument("unknown compression '", compression, "' (expected '', 'ZLIB' or 'GZIP')");
}

StatusOr<InputFile> OpenInputFile(const std::string& path, const std::string& compression) {
  TA_RETURN_IF_ERROR(CheckCompression(compression));
  auto file = std::make_unique<std::ifstream>(path, std::ios::binary);
  if (!*file) return errors::NotFound(path, ": cannot open the file");
  file->seekg(0, std::ios::end);
  const int64_t size = file->tellg();
  file->seekg(0, std::ios::beg);
  InputFile in;
  if (compression.empty()) {
    in.stream = std::move(file);
    in.size = size;
    return in;
  }
  std::string compressed(static_cast<size_t>(size), '\0');
  file->read(compressed.data(), size);
  if (file->gcount() != size) return errors::DataLoss(path, ": read ", file->gcount(), " of its ", size, " bytes");
  TA_ASSIGN_OR_RETURN(std::string inflated, Inflate(path, compressed, compression == "GZIP"));
  in.size = static_cast<int64_t>(inflated.size());
  in.stream = std::make_unique<std::istringstream>(std::move(inflated));
  return in;
}

}  // namespace tensoract
