// Files that survive a crash: written under a unique temporary name, flushed to the disk
// (fsync), renamed over the final name, and the directory flushed so that the rename is
// too. A reader sees the old file or the new one, never half of one, whenever the process
// or the machine stops. Checkpoints use it (kernels/checkpoint, actors/saver.cc).
//
// Errors name the file: ResourceExhausted when the disk or a quota is full (ENOSPC,
// EDQUOT, EFBIG), DataLoss for other write failures, PermissionDenied when the file or its
// directory cannot be created or renamed.
#ifndef TENSORACT_BASE_DURABLE_FILE_H_
#define TENSORACT_BASE_DURABLE_FILE_H_

#include <string>

#include "base/status.h"

namespace tensoract {

// ".tempstate" + 16 random hex digits: two writers never share a temporary name.
std::string UniqueTempSuffix();

// Writes `contents` to `path` as described above.
Status WriteFileDurably(const std::string& path, const std::string& contents);

// fsync of a file written by other means (a stream), and of the directory holding `path`.
Status SyncFile(const std::string& path);
Status SyncDirectoryOf(const std::string& path);

// The Status for a failed write of `path` with errno `err`.
Status WriteError(const std::string& path, int err);

// For crash tests: when $TENSORACT_CRASH_AT equals `point`, the process ends here at once
// (_exit(86)), as if the machine had stopped. Costs one getenv otherwise.
void CrashPoint(const char* point);

}  // namespace tensoract

#endif  // TENSORACT_BASE_DURABLE_FILE_H_
