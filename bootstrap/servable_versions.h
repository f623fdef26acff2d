// ServableVersions: the numbered versions of one model under a base path, each a
// SavedModel, and the one of them serving (tensoract-serve's model_server.h).
//
//   /models/mnist/1/saved_model.pb, variables/...
//   /models/mnist/2/...
//
// Each poll lists the base path and serves the newest version that holds a SavedModel
// (TensorFlow Serving's default "latest" policy): it loads it (tags {"serve"}) beside the
// one serving, swaps it in, and lets the old one go once the requests still running on it
// are done. A version that fails to load leaves the previous one serving and shows as END
// with its error in the statuses; it is tried again only when its saved_model.pb changes.
// A version whose directory disappears is unloaded.
//
// Thread-safety: Serving, Statuses and serving_version from any number of threads; PollOnce
// from any thread (polls are serialised); StartPolling, Clear and the destructor from the
// owner.
#ifndef TENSORACT_BOOTSTRAP_SERVABLE_VERSIONS_H_
#define TENSORACT_BOOTSTRAP_SERVABLE_VERSIONS_H_

#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "base/status.h"
#include "bootstrap/serving_status.h"
#include "client/local_server.h"

namespace tensoract {

class SavedModelBundle;

struct Servable {
  int64_t version = 0;
  std::unique_ptr<SavedModelBundle> bundle;
  ~Servable();
};

class ServableVersions {
 public:
  // Each version is loaded with `session_options` (LoadSavedModel's).
  ServableVersions(std::string model_name, std::string base_path, SessionOptions session_options = {});
  ~ServableVersions();  // stops polling, unloads every version
  ServableVersions(const ServableVersions&) = delete;
  ServableVersions& operator=(const ServableVersions&) = delete;

  // One look at the base path: loads and swaps in a newer version, unloads old ones.
  void PollOnce();
  // PollOnce every `interval_seconds` on a thread of its own until Clear or destruction.
  void StartPolling(double interval_seconds);
  // Stops polling and unloads every version (once requests holding one let it go).
  void Clear();

  // The version serving now if it is `version` (any, when nullopt); null otherwise.
  std::shared_ptr<Servable> Serving(std::optional<int64_t> version) const;
  std::optional<int64_t> serving_version() const;
  // Every version known, newest first, or only `version`.
  std::vector<serving::VersionStatus> Statuses(std::optional<int64_t> version) const;

 private:
  struct VersionState {
    std::string state;       // LOADING, AVAILABLE, UNLOADING, END
    Status status;           // why it failed to load
    std::string fingerprint; // of saved_model.pb when it failed: retried only when it changes
  };

  void SetState(int64_t version, const std::string& state, const Status& status = Status::OK(),
                const std::string& fingerprint = "");
  // Loads `version` from `path` and swaps it in (PollOnce's, under poll_mu_).
  void LoadVersion(int64_t version, const std::filesystem::path& path);
  void ReleaseRetired();
  void StopPolling();

  const std::string model_name_;
  const std::string base_path_;
  const SessionOptions session_options_;

  mutable std::mutex mu_;  // guards serving_, versions_
  std::shared_ptr<Servable> serving_;
  std::map<int64_t, VersionState, std::greater<int64_t>> versions_;  // newest first

  std::mutex poll_mu_;  // serialises PollOnce; guards what follows
  std::vector<std::shared_ptr<Servable>> retiring_;  // swapped out, requests may still hold them
  std::string last_list_error_;

  std::mutex stop_mu_;  // with stop_cv_, the poller's sleep between polls
  std::condition_variable stop_cv_;
  bool stopping_ = false;
  std::thread poller_;
};

}  // namespace tensoract

#endif  // TENSORACT_BOOTSTRAP_SERVABLE_VERSIONS_H_
