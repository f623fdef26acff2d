#include "actors/partial_runs.h"

#include <set>
#include <utility>

#include "actors/call_graph.h"
#include "actors/cluster_credentials.h"

namespace tensoract {
namespace {

// "x" and "x:0" name the same tensor.
std::string CanonicalTensorName(const std::string& name) {
  return name.find(':') == std::string::npos ? name + ":0" : name;
}

// The index of `name` among `names`, or -1.
int IndexOf(const std::vector<std::string>& names, const std::string& name) {
  const std::string canonical = CanonicalTensorName(name);
  for (size_t i = 0; i < names.size(); ++i) {
    if (CanonicalTensorName(names[i]) == canonical) return static_cast<int>(i);
  }
  return -1;
}

// For each fetch, the feeds it is computed from: the graph walked back from it, through
// data and control inputs, stopping at fed tensors.
std::vector<std::vector<int>> FeedsNeeded(const tensorflow::GraphDef& graph, const std::vector<std::string>& feeds,
                                          const std::vector<std::string>& fetches) {
  std::map<std::string, const tensorflow::NodeDef*> nodes;
  for (const auto& node : graph.node()) nodes[node.name()] = &node;
  std::map<std::string, int> feed_index;
  for (size_t i = 0; i < feeds.size(); ++i) feed_index[CanonicalTensorName(feeds[i])] = static_cast<int>(i);
  std::vector<std::vector<int>> needed(fetches.size());
  for (size_t f = 0; f < fetches.size(); ++f) {
    std::set<int> found;
    std::set<std::string> seen;
    std::vector<std::string> tensors = {CanonicalTensorName(fetches[f])};
    while (!tensors.empty()) {
      std::string tensor = std::move(tensors.back());
      tensors.pop_back();
      const bool control = !tensor.empty() && tensor[0] == '^';
      if (!control) {
        auto fed = feed_index.find(CanonicalTensorName(tensor));
        if (fed != feed_index.end()) {
          found.insert(fed->second);
          continue;
        }
      }
      const size_t start = control ? 1 : 0;
      const std::string name = tensor.substr(start, tensor.find(':') - start);
      if (!seen.insert(name).second) continue;
      auto node = nodes.find(name);
      if (node == nodes.end()) continue;
      for (const std::string& input : node->second->input()) tensors.push_back(input);
    }
    needed[f].assign(found.begin(), found.end());
  }
  return needed;
}

RunStepResponse Failed(Status status) { return RunStepResponse{std::move(status), {}, nullptr, {}}; }

}  // namespace

std::string PartialRuns::Add(const std::string& session, const CallSignature& signature,
                             const tensorflow::GraphDef& graph) {
  const std::string handle = StrCat(session, ";partial_run_", RandomHandle());
  Run& run = runs_[handle];
  run.session = session;
  run.signature = signature;
  run.fed.assign(signature.feeds.size(), false);
  run.fetched.assign(signature.fetches.size(), false);
  run.feeds_needed = FeedsNeeded(graph, signature.feeds, signature.fetches);
  return handle;
}

void PartialRuns::Started(const std::string& handle, int64_t step_id) {
  auto it = runs_.find(handle);
  if (it == runs_.end() || it->second.done) return;
  it->second.step_id = step_id;
  run_of_step_[step_id] = handle;
}

Status PartialRuns::TakeEarlyFailure(const std::string& handle) {
  auto it = runs_.find(handle);
  if (it == runs_.end()) return errors::Internal("partial run ", handle, " ended before it started");
  if (!it->second.done) return Status::OK();
  Status failed = it->second.status.ok() ? errors::Internal("partial run ", handle, " ended before it started")
                                         : it->second.status;
  runs_.erase(it);
  return failed;
}

void PartialRuns::Step(RunStepRequest request, Reply reply, const SendFeed& send) {
  auto it = runs_.find(request.partial_run_handle);
  if (it == runs_.end() || it->second.session != request.session_handle) {
    return reply(Failed(errors::InvalidArgument("Must run 'setup' before performing partial runs!")));
  }
  Run& run = it->second;
  if (run.done && !run.status.ok()) return reply(Failed(run.status));
  // Checked against copies: a refused RunStep changes nothing.
  std::vector<bool> fed = run.fed, fetched = run.fetched;
  std::vector<int> feeds, fetches;
  for (const auto& [name, value] : request.feeds) {
    const int i = IndexOf(run.signature.feeds, name);
    if (i < 0) return reply(Failed(errors::InvalidArgument("The feed ", name, " was not specified in partial_run_setup.")));
    if (fed[i]) return reply(Failed(errors::InvalidArgument("The feed ", name, " has already been fed.")));
    Status ok = CheckFeed(name, value, run.signature, i);
    if (!ok.ok()) return reply(Failed(ok));
    fed[i] = true;
    feeds.push_back(i);
  }
  for (const std::string& name : request.fetches) {
    const int i = IndexOf(run.signature.fetches, name);
    if (i < 0) {
      return reply(Failed(errors::InvalidArgument("The fetch ", name, " was not specified in partial_run_setup.")));
    }
    if (fetched[i]) return reply(Failed(errors::InvalidArgument("The fetch ", name, " has already been fetched.")));
    for (int needed : run.feeds_needed[i]) {
      if (!fed[needed]) {
        return reply(Failed(
            errors::InvalidArgument("Fetch ", name, " can't be computed from the feeds that have been fed so far.")));
      }
    }
    fetched[i] = true;
    fetches.push_back(i);
  }
  run.fed = std::move(fed);
  run.fetched = std::move(fetched);
  for (size_t k = 0; k < feeds.size(); ++k) send(run.step_id, feeds[k], std::move(request.feeds[k].second));
  bool last = true;
  for (bool f : run.fed) last &= f;
  for (bool f : run.fetched) last &= f;
  run.waiting.push_back(Run::Waiting{std::move(fetches), std::move(reply), last});
  Answer(request.partial_run_handle);
}

void PartialRuns::Computed(int64_t step_id, int index, Tensor value) {
  auto run = run_of_step_.find(step_id);
  if (run == run_of_step_.end()) return;  // the run is over
  const std::string handle = run->second;
  runs_[handle].computed[index] = std::move(value);
  Answer(handle);
}

void PartialRuns::Done(const std::string& handle, RunStepResponse response) {
  auto it = runs_.find(handle);
  if (it == runs_.end()) return;
  Run& run = it->second;
  run_of_step_.erase(run.step_id);
  run.done = true;
  run.status = response.status;
  // Values not reported one by one (none should be) come from the step's own reply.
  for (size_t f = 0; response.status.ok() && f < response.fetched.size() && f < run.fetched.size(); ++f) {
    if (!run.computed.count(f)) run.computed[f] = std::move(response.fetched[f]);
  }
  if (run.step_id != 0) Answer(handle);  // else the setup takes the failure (TakeEarlyFailure)
}

void PartialRuns::Answer(const std::string& handle) {
  auto it = runs_.find(handle);
  if (it == runs_.end()) return;
  Run& run = it->second;
  std::vector<Run::Waiting> still;
  for (Run::Waiting& w : run.waiting) {
    if (run.done && !run.status.ok()) {
      w.reply(Failed(run.status));
      continue;
    }
    bool ready = !w.last || run.done;
    for (int f : w.fetches) ready &= run.computed.count(f) > 0;
    if (!ready) {
      still.push_back(std::move(w));
      continue;
    }
    RunStepResponse response;
    for (int f : w.fetches) {
      response.fetched.push_back(std::move(run.computed[f]));
      run.computed.erase(f);
    }
    w.reply(std::move(response));
  }
  run.waiting = std::move(still);
  if (run.done && run.waiting.empty()) {
    if (run.status.ok()) {
      runs_.erase(it);
    } else {
      run.computed.clear();
    }
  }
}

std::vector<int64_t> PartialRuns::RunningSteps() const {
  std::vector<int64_t> steps;
  for (const auto& [step, handle] : run_of_step_) steps.push_back(step);
  return steps;
}

void PartialRuns::EraseSession(const std::string& session) {
  for (auto it = runs_.begin(); it != runs_.end();) {
    if (it->second.session != session) {
      ++it;
      continue;
    }
    run_of_step_.erase(it->second.step_id);
    it = runs_.erase(it);
  }
}

void PartialRuns::Clear() {
  runs_.clear();
  run_of_step_.clear();
}

}  // namespace tensoract
