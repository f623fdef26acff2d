// Session: how a C++ application runs a graph.
//
//   auto session = Session::New().value();       // an actor system with master, worker, CPU
//   TA_RETURN_IF_ERROR(session->Create(graph_def));
//   std::vector<Tensor> out;
//   TA_RETURN_IF_ERROR(session->Run({{"x", x}}, {"y"}, {}, &out));
//
// A Session is a thin client of the master actor: Create sends CreateSession, Run sends
// RunStep and waits for the reply (with a deadline), Close sends CloseSession. Feeds and
// fetches name any tensor "node:port"; targets name nodes to run for their effects.
//
// Thread-safety: Run may be called from several threads at once; each call is its own
// step. Create and Close must not race with Run.
#ifndef TENSORACT_ACTORS_SESSION_H_
#define TENSORACT_ACTORS_SESSION_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <caf/actor.hpp>

#include "base/status.h"
#include "kernels/tensor.h"
#include "messages/graph.pb.h"

namespace caf {
class actor_system;
}  // namespace caf

namespace tensoract {

struct SessionOptions {
  // Threads of the actor scheduler and of the CPU device's pool; 0: one per core.
  int num_threads = 0;
  // A step that runs longer fails with DeadlineExceeded (RunOptions may set its own).
  int64_t step_timeout_ms = 10 * 60 * 1000;
};

struct RunOptions {
  int64_t timeout_ms = 0;  // 0: SessionOptions::step_timeout_ms
};

class Session {
 public:
  // A session with its own actor system: master, one worker and its CPU device.
  static StatusOr<std::unique_ptr<Session>> New(const SessionOptions& options = {});
  // A session whose actors live in the application's actor system, which must outlive it.
  static StatusOr<std::unique_ptr<Session>> New(caf::actor_system& system, const SessionOptions& options = {});

  ~Session();  // closes the session and stops its actors

  // Hands the graph to the master, which validates it: an unknown op, invalid attrs or an
  // input that does not exist fail here, naming the node.
  Status Create(const tensorflow::GraphDef& graph);

  Status Run(const std::vector<std::pair<std::string, Tensor>>& feeds, const std::vector<std::string>& fetches,
             const std::vector<std::string>& targets, std::vector<Tensor>* outputs);
  Status Run(const RunOptions& options, const std::vector<std::pair<std::string, Tensor>>& feeds,
             const std::vector<std::string>& fetches, const std::vector<std::string>& targets,
             std::vector<Tensor>* outputs);

  Status Close();

  // For inspection and for applications that talk to the master directly.
  const caf::actor& master() const { return master_; }
  // A snapshot of every actor's state, one line or more per actor.
  std::string Inspect();

 private:
  struct OwnedSystem;
  Session(caf::actor_system& system, std::unique_ptr<OwnedSystem> owned, const SessionOptions& options);

  std::unique_ptr<OwnedSystem> owned_;  // set when the session made its own actor system
  caf::actor_system& system_;
  SessionOptions options_;
  caf::actor master_, worker_;
  std::string handle_;
};

}  // namespace tensoract

#endif  // TENSORACT_ACTORS_SESSION_H_
