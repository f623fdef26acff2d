#include "graph/node_def_util.h"

#include <algorithm>

namespace tensoract {
namespace {

using tensorflow::OpDef;

std::string ListTypeName(const AttrValue::ListValue& l) {
  if (l.s_size()) return "list(string)";
  if (l.i_size()) return "list(int)";
  if (l.f_size()) return "list(float)";
  if (l.b_size()) return "list(bool)";
  if (l.type_size()) return "list(type)";
  if (l.shape_size()) return "list(shape)";
  if (l.tensor_size()) return "list(tensor)";
  if (l.func_size()) return "list(func)";
  return "list";  // an empty list matches any list type
}

const AttrValue* Find(const NodeDef& node, const std::string& name) {
  auto it = node.attr().find(name);
  return it == node.attr().end() ? nullptr : &it->second;
}

Status Missing(const NodeDef& node, const std::string& name) {
  return errors::NotFound("node '", node.name(), "' (op '", node.op(), "') has no attr named '", name, "'");
}

Status WrongType(const NodeDef& node, const std::string& name, const AttrValue& v, const char* want) {
  return errors::InvalidArgument("attr '", name, "' of node '", node.name(), "' (op '", node.op(),
                                 "') is a ", AttrValueTypeName(v), " but should be a ", want);
}

const AttrValue* Get(const NodeDef& node, const std::string& name, AttrValue::ValueCase want,
                     const char* want_name, Status* status) {
  const AttrValue* v = Find(node, name);
  if (v == nullptr) {
    *status = Missing(node, name);
    return nullptr;
  }
  if (v->value_case() != want) {
    *status = WrongType(node, name, *v, want_name);
    return nullptr;
  }
  return v;
}

// How many tensors an arg stands for, and their types.
Status ArgTypes(const NodeDef& node, const OpDef::ArgDef& arg, DataTypeVector* out) {
  int64_t n = 1;
  if (!arg.number_attr().empty()) {
    TA_RETURN_IF_ERROR(GetNodeAttr(node, arg.number_attr(), &n));
    if (n < 0) {
      return errors::InvalidArgument("attr '", arg.number_attr(), "' of node '", node.name(), "' is ", n,
                                     ", a negative count of arg '", arg.name(), "'");
    }
  }
  if (!arg.type_list_attr().empty()) {
    DataTypeVector types;
    TA_RETURN_IF_ERROR(GetNodeAttr(node, arg.type_list_attr(), &types));
    for (DataType t : types) out->push_back(arg.is_ref() ? MakeRefType(t) : t);
    return Status::OK();
  }
  DataType dt = arg.type();
  if (!arg.type_attr().empty()) TA_RETURN_IF_ERROR(GetNodeAttr(node, arg.type_attr(), &dt));
  if (dt == tensorflow::DT_INVALID) {
    return errors::InvalidArgument("arg '", arg.name(), "' of node '", node.name(), "' has no type");
  }
  for (int64_t i = 0; i < n; ++i) out->push_back(arg.is_ref() ? MakeRefType(dt) : dt);
  return Status::OK();
}

bool AllowedValue(const AttrValue& allowed, const AttrValue& v, std::string* bad) {
  const auto& list = allowed.list();
  auto check_type = [&](DataType t) {
    if (std::find(list.type().begin(), list.type().end(), t) != list.type().end()) return true;
    *bad = DataTypeString(t);
    return false;
  };
  auto check_string = [&](const std::string& s) {
    if (std::find(list.s().begin(), list.s().end(), s) != list.s().end()) return true;
    *bad = "\"" + s + "\"";
    return false;
  };
  if (v.value_case() == AttrValue::kType) return check_type(v.type());
  if (v.value_case() == AttrValue::kS) return check_string(v.s());
  if (v.value_case() == AttrValue::kList) {
    for (int t : v.list().type()) if (!check_type(static_cast<DataType>(t))) return false;
    for (const auto& s : v.list().s()) if (!check_string(s)) return false;
  }
  return true;
}

std::string AllowedString(const AttrValue& allowed) {
  std::string out;
  for (int t : allowed.list().type()) out += (out.empty() ? "" : ", ") + DataTypeString(static_cast<DataType>(t));
  for (const auto& s : allowed.list().s()) out += (out.empty() ? "\"" : ", \"") + s + "\"";
  return "{" + out + "}";
}

}  // namespace

bool AttrIsTrue(const NodeDef& node, const std::string& name) {
  auto it = node.attr().find(name);
  return it != node.attr().end() && it->second.b();  // b() is false for a value of another type
}

std::string AttrValueTypeName(const AttrValue& v) {
  switch (v.value_case()) {
    case AttrValue::kS: return "string";
    case AttrValue::kI: return "int";
    case AttrValue::kF: return "float";
    case AttrValue::kB: return "bool";
    case AttrValue::kType: return "type";
    case AttrValue::kShape: return "shape";
    case AttrValue::kTensor: return "tensor";
    case AttrValue::kList: return ListTypeName(v.list());
    case AttrValue::kFunc: return "func";
    case AttrValue::kPlaceholder: return "placeholder";
    default: return "";
  }
}

void AddDefaultsToNodeDef(const OpDef& op_def, NodeDef* node_def) {
  for (const auto& attr : op_def.attr()) {
    if (attr.has_default_value() && node_def->attr().count(attr.name()) == 0) {
      (*node_def->mutable_attr())[attr.name()] = attr.default_value();
    }
  }
}

Status ValidateNodeDef(const NodeDef& node, const OpDef& op_def) {
  auto where = [&] { return StrCat("node '", node.name(), "' (op '", node.op(), "')"); };
  if (node.op() != op_def.name()) {
    return errors::InvalidArgument(where(), " is validated against op '", op_def.name(), "'");
  }
  for (const auto& entry : node.attr()) {
    const std::string& name = entry.first;  // a plain name: lambdas cannot capture bindings (C++17)
    // Attrs starting with '_' belong to the runtime (_class, _output_shapes), not the op.
    if (!name.empty() && name[0] == '_') continue;
    auto decl = std::find_if(op_def.attr().begin(), op_def.attr().end(),
                             [&](const OpDef::AttrDef& a) { return a.name() == name; });
    if (decl == op_def.attr().end()) {
      return errors::InvalidArgument(where(), " has attr '", name, "', which the op does not declare");
    }
  }
  for (const auto& attr : op_def.attr()) {
    const AttrValue* v = Find(node, attr.name());
    if (v == nullptr) {
      return errors::InvalidArgument(where(), " is missing attr '", attr.name(), "' of type ", attr.type());
    }
    std::string type = AttrValueTypeName(*v);
    bool list_matches = type == "list" && attr.type().compare(0, 5, "list(") == 0;
    if (type != attr.type() && !list_matches) {
      return errors::InvalidArgument(where(), ": attr '", attr.name(), "' is a ",
                                     type.empty() ? "value with nothing set" : type, " but the op wants a ",
                                     attr.type());
    }
    // A dtype off TensorFlow's list would be carried along and only fail, unnamed, where an
    // edge's types are compared ("expected unknown dtype 9599").
    if (attr.type() == "type" || attr.type() == "list(type)") {
      const std::vector<int> dtypes = attr.type() == "type"
                                          ? std::vector<int>{v->type()}
                                          : std::vector<int>(v->list().type().begin(), v->list().type().end());
      for (int t : dtypes) {
        if (!tensorflow::DataType_IsValid(t) || t == tensorflow::DT_INVALID) {
          return errors::InvalidArgument(where(), ": attr '", attr.name(), "' is dtype ", t,
                                         ", which is not a TensorFlow dtype");
        }
      }
    }
    std::string bad;
    if (attr.has_allowed_values() && !AllowedValue(attr.allowed_values(), *v, &bad)) {
      return errors::InvalidArgument(where(), ": attr '", attr.name(), "' is ", bad, ", not one of ",
                                     AllowedString(attr.allowed_values()));
    }
    if (attr.has_minimum()) {
      int64_t got = attr.type() == "int" ? v->i()
                    : std::max({v->list().i_size(), v->list().s_size(), v->list().f_size(),
                                v->list().b_size(), v->list().type_size(), v->list().shape_size(),
                                v->list().tensor_size(), v->list().func_size()});
      if (got < attr.minimum()) {
        return errors::InvalidArgument(where(), ": attr '", attr.name(), "' is ", got,
                                       (attr.type() == "int" ? "" : " long"), ", less than the minimum ",
                                       attr.minimum());
      }
    }
  }
  DataTypeVector inputs, outputs;
  TA_RETURN_IF_ERROR(InOutTypesForNode(node, op_def, &inputs, &outputs));
  int data_inputs = 0;
  bool seen_control = false;
  for (const auto& in : node.input()) {
    if (!in.empty() && in[0] == '^') {
      seen_control = true;
    } else if (seen_control) {
      return errors::InvalidArgument(where(), " has data input '", in, "' after a control input");
    } else {
      ++data_inputs;
    }
  }
  if (data_inputs != static_cast<int>(inputs.size())) {
    return errors::InvalidArgument(where(), " has ", data_inputs, " data inputs but the op expects ",
                                   inputs.size());
  }
  return Status::OK();
}

Status InOutTypesForNode(const NodeDef& node, const OpDef& op_def, DataTypeVector* inputs,
                         DataTypeVector* outputs) {
  inputs->clear();
  outputs->clear();
  for (const auto& arg : op_def.input_arg()) TA_RETURN_IF_ERROR(ArgTypes(node, arg, inputs));
  for (const auto& arg : op_def.output_arg()) TA_RETURN_IF_ERROR(ArgTypes(node, arg, outputs));
  return Status::OK();
}

#define TA_SCALAR_GETTER(CType, CASE, NAME, EXPR)                                          \
  Status GetNodeAttr(const NodeDef& node, const std::string& name, CType* value) {         \
    Status s;                                                                              \
    const AttrValue* v = Get(node, name, AttrValue::CASE, NAME, &s);                 \
    if (v == nullptr) return s;                                                            \
    *value = EXPR;                                                                         \
    return Status::OK();                                                                   \
  }
TA_SCALAR_GETTER(bool, kB, "bool", v->b())
TA_SCALAR_GETTER(int64_t, kI, "int", v->i())
TA_SCALAR_GETTER(int32_t, kI, "int", static_cast<int32_t>(v->i()))
TA_SCALAR_GETTER(float, kF, "float", v->f())
TA_SCALAR_GETTER(std::string, kS, "string", v->s())
TA_SCALAR_GETTER(DataType, kType, "type", v->type())
TA_SCALAR_GETTER(const tensorflow::TensorProto*, kTensor, "tensor", &v->tensor())
#undef TA_SCALAR_GETTER

Status GetNodeAttr(const NodeDef& node, const std::string& name, PartialTensorShape* value) {
  Status s;
  const AttrValue* v = Get(node, name, AttrValue::kShape, "shape", &s);
  if (v == nullptr) return s;
  auto shape = PartialTensorShape::FromProto(v->shape());
  if (!shape.ok()) return shape.status().WithContext(StrCat("attr '", name, "' of node '", node.name(), "'"));
  *value = *shape;
  return Status::OK();
}

#define TA_LIST_GETTER(CType, FIELD, NAME, CONVERT)                                        \
  Status GetNodeAttr(const NodeDef& node, const std::string& name, std::vector<CType>* value) { \
    Status s;                                                                              \
    const AttrValue* v = Get(node, name, AttrValue::kList, NAME, &s);                \
    if (v == nullptr) return s;                                                            \
    value->clear();                                                                        \
    for (const auto& x : v->list().FIELD()) value->push_back(CONVERT(x));                  \
    return Status::OK();                                                                   \
  }
TA_LIST_GETTER(int64_t, i, "list(int)", static_cast<int64_t>)
TA_LIST_GETTER(std::string, s, "list(string)", std::string)
TA_LIST_GETTER(DataType, type, "list(type)", static_cast<DataType>)
#undef TA_LIST_GETTER

Status GetNodeAttr(const NodeDef& node, const std::string& name, std::vector<PartialTensorShape>* value) {
  Status s;
  const AttrValue* v = Get(node, name, AttrValue::kList, "list(shape)", &s);
  if (v == nullptr) return s;
  value->clear();
  for (const auto& proto : v->list().shape()) {
    auto shape = PartialTensorShape::FromProto(proto);
    if (!shape.ok()) {
      return shape.status().WithContext(StrCat("shape ", value->size(), " of attr '", name, "' of node '", node.name(), "'"));
    }
    value->push_back(*shape);
  }
  return Status::OK();
}

std::string TensorId::ToString() const {
  if (IsControl()) return "^" + node;
  return index == 0 ? node : node + ":" + std::to_string(index);
}

std::string NodeNameOf(const std::string& tensor_name) {
  const size_t start = !tensor_name.empty() && tensor_name[0] == '^' ? 1 : 0;
  const size_t colon = tensor_name.rfind(':');
  return tensor_name.substr(start, colon == std::string::npos || colon < start ? std::string::npos : colon - start);
}

Status ParseTensorName(const std::string& name, TensorId* id) {
  std::string s = name;
  if (!s.empty() && s[0] == '^') {
    id->node = s.substr(1);
    id->index = -1;
    if (id->node.empty()) return errors::InvalidArgument("control input '", name, "' names no node");
    return Status::OK();
  }
  id->index = 0;
  size_t colon = s.rfind(':');
  if (colon != std::string::npos) {
    std::string port = s.substr(colon + 1);
    if (port.empty() || port.size() > 9 || !std::all_of(port.begin(), port.end(), ::isdigit)) {
      return errors::InvalidArgument("tensor name '", name, "' has port '", port,
                                     "', which is not a non-negative integer");
    }
    id->index = std::stoi(port);
    s = s.substr(0, colon);
  }
  if (s.empty()) return errors::InvalidArgument("tensor name '", name, "' names no node");
  id->node = s;
  return Status::OK();
}

}  // namespace tensoract
