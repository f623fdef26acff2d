#include "data/idx_file.h"

#include <zlib.h>

#include <memory>

namespace tensoract {
namespace {

// gzread reads plain files unchanged, so one path serves both.
struct GzCloser {
  void operator()(gzFile f) const { gzclose(f); }
};

Status ReadExactly(gzFile f, void* out, size_t n, const std::string& path, const char* what) {
  size_t done = 0;
  while (done < n) {
    unsigned chunk = static_cast<unsigned>(std::min<size_t>(n - done, 1u << 30));
    int got = gzread(f, static_cast<char*>(out) + done, chunk);
    if (got < 0) {
      int err = 0;
      const char* msg = gzerror(f, &err);
      return errors::DataLoss("IDX file ", path, ": reading ", what, " failed: ", msg);
    }
    if (got == 0) {
      return errors::DataLoss("IDX file ", path, " ends after ", done, " of the ", n, " bytes of its ", what);
    }
    done += static_cast<size_t>(got);
  }
  return Status::OK();
}

}  // namespace

StatusOr<IdxArray> ReadIdxFile(const std::string& path) {
  std::unique_ptr<gzFile_s, GzCloser> f(gzopen(path.c_str(), "rb"));
  if (!f) return errors::NotFound("IDX file ", path, " cannot be opened");
  gzbuffer(f.get(), 1 << 20);
  unsigned char magic[4];
  TA_RETURN_IF_ERROR(ReadExactly(f.get(), magic, 4, path, "header"));
  if (magic[0] != 0 || magic[1] != 0) {
    return errors::DataLoss("IDX file ", path, " does not start with an IDX magic number (00 00 type rank)");
  }
  if (magic[2] != 0x08) {
    return errors::Unimplemented("IDX file ", path, " holds element type ", int(magic[2]),
                                 "; only unsigned bytes (8) are supported");
  }
  IdxArray out;
  const int rank = magic[3];
  size_t count = 1;
  for (int i = 0; i < rank; ++i) {
    unsigned char d[4];
    TA_RETURN_IF_ERROR(ReadExactly(f.get(), d, 4, path, "dimensions"));
    int64_t dim = (int64_t{d[0]} << 24) | (d[1] << 16) | (d[2] << 8) | d[3];
    out.dims.push_back(dim);
    count *= static_cast<size_t>(dim);
  }
  if (count > (size_t{1} << 34)) return errors::DataLoss("IDX file ", path, " claims ", count, " elements");
  out.values.resize(count);
  TA_RETURN_IF_ERROR(ReadExactly(f.get(), out.values.data(), count, path, "elements"));
  return out;
}

}  // namespace tensoract
