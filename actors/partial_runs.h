// PartialRuns: the master's partial runs (TensorFlow's PartialRunSetup, then RunSteps with
// a partial_run_handle).
//
// A partial run is one step of the setup's signature, started at setup with no feeds: its
// executors hold back the _Args whose feeds have not come (actors/executor.h) and report
// each fetch as soon as its _Retval has it. Each RunStep of the run feeds some of the
// declared feeds (handed to the step at once) and waits for some of the declared fetches;
// the RunStep that completes every feed and fetch also waits for the whole step, so its
// targets have run when it returns. What a RunStep may ask is TensorFlow's rule, refused in
// its words: a feed or fetch not declared, given twice, or a fetch computed from a feed not
// given yet (which would wait forever).
//
// The master owns one and calls it from its handlers: nothing here is locked, and nothing
// here talks to an actor (the master's callbacks do).
#ifndef TENSORACT_ACTORS_PARTIAL_RUNS_H_
#define TENSORACT_ACTORS_PARTIAL_RUNS_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "actors/messages.h"
#include "graph/subgraph.h"
#include "messages/graph.pb.h"

namespace tensoract {

class PartialRuns {
 public:
  using Reply = std::function<void(RunStepResponse)>;
  // Hands a RunStep's feed (the signature's feed `index`) to the run's step.
  using SendFeed = std::function<void(int64_t step_id, int index, Tensor value)>;

  // A new run of `signature` (a compiled call's: names with their types) in `session`, whose
  // graph is `graph`; returns its handle. Its step is not started yet (Started).
  std::string Add(const std::string& session, const CallSignature& signature, const tensorflow::GraphDef& graph);
  // Its step runs as `step_id`.
  void Started(const std::string& handle, int64_t step_id);
  // The error its step ended with before Started (OK: it has not ended); forgets the run then.
  Status TakeEarlyFailure(const std::string& handle);

  // A RunStep of a run: checks it, hands its feeds to `send` and answers `reply` once its
  // fetches are computed (and, for the last, once the step is over).
  void Step(RunStepRequest request, Reply reply, const SendFeed& send);
  // The step of a run computed the signature's fetch `index`.
  void Computed(int64_t step_id, int index, Tensor value);
  // The run's step ended with `response`: a failure answers every RunStep waiting.
  void Done(const std::string& handle, RunStepResponse response);

  // The steps of runs still going (their master cancels them before a Reset).
  std::vector<int64_t> RunningSteps() const;
  // Forgets a closed session's runs, or every run.
  void EraseSession(const std::string& session);
  void Clear();

 private:
  struct Run {
    std::string session;
    int64_t step_id = 0;      // 0: not started yet
    CallSignature signature;  // _Arg i is feeds[i], _Retval j fetches[j]
    std::vector<bool> fed, fetched;              // by index: what the RunSteps so far gave and asked for
    std::vector<std::vector<int>> feeds_needed;  // by fetch: the feeds it is computed from
    std::map<int, Tensor> computed;              // fetches computed that no RunStep took yet
    // RunSteps still waiting for fetches (or, the last one, for the step's end).
    struct Waiting {
      std::vector<int> fetches;
      Reply reply;
      bool last = false;
    };
    std::vector<Waiting> waiting;
    bool done = false;  // the step is over, with `status`
    Status status;
  };
  // Answers what the run's waiting RunSteps can have now; forgets the run once it is over
  // and nothing waits (a failed one stays, to answer later RunSteps with its error).
  void Answer(const std::string& handle);

  std::map<std::string, Run> runs_;  // by handle
  std::map<int64_t, std::string> run_of_step_;
};

}  // namespace tensoract

#endif  // TENSORACT_ACTORS_PARTIAL_RUNS_H_
