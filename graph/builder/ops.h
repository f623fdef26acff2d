/// @file
/// Builder functions for the registered ops: each adds one node to the scope's graph and
/// returns its output(s) (an Output, an OutputList for list outputs, or the Node* of an op
/// without outputs, to target or depend on). Type attributes are taken from the inputs, as
/// in TensorFlow's C++ API; optional attributes come in an `...Attrs` struct whose defaults
/// are the op's. Default node names are the function's name, as TensorFlow's C++ API names
/// them ("Variable" for ops::Variable, which makes a VariableV2). An error is recorded in the
/// scope (see graph/builder/scope.h) and the result is empty.
#ifndef TENSORACT_GRAPH_BUILDER_OPS_H_
#define TENSORACT_GRAPH_BUILDER_OPS_H_

#include <string>
#include <vector>

#include "base/tensor_shape.h"
#include "graph/builder/scope.h"

namespace tensoract {
namespace ops {

// ---- array_ops -------------------------------------------------------------------------
/// A constant tensor holding `value`, which must be an inline constant (not an Output); rows of
/// different lengths are an InvalidArgument.
Output Const(const Scope& scope, const Input& value);
/// A value of `dtype` the client feeds at run time; `shape` (default unknown) is what shape
/// inference assumes and what a fed value must match.
Output Placeholder(const Scope& scope, DataType dtype, const PartialTensorShape& shape = PartialTensorShape());
/// `input` unchanged (the same buffer), as a new node to name, place or depend on.
Output Identity(const Scope& scope, const Input& input);

// ---- math_ops --------------------------------------------------------------------------
/// Element-wise x + y, with NumPy broadcasting (TensorFlow 1's op; TensorFlow 2 emits AddV2).
Output Add(const Scope& scope, const Input& x, const Input& y);
/// Element-wise x + y, with NumPy broadcasting: the addition TensorFlow 2 emits, also for uint16/32/64.
Output AddV2(const Scope& scope, const Input& x, const Input& y);
/// Element-wise x * y, with NumPy broadcasting.
Output Mul(const Scope& scope, const Input& x, const Input& y);

/// Optional attributes of MatMul().
struct MatMulAttrs {
  /// Whether `a` is transposed before the product (default false).
  bool transpose_a = false;
  /// Whether `b` is transposed before the product (default false).
  bool transpose_b = false;
};
/// The matrix product a * b of two rank-2 tensors, either optionally transposed first.
Output MatMul(const Scope& scope, const Input& a, const Input& b, MatMulAttrs attrs = {});

// ---- function_ops: the call frame ------------------------------------------------------
/// A node with no outputs; target it, or depend on it, to run what it depends on.
Node* NoOp(const Scope& scope);
/// The op `_Arg` (C++ reserves names starting with an underscore and a capital, so this drops
/// it): argument `index` of the call frame, of dtype `type`; the runtime makes these for feeds.
Output Arg(const Scope& scope, DataType type, int64_t index);
/// The op `_Retval` (C++ reserves names starting with an underscore and a capital, so this drops
/// it): sets `input` as return value `index` of the call frame; the runtime makes these for fetches.
Node* Retval(const Scope& scope, const Input& input, int64_t index);

// ---- state_ops: TensorFlow 1.x reference variables --------------------------------------
/// Optional attributes of Variable(), VariableV2() and VariableV1().
struct VariableAttrs {
  std::string container;    ///< "" is the default container
  std::string shared_name;  ///< "" shares under the node's name
};
/// A VariableV2 node, as TensorFlow's C++ ops::Variable; its output is a Ref(dtype).
Output Variable(const Scope& scope, const PartialTensorShape& shape, DataType dtype, VariableAttrs attrs = {});
/// The same VariableV2 node as Variable(), but named "VariableV2" by default: a tensor of `dtype`
/// and `shape` that persists across steps, output as a Ref(dtype).
Output VariableV2(const Scope& scope, const PartialTensorShape& shape, DataType dtype, VariableAttrs attrs = {});
/// The legacy op "Variable" (a scalar shape means unknown), for old graphs' sake.
Output VariableV1(const Scope& scope, const PartialTensorShape& shape, DataType dtype, VariableAttrs attrs = {});

/// Optional attributes of Assign().
struct AssignAttrs {
  bool validate_shape = true;  ///< false: the variable takes the value's shape
  /// Whether the write holds the variable's lock (default true).
  bool use_locking = true;
};
/// ref = value; returns ref after the write. `ref` must be a reference (a Variable).
Output Assign(const Scope& scope, const Input& ref, const Input& value, AssignAttrs attrs = {});

/// Optional attributes of AssignAdd() and AssignSub().
struct AssignUpdateAttrs {
  /// Whether the update holds the variable's lock (default false).
  bool use_locking = false;
};
/// ref += value; returns ref after the update. `ref` must be a reference (a Variable).
Output AssignAdd(const Scope& scope, const Input& ref, const Input& value, AssignUpdateAttrs attrs = {});
/// ref -= value; returns ref after the update. `ref` must be a reference (a Variable).
Output AssignSub(const Scope& scope, const Input& ref, const Input& value, AssignUpdateAttrs attrs = {});
/// A bool scalar: whether the reference variable `ref` has been assigned a value.
Output IsVariableInitialized(const Scope& scope, const Input& ref);

// ---- resource_variable_ops -------------------------------------------------------------
/// Optional attributes of VarHandleOp().
struct VarHandleOpAttrs {
  /// The resource container the variable lives in; "" is the default one.
  std::string container;
  /// The name the variable is shared under; "" (the default) is the node's name, which a graph
  /// scope writes into the attr, as TensorFlow's Python does.
  std::string shared_name;
  /// A name for error messages and debugging (tf.Variable's name); "" by default.
  std::string debug_name;
  /// The devices the variable may live on, for a per-replica variable (TensorFlow marks it
  /// deprecated); empty by default.
  std::vector<std::string> allowed_devices;
};
/// A handle (a DT_RESOURCE scalar) to a variable of `dtype` and `shape`.
Output VarHandleOp(const Scope& scope, DataType dtype, const PartialTensorShape& shape, VarHandleOpAttrs attrs = {});
/// The current value of the variable behind `resource`, of `dtype`: a copy later writes do not change.
Output ReadVariableOp(const Scope& scope, const Input& resource, DataType dtype);

/// Optional attributes of AssignVariableOp().
struct AssignVariableOpAttrs {
  /// Whether `value` must have the variable's shape (default false).
  bool validate_shape = false;
};
/// Sets the variable behind `resource` to `value` (its dtype from `value`).
Node* AssignVariableOp(const Scope& scope, const Input& resource, const Input& value,
                       AssignVariableOpAttrs attrs = {});
/// Adds `value` to the variable behind `resource`.
Node* AssignAddVariableOp(const Scope& scope, const Input& resource, const Input& value);
/// Subtracts `value` from the variable behind `resource`.
Node* AssignSubVariableOp(const Scope& scope, const Input& resource, const Input& value);
/// A bool scalar: whether the variable behind `resource` has been assigned a value.
Output VarIsInitializedOp(const Scope& scope, const Input& resource);

/// Optional attributes of DestroyResourceOp().
struct DestroyResourceOpAttrs {
  /// Whether a resource that does not exist is no error (default true).
  bool ignore_lookup_error = true;
};
/// Deletes the resource (e.g. a variable) behind the handle `resource`.
Node* DestroyResourceOp(const Scope& scope, const Input& resource, DestroyResourceOpAttrs attrs = {});

}  // namespace ops
}  // namespace tensoract

#endif  // TENSORACT_GRAPH_BUILDER_OPS_H_
