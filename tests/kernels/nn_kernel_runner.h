// Runs one node's CPU kernel directly, without a session: for the nn, random and training
// kernel tests. The node is built with the builder API (its inputs are usually
// Placeholders, so any shape passes inference); Run feeds it tensors and, for reference
// inputs, variables.
#ifndef TENSORACT_TESTS_KERNELS_NN_KERNEL_RUNNER_H_
#define TENSORACT_TESTS_KERNELS_NN_KERNEL_RUNNER_H_

#include <catch2/catch.hpp>

#include <cmath>
#include <memory>
#include <vector>

#include "graph/builder/scope.h"
#include "graph/graph.h"
#include "kernels/kernel_registry.h"
#include "kernels/variable.h"
#include "tests/kernels/kernel_test_util.h"

namespace tensoract {
namespace nn_test {

using testing::Make;

class KernelRunner {
 public:
  KernelRunner() : device_("/job:localhost/replica:0/task:0/device:CPU:0", DEVICE_CPU, 2) {}
  Device* device() { return &device_; }

  // Makes the kernel of `node` once (a kernel keeps state across runs, as random ops do).
  Status Init(const Output& node) {
    if (node.node == nullptr) return errors::InvalidArgument("no node");
    return CreateOpKernel(&device_, node.node->def(), node.node->op_def(), &kernel_);
  }

  // Runs the kernel made by Init; `refs` has the variable for each reference input and
  // nullptr elsewhere (empty: no reference inputs).
  StatusOr<std::vector<Tensor>> Run(std::vector<Tensor> inputs, std::vector<std::shared_ptr<Var>> refs = {}) {
    OpKernelContext::Params params;
    params.device = &device_;
    params.kernel = kernel_.get();
    params.inputs = &inputs;
    if (!refs.empty()) params.input_refs = &refs;
    OpKernelContext ctx(params);
    kernel_->Compute(&ctx);
    if (!ctx.status().ok()) return ctx.status();
    last_output_refs_ = ctx.output_refs();
    return ctx.outputs();
  }

  StatusOr<std::vector<Tensor>> Run(const Output& node, std::vector<Tensor> inputs,
                                    std::vector<std::shared_ptr<Var>> refs = {}) {
    TA_RETURN_IF_ERROR(Init(node));
    return Run(std::move(inputs), std::move(refs));
  }

  const OpKernel& kernel() const { return *kernel_; }
  const std::vector<std::shared_ptr<Var>>& last_output_refs() const { return last_output_refs_; }

 private:
  Device device_;
  std::unique_ptr<OpKernel> kernel_;
  std::vector<std::shared_ptr<Var>> last_output_refs_;
};

// The elements of `t` as doubles, whatever its (real) type.
template <class T>
std::vector<double> AsDoubles(const Tensor& t) {
  std::vector<double> out;
  for (int64_t i = 0; i < t.NumElements(); ++i) out.push_back(static_cast<double>(t.base<T>()[i]));
  return out;
}

// Each element within `tol` (relative to max(1, |expected|)).
inline void CheckClose(const std::vector<double>& got, const std::vector<double>& want, double tol) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i << ": got " << got[i] << ", want " << want[i]);
    CHECK(std::abs(got[i] - want[i]) <= tol * std::max(1.0, std::abs(want[i])));
  }
}

}  // namespace nn_test
}  // namespace tensoract

#endif  // TENSORACT_TESTS_KERNELS_NN_KERNEL_RUNNER_H_
