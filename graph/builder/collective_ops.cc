#include "graph/builder/collective_ops.h"

#include "graph/builder/attr_util.h"

namespace tensoract {
namespace ops {
namespace {

Attrs Common(DataType t, const CollectiveAttrs& a) {
  return {{"T", TypeAttr(t)},
          {"communication_hint", StringAttr(a.communication_hint)},
          {"timeout_seconds", FloatAttr(a.timeout_seconds)}};
}

// The ops with ordering tokens, built with none.
Attrs WithNoTokens(Attrs attrs) {
  attrs["is_stateless"] = BoolAttr(false);
  attrs["Nordering_token"] = IntAttr(0);
  return attrs;
}

}  // namespace

Output CollectiveReduceV2(const Scope& scope, const Input& input, const Input& group_size, const Input& group_key,
                          const Input& instance_key, const std::string& merge_op, const std::string& final_op,
                          CollectiveAttrs attrs) {
  Attrs a = WithNoTokens(Common(TypeOf(input), attrs));
  a["merge_op"] = StringAttr(merge_op);
  a["final_op"] = StringAttr(final_op);
  a["max_subdivs_per_device"] = IntAttr(-1);
  return Output(scope.AddOp("CollectiveReduceV2", "CollectiveReduceV2", {input, group_size, group_key, instance_key}, a),
                0);
}

Output CollectiveGatherV2(const Scope& scope, const Input& input, const Input& group_size, const Input& group_key,
                          const Input& instance_key, CollectiveAttrs attrs) {
  return Output(scope.AddOp("CollectiveGatherV2", "CollectiveGatherV2", {input, group_size, group_key, instance_key},
                            WithNoTokens(Common(TypeOf(input), attrs))),
                0);
}

Output CollectiveBcastSendV2(const Scope& scope, const Input& input, const Input& group_size, const Input& group_key,
                             const Input& instance_key, CollectiveAttrs attrs) {
  return Output(scope.AddOp("CollectiveBcastSendV2", "CollectiveBcastSendV2",
                            {input, group_size, group_key, instance_key}, Common(TypeOf(input), attrs)),
                0);
}

Output CollectiveBcastRecvV2(const Scope& scope, DataType dtype, const Input& group_size, const Input& group_key,
                             const Input& instance_key, const Input& shape, CollectiveAttrs attrs) {
  Attrs a = Common(dtype, attrs);
  a["Tshape"] = TypeAttr(TypeOf(shape));
  return Output(scope.AddOp("CollectiveBcastRecvV2", "CollectiveBcastRecvV2", {group_size, group_key, instance_key, shape},
                            a),
                0);
}

}  // namespace ops
}  // namespace tensoract
