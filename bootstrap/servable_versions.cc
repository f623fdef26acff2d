#include "bootstrap/servable_versions.h"

#include <sys/stat.h>

#include <chrono>
#include <iostream>

#include "client/saved_model.h"

namespace tensoract {

namespace fs = std::filesystem;

Servable::~Servable() = default;

namespace {

// What changes when a SavedModel is rewritten: a version that failed to load is tried
// again only when this does.
std::string Fingerprint(const fs::path& dir) {
  std::string out;
  for (const char* name : {"saved_model.pb", "saved_model.pbtxt", "variables/variables.index"}) {
    struct stat st;
    if (::stat((dir / name).c_str(), &st) == 0) {
      out += StrCat(name, ":", st.st_size, ":", st.st_mtim.tv_sec, ".", st.st_mtim.tv_nsec, ";");
    }
  }
  return out;
}

// A version directory's name: digits only (TensorFlow Serving reads it as an int64).
std::optional<int64_t> VersionOf(const std::string& name) {
  if (name.empty() || name.size() > 18) return std::nullopt;
  for (char c : name) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  return std::stoll(name);
}

void Log(const std::string& line) { std::cerr << "tensoract-serve: " + line + "\n" << std::flush; }

// The numbered version directories under `base`, newest first.
StatusOr<std::map<int64_t, fs::path, std::greater<int64_t>>> ListVersionDirs(const std::string& base) {
  std::map<int64_t, fs::path, std::greater<int64_t>> versions;
  std::error_code ec;
  fs::directory_iterator it(base, ec);
  for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
    std::error_code dir_ec;
    if (!it->is_directory(dir_ec)) continue;
    if (auto v = VersionOf(it->path().filename().string())) versions[*v] = it->path();
  }
  if (ec) return errors::NotFound("cannot list the model base path ", base, ": ", ec.message());
  return versions;
}

}  // namespace

ServableVersions::ServableVersions(std::string model_name, std::string base_path, SessionOptions session_options)
    : model_name_(std::move(model_name)),
      base_path_(std::move(base_path)),
      session_options_(std::move(session_options)) {}

ServableVersions::~ServableVersions() { Clear(); }

std::shared_ptr<Servable> ServableVersions::Serving(std::optional<int64_t> version) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (serving_ && (!version || serving_->version == *version)) return serving_;
  return nullptr;
}

std::optional<int64_t> ServableVersions::serving_version() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (!serving_) return std::nullopt;
  return serving_->version;
}

std::vector<serving::VersionStatus> ServableVersions::Statuses(std::optional<int64_t> version) const {
  std::vector<serving::VersionStatus> list;
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [v, state] : versions_) {
    if (!version || *version == v) list.push_back({v, state.state, state.status});
  }
  return list;
}

void ServableVersions::SetState(int64_t version, const std::string& state, const Status& status,
                           const std::string& fingerprint) {
  std::lock_guard<std::mutex> lock(mu_);
  versions_[version] = VersionState{state, status, fingerprint};
}

void ServableVersions::PollOnce() {
  std::lock_guard<std::mutex> poll_lock(poll_mu_);
  auto on_disk = ListVersionDirs(base_path_);
  if (!on_disk.ok()) {
    // Nothing is known about the versions, so nothing changes (TensorFlow Serving's file
    // system source does the same). Said once, not every poll.
    if (on_disk.status().message() != last_list_error_) Log(on_disk.status().message());
    last_list_error_ = on_disk.status().message();
    ReleaseRetired();
    return;
  }
  last_list_error_.clear();
  // The newest version that holds a SavedModel (a directory still being written has none
  // yet). It replaces the one serving when it is newer, or when that one's directory is
  // gone.
  std::optional<int64_t> target;
  for (const auto& [v, path] : *on_disk) {
    if (MaybeSavedModelDirectory(path.string())) {
      target = v;
      break;
    }
  }
  std::optional<int64_t> current = serving_version();
  const bool current_on_disk = current && on_disk->count(*current);
  if (target && (!current || *target > *current || (!current_on_disk && *target != *current))) {
    LoadVersion(*target, on_disk->at(*target));
  }
  // A serving version whose directory is gone and that nothing replaced goes.
  current = serving_version();
  if (current && !on_disk->count(*current)) {
    Log(StrCat("version ", *current, " of model ", model_name_, " was removed; unloading it"));
    std::lock_guard<std::mutex> lock(mu_);
    versions_[*current] = VersionState{"UNLOADING", Status::OK(), ""};
    retiring_.push_back(std::move(serving_));
  }
  ReleaseRetired();
}

void ServableVersions::LoadVersion(int64_t version, const fs::path& path) {
  const std::string fingerprint = Fingerprint(path);
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto state = versions_.find(version);
    if (state != versions_.end() && !state->second.status.ok() && state->second.fingerprint == fingerprint) {
      return;  // failed before, and unchanged since
    }
  }
  SetState(version, "LOADING");
  Log(StrCat("loading version ", version, " of model ", model_name_, " from ", path.string()));
  auto bundle = LoadSavedModel(path.string(), {kSavedModelTagServe}, session_options_);
  if (!bundle.ok()) {
    Log(StrCat("version ", version, " of model ", model_name_, " failed to load: ", bundle.status().ToString()));
    SetState(version, "END", bundle.status(), fingerprint);
    return;
  }
  auto servable = std::make_shared<Servable>();
  servable->version = version;
  servable->bundle = std::move(bundle).value();
  std::shared_ptr<Servable> old;
  {
    std::lock_guard<std::mutex> lock(mu_);
    old = std::move(serving_);
    serving_ = std::move(servable);
    versions_[version] = VersionState{"AVAILABLE", Status::OK(), ""};
    if (old) versions_[old->version] = VersionState{"UNLOADING", Status::OK(), ""};
  }
  if (old) retiring_.push_back(std::move(old));
  Log(StrCat("serving version ", version, " of model ", model_name_));
}

// Versions swapped out are unloaded here, on the polling thread, once no request holds
// them: a request copies the pointer under mu_ and only while it is serving_, so a count
// of one stays one.
void ServableVersions::ReleaseRetired() {
  for (auto r = retiring_.begin(); r != retiring_.end();) {
    if (r->use_count() == 1) {
      const int64_t version = (*r)->version;
      r->reset();
      SetState(version, "END");
      r = retiring_.erase(r);
    } else {
      ++r;
    }
  }
}

void ServableVersions::StartPolling(double interval_seconds) {
  if (interval_seconds <= 0 || poller_.joinable()) return;
  poller_ = std::thread([this, interval = std::chrono::duration<double>(interval_seconds)] {
    std::unique_lock<std::mutex> lock(stop_mu_);
    while (!stop_cv_.wait_for(lock, interval, [this] { return stopping_; })) {
      lock.unlock();
      PollOnce();
      lock.lock();
    }
  });
}

void ServableVersions::StopPolling() {
  {
    std::lock_guard<std::mutex> lock(stop_mu_);
    stopping_ = true;
  }
  stop_cv_.notify_all();
  if (poller_.joinable()) poller_.join();
}

void ServableVersions::Clear() {
  StopPolling();
  std::lock_guard<std::mutex> poll_lock(poll_mu_);  // a PollOnce of the owner's may still run
  std::shared_ptr<Servable> last;
  {
    std::lock_guard<std::mutex> lock(mu_);
    last = std::move(serving_);
  }
  last.reset();
  retiring_.clear();
}

}  // namespace tensoract
