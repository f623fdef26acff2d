// A kernel's failure as a step reports it: most kernels' messages already name their node;
// the rest get "node 'name' (op 'Type')" prefixed. The executor (actors/executor_plan.cc)
// and the sequential loop kernel (kernels/cpu/sequential_loop_op.cc) report alike.
#ifndef TENSORACT_KERNELS_KERNEL_STATUS_H_
#define TENSORACT_KERNELS_KERNEL_STATUS_H_

#include <string>

#include "base/status.h"
#include "kernels/op_kernel.h"

namespace tensoract {

inline Status NamedKernelStatus(const OpKernel& k, const Status& s) {
  const std::string& m = s.message();
  const bool named = m.find("'" + k.name() + "'") != std::string::npos || m.find(" " + k.name()) != std::string::npos;
  return named ? s : s.WithContext(StrCat("node '", k.name(), "' (op '", k.type_string(), "')"));
}

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_KERNEL_STATUS_H_
