#include "kernels/resource_mgr.h"

#include <cxxabi.h>

#include <cstdlib>

namespace tensoract {

std::string StepContainerName(int64_t step_id) { return StrCat("__per_step_", step_id); }
namespace {

const std::string& ContainerOrDefault(const std::string& container) {
  static const std::string kDefault = ResourceMgr::kDefaultContainer;
  return container.empty() ? kDefault : container;
}

}  // namespace

std::string ResourceMgr::TypeName(const std::type_index& type) {
  int status = 0;
  char* demangled = abi::__cxa_demangle(type.name(), nullptr, nullptr, &status);
  std::string name = status == 0 && demangled ? demangled : type.name();
  std::free(demangled);
  // "tensoract::Var" reads as TensorFlow's "Var".
  if (name.rfind("tensoract::", 0) == 0) name = name.substr(11);
  return name;
}

Status ResourceMgr::CheckHandleType(const ResourceHandle& handle, const std::type_index& type) const {
  if (handle.hash_code() != std::hash<std::string>()(type.name())) {
    return errors::InvalidArgument("resource handle for '", handle.container(), "/", handle.name(), "' names a ",
                                   handle.maybe_type_name().empty() ? "resource of another type" : handle.maybe_type_name(),
                                   " but a ", TypeName(type), " was expected");
  }
  return Status::OK();
}

void ResourceMgr::ForgetDead(Container& c) {
  for (auto it = c.begin(); it != c.end();) it = it->second.Get() == nullptr ? c.erase(it) : std::next(it);
}

int64_t ResourceMgr::GenerateUniqueId() {
  std::lock_guard<std::mutex> lock(mu_);
  return next_unique_id_++;
}

Status ResourceMgr::DoCreate(const std::string& container, const std::type_index& type, const std::string& name,
                             std::shared_ptr<ResourceBase> resource) {
  std::lock_guard<std::mutex> lock(mu_);
  auto& c = containers_[ContainerOrDefault(container)];
  ForgetDead(c);
  if (!c.emplace(Key(type.name(), name), Entry{std::move(resource), {}}).second) {
    return errors::AlreadyExists("resource ", ContainerOrDefault(container), "/", name, " (", TypeName(type),
                                 ") already exists");
  }
  return Status::OK();
}

StatusOr<std::shared_ptr<ResourceBase>> ResourceMgr::DoLookup(const std::string& container,
                                                              const std::type_index& type,
                                                              const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto c = containers_.find(ContainerOrDefault(container));
  if (c != containers_.end()) {
    auto it = c->second.find(Key(type.name(), name));
    if (it != c->second.end()) {
      if (std::shared_ptr<ResourceBase> resource = it->second.Get()) return resource;
    }
  }
  return errors::NotFound("resource ", ContainerOrDefault(container), "/", name, " (", TypeName(type),
                          ") does not exist");
}

StatusOr<std::shared_ptr<ResourceBase>> ResourceMgr::DoLookupOrCreate(
    const std::string& container, const std::type_index& type, const std::string& name,
    const std::function<StatusOr<std::shared_ptr<ResourceBase>>()>& creator, bool weak) {
  std::lock_guard<std::mutex> lock(mu_);
  auto& c = containers_[ContainerOrDefault(container)];
  auto it = c.find(Key(type.name(), name));
  if (it != c.end()) {
    if (std::shared_ptr<ResourceBase> resource = it->second.Get()) return resource;
    c.erase(it);  // died
  }
  // Only a creation sweeps out the dead (weak entries whose resource went): a lookup that
  // finds its resource alive stays one search, not a walk over every variable (ResNet50's
  // 320 assignments a training step walked 320 entries each).
  ForgetDead(c);
  TA_ASSIGN_OR_RETURN(std::shared_ptr<ResourceBase> made, creator());
  c.emplace(Key(type.name(), name), weak ? Entry{nullptr, made} : Entry{made, {}});
  return made;
}

Status ResourceMgr::DoDelete(const std::string& container, const std::type_index& type, const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  auto c = containers_.find(ContainerOrDefault(container));
  if (c != containers_.end()) {
    ForgetDead(c->second);
    auto it = c->second.find(Key(type.name(), name));
    if (it != c->second.end()) {
      if (std::shared_ptr<ResourceBase> resource = it->second.Get()) resource->Dropped();
      c->second.erase(it);
      return Status::OK();
    }
  }
  return errors::NotFound("resource ", ContainerOrDefault(container), "/", name, " (", TypeName(type),
                          ") does not exist");
}

Status ResourceMgr::Cleanup(const std::string& container) {
  std::lock_guard<std::mutex> lock(mu_);
  auto c = containers_.find(ContainerOrDefault(container));
  if (c == containers_.end()) return errors::NotFound("container '", ContainerOrDefault(container), "' does not exist");
  for (auto& [key, entry] : c->second) {
    if (std::shared_ptr<ResourceBase> resource = entry.Get()) resource->Dropped();
  }
  containers_.erase(c);
  return Status::OK();
}

std::vector<std::string> ResourceMgr::Containers() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> out;
  for (const auto& [name, c] : containers_) out.push_back(name);
  return out;
}

std::string ResourceMgr::DebugString() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::string out;
  for (const auto& [container, c] : containers_) {
    for (const auto& [key, entry] : c) {
      std::shared_ptr<ResourceBase> resource = entry.Get();
      if (resource == nullptr) continue;  // a private resource whose kernel went
      out += StrCat(out.empty() ? "" : "\n", container, "/", std::get<1>(key), ": ", resource->DebugString());
    }
  }
  return out;
}

}  // namespace tensoract
