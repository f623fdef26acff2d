// The op registry: every op this binary knows, as TensorFlow OpDefs.
//
// An op says what a node computes (inputs, outputs, attributes, flags); kernels say how,
// per device (kernels/kernel_registry.h). Ops register at load time:
//
//   REGISTER_OP("MatMul")
//       .Input("a: T").Input("b: T").Output("product: T")
//       .Attr("transpose_a: bool = false").Attr("transpose_b: bool = false")
//       .Attr("T: {half, float, double, int32, int64}")
//       .SetShapeFn(shape_inference::MatMulShape);
//
// The spec strings use TensorFlow's syntax (see graph/op_def_builder.h); the shape function
// (graph/shape_inference.h) runs whenever a node of the op is added to a graph. A spec that does
// not parse is reported when the op is looked up, naming the op and the spec, so a bad
// registration cannot go unnoticed nor crash start-up.
//
// Thread-safety: registration happens during static initialisation; LookUp may be called
// from any thread afterwards.
#ifndef TENSORACT_GRAPH_OP_REGISTRY_H_
#define TENSORACT_GRAPH_OP_REGISTRY_H_

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/status.h"
#include "graph/op_def_builder.h"
#include "messages/op_def.pb.h"

namespace tensoract {

class OpRegistry {
 public:
  static OpRegistry* Global();

  // Takes the builder's result; a duplicate name or a bad spec is remembered as an error
  // for that op and returned by every LookUp of it.
  void Register(const OpDefBuilder& builder);

  // NotFound naming the op when it is not registered.
  StatusOr<const tensorflow::OpDef*> LookUp(const std::string& op_type) const;
  // The OpDef and the shape function together. The pointer stays valid for the registry's
  // lifetime (entries are never removed).
  StatusOr<const OpRegistrationData*> LookUpOpData(const std::string& op_type) const;

  // Makes `alias` another name of the registered op `op` (the whitepaper's "Leave" for
  // TensorFlow's "Exit"): looking it up gives `op`'s registration, and a node written with
  // the alias becomes a node of `op` (Graph::AddNode). Aliases are not listed or exported.
  void RegisterAlias(const std::string& alias, const std::string& op);

  // Ops only, without aliases.
  std::vector<std::string> ListOpNames() const;
  void Export(tensorflow::OpList* ops) const;

 private:
  struct Entry {
    Status status;
    OpRegistrationData data;
  };
  mutable std::mutex mu_;  // registration may come from several shared libraries' initialisers
  std::map<std::string, std::unique_ptr<Entry>> ops_;
  std::map<std::string, std::string> aliases_;  // alias -> op
};

namespace register_op {
// Registers its builder when it goes out of scope, at the end of the REGISTER_OP statement.
class Registrar {
 public:
  explicit Registrar(const char* name) : builder_(name) {}
  ~Registrar() { OpRegistry::Global()->Register(builder_); }
  OpDefBuilder& builder() { return builder_; }

 private:
  OpDefBuilder builder_;
};
struct Done {
  Done(OpDefBuilder&) {}  // NOLINT: swallows the builder chain's result
};
}  // namespace register_op

#define TA_OP_CONCAT_INNER(a, b) a##b
#define TA_OP_CONCAT(a, b) TA_OP_CONCAT_INNER(a, b)
// REGISTER_OP_ALIAS("Leave", "Exit"): see OpRegistry::RegisterAlias.
#define REGISTER_OP_ALIAS(alias, op)                                                    \
  static const bool TA_OP_CONCAT(ta_register_op_alias_, __COUNTER__) =                   \
      (::tensoract::OpRegistry::Global()->RegisterAlias(alias, op), true)
#define REGISTER_OP(name)                                                          \
  static ::tensoract::register_op::Done TA_OP_CONCAT(ta_register_op_, __COUNTER__) = \
      ::tensoract::register_op::Registrar(name).builder()

}  // namespace tensoract

#endif  // TENSORACT_GRAPH_OP_REGISTRY_H_
