// Conv2D/MatMul -> BiasAdd [-> Relu] fusion on CPU devices (see remapper.h).
#include "graph/optimizer/remapper.h"

#include <algorithm>
#include <string>
#include <vector>

namespace tensoract {
namespace {

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

// The only consumer of output 0 of `n`, when there is exactly one data edge out and no
// control edge; else nullptr.
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

// Replaces `chain` (the product, the BiasAdd, maybe the Relu) by one fused node.
bool Fuse(Graph* graph, const std::vector<Node*>& chain) {
  Node* product = chain.front();
  Node* bias_add = chain[1];
  Node* last = chain.back();
  const bool is_conv = product->type_string() == "Conv2D";
  NodeDef def;
  def.set_name(last->name());
  def.set_op(is_conv ? "_FusedConv2D" : "_FusedMatMul");
  def.set_device(last->requested_device());
  const std::vector<std::string> copied =
      is_conv ? std::vector<std::string>{"T", "strides", "padding", "explicit_paddings", "data_format", "dilations",
                                         "use_cudnn_on_gpu"}
              : std::vector<std::string>{"T", "transpose_a", "transpose_b"};
  for (const std::string& name : copied) {
    auto it = product->def().attr().find(name);
    if (it != product->def().attr().end()) (*def.mutable_attr())[name] = it->second;
  }
  (*def.mutable_attr())["num_args"].set_i(1);
  if (is_conv) (*def.mutable_attr())["TArgs"].mutable_list()->add_type(product->def().attr().at("T").type());
  auto* fused_ops = (*def.mutable_attr())["fused_ops"].mutable_list();
  fused_ops->add_s("BiasAdd");
  if (chain.size() == 3) fused_ops->add_s("Relu");

  // Inputs: the product's two, the bias; everyone's control inputs.
  struct Source {
    Node* node;
    int port;
  };
  std::vector<Source> data(3, Source{nullptr, 0});
  std::vector<Node*> control;
  for (Node* n : chain) {
    for (const Edge* e : n->in_edges()) {
      if (e->IsControlEdge()) {
        const bool inside = std::find(chain.begin(), chain.end(), e->src) != chain.end();
        if (!e->src->IsSource() && !inside && std::find(control.begin(), control.end(), e->src) == control.end()) {
          control.push_back(e->src);
        }
      } else if (n == product && e->dst_input < 2) {
        data[e->dst_input] = {e->src, e->src_output};
      } else if (n == bias_add && e->dst_input == 1) {
        data[2] = {e->src, e->src_output};
      }
    }
  }
  for (const Source& s : data) {
    if (s.node == nullptr) return false;  // an unconnected input: leave the graph alone
  }
  for (const Source& s : data) def.add_input(s.port == 0 ? s.node->name() : StrCat(s.node->name(), ":", s.port));
  for (Node* c : control) def.add_input("^" + c->name());
  struct Sink {
    Node* node;
    int input;  // Edge::kControlSlot for a control edge
  };
  std::vector<Sink> consumers;
  for (const Edge* e : last->out_edges()) {
    consumers.push_back({e->dst, e->IsControlEdge() ? Edge::kControlSlot : e->dst_input});
  }
  const PartialTensorShape shape = last->output_shape(0);

  for (Node* n : chain) graph->RemoveNode(n);
  StatusOr<Node*> added = graph->AddNode(def);
  if (!added.ok()) return false;  // cannot happen for the ops matched; the graph would be broken
  Node* fused = *added;
  fused->set_output_shape(0, shape);
  for (int i = 0; i < 3; ++i) graph->AddEdge(data[i].node, data[i].port, fused, i);
  for (Node* c : control) graph->AddControlEdge(c, fused);
  for (const Sink& s : consumers) {
    if (s.input == Edge::kControlSlot) graph->AddControlEdge(fused, s.node);
    else graph->AddEdge(fused, 0, s.node, s.input);
  }
  return true;
}

}  // namespace

int FuseBiasAndRelu(Graph* graph) {
  int fused = 0;
  std::vector<int> ids;
  for (Node* n : graph->op_nodes()) ids.push_back(n->id());
  for (int id : ids) {
    Node* product = graph->FindNodeId(id);  // nullptr once fused away
    if (product == nullptr) continue;
    const std::string& op = product->type_string();
    if (op != "Conv2D" && op != "MatMul") continue;
    if (op == "Conv2D" && AttrString(*product, "data_format", "NHWC") != "NHWC") continue;
    const Edge* to_bias = SoleConsumer(*product);
    if (to_bias == nullptr || to_bias->dst_input != 0) continue;
    Node* bias_add = to_bias->dst;
    if (bias_add->type_string() != "BiasAdd" || AttrString(*bias_add, "data_format", "NHWC") != "NHWC" ||
        !SameCpuFloat(*product, *bias_add)) {
      continue;
    }
    // TensorFlow's _FusedMatMul has no double.
    if (op == "MatMul" && product->def().attr().at("T").type() != tensorflow::DT_FLOAT) continue;
    std::vector<Node*> chain = {product, bias_add};
    const Edge* to_relu = SoleConsumer(*bias_add);
    if (to_relu != nullptr && to_relu->dst->type_string() == "Relu" && SameCpuFloat(*bias_add, *to_relu->dst)) {
      chain.push_back(to_relu->dst);
    }
    if (Fuse(graph, chain)) ++fused;
  }
  return fused;
}

}  // namespace tensoract
