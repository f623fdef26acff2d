// Reading and checking a NodeDef against its OpDef.
//
// ValidateNodeDef is what makes a GraphDef from outside safe to run: every attr the op
// declares is present with the right type and an allowed value, no undeclared attr is
// present, and the number of inputs is what the op expects. Errors name the node, the
// op and the attr.
#ifndef TENSORACT_GRAPH_NODE_DEF_UTIL_H_
#define TENSORACT_GRAPH_NODE_DEF_UTIL_H_

#include <string>
#include <vector>

#include "base/status.h"
#include "base/tensor_shape.h"
#include "base/types.h"
#include "messages/node_def.pb.h"
#include "messages/op_def.pb.h"

namespace tensoract {

using NodeDef = tensorflow::NodeDef;
using AttrValue = tensorflow::AttrValue;

// Adds the op's default for every attr the node leaves out.
void AddDefaultsToNodeDef(const tensorflow::OpDef& op_def, NodeDef* node_def);

// Precondition: defaults were added.
Status ValidateNodeDef(const NodeDef& node_def, const tensorflow::OpDef& op_def);

// The data types of the node's inputs and outputs, resolved through its attrs.
Status InOutTypesForNode(const NodeDef& node_def, const tensorflow::OpDef& op_def,
                         DataTypeVector* inputs, DataTypeVector* outputs);

// Typed attr access. NotFound when missing, InvalidArgument when of another type; both
// name the node and the attr.
Status GetNodeAttr(const NodeDef& node, const std::string& name, bool* value);
Status GetNodeAttr(const NodeDef& node, const std::string& name, int64_t* value);
Status GetNodeAttr(const NodeDef& node, const std::string& name, int32_t* value);
Status GetNodeAttr(const NodeDef& node, const std::string& name, float* value);
Status GetNodeAttr(const NodeDef& node, const std::string& name, std::string* value);
Status GetNodeAttr(const NodeDef& node, const std::string& name, DataType* value);
Status GetNodeAttr(const NodeDef& node, const std::string& name, PartialTensorShape* value);
Status GetNodeAttr(const NodeDef& node, const std::string& name, const tensorflow::TensorProto** value);
Status GetNodeAttr(const NodeDef& node, const std::string& name, std::vector<int64_t>* value);
Status GetNodeAttr(const NodeDef& node, const std::string& name, DataTypeVector* value);
Status GetNodeAttr(const NodeDef& node, const std::string& name, std::vector<std::string>* value);
Status GetNodeAttr(const NodeDef& node, const std::string& name, std::vector<PartialTensorShape>* value);

// Whether the node has the bool attr `name` set to true: a missing attr is false (the
// private marks optimizers set, such as "_constant_weights", and optional bools).
bool AttrIsTrue(const NodeDef& node, const std::string& name);

// The AttrValue type name of a value ("int", "list(type)", ...); "" for an empty oneof.
std::string AttrValueTypeName(const AttrValue& value);

// "a", "a:1", "^a": node name, output port (-1 for a control input).
struct TensorId {
  std::string node;
  int index = 0;
  bool IsControl() const { return index < 0; }
  std::string ToString() const;
};
// Fails on an empty name or a port that is not a non-negative integer.
Status ParseTensorName(const std::string& name, TensorId* id);
// The node of a tensor name "a:1", a control input "^a" or a node name "a", unchecked.
std::string NodeNameOf(const std::string& tensor_name);

}  // namespace tensoract

#endif  // TENSORACT_GRAPH_NODE_DEF_UTIL_H_
