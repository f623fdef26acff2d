#include "base/durable_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>

namespace tensoract {
namespace {

std::string DirectoryOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

Status SyncFd(int fd, const std::string& what) {
  if (fsync(fd) == 0) return Status::OK();
  return WriteError(what, errno);
}

}  // namespace

std::string UniqueTempSuffix() {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  char buf[32];
  std::snprintf(buf, sizeof(buf), ".tempstate%016llx", static_cast<unsigned long long>(rng()));
  return buf;
}

Status WriteError(const std::string& path, int err) {
  if (err == ENOSPC || err == EDQUOT || err == EFBIG) {
    return errors::ResourceExhausted("no space left writing '", path, "': ", std::strerror(err));
  }
  return errors::DataLoss("error writing '", path, "': ", std::strerror(err));
}

Status SyncFile(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errors::DataLoss("cannot open '", path, "' to flush it: ", std::strerror(errno));
  Status s = SyncFd(fd, path);
  close(fd);
  return s;
}

Status SyncDirectoryOf(const std::string& path) {
  const std::string dir = DirectoryOf(path);
  int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return errors::DataLoss("cannot open directory '", dir, "' to flush it: ", std::strerror(errno));
  Status s = SyncFd(fd, dir);
  close(fd);
  return s;
}

Status WriteFileDurably(const std::string& path, const std::string& contents) {
  const std::string tmp = path + UniqueTempSuffix();
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return errors::PermissionDenied("cannot write '", tmp, "': ", std::strerror(errno));
  Status status;
  size_t done = 0;
  while (done < contents.size() && status.ok()) {
    ssize_t n = write(fd, contents.data() + done, contents.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      status = WriteError(tmp, errno);
    } else {
      done += static_cast<size_t>(n);
    }
  }
  if (status.ok()) status = SyncFd(fd, tmp);
  if (close(fd) != 0 && status.ok()) status = WriteError(tmp, errno);
  if (status.ok() && std::rename(tmp.c_str(), path.c_str()) != 0) {
    status = errors::PermissionDenied("cannot rename '", tmp, "' to '", path, "': ", std::strerror(errno));
  }
  if (!status.ok()) {
    unlink(tmp.c_str());  // nothing half-written stays behind
    return status;
  }
  return SyncDirectoryOf(path);
}

void CrashPoint(const char* point) {
  const char* at = std::getenv("TENSORACT_CRASH_AT");
  if (at != nullptr && std::strcmp(at, point) == 0) _exit(86);
}

}  // namespace tensoract
