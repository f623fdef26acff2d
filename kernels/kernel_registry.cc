#include "kernels/kernel_registry.h"

#include <algorithm>
#include <map>
#include <mutex>

#include "kernels/kernel_libraries.h"

namespace tensoract {
namespace {

struct Registered {
  KernelDef def;
  KernelFactory factory;
};

struct Registry {
  std::mutex mu;
  std::multimap<std::string, Registered> by_op;
};

Registry& GlobalRegistry() {
  static Registry* const kRegistry = new Registry;  // never destroyed: used by static init
  return *kRegistry;
}

bool Matches(const KernelDef& k, const std::string& device_type, const NodeDef& def) {
  if (k.device_type() != device_type) return false;
  for (const auto& [attr, allowed] : k.constraints()) {
    DataType t;
    if (!GetNodeAttr(def, attr, &t).ok()) return false;
    if (std::find(allowed.begin(), allowed.end(), t) == allowed.end()) return false;
  }
  return true;
}

}  // namespace

KernelDef& KernelDef::TypeConstraint(std::string attr, DataType type) {
  return TypeConstraint(std::move(attr), DataTypeVector{type});
}

KernelDef& KernelDef::TypeConstraint(std::string attr, DataTypeVector allowed) {
  constraints_.emplace_back(std::move(attr), std::move(allowed));
  return *this;
}

std::string KernelDef::DebugString() const {
  std::string out = "device='" + device_type_ + "'";
  for (const auto& [attr, allowed] : constraints_) {
    out += "; " + attr + " in " + DataTypeVectorString(allowed);
  }
  return out;
}

void RegisterKernel(const KernelDef& def, KernelFactory factory) {
  Registry& r = GlobalRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.by_op.emplace(def.op(), Registered{def, std::move(factory)});
}

std::string KernelsRegisteredForOp(const std::string& op) {
  Registry& r = GlobalRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  std::string out;
  auto [begin, end] = r.by_op.equal_range(op);
  for (auto it = begin; it != end; ++it) out += (out.empty() ? "" : "\n  ") + it->second.def.DebugString();
  return out.empty() ? "<no registered kernels>" : out;
}

static KernelFactory FindRegisteredFactory(const NodeDef& def, const std::string& device_type) {
  Registry& r = GlobalRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto [begin, end] = r.by_op.equal_range(def.op());
  for (auto it = begin; it != end; ++it) {
    if (Matches(it->second.def, device_type, def)) return it->second.factory;
  }
  return nullptr;
}

// The factory of the first kernel registered for `def` on `device_type`, or an empty one.
// A miss loads the on-demand kernel libraries (once a process; outside the registry's lock,
// as their registrations take it) and looks again.
static KernelFactory FindKernelFactory(const NodeDef& def, const std::string& device_type) {
  if (KernelFactory found = FindRegisteredFactory(def, device_type)) return found;
  LoadKernelLibrariesOnce();
  return FindRegisteredFactory(def, device_type);
}

bool KernelExists(const NodeDef& def, const std::string& device_type) {
  return FindKernelFactory(def, device_type) != nullptr;
}

Status CreateOpKernel(Device* device, const NodeDef& def, const tensorflow::OpDef& op_def,
                      std::unique_ptr<OpKernel>* kernel) {
  KernelFactory factory = FindKernelFactory(def, device->device_type());
  if (!factory) {
    std::string type_attrs;
    for (const auto& attr : op_def.attr()) {
      DataType t;
      if (attr.type() == "type" && GetNodeAttr(def, attr.name(), &t).ok()) {
        type_attrs += StrCat(type_attrs.empty() ? " with " : ", ", attr.name(), "=", DataTypeString(t));
      }
    }
    return errors::NotFound("no kernel for node '", def.name(), "' (op '", def.op(), "') on device type ",
                            device->device_type(), type_attrs, "; registered kernels for '", def.op(), "':\n  ",
                            KernelsRegisteredForOp(def.op()), KernelLibraryLoadNote());
  }
  DataTypeVector inputs, outputs;
  TA_RETURN_IF_ERROR(InOutTypesForNode(def, op_def, &inputs, &outputs));
  OpKernelConstruction construction(device, def, std::move(inputs), std::move(outputs));
  std::unique_ptr<OpKernel> made(factory(&construction));
  if (!construction.status().ok()) {
    return construction.status().WithContext(StrCat("node '", def.name(), "' (op '", def.op(), "')"));
  }
  *kernel = std::move(made);
  return Status::OK();
}

}  // namespace tensoract
