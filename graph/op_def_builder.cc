#include "graph/op_def_builder.h"

#include <algorithm>
#include <cctype>

#include "base/proto_io.h"

#include "base/types.h"

namespace tensoract {
namespace {

using tensorflow::AttrValue;
using tensorflow::OpDef;

std::string Trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

bool StartsWith(const std::string& s, const std::string& p) { return s.compare(0, p.size(), p) == 0; }

// "a, b ,c" -> {"a","b","c"}; empty input -> {}.
std::vector<std::string> SplitList(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == ',') {
      out.push_back(Trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!Trim(cur).empty() || !out.empty()) out.push_back(Trim(cur));
  return out;
}

bool IsValidName(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s) if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

// Splits "name: rest" at the first colon.
Status SplitNameAndType(const std::string& spec, std::string* name, std::string* rest) {
  size_t colon = spec.find(':');
  if (colon == std::string::npos) return errors::InvalidArgument("expected 'name: type'");
  *name = Trim(spec.substr(0, colon));
  *rest = Trim(spec.substr(colon + 1));
  if (!IsValidName(*name)) return errors::InvalidArgument("'", *name, "' is not a valid name");
  return Status::OK();
}

// Turns a default value written in a spec into AttrValue text, by the attr's type.
std::string DefaultAsAttrText(const std::string& type, const std::string& value) {
  auto quote = [](std::string v) {
    if (v.size() >= 2 && (v.front() == '\'' || v.front() == '"')) v = v.substr(1, v.size() - 2);
    std::string out = "\"";
    for (char c : v) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    return out + "\"";
  };
  auto type_enum = [](const std::string& v) {
    DataType dt;
    return DataTypeFromString(Trim(v), &dt) ? tensorflow::DataType_Name(dt) : Trim(v);
  };
  if (StartsWith(type, "list(")) {
    std::string elem = type.substr(5, type.size() - 6);
    std::string inner = Trim(value);
    if (inner.size() < 2 || inner.front() != '[' || inner.back() != ']') return "<bad list default>";
    std::string out = "list { ";
    for (const std::string& v : SplitList(inner.substr(1, inner.size() - 2))) {
      if (elem == "string") out += "s: " + quote(v) + " ";
      else if (elem == "int") out += "i: " + v + " ";
      else if (elem == "float") out += "f: " + v + " ";
      else if (elem == "bool") out += "b: " + v + " ";
      else if (elem == "type" || elem[0] == '{') out += "type: " + type_enum(v) + " ";
      else if (elem == "shape") out += "shape " + v + " ";
      else return "<bad list default>";
    }
    return out + "}";
  }
  if (type == "string" || (type[0] == '{' && type.find('\'') != std::string::npos)) return "s: " + quote(value);
  if (type == "int") return "i: " + value;
  if (type == "float") return "f: " + value;
  if (type == "bool") return "b: " + value;
  if (type == "type" || type[0] == '{') return "type: " + type_enum(value);
  if (type == "shape") return "shape " + value;
  if (type == "tensor") return "tensor " + value;
  return "<no default for type " + type + ">";
}

// A default must itself be a value the attr allows, as TensorFlow's ValidateOpDef insists.
Status CheckDefault(const OpDef::AttrDef& attr) {
  const AttrValue& d = attr.default_value();
  if (attr.has_allowed_values()) {
    const auto& allowed = attr.allowed_values().list();
    auto allowed_type = [&](int t) { return std::find(allowed.type().begin(), allowed.type().end(), t) != allowed.type().end(); };
    auto allowed_string = [&](const std::string& v) { return std::find(allowed.s().begin(), allowed.s().end(), v) != allowed.s().end(); };
    bool ok = true;
    if (d.value_case() == AttrValue::kType) ok = allowed_type(d.type());
    if (d.value_case() == AttrValue::kS) ok = allowed_string(d.s());
    for (int t : d.list().type()) ok = ok && allowed_type(t);
    for (const auto& v : d.list().s()) ok = ok && allowed_string(v);
    if (!ok) return errors::InvalidArgument("the default of attr '", attr.name(), "' is not one of its allowed values");
  }
  if (attr.has_minimum()) {
    int64_t got = attr.type() == "int" ? d.i()
                  : std::max({d.list().i_size(), d.list().s_size(), d.list().f_size(), d.list().b_size(),
                              d.list().type_size(), d.list().shape_size()});
    if (got < attr.minimum()) {
      return errors::InvalidArgument("the default of attr '", attr.name(), "' is less than its minimum ", attr.minimum());
    }
  }
  return Status::OK();
}

// "T: {float, double} = DT_FLOAT", "N: int >= 2", "ksize: list(int) >= 4".
Status ParseAttr(const std::string& spec, OpDef::AttrDef* attr) {
  std::string name, rest;
  TA_RETURN_IF_ERROR(SplitNameAndType(spec, &name, &rest));
  attr->set_name(name);
  std::string default_text;
  size_t eq = rest.find('=');
  while (eq != std::string::npos && eq > 0 && rest[eq - 1] == '>') eq = rest.find('=', eq + 1);
  if (eq != std::string::npos) {
    default_text = Trim(rest.substr(eq + 1));
    rest = Trim(rest.substr(0, eq));
  }
  if (size_t ge = rest.find(">="); ge != std::string::npos) {
    std::string min = Trim(rest.substr(ge + 2));
    try {
      attr->set_has_minimum(true);
      attr->set_minimum(std::stoll(min));
    } catch (...) {
      return errors::InvalidArgument("minimum '", min, "' of attr '", name, "' is not an integer");
    }
    rest = Trim(rest.substr(0, ge));
  }
  std::string type = rest;
  bool is_list = StartsWith(type, "list(") && type.back() == ')';
  std::string elem = is_list ? Trim(type.substr(5, type.size() - 6)) : type;
  if (!elem.empty() && elem.front() == '{') {
    if (elem.back() != '}') return errors::InvalidArgument("unterminated '{' in attr '", name, "'");
    auto values = SplitList(elem.substr(1, elem.size() - 2));
    auto quoted = [](const std::string& v) {
      return v.size() >= 2 && (v.front() == '\'' || v.front() == '"') && v.back() == v.front();
    };
    bool strings = !values.empty() && !values[0].empty() && (values[0][0] == '\'' || values[0][0] == '"');
    auto* allowed = attr->mutable_allowed_values()->mutable_list();
    for (const std::string& v : values) {
      if (strings != quoted(v)) {
        return errors::InvalidArgument("the allowed values of attr '", name,
                                       "' mix quoted strings and types, or misquote '", v, "'");
      }
      if (strings) {
        allowed->add_s(v.substr(1, v.size() - 2));
      } else {
        DataType dt;
        if (!DataTypeFromString(v, &dt)) {
          return errors::InvalidArgument("'", v, "' in the allowed types of attr '", name,
                                         "' is not a data type");
        }
        allowed->add_type(dt);
      }
    }
    elem = strings ? "string" : "type";
  }
  static const char* kTypes[] = {"string", "int", "float", "bool", "type", "shape", "tensor", "func"};
  bool known = false;
  for (const char* t : kTypes) known |= elem == t;
  if (!known) return errors::InvalidArgument("attr '", name, "' has unknown type '", type, "'");
  attr->set_type(is_list ? "list(" + elem + ")" : elem);
  if (!default_text.empty()) {
    std::string text = DefaultAsAttrText(is_list ? "list(" + elem + ")" : elem, default_text);
    Status parsed = ParseTextProto(text, attr->mutable_default_value());
    if (!parsed.ok()) {
      return errors::InvalidArgument("default '", default_text, "' of attr '", name, "' is not a valid ",
                                     attr->type(), " (", parsed.message(), ")");
    }
    TA_RETURN_IF_ERROR(CheckDefault(*attr));
  }
  return Status::OK();
}

const OpDef::AttrDef* FindAttr(const OpDef& op, const std::string& name) {
  for (const auto& a : op.attr()) if (a.name() == name) return &a;
  return nullptr;
}

// "a: T", "x: float", "values: N * T", "args: Tin", "ref: Ref(T)".
Status ParseArg(const std::string& spec, const OpDef& op, OpDef::ArgDef* arg) {
  std::string name, type;
  TA_RETURN_IF_ERROR(SplitNameAndType(spec, &name, &type));
  arg->set_name(name);
  if (StartsWith(type, "Ref(") && type.back() == ')') {
    arg->set_is_ref(true);
    type = Trim(type.substr(4, type.size() - 5));
  }
  if (size_t star = type.find('*'); star != std::string::npos) {
    std::string number = Trim(type.substr(0, star));
    const auto* n = FindAttr(op, number);
    if (n == nullptr || n->type() != "int") {
      return errors::InvalidArgument("'", number, "' in arg '", name, "' must be an int attr of the op");
    }
    arg->set_number_attr(number);
    type = Trim(type.substr(star + 1));
  }
  DataType dt;
  if (DataTypeFromString(type, &dt)) {
    arg->set_type(dt);
    return Status::OK();
  }
  const auto* attr = FindAttr(op, type);
  if (attr != nullptr && attr->type() == "type") {
    arg->set_type_attr(type);
  } else if (attr != nullptr && attr->type() == "list(type)" && arg->number_attr().empty()) {
    arg->set_type_list_attr(type);
  } else {
    return errors::InvalidArgument("'", type, "' in arg '", name,
                                   "' is neither a data type nor a type attr of the op");
  }
  return Status::OK();
}

}  // namespace

OpDefBuilder::OpDefBuilder(std::string op_name) { op_def_.set_name(std::move(op_name)); }

OpDefBuilder& OpDefBuilder::Attr(std::string spec) { attrs_.push_back(std::move(spec)); return *this; }
OpDefBuilder& OpDefBuilder::Input(std::string spec) { inputs_.push_back(std::move(spec)); return *this; }
OpDefBuilder& OpDefBuilder::Output(std::string spec) { outputs_.push_back(std::move(spec)); return *this; }
OpDefBuilder& OpDefBuilder::ControlOutput(std::string name) { op_def_.add_control_output(std::move(name)); return *this; }
OpDefBuilder& OpDefBuilder::SetIsCommutative() { op_def_.set_is_commutative(true); return *this; }
OpDefBuilder& OpDefBuilder::SetIsAggregate() { op_def_.set_is_aggregate(true); return *this; }
OpDefBuilder& OpDefBuilder::SetIsStateful() { op_def_.set_is_stateful(true); return *this; }

OpDefBuilder& OpDefBuilder::SetIsDistributedCommunication() {
  op_def_.set_is_distributed_communication(true);
  return *this;
}
OpDefBuilder& OpDefBuilder::SetAllowsUninitializedInput() { op_def_.set_allows_uninitialized_input(true); return *this; }
OpDefBuilder& OpDefBuilder::Doc(std::string summary) { op_def_.set_summary(std::move(summary)); return *this; }
OpDefBuilder& OpDefBuilder::SetShapeFn(ShapeInferenceFn fn) { shape_fn_ = std::move(fn); return *this; }
OpDefBuilder& OpDefBuilder::SetOutputFullType(std::string output, tensorflow::FullTypeDef type) {
  output_full_types_.emplace_back(std::move(output), std::move(type));
  return *this;
}

tensorflow::FullTypeDef FullType(tensorflow::FullTypeId id, std::vector<tensorflow::FullTypeDef> args) {
  tensorflow::FullTypeDef t;
  t.set_type_id(id);
  for (auto& a : args) *t.add_args() = std::move(a);
  return t;
}

tensorflow::FullTypeDef FullTypeVar(std::string attr) {
  tensorflow::FullTypeDef t;
  t.set_type_id(tensorflow::TFT_VAR);
  t.set_s(std::move(attr));
  return t;
}

Status OpDefBuilder::Finalize(OpRegistrationData* data) const {
  data->shape_inference_fn = shape_fn_;
  return Finalize(&data->op_def);
}

Status OpDefBuilder::Finalize(tensorflow::OpDef* op_def) const {
  *op_def = op_def_;
  auto where = [&](const char* what, const std::string& spec) {
    return StrCat("op '", op_def_.name(), "' ", what, " spec \"", spec, "\"");
  };
  if (!IsValidName(op_def_.name())) return errors::InvalidArgument("'", op_def_.name(), "' is not a valid op name");
  for (const auto& spec : attrs_) {
    auto* attr = op_def->add_attr();
    Status s = ParseAttr(spec, attr);
    if (!s.ok()) return s.WithContext(where("attr", spec));
    for (int i = 0; i + 1 < op_def->attr_size(); ++i) {
      if (op_def->attr(i).name() == attr->name()) {
        return errors::InvalidArgument(where("attr", spec), ": attr '", attr->name(), "' is declared twice");
      }
    }
  }
  // Args resolve against the attrs, so they are parsed after all attrs.
  for (const auto& spec : inputs_) {
    Status s = ParseArg(spec, *op_def, op_def->add_input_arg());
    if (!s.ok()) return s.WithContext(where("input", spec));
  }
  for (const auto& spec : outputs_) {
    Status s = ParseArg(spec, *op_def, op_def->add_output_arg());
    if (!s.ok()) return s.WithContext(where("output", spec));
  }
  for (const auto& [output, type] : output_full_types_) {
    const std::string& name = output;  // (a structured binding cannot be captured before C++20)
    auto arg = std::find_if(op_def->mutable_output_arg()->begin(), op_def->mutable_output_arg()->end(),
                             [&](const tensorflow::OpDef::ArgDef& a) { return a.name() == name; });
    if (arg == op_def->mutable_output_arg()->end()) {
      return errors::InvalidArgument("op '", op_def_.name(), "' gives output '", output,
                                     "' a full type, but has no such output");
    }
    *arg->mutable_experimental_full_type() = type;
  }
  return Status::OK();
}

}  // namespace tensoract
