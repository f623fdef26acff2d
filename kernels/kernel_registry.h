// The kernel registry: which OpKernel computes an op on a device type for given types.
//
//   REGISTER_KERNEL(Name("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T"),
//                   MatMulOp<float>);
//
// A node gets the kernel whose op and device type match and whose every type constraint
// matches the node's attr. A node with none gets NotFound listing what is registered for
// its op, so a missing dtype is obvious.
//
// Thread-safety: registration happens during static initialisation; lookups from any
// thread afterwards.
#ifndef TENSORACT_KERNELS_KERNEL_REGISTRY_H_
#define TENSORACT_KERNELS_KERNEL_REGISTRY_H_

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "kernels/op_kernel.h"

namespace tensoract {

class KernelDef {
 public:
  explicit KernelDef(std::string op) : op_(std::move(op)) {}
  KernelDef& Device(std::string type) { device_type_ = std::move(type); return *this; }
  KernelDef& TypeConstraint(std::string attr, DataType type);
  KernelDef& TypeConstraint(std::string attr, DataTypeVector allowed);
  template <class T>
  KernelDef& TypeConstraint(std::string attr) { return TypeConstraint(std::move(attr), DataTypeToEnum<T>::value); }

  const std::string& op() const { return op_; }
  const std::string& device_type() const { return device_type_; }
  const std::vector<std::pair<std::string, DataTypeVector>>& constraints() const { return constraints_; }
  std::string DebugString() const;  // "device='CPU'; T in [float]"

 private:
  std::string op_;
  std::string device_type_ = DEVICE_CPU;
  std::vector<std::pair<std::string, DataTypeVector>> constraints_;
};
inline KernelDef Name(std::string op) { return KernelDef(std::move(op)); }

using KernelFactory = std::function<OpKernel*(OpKernelConstruction*)>;

void RegisterKernel(const KernelDef& def, KernelFactory factory);

// Makes the kernel for `def` on `device`. Fails with NotFound (naming the node, op,
// device type and the node's type attrs, and listing the registered kernels) or with the
// kernel constructor's error.
Status CreateOpKernel(Device* device, const NodeDef& def, const tensorflow::OpDef& op_def,
                      std::unique_ptr<OpKernel>* kernel);

// Whether some kernel computes `def` on devices of `device_type` (the placer's question).
bool KernelExists(const NodeDef& def, const std::string& device_type);

// "device='CPU'; T in [float]\ndevice='CPU'; T in [double]", or "<no registered kernels>".
std::string KernelsRegisteredForOp(const std::string& op);

namespace register_kernel {
struct Registrar {
  Registrar(const KernelDef& def, KernelFactory factory) { RegisterKernel(def, std::move(factory)); }
};
}  // namespace register_kernel

#define TA_KERNEL_CONCAT_INNER(a, b) a##b
#define TA_KERNEL_CONCAT(a, b) TA_KERNEL_CONCAT_INNER(a, b)
#define REGISTER_KERNEL(def, ...)                                                            \
  static ::tensoract::register_kernel::Registrar TA_KERNEL_CONCAT(ta_kernel_, __COUNTER__)( \
      ::tensoract::def, [](::tensoract::OpKernelConstruction* ctx) -> ::tensoract::OpKernel* { \
        return new __VA_ARGS__(ctx);                                                         \
      })

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_KERNEL_REGISTRY_H_
