#include "kernels/io/input_file.h"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <tuple>

#include <zlib.h>
#ifdef TENSORACT_HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif

namespace tensoract {
namespace {

// Bytes from malloc, left uninitialised: a file's bytes are written over them at once, and
// zero-filling 47 MB first (std::string) costs as much again in time and page faults.
struct FreeBytes {
  void operator()(char* p) const { std::free(p); }
};
struct Bytes {
  std::unique_ptr<char, FreeBytes> data;
  size_t size = 0;
};

// Grows `b` to `size` bytes, keeping its contents; false when memory runs out.
bool Resize(Bytes* b, size_t size) {
  char* p = static_cast<char*>(std::realloc(b->data.get(), std::max<size_t>(size, 1)));
  if (p == nullptr) return false;
  b->data.release();
  b->data.reset(p);
  b->size = size;
  return true;
}

// An inflated file read as a stream in place (std::istringstream would copy it); the
// InputFile's memory holds the bytes.
class BytesBuf : public std::streambuf {
 public:
  BytesBuf(char* begin, size_t size) { setg(begin, begin, begin + size); }

 protected:
  pos_type seekoff(off_type off, std::ios_base::seekdir dir, std::ios_base::openmode which) override {
    if (!(which & std::ios_base::in)) return pos_type(off_type(-1));
    const off_type from = dir == std::ios_base::beg ? 0 : dir == std::ios_base::cur ? gptr() - eback() : egptr() - eback();
    const off_type to = from + off;
    if (to < 0 || to > egptr() - eback()) return pos_type(off_type(-1));
    setg(eback(), eback() + to, egptr());
    return pos_type(to);
  }
  pos_type seekpos(pos_type pos, std::ios_base::openmode which) override {
    return seekoff(off_type(pos), std::ios_base::beg, which);
  }
};

class BytesStream : public std::istream {
 public:
  BytesStream(char* begin, size_t size) : std::istream(nullptr), buf_(begin, size) { rdbuf(&buf_); }

 private:
  BytesBuf buf_;
};

#ifdef TENSORACT_HAVE_LIBDEFLATE
// A whole one-member gzip file in one call of libdeflate (2-3x zlib's speed): the size
// comes from the gzip trailer, trusted only up to deflate's largest ratio (1032:1). False
// when it cannot (then zlib streams it, and reports what is wrong).
bool QuickInflate(const Bytes& compressed, bool gzip, Bytes* out) {
  if (!gzip || compressed.size < 18) return false;
  const auto* tail = reinterpret_cast<const unsigned char*>(compressed.data.get() + compressed.size - 4);
  const uint64_t size = tail[0] | (tail[1] << 8) | (tail[2] << 16) | (static_cast<uint64_t>(tail[3]) << 24);
  if (size > 1032 * static_cast<uint64_t>(compressed.size)) return false;
  libdeflate_decompressor* d = libdeflate_alloc_decompressor();
  if (d == nullptr) return false;
  if (!Resize(out, size)) {
    libdeflate_free_decompressor(d);
    return false;
  }
  size_t in_used = 0, out_used = 0;
  const libdeflate_result r = libdeflate_gzip_decompress_ex(d, compressed.data.get(), compressed.size,
                                                            out->data.get(), out->size, &in_used, &out_used);
  libdeflate_free_decompressor(d);
  return r == LIBDEFLATE_SUCCESS && in_used == compressed.size && out_used == size;
}
#endif

// Inflates into `out`, whose memory (a previous file's) is reused as far as it goes.
Status Inflate(const std::string& path, const Bytes& compressed, bool gzip, Bytes* out_bytes) {
  Bytes& out = *out_bytes;
#ifdef TENSORACT_HAVE_LIBDEFLATE
  if (QuickInflate(compressed, gzip, &out)) return Status::OK();
#endif
  z_stream z{};
  // 15: the largest window; +16: a gzip header and trailer instead of zlib's.
  if (inflateInit2(&z, gzip ? 15 + 16 : 15) != Z_OK) return errors::Internal("zlib failed to start on ", path);
  z.next_in = reinterpret_cast<Bytef*>(compressed.data.get());
  z.avail_in = static_cast<uInt>(compressed.size);
  size_t used = 0;
  int rc = Z_OK;
  while (rc == Z_OK) {
    if (used == out.size && !Resize(&out, std::max<size_t>(2 * out.size, 1 << 16))) {
      inflateEnd(&z);
      return errors::ResourceExhausted(path, ": no memory to inflate it beyond ", used, " bytes");
    }
    z.next_out = reinterpret_cast<Bytef*>(out.data.get() + used);
    z.avail_out = static_cast<uInt>(std::min<size_t>(out.size - used, 1u << 30));
    const uInt room = z.avail_out;
    rc = inflate(&z, Z_NO_FLUSH);
    used += room - z.avail_out;
    if (rc == Z_BUF_ERROR && z.avail_in == 0) break;  // input ended before the stream did
  }
  const uLong consumed = z.total_in;
  inflateEnd(&z);
  if (rc != Z_STREAM_END) {
    return errors::DataLoss(path, ": its ", gzip ? "GZIP" : "ZLIB", " data is ",
                            rc == Z_BUF_ERROR ? "truncated" : "corrupt", " (after ", consumed, " compressed bytes)");
  }
  out.size = used;
  return Status::OK();
}

// Which file, in which version, a compressed file's memory was inflated from. Equal
// identities mean the same bytes: a file rewritten in place gets a new ctime (and mtime),
// one replaced by a rename a new inode.
struct FileIdentity {
  std::string path, compression;
  dev_t device = 0;
  ino_t inode = 0;
  off_t size = 0;
  int64_t mtime_ns = 0, ctime_ns = 0;
  bool operator==(const FileIdentity& o) const {
    return std::tie(path, compression, device, inode, size, mtime_ns, ctime_ns) ==
           std::tie(o.path, o.compression, o.device, o.inode, o.size, o.mtime_ns, o.ctime_ns);
  }
};

// The identity of `path` now; nullopt when it cannot be trusted to tell versions apart: a
// file changed in the last two seconds may change again within the filesystem's
// timestamp granularity without its times moving (git's "racy" files).
std::optional<FileIdentity> IdentityOf(const std::string& path, const std::string& compression) {
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  auto ns = [](const timespec& t) { return static_cast<int64_t>(t.tv_sec) * 1000000000 + t.tv_nsec; };
  const int64_t now_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                             std::chrono::system_clock::now().time_since_epoch()).count();
  const int64_t newest = std::max(ns(st.st_mtim), ns(st.st_ctim));
  if (now_ns - newest < 2000000000LL) return std::nullopt;
  return FileIdentity{path, compression, st.st_dev, st.st_ino, st.st_size, ns(st.st_mtim), ns(st.st_ctim)};
}

}  // namespace

struct InputMemory {
  Bytes compressed, inflated;
  std::optional<FileIdentity> inflated_from;  // set when `inflated` holds that file's bytes
};

namespace {

// A compressed file's bytes into `memory->compressed`, inflated into `memory->inflated`.
Status ReadAndInflate(const std::string& path, const std::string& compression, std::istream& file, int64_t size,
                      InputMemory* memory) {
  Bytes& compressed = memory->compressed;
  if (!Resize(&compressed, static_cast<size_t>(size))) {
    return errors::ResourceExhausted(path, ": no memory for its ", size, " bytes");
  }
  file.read(compressed.data.get(), size);
  if (file.gcount() != size) return errors::DataLoss(path, ": read ", file.gcount(), " of its ", size, " bytes");
  return Inflate(path, compressed, compression == "GZIP", &memory->inflated);
}

}  // namespace

Status CheckCompression(const std::string& compression) {
  if (compression.empty() || compression == "ZLIB" || compression == "GZIP") return Status::OK();
  return errors::InvalidArgument("unknown compression '", compression, "' (expected '', 'ZLIB' or 'GZIP')");
}

StatusOr<InputFile> OpenInputFile(const std::string& path, const std::string& compression, InputFile* reuse) {
  std::shared_ptr<InputMemory> memory;
  if (reuse != nullptr) {
    reuse->Close();
    memory = std::move(reuse->memory);
  }
  TA_RETURN_IF_ERROR(CheckCompression(compression));
  // Taken before the file is opened: a file replaced meanwhile is read anew next time.
  std::optional<FileIdentity> identity = compression.empty() ? std::nullopt : IdentityOf(path, compression);
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
  if (memory == nullptr) memory = std::make_shared<InputMemory>();
  // The same file again, unchanged (a reader's next epoch): its bytes are inflated already.
  if (!identity || !memory->inflated_from || !(*identity == *memory->inflated_from)) {
    memory->inflated_from.reset();
    TA_RETURN_IF_ERROR(ReadAndInflate(path, compression, *file, size, memory.get()));
    memory->inflated_from = std::move(identity);
  }
  in.size = static_cast<int64_t>(memory->inflated.size);
  in.stream = std::make_unique<BytesStream>(memory->inflated.data.get(), memory->inflated.size);
  in.memory = std::move(memory);
  return in;
}

}  // namespace tensoract
