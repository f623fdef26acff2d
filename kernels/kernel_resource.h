// The resource a queue, reader or accumulator kernel makes, as TensorFlow's ResourceOpKernel
// does. With a shared_name it lives in the device's container under that name, shared by
// every session, until the container is reset. Without one it is private to the kernel:
// named "_N_<node>" (TensorFlow's names) and held by the kernel alone, so it lives as long as
// the session that holds the kernel (actors/executor_plan.h, SharedKernels) and a closed or
// dead session leaves no queue or reader behind.
//
//   queue_.Init(container, shared_name, name());   // in the kernel's constructor
//   auto q = queue_.GetOrMake(ctx->resource_manager(), [&] { return maker(spec_); });
//   *handle.base<ResourceHandle>() = queue_.Handle(ctx->resource_manager());
//
// Thread-safety: a session's steps may run the kernel at once; every method locks.
#ifndef TENSORACT_KERNELS_KERNEL_RESOURCE_H_
#define TENSORACT_KERNELS_KERNEL_RESOURCE_H_

#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "kernels/resource_mgr.h"

namespace tensoract {

template <class T>
class KernelResource {
 public:
  // Once, in the kernel's constructor (before any step can run it).
  void Init(std::string container, const std::string& shared_name, std::string node_name) {
    container_ = std::move(container);
    private_ = shared_name.empty();
    name_ = shared_name;
    node_name_ = std::move(node_name);
  }

  // The resource, made by `make` on first use (or again after its container was reset);
  // `make` gets the resource's name in the container.
  StatusOr<std::shared_ptr<T>> GetOrMake(ResourceMgr* rm, const std::function<StatusOr<std::shared_ptr<T>>(
                                                              const std::string& name)>& make) {
    std::lock_guard<std::mutex> lock(mu_);
    if (private_) {
      if (name_.empty()) name_ = StrCat("_", rm->GenerateUniqueId(), "_", node_name_);
      TA_ASSIGN_OR_RETURN(owned_, rm->LookupOrCreateHeldBy<T>(container_, name_, [&] { return make(name_); }));
      return owned_;
    }
    return rm->LookupOrCreate<T>(container_, name_, [&] { return make(name_); });
  }
  // The handle naming it (after GetOrMake).
  ResourceHandle Handle(const ResourceMgr* rm) {
    std::lock_guard<std::mutex> lock(mu_);
    return rm->MakeHandle<T>(container_, name_);
  }
  // Its name in the container ("_N_<node>" when private; empty before the first GetOrMake).
  std::string name() {
    std::lock_guard<std::mutex> lock(mu_);
    return name_;
  }

 private:
  std::string container_;
  bool private_ = true;
  std::mutex mu_;
  std::string name_;  // the shared_name, or the private name once made
  std::string node_name_;
  std::shared_ptr<T> owned_;  // a private resource: the kernel is its only keeper
};

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_KERNEL_RESOURCE_H_
