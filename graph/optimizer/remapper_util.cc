// The remapper's shared graph editing (see remapper_util.h).
#include "graph/optimizer/remapper_util.h"

#include <algorithm>
#include <cstring>

#include "graph/control_flow.h"
#include "graph/node_def_util.h"

namespace tensoract {
namespace remapper {

bool OnCpu(const Node& n) { return n.requested_device().find("/device:CPU:") != std::string::npos; }

std::string AttrString(const Node& n, const std::string& name, const std::string& fallback) {
  auto it = n.def().attr().find(name);
  return it == n.def().attr().end() ? fallback : it->second.s();
}

bool FloatingT(const Node& n) {
  auto it = n.def().attr().find("T");
  return it != n.def().attr().end() &&
         (it->second.type() == tensorflow::DT_FLOAT || it->second.type() == tensorflow::DT_DOUBLE);
}

const Edge* SoleConsumer(const Node& n) {
  const Edge* only = nullptr;
  for (const Edge* e : n.out_edges()) {
    if (e->IsControlEdge() || e->src_output != 0 || only != nullptr) return nullptr;
    only = e;
  }
  return only;
}

bool SameCpuFloat(const Node& a, const Node& b) {
  return OnCpu(a) && a.requested_device() == b.requested_device() && FloatingT(a) && FloatingT(b) &&
         a.def().attr().at("T").type() == b.def().attr().at("T").type();
}

Node* SoleConsumerOfType(const Node& n, const std::string& op) {
  const Edge* e = SoleConsumer(n);
  if (e == nullptr) return nullptr;
  const std::string& type = e->dst->type_string();
  const bool is_op = type == op || (op == "AddV2" && type == "Add");
  return is_op && SameCpuFloat(n, *e->dst) ? e->dst : nullptr;
}

Node* ReplaceNodes(Graph* graph, const std::vector<Node*>& nodes, const std::vector<Node*>& outputs,
                  const std::vector<Source>& data, NodeDef def, const std::string& name) {
  for (const Source& s : data) {
    if (s.node == nullptr) return nullptr;  // an unconnected input: leave the graph alone
  }
  std::vector<Node*> control;
  for (Node* n : nodes) {
    for (const Edge* e : n->in_edges()) {
      if (!e->IsControlEdge() || e->src->IsSource()) continue;
      const bool inside = std::find(nodes.begin(), nodes.end(), e->src) != nodes.end();
      if (!inside && std::find(control.begin(), control.end(), e->src) == control.end()) control.push_back(e->src);
    }
  }
  def.set_name(name.empty() ? outputs.front()->name() : name);
  def.set_device(outputs.front()->requested_device());
  for (const Source& s : data) def.add_input(InputName(s));
  for (Node* c : control) def.add_input("^" + c->name());
  struct Sink {
    int output;
    Node* node;
    int input;  // Edge::kControlSlot for a control edge
  };
  std::vector<Sink> consumers;
  std::vector<PartialTensorShape> shapes;
  for (size_t i = 0; i < outputs.size(); ++i) {
    for (const Edge* e : outputs[i]->out_edges()) {
      // A consumer among `nodes` (an output read inside the pattern too) goes with them.
      if (std::find(nodes.begin(), nodes.end(), e->dst) != nodes.end()) continue;
      consumers.push_back({static_cast<int>(i), e->dst, e->IsControlEdge() ? Edge::kControlSlot : e->dst_input});
    }
    shapes.push_back(outputs[i]->output_shape(0));
  }

  for (Node* n : nodes) graph->RemoveNode(n);
  StatusOr<Node*> added = graph->AddNode(def);
  if (!added.ok()) return nullptr;  // cannot happen for the ops matched; the graph would be broken
  Node* fused = *added;
  for (size_t i = 0; i < shapes.size(); ++i) fused->set_output_shape(static_cast<int>(i), shapes[i]);
  for (size_t i = 0; i < data.size(); ++i) graph->AddEdge(data[i].node, data[i].port, fused, static_cast<int>(i));
  for (Node* c : control) graph->AddControlEdge(c, fused);
  for (const Sink& s : consumers) {
    if (s.input == Edge::kControlSlot) graph->AddControlEdge(fused, s.node);
    else graph->AddEdge(fused, s.output, s.node, s.input);
  }
  return fused;
}

bool ReplaceChain(Graph* graph, const std::vector<Node*>& chain, const std::vector<Source>& data, NodeDef def) {
  return ReplaceNodes(graph, chain, {chain.back()}, data, std::move(def)) != nullptr;
}

Source DataInput(const Node& n, int input) {
  for (const Edge* e : n.in_edges()) {
    if (!e->IsControlEdge() && e->dst_input == input) return {e->src, e->src_output};
  }
  return {nullptr, 0};
}

Source OtherInput(const Node& n, const Node& from, int port) {
  const Source a = DataInput(n, 0), b = DataInput(n, 1);
  if (a.node == &from && a.port == port) return b;
  if (b.node == &from && b.port == port) return a;
  return {nullptr, 0};
}

std::string InputName(const Source& s) { return TensorId{s.node->name(), s.port}.ToString(); }

bool SameSource(const Source& a, const Source& b) { return a.node == b.node && a.port == b.port; }

bool TypeIs(const Node& n, const char* name, tensorflow::DataType want) {
  auto a = n.def().attr().find(name);
  return a != n.def().attr().end() && a->second.type() == want;
}

Source ThroughConstantEnter(Source s) {
  while (s.node != nullptr && IsConstantEnter(*s.node)) s = DataInput(*s.node, 0);
  return s;
}

void CopyAttrs(const Node& from, const std::vector<std::string>& names, NodeDef* def) {
  for (const std::string& name : names) {
    auto it = from.def().attr().find(name);
    if (it != from.def().attr().end()) (*def->mutable_attr())[name] = it->second;
  }
}

bool ConcatAxis(const Node& concat, int64_t* axis) {
  const int n = static_cast<int>(concat.def().attr().at("N").i());
  std::vector<int64_t> values;
  if (!ConstInts(DataInput(concat, n), &values) || values.size() != 1) return false;
  *axis = values[0];
  return true;
}

int FuseEach(Graph* graph, const std::vector<std::string>& ops, bool (*try_fuse)(Graph*, Node*)) {
  std::vector<int> ids;
  for (Node* n : graph->op_nodes()) {
    if (std::find(ops.begin(), ops.end(), n->type_string()) != ops.end()) ids.push_back(n->id());
  }
  int fused = 0;
  for (int id : ids) {
    Node* n = graph->FindNodeId(id);  // nullptr once fused away
    if (n != nullptr && try_fuse(graph, n)) ++fused;
  }
  return fused;
}

std::vector<const Edge*> ConsumersOfOutput0(const Node& n) {
  std::vector<const Edge*> out;
  for (const Edge* e : n.out_edges()) {
    if (e->IsControlEdge() || e->src_output != 0) return {};
    out.push_back(e);
  }
  return out;
}

namespace {

// A Const's `count` integers of type I (its int_val or int64_val field, or its raw bytes; one
// value in the field stands for all of them, as TensorFlow writes a filled tensor).
template <class I, class Field>
bool IntsOf(const tensorflow::TensorProto& t, const Field& field, int64_t count, std::vector<int64_t>* values) {
  if (field.size() == count) {
    values->assign(field.begin(), field.end());
  } else if (static_cast<int64_t>(t.tensor_content().size()) == count * static_cast<int64_t>(sizeof(I))) {
    values->resize(count);
    for (int64_t i = 0; i < count; ++i) {
      I v;
      std::memcpy(&v, t.tensor_content().data() + i * sizeof(I), sizeof v);
      (*values)[i] = v;
    }
  } else if (field.size() == 1) {
    values->assign(count, field.Get(0));
  } else {
    return false;
  }
  return true;
}

}  // namespace

bool ConstInts(const Source& s, std::vector<int64_t>* values) {
  if (s.node == nullptr || s.node->type_string() != "Const") return false;
  auto attr = s.node->def().attr().find("value");
  if (attr == s.node->def().attr().end()) return false;
  const tensorflow::TensorProto& t = attr->second.tensor();
  int64_t count = 1;
  for (const auto& d : t.tensor_shape().dim()) count *= d.size();
  if (t.dtype() == tensorflow::DT_INT32) return IntsOf<int32_t>(t, t.int_val(), count, values);
  if (t.dtype() == tensorflow::DT_INT64) return IntsOf<int64_t>(t, t.int64_val(), count, values);
  return false;
}

bool ScalarConstValue(const Source& s, float* value) {
  if (s.node == nullptr || s.node->type_string() != "Const") return false;
  auto attr = s.node->def().attr().find("value");
  if (attr == s.node->def().attr().end()) return false;
  const tensorflow::TensorProto& t = attr->second.tensor();
  if (t.dtype() != tensorflow::DT_FLOAT || t.tensor_shape().dim_size() != 0) return false;
  if (t.float_val_size() == 1) *value = t.float_val(0);
  else if (t.tensor_content().size() == sizeof *value) std::memcpy(value, t.tensor_content().data(), sizeof *value);
  else return false;
  return true;
}

bool IsScalarConst(const Source& s, float want) {
  float v = 0;
  return ScalarConstValue(s, &v) && v == want;
}

bool IsChannelVector(const Source& s, int64_t channels, int max_rank) {
  if (s.node == nullptr) return false;
  const PartialTensorShape& shape = s.node->output_shape(s.port);
  if (!shape.IsFullyDefined() || shape.dims() < 1 || shape.dims() > max_rank) return false;
  for (int i = 0; i + 1 < shape.dims(); ++i) {
    if (shape.dim_size(i) != 1) return false;
  }
  return shape.dim_size(shape.dims() - 1) == channels;
}

bool AsChannelStep(const Node& n, int input, int64_t channels, int rank, ChannelStep* step) {
  const std::string& op = n.type_string();
  if (op == "BiasAdd" || op == "BiasAddV1") {
    if (input != 0 || AttrString(n, "data_format", "NHWC") != "NHWC") return false;
    *step = {"BiasAdd", {DataInput(n, 1)}};
    return step->args[0].node != nullptr;
  }
  if (op == "Mul" || op == "Add" || op == "AddV2") {  // x * m, x + b, either side
    const Source other = DataInput(n, 1 - input);
    if (!IsChannelVector(other, channels, rank)) return false;
    *step = {op == "Mul" ? "ChannelMul" : "BiasAdd", {other}};
    return true;
  }
  if (op == "FusedBatchNorm" || op == "FusedBatchNormV2" || op == "FusedBatchNormV3") {
    auto training = n.def().attr().find("is_training");
    if (input != 0 || training == n.def().attr().end() || training->second.b() ||
        AttrString(n, "data_format", "NHWC") != "NHWC") {
      return false;
    }
    for (const Edge* e : n.out_edges()) {  // the batch statistics must be unused
      if (!e->IsControlEdge() && e->src_output != 0) return false;
    }
    auto u = n.def().attr().find("U");  // V2/V3: the statistics' type, float for a float input
    if (u != n.def().attr().end() && u->second.type() != n.def().attr().at("T").type()) return false;
    *step = {"FusedBatchNorm", {DataInput(n, 1), DataInput(n, 2), DataInput(n, 3), DataInput(n, 4)}};
    return true;
  }
  return false;
}

bool KnownShape4(const Node& n, int input, std::vector<int64_t>* dims) {
  const Source s = DataInput(n, input);
  if (s.node == nullptr) return false;
  const PartialTensorShape& shape = s.node->output_shape(s.port);
  if (!shape.IsFullyDefined() || shape.dims() != 4) return false;
  dims->clear();
  for (int i = 0; i < 4; ++i) dims->push_back(shape.dim_size(i));
  return true;
}

bool PlainConvolution(const Node& n, bool add_allowed) {
  if (AttrString(n, "data_format", "NHWC") != "NHWC") return false;
  auto t = n.def().attr().find("T");
  if (t == n.def().attr().end() || t->second.type() != tensorflow::DT_FLOAT) return false;
  auto dilations = n.def().attr().find("dilations");
  if (dilations != n.def().attr().end()) {
    for (int64_t d : dilations->second.list().i()) {
      if (d != 1) return false;
    }
  }
  return add_allowed || !FusesAdd(n);
}

bool FusesAdd(const Node& n) {
  auto ops = n.def().attr().find("fused_ops");
  if (ops == n.def().attr().end()) return false;  // a node that fuses nothing
  for (const std::string& op : ops->second.list().s()) {
    if (op == "Add") return true;
  }
  return false;
}

bool PointwiseConvolution(const Node& n, int64_t depth) {
  const std::string padding = AttrString(n, "padding", "");
  if (padding != "SAME" && padding != "VALID") return false;
  auto strides = n.def().attr().find("strides");
  if (strides == n.def().attr().end()) return false;
  for (int64_t s : strides->second.list().i()) {
    if (s != 1) return false;
  }
  std::vector<int64_t> filter;
  return KnownShape4(n, 1, &filter) && filter[0] == 1 && filter[1] == 1 && (depth < 0 || filter[2] == depth);
}

int64_t NumArgs(const Node& n) {
  auto it = n.def().attr().find("num_args");
  return it == n.def().attr().end() ? 0 : it->second.i();
}

void CopyAttrsPrefixed(const Node& from, const std::string& prefix, NodeDef* def) {
  for (const auto& [name, value] : from.def().attr()) {
    if (!name.empty() && name[0] != '_') (*def->mutable_attr())[prefix + name] = value;
  }
}

}  // namespace remapper
}  // namespace tensoract
