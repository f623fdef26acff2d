// ResourceMgr: the state that outlives a step (variables now; queues and tables later).
//
// Each device owns one ResourceMgr. Resources live in named containers; a resource is
// found by (container, name, C++ type), so two sessions that name the same variable on the
// same worker share it, as in TensorFlow. An empty container name means the default
// container ("localhost"). Cleanup drops a whole container (Session::Reset).
//
//   auto var = rm->LookupOrCreate<Var>("", "w", [&] { return std::make_shared<Var>(DT_FLOAT, "w"); });
//
// Resources are held by shared_ptr: a step that looked one up keeps it alive even if the
// container is reset meanwhile; later lookups no longer find it. A resource made with
// LookupOrCreateHeldBy is held weakly: it lives as long as whoever holds it (a kernel's
// private queue or reader, kernels/kernel_resource.h) and the manager forgets it after.
//
// Thread-safety: every method may be called from any thread.
#ifndef TENSORACT_KERNELS_RESOURCE_MGR_H_
#define TENSORACT_KERNELS_RESOURCE_MGR_H_

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <typeindex>
#include <vector>

#include "base/status.h"
#include "kernels/resource_handle.h"

namespace tensoract {

// The container of the resources that live for one step only (a while loop's gradient
// stacks): the executor drops it when the step ends.
std::string StepContainerName(int64_t step_id);

class ResourceBase {
 public:
  virtual ~ResourceBase() = default;
  // One line for Inspect and error messages.
  virtual std::string DebugString() const = 0;
  // The resource manager let go of it (Delete, Cleanup): whoever still holds it holds
  // something no handle names any more.
  virtual void Dropped() {}
};

class ResourceMgr {
 public:
  static constexpr char kDefaultContainer[] = "localhost";

  explicit ResourceMgr(std::string device_name = "") : device_name_(std::move(device_name)) {}

  // AlreadyExists when (container, name, T) exists.
  template <class T>
  Status Create(const std::string& container, const std::string& name, std::shared_ptr<T> resource) {
    return DoCreate(container, typeid(T), name, std::move(resource));
  }
  // NotFound naming container and name when absent.
  template <class T>
  StatusOr<std::shared_ptr<T>> Lookup(const std::string& container, const std::string& name) const {
    TA_ASSIGN_OR_RETURN(auto r, DoLookup(container, typeid(T), name));
    return std::static_pointer_cast<T>(r);
  }
  // Finds the resource or makes it with `creator`; creation and insertion are atomic.
  template <class T>
  StatusOr<std::shared_ptr<T>> LookupOrCreate(const std::string& container, const std::string& name,
                                              const std::function<StatusOr<std::shared_ptr<T>>()>& creator) {
    return TypedLookupOrCreate<T>(container, name, creator, /*weak=*/false);
  }
  // As LookupOrCreate, but the manager holds what it makes weakly: the caller keeps it alive.
  template <class T>
  StatusOr<std::shared_ptr<T>> LookupOrCreateHeldBy(const std::string& container, const std::string& name,
                                                    const std::function<StatusOr<std::shared_ptr<T>>()>& creator) {
    return TypedLookupOrCreate<T>(container, name, creator, /*weak=*/true);
  }
  // A number no earlier call on this manager returned (TensorFlow's names of private resources).
  int64_t GenerateUniqueId();
  template <class T>
  Status Delete(const std::string& container, const std::string& name) {
    return DoDelete(container, typeid(T), name);
  }

  // A handle naming (container, name, T) on this manager's device.
  template <class T>
  ResourceHandle MakeHandle(const std::string& container, const std::string& name) const {
    // Demangled once per type: queue and reader ops make their handle in every step.
    static const uint64_t type_hash = std::hash<std::string>()(typeid(T).name());
    static const std::string type_name = TypeName(typeid(T));
    return ResourceHandle(device_name_, container.empty() ? kDefaultContainer : container, name, type_hash,
                          type_name);
  }
  // The resource a handle names, checking that the handle was made for a T.
  template <class T>
  StatusOr<std::shared_ptr<T>> Lookup(const ResourceHandle& handle) const {
    TA_RETURN_IF_ERROR(CheckHandleType(handle, typeid(T)));
    return Lookup<T>(handle.container(), handle.name());
  }

  // Drops every resource in `container` (NotFound if there is none such); its resources
  // die when the last step holding them ends.
  Status Cleanup(const std::string& container);
  std::vector<std::string> Containers() const;
  // Every resource, one per line: "container/name (type): description".
  std::string DebugString() const;

 private:
  using Key = std::tuple<std::string, std::string>;  // (type, name)
  static std::string TypeName(const std::type_index& type);
  Status CheckHandleType(const ResourceHandle& handle, const std::type_index& type) const;
  Status DoCreate(const std::string& container, const std::type_index& type, const std::string& name,
                  std::shared_ptr<ResourceBase> resource);
  StatusOr<std::shared_ptr<ResourceBase>> DoLookup(const std::string& container, const std::type_index& type,
                                                   const std::string& name) const;
  StatusOr<std::shared_ptr<ResourceBase>> DoLookupOrCreate(
      const std::string& container, const std::type_index& type, const std::string& name,
      const std::function<StatusOr<std::shared_ptr<ResourceBase>>()>& creator, bool weak = false);
  Status DoDelete(const std::string& container, const std::type_index& type, const std::string& name);
  template <class T>
  StatusOr<std::shared_ptr<T>> TypedLookupOrCreate(const std::string& container, const std::string& name,
                                                   const std::function<StatusOr<std::shared_ptr<T>>()>& creator,
                                                   bool weak) {
    auto made = DoLookupOrCreate(container, typeid(T), name, [&]() -> StatusOr<std::shared_ptr<ResourceBase>> {
      TA_ASSIGN_OR_RETURN(std::shared_ptr<T> resource, creator());
      return std::shared_ptr<ResourceBase>(std::move(resource));
    }, weak);
    TA_RETURN_IF_ERROR(made.status());
    return std::static_pointer_cast<T>(std::move(made).value());
  }

  // A resource held strongly, or weakly (then `strong` is null).
  struct Entry {
    std::shared_ptr<ResourceBase> strong;
    std::weak_ptr<ResourceBase> weak;
    std::shared_ptr<ResourceBase> Get() const { return strong ? strong : weak.lock(); }
  };
  using Container = std::map<Key, Entry>;
  // Forgets the weakly held resources that died.
  static void ForgetDead(Container& c);

  std::string device_name_;
  mutable std::mutex mu_;
  int64_t next_unique_id_ = 0;
  std::map<std::string, Container> containers_;
};

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_RESOURCE_MGR_H_
