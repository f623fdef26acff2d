// What _FusedConv2D and _FusedMatMul (graph/optimizer/remapper.h) do after their product:
// add the bias (input 2) to every row and, when fused_ops says so, apply Relu, on rows of
// the output right after a thread computed them (still in its cache), instead of two more
// passes over the whole tensor. Conv2D and MatMul themselves have no epilogue.
#ifndef TENSORACT_KERNELS_CPU_FUSED_EPILOGUE_H_
#define TENSORACT_KERNELS_CPU_FUSED_EPILOGUE_H_

#include <algorithm>
#include <cstdint>
#include <string>

#include "kernels/kernel_registry.h"

namespace tensoract {

class FusedEpilogue {
 public:
  // Reads fused_ops of a _Fused* node; no epilogue for other ops. Accepts ["BiasAdd"] and
  // ["BiasAdd", "Relu"] with one arg; anything else is Unimplemented, naming the node.
  Status Init(OpKernelConstruction* ctx) {
    const NodeDef& def = ctx->def();
    if (def.op().rfind("_Fused", 0) != 0) return Status::OK();
    std::string ops;
    auto it = def.attr().find("fused_ops");
    if (it != def.attr().end()) {
      for (const std::string& op : it->second.list().s()) ops += (ops.empty() ? "" : ",") + op;
    }
    int64_t num_args = 0;
    TA_RETURN_IF_ERROR(ctx->GetAttr("num_args", &num_args));
    if ((ops != "BiasAdd" && ops != "BiasAdd,Relu") || num_args != 1) {
      return errors::Unimplemented("node '", def.name(), "' (op '", def.op(), "'): fused_ops [", ops, "] with ",
                                   num_args, " args; the CPU kernel fuses [BiasAdd] or [BiasAdd,Relu] with 1");
    }
    active_ = true;
    relu_ = ops == "BiasAdd,Relu";
    return Status::OK();
  }

  bool active() const { return active_; }

  // The bias must be a vector of the output's last dimension.
  Status CheckBias(const OpKernel& kernel, const Tensor& bias, int64_t n) const {
    if (bias.dims() != 1 || bias.dim_size(0) != n) {
      return errors::InvalidArgument("node '", kernel.name(), "' (op '", kernel.type_string(),
                                     "'): the bias must be a vector of the output depth ", n, ", got shape ",
                                     bias.shape().DebugString());
    }
    return Status::OK();
  }

  // rows x n values at out, each row `ld` apart: out += bias, then max(out, 0) with Relu.
  template <class T>
  void Apply(T* out, int64_t rows, int64_t n, int64_t ld, const T* bias) const {
    if (!active_) return;
    for (int64_t r = 0; r < rows; ++r, out += ld) {
      if (relu_) {
        for (int64_t j = 0; j < n; ++j) out[j] = std::max(out[j] + bias[j], T(0));
      } else {
        for (int64_t j = 0; j < n; ++j) out[j] += bias[j];
      }
    }
  }

 private:
  bool active_ = false, relu_ = false;
};

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_CPU_FUSED_EPILOGUE_H_
