// The remapper's fusions on CPU devices (see remapper.h).
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

// A data input of the fused node: output `port` of `node`.
struct Source {
  Node* node;
  int port;
};

// Replaces `nodes` by one node made from `def` (its op and attrs; name, device and inputs
// are filled here): its data inputs are `data`, its control inputs everyone's from outside
// `nodes`; output i of it takes over the consumers and inferred shape of output 0 of
// `outputs[i]`, and it takes the name of outputs[0].
bool ReplaceNodes(Graph* graph, const std::vector<Node*>& nodes, const std::vector<Node*>& outputs,
                  const std::vector<Source>& data, NodeDef def) {
  for (const Source& s : data) {
    if (s.node == nullptr) return false;  // an unconnected input: leave the graph alone
  }
  std::vector<Node*> control;
  for (Node* n : nodes) {
    for (const Edge* e : n->in_edges()) {
      if (!e->IsControlEdge() || e->src->IsSource()) continue;
      const bool inside = std::find(nodes.begin(), nodes.end(), e->src) != nodes.end();
      if (!inside && std::find(control.begin(), control.end(), e->src) == control.end()) control.push_back(e->src);
    }
  }
  def.set_name(outputs.front()->name());
  def.set_device(outputs.front()->requested_device());
  for (const Source& s : data) def.add_input(s.port == 0 ? s.node->name() : StrCat(s.node->name(), ":", s.port));
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
      consumers.push_back({static_cast<int>(i), e->dst, e->IsControlEdge() ? Edge::kControlSlot : e->dst_input});
    }
    shapes.push_back(outputs[i]->output_shape(0));
  }

  for (Node* n : nodes) graph->RemoveNode(n);
  StatusOr<Node*> added = graph->AddNode(def);
  if (!added.ok()) return false;  // cannot happen for the ops matched; the graph would be broken
  Node* fused = *added;
  for (size_t i = 0; i < shapes.size(); ++i) fused->set_output_shape(static_cast<int>(i), shapes[i]);
  for (size_t i = 0; i < data.size(); ++i) graph->AddEdge(data[i].node, data[i].port, fused, static_cast<int>(i));
  for (Node* c : control) graph->AddControlEdge(c, fused);
  for (const Sink& s : consumers) {
    if (s.input == Edge::kControlSlot) graph->AddControlEdge(fused, s.node);
    else graph->AddEdge(fused, s.output, s.node, s.input);
  }
  return true;
}

// A chain of nodes, each the sole consumer of the one before, replaced by one node that
// takes over the last one's output.
bool ReplaceChain(Graph* graph, const std::vector<Node*>& chain, const std::vector<Source>& data, NodeDef def) {
  return ReplaceNodes(graph, chain, {chain.back()}, data, std::move(def));
}

// Data input `input` of `n`; {nullptr, 0} when unconnected.
Source DataInput(const Node& n, int input) {
  for (const Edge* e : n.in_edges()) {
    if (!e->IsControlEdge() && e->dst_input == input) return {e->src, e->src_output};
  }
  return {nullptr, 0};
}

void CopyAttrs(const Node& from, const std::vector<std::string>& names, NodeDef* def) {
  for (const std::string& name : names) {
    auto it = from.def().attr().find(name);
    if (it != from.def().attr().end()) (*def->mutable_attr())[name] = it->second;
  }
}

// Replaces `chain` (the product, the BiasAdd, maybe the Relu) by one fused node.
bool FuseProduct(Graph* graph, const std::vector<Node*>& chain) {
  Node* product = chain.front();
  const bool is_conv = product->type_string() == "Conv2D";
  NodeDef def;
  def.set_op(is_conv ? "_FusedConv2D" : "_FusedMatMul");
  CopyAttrs(*product,
            is_conv ? std::vector<std::string>{"T", "strides", "padding", "explicit_paddings", "data_format",
                                               "dilations", "use_cudnn_on_gpu"}
                    : std::vector<std::string>{"T", "transpose_a", "transpose_b"},
            &def);
  (*def.mutable_attr())["num_args"].set_i(1);
  if (is_conv) (*def.mutable_attr())["TArgs"].mutable_list()->add_type(product->def().attr().at("T").type());
  auto* fused_ops = (*def.mutable_attr())["fused_ops"].mutable_list();
  fused_ops->add_s("BiasAdd");
  if (chain.size() == 3) fused_ops->add_s("Relu");
  // Inputs: the product's two, the bias.
  return ReplaceChain(graph, chain, {DataInput(*product, 0), DataInput(*product, 1), DataInput(*chain[1], 1)},
                      std::move(def));
}

// Calls try_fuse(graph, node) for each node of one of `ops` the graph holds now, but for
// those an earlier fusion of the loop removed; returns how many it fused.
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

// Conv2D or MatMul -> BiasAdd [-> Relu].
bool TryFuseBiasAndRelu(Graph* graph, Node* product) {
  const std::string& op = product->type_string();
  if (op == "Conv2D" && AttrString(*product, "data_format", "NHWC") != "NHWC") return false;
  const Edge* to_bias = SoleConsumer(*product);
  if (to_bias == nullptr || to_bias->dst_input != 0) return false;
  Node* bias_add = to_bias->dst;
  if (bias_add->type_string() != "BiasAdd" || AttrString(*bias_add, "data_format", "NHWC") != "NHWC" ||
      !SameCpuFloat(*product, *bias_add)) {
    return false;
  }
  // TensorFlow's _FusedMatMul has no double.
  if (op == "MatMul" && product->def().attr().at("T").type() != tensorflow::DT_FLOAT) return false;
  std::vector<Node*> chain = {product, bias_add};
  const Edge* to_relu = SoleConsumer(*bias_add);
  if (to_relu != nullptr && to_relu->dst->type_string() == "Relu" && SameCpuFloat(*bias_add, *to_relu->dst)) {
    chain.push_back(to_relu->dst);
  }
  return FuseProduct(graph, chain);
}

// MaxPoolGrad(x, pooled, dy) -> ReluGrad(., x), x being the pool's input and the Relu's
// output (ReluGrad's features): the gradient a window routes to its maximum m survives the
// ReluGrad exactly when m > 0, and every other element is 0 either way.
bool TryFuseMaxPoolGradAndReluGrad(Graph* graph, Node* pool_grad) {
  if (AttrString(*pool_grad, "data_format", "NHWC") != "NHWC") return false;
  const Edge* to_relu_grad = SoleConsumer(*pool_grad);
  if (to_relu_grad == nullptr || to_relu_grad->dst_input != 0) return false;
  Node* relu_grad = to_relu_grad->dst;
  if (relu_grad->type_string() != "ReluGrad" || !SameCpuFloat(*pool_grad, *relu_grad)) return false;
  const Source x = DataInput(*pool_grad, 0), features = DataInput(*relu_grad, 1);
  if (x.node == nullptr || x.node != features.node || x.port != features.port) return false;
  NodeDef def;
  def.set_op("_MaxPoolGradWithReluGrad");
  CopyAttrs(*pool_grad, {"T", "ksize", "strides", "padding", "explicit_paddings", "data_format"}, &def);
  return ReplaceChain(graph, {pool_grad, relu_grad}, {x, DataInput(*pool_grad, 1), DataInput(*pool_grad, 2)},
                      std::move(def));
}

// Conv2DBackpropFilter(x, sizes, g) and BiasAddGrad(g) of the same g (a conv layer with a
// bias: both read all of its output gradient) into _Conv2DBackpropFilterWithBias, whose
// kernel sums g per channel on the pass it makes anyway. Float only (the AVX-512 kernels
// do the summing in cache); the BiasAddGrad must have consumers (a value somebody uses).
bool TryFuseConvFilterAndBiasGrad(Graph* graph, Node* bias_grad) {
  if (AttrString(*bias_grad, "data_format", "NHWC") != "NHWC" || bias_grad->out_edges().empty()) return false;
  if (bias_grad->def().attr().at("T").type() != tensorflow::DT_FLOAT) return false;
  const Source g = DataInput(*bias_grad, 0);
  if (g.node == nullptr) return false;
  Node* filter_grad = nullptr;
  for (const Edge* e : g.node->out_edges()) {
    if (e->IsControlEdge() || e->src_output != g.port || e->dst_input != 2) continue;
    if (e->dst->type_string() == "Conv2DBackpropFilter" && AttrString(*e->dst, "data_format", "NHWC") == "NHWC" &&
        SameCpuFloat(*e->dst, *bias_grad)) {
      filter_grad = e->dst;
      break;
    }
  }
  if (filter_grad == nullptr) return false;
  NodeDef def;
  def.set_op("_Conv2DBackpropFilterWithBias");
  CopyAttrs(*filter_grad,
            {"T", "strides", "padding", "explicit_paddings", "data_format", "dilations", "use_cudnn_on_gpu"}, &def);
  return ReplaceNodes(graph, {filter_grad, bias_grad}, {filter_grad, bias_grad},
                      {DataInput(*filter_grad, 0), DataInput(*filter_grad, 1), g}, std::move(def));
}

}  // namespace

int Remap(Graph* graph) {
  return FuseEach(graph, {"Conv2D", "MatMul"}, TryFuseBiasAndRelu) +
         FuseEach(graph, {"MaxPoolGrad"}, TryFuseMaxPoolGradAndReluGrad) +
         FuseEach(graph, {"BiasAddGrad"}, TryFuseConvFilterAndBiasGrad);
}

}  // namespace tensoract
