#include "actors/messages.h"

#include <caf/sec.hpp>

namespace tensoract {

Status FromCafError(const caf::error& error, const std::string& what) {
  if (!error) return Status::OK();
  if (error == caf::sec::request_timeout) {
    return errors::DeadlineExceeded(what, " did not finish before its deadline");
  }
  if (error == caf::sec::request_receiver_down) {
    return errors::Aborted(what, " failed: the actor handling it has stopped");
  }
  return errors::Unavailable(what, " failed in the actor system: error code ", static_cast<int>(error.code()));
}

void MoveProducedRetvals(RunGraphResponse* from, std::vector<Tensor>* into, std::vector<int>* produced) {
  for (int i : from->produced) {
    if (i < 0 || static_cast<size_t>(i) >= from->retvals.size()) continue;  // a malformed reply sets nothing
    if (into->size() <= static_cast<size_t>(i)) into->resize(i + 1);
    (*into)[i] = std::move(from->retvals[i]);
    if (produced != nullptr) produced->push_back(i);
  }
}

}  // namespace tensoract
