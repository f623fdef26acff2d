/// @file
/// Small helpers every ops:: builder file uses: AttrValues from C++ values, the element
/// type of an Input, and "an op whose inputs share the type attr T".
#ifndef TENSORACT_GRAPH_BUILDER_ATTR_UTIL_H_
#define TENSORACT_GRAPH_BUILDER_ATTR_UTIL_H_

#include <map>
#include <string>
#include <vector>

#include "graph/builder/scope.h"

namespace tensoract {
namespace ops {

/// A node's attributes by name, as Scope::AddOp takes them.
using Attrs = std::map<std::string, tensorflow::AttrValue>;

/// An AttrValue holding the dtype `t` (a `type` attr such as "T" or "dtype").
tensorflow::AttrValue TypeAttr(DataType t);
/// An AttrValue holding the bool `b` (a `bool` attr).
tensorflow::AttrValue BoolAttr(bool b);
/// An AttrValue holding the integer `i` (an `int` attr).
tensorflow::AttrValue IntAttr(int64_t i);
/// An AttrValue holding the float `f` (a `float` attr).
tensorflow::AttrValue FloatAttr(float f);
/// An AttrValue holding the string `s` (a `string` attr).
tensorflow::AttrValue StringAttr(const std::string& s);
/// An AttrValue holding `shape` as a TensorShapeProto (a `shape` attr; unknown rank allowed).
tensorflow::AttrValue ShapeAttr(const PartialTensorShape& shape);
/// An AttrValue holding the integers `values` (a `list(int)` attr); an empty vector still sets an
/// empty list, not an unset value.
tensorflow::AttrValue IntListAttr(const std::vector<int64_t>& values);

/// The element type of an input, before it exists as a node.
/// A constant's dtype, or an Output's type with any reference stripped (DT_INVALID for an empty one).
DataType TypeOf(const Input& in);

/// Adds `op` with attr T = the type of inputs[0] (plus `extra`); output 0.
/// `inputs` must not be empty. Without `extra`, an eager scope dispatches it as Scope::AddTypedOp.
Output TypedOp(const Scope& scope, const std::string& op, const std::vector<Input>& inputs, Attrs extra = {});

}  // namespace ops
}  // namespace tensoract

#endif  // TENSORACT_GRAPH_BUILDER_ATTR_UTIL_H_
