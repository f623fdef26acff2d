// SigpipeBlock: OpenSSL writes to its socket with write(2), and a peer that closed would
// raise SIGPIPE and end the process. For as long as one lives, the calling thread has
// SIGPIPE blocked; a SIGPIPE raised meanwhile is discarded when it goes (as CAF's own
// OpenSSL module does). Used around every OpenSSL call that may write: the cluster
// transport's (actors/cluster_transport.cc) and the data plane's TLS streams
// (actors/data_plane/stream.cc).
#ifndef TENSORACT_ACTORS_SIGPIPE_BLOCK_H_
#define TENSORACT_ACTORS_SIGPIPE_BLOCK_H_

#include <pthread.h>
#include <signal.h>
#include <time.h>

namespace tensoract {

class SigpipeBlock {
 public:
  SigpipeBlock() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_, &saved_);
  }
  ~SigpipeBlock() {
    timespec zero{};
    while (sigtimedwait(&pipe_, nullptr, &zero) > 0) {
    }
    pthread_sigmask(SIG_SETMASK, &saved_, nullptr);
  }
  SigpipeBlock(const SigpipeBlock&) = delete;
  SigpipeBlock& operator=(const SigpipeBlock&) = delete;

 private:
  sigset_t pipe_;
  sigset_t saved_;
};

}  // namespace tensoract

#endif  // TENSORACT_ACTORS_SIGPIPE_BLOCK_H_
