// Products in bfloat16 (see mixed_precision.h).
#include "graph/optimizer/mixed_precision.h"

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "graph/node_def_util.h"
#include "graph/optimizer/optimizer_util.h"
#include "graph/optimizer/remapper_util.h"

namespace tensoract {

using remapper::AttrString;
using remapper::DataInput;
using remapper::KnownShape4;
using remapper::OnCpu;
using remapper::ReplaceNodes;
using remapper::Source;

namespace {

bool FloatT(const Node& n) {
  auto t = n.def().attr().find("T");
  return t != n.def().attr().end() && t->second.type() == tensorflow::DT_FLOAT;
}

}  // namespace

int MarkBfloat16Products(Graph* graph) {
  int marked = 0;
  for (Node* n : graph->op_nodes()) {
    const std::string& op = n->type_string();
    if (op != "Conv2D" && op != "_FusedConv2D" && op != "MatMul" && op != "_FusedMatMul" &&
        op != "_FusedConv2DWithDepthwise" && op != "_FusedChannelStepsConv2D") {
      continue;
    }
    if (!OnCpu(*n) || !FloatT(*n)) continue;
    // An LSTM cell's product (h U + x W, then its gates) stays float: its loop runs the step
    // as one call where the product is float (kernels/cpu/lstm_gates.h), and at the batches
    // recurrent models serve the product is too small to gain from bfloat16 (the zoo's LSTM,
    // Zen 4, batch 1: 0.375 ms a sequence with it marked, 0.183 float).
    if ((op == "MatMul" || op == "_FusedMatMul") && remapper::SoleConsumerOfType(*n, "_FusedLstmGates") != nullptr) {
      continue;
    }
    (*n->mutable_def()->mutable_attr())[kBfloat16ProductsAttr].set_b(true);
    ++marked;
  }
  return marked;
}

int MarkInt8Products(Graph* graph) {
  int marked = 0;
  for (Node* n : graph->op_nodes()) {
    const std::string& op = n->type_string();
    if (op != "Conv2D" && op != "_FusedConv2D" && op != "_FusedChannelStepsConv2D") continue;
    if (!OnCpu(*n) || !FloatT(*n)) continue;
    (*n->mutable_def()->mutable_attr())[kInt8ProductsAttr].set_b(true);
    ++marked;
  }
  return marked;
}

namespace {

// Ops that only move or combine activations: bfloat16 where their input is.
bool FollowsItsInput(const std::string& op) {
  static const std::set<std::string> ops = {"Pad",  "PadV2",   "MaxPool",  "AvgPool", "Relu", "Relu6", "AddV2",
                                            "Add",  "Identity", "ConcatV2", "Mean",    "Mul",  "Reshape"};
  return ops.count(op) > 0;
}

// A convolution marked for bfloat16 products, NHWC: a _FusedConv2D, a Conv2D with nothing
// fused (DenseNet's 3x3, whose batch norm is the next layer's pre-activation), or a
// _FusedChannelStepsConv2D (that pre-activation and a 1x1 convolution, NHWC only).
bool MarkedForBfloat16(const Node& n) {
  const std::string& op = n.type_string();
  return (op == "_FusedConv2D" || op == "Conv2D" || op == "_FusedChannelStepsConv2D") &&
         AttrIsTrue(n.def(), kBfloat16ProductsAttr) && AttrString(n, "data_format", "NHWC") == "NHWC";
}

// A _FusedDepthwiseConv2dNative that can run as a grouped convolution: NHWC, no residual,
// its filter's shape (in *filter_dims) known.
bool DepthwiseAsGrouped(const Node& n, std::vector<int64_t>* filter_dims) {
  if (n.type_string() != "_FusedDepthwiseConv2dNative" || AttrString(n, "data_format", "NHWC") != "NHWC") {
    return false;
  }
  auto fused = n.def().attr().find("fused_ops");
  if (fused != n.def().attr().end()) {
    for (const std::string& op : fused->second.list().s()) if (op == "Add") return false;
  }
  return KnownShape4(n, 1, filter_dims);
}

// A depthwise convolution that joins a bfloat16 region as the grouped convolution it is
// (one group per input channel): MobileNet's, between its pointwise convolutions, and
// EfficientNet's, read by its squeeze-and-excitation (a Mean, and the Mul by the gate) as
// well, which then join too: their bfloat16 kernels now run at or under float's time (a
// broadcasting Mul of [32, 56, 56, 96] by [32, 1, 1, 96]: 1.07 against 1.3 ms). Where
// anything else reads it, its output would have to be cast back, and it stays float. Its
// filter [rows, cols, depth, multiplier] holds the same values in the same order as a
// grouped filter [rows, cols, 1, depth * multiplier], so it is reshaped, not copied; its
// shape must be known.
bool DepthwiseForBfloat16(const Node& n, std::vector<int64_t>* filter_dims) {
  if (!DepthwiseAsGrouped(n, filter_dims)) return false;
  int consumers = 0;
  bool into_block = true;
  for (const Edge* e : n.out_edges()) {
    if (e->IsControlEdge()) continue;
    ++consumers;
    const std::string& op = e->dst->type_string();
    into_block = into_block && (MarkedForBfloat16(*e->dst) || op == "Mean" || op == "Mul");
  }
  return consumers >= 1 && into_block;
}

// The node's def in bfloat16: T, and a _FusedConv2D (or a depthwise convolution) as
// _MklNativeFusedConv2D, whose per-channel args stay float while a fused Add's operand (an
// activation) is bfloat16.
NodeDef Bfloat16Def(const Node& n) {
  NodeDef def = n.def();
  auto& attrs = *def.mutable_attr();
  attrs["T"].set_type(tensorflow::DT_BFLOAT16);
  if (n.type_string() == "_FusedDepthwiseConv2dNative") {
    def.set_op("_MklNativeFusedConv2D");
    auto* types = attrs["TArgs"].mutable_list();
    types->clear_type();
    for (int64_t i = 0; i < attrs["num_args"].i(); ++i) types->add_type(tensorflow::DT_FLOAT);
  }
  if (n.type_string() == "_FusedConv2D") {
    def.set_op("_MklNativeFusedConv2D");
    bool adds = false;
    for (const std::string& op : attrs["fused_ops"].list().s()) adds = adds || op == "Add";
    auto* types = attrs["TArgs"].mutable_list()->mutable_type();
    if (adds && !types->empty()) types->Set(types->size() - 1, tensorflow::DT_BFLOAT16);
  }
  return def;
}

// A value that is the same buffer step after step: a constant, a variable's value.
bool IsWeight(const Node& n) {
  const std::string& op = n.type_string();
  if (op == "Const" || op == "ReadVariableOp" || op == "VariableV2") return true;
  if (op == "Identity" || op == "Reshape") {
    Source in = DataInput(n, 0);
    return in.node != nullptr && IsWeight(*in.node);
  }
  return false;
}

// A Cast node of `from`:`port` from `src` to `dst`, on `device`, wired to its input.
Node* AddCast(Graph* graph, Node* from, int port, DataType src, DataType dst, const std::string& device, bool reuse) {
  NodeDef def;
  def.set_name(UnusedNodeName(*graph, StrCat(from->name(), port == 0 ? "" : StrCat("_", port),
                                             dst == tensorflow::DT_BFLOAT16 ? "/ToBfloat16" : "/FromBfloat16")));
  def.set_op("Cast");
  def.set_device(device);
  def.add_input(TensorId{from->name(), port}.ToString());
  (*def.mutable_attr())["SrcT"].set_type(src);
  (*def.mutable_attr())["DstT"].set_type(dst);
  (*def.mutable_attr())["Truncate"].set_b(false);
  if (reuse) (*def.mutable_attr())[kReuseUnchangedInputAttr].set_b(true);
  StatusOr<Node*> added = graph->AddNode(def);
  if (!added.ok()) return nullptr;
  graph->AddEdge(from, port, *added, 0);
  (*added)->set_output_shape(0, from->output_shape(port));
  return *added;
}

// A Reshape of `filter` to a grouped filter [rows, cols, 1, depth * multiplier] for the
// depthwise convolution `n` (DepthwiseAsGrouped's dims); nullptr where it cannot be added.
Node* AddGroupedFilter(Graph* graph, const Node& n, Source filter, const std::vector<int64_t>& dims) {
  const std::string device = n.requested_device();
  NodeDef shape;
  shape.set_name(UnusedNodeName(*graph, StrCat(n.name(), "/GroupedFilterShape")));
  shape.set_op("Const");
  shape.set_device(device);
  (*shape.mutable_attr())["dtype"].set_type(tensorflow::DT_INT32);
  tensorflow::TensorProto* value = (*shape.mutable_attr())["value"].mutable_tensor();
  value->set_dtype(tensorflow::DT_INT32);
  value->mutable_tensor_shape()->add_dim()->set_size(4);
  for (int64_t d : {dims[0], dims[1], int64_t{1}, dims[2] * dims[3]}) value->add_int_val(static_cast<int32_t>(d));
  StatusOr<Node*> shape_node = graph->AddNode(shape);
  if (!shape_node.ok()) return nullptr;
  graph->AddControlEdge(graph->source_node(), *shape_node);
  NodeDef reshape;
  reshape.set_name(UnusedNodeName(*graph, StrCat(n.name(), "/GroupedFilter")));
  reshape.set_op("Reshape");
  reshape.set_device(device);
  reshape.add_input(remapper::InputName(filter));
  reshape.add_input((*shape_node)->name());
  (*reshape.mutable_attr())["T"].set_type(tensorflow::DT_FLOAT);
  (*reshape.mutable_attr())["Tshape"].set_type(tensorflow::DT_INT32);
  StatusOr<Node*> added = graph->AddNode(reshape);
  if (!added.ok()) return nullptr;
  graph->AddEdge(filter.node, filter.port, *added, 0);
  graph->AddEdge(*shape_node, 0, *added, 1);
  (*added)->set_output_shape(0, PartialTensorShape({dims[0], dims[1], 1, dims[2] * dims[3]}));
  return *added;
}

}  // namespace

int KeepActivationsInBfloat16(Graph* graph, const std::function<bool(const NodeDef&)>& has_kernel) {
  // Which nodes become bfloat16, in an order where inputs come first.
  std::set<std::string> region;
  for (Node* n : StableTopologicalOrder(*graph)) {
    if (!OnCpu(*n) || !FloatT(*n) || HasRefInputOrOutput(*n) || n->num_outputs() != 1) continue;
    std::vector<int64_t> filter_dims;
    bool join = MarkedForBfloat16(*n) || DepthwiseForBfloat16(*n, &filter_dims);
    if (!join && FollowsItsInput(n->type_string())) {
      for (const Edge* e : n->in_edges()) {
        if (!e->IsControlEdge() && region.count(e->src->name()) > 0) join = true;
      }
    }
    if (join && has_kernel(Bfloat16Def(*n))) region.insert(n->name());
  }
  // A node alone (no data edge to another bfloat16 node) would only add two Casts around
  // it: MobileNetV2's first and last convolutions, among float inverted-residual blocks,
  // ran slower so. Left float, until none is alone.
  for (bool pruned = true; pruned;) {
    pruned = false;
    for (auto it = region.begin(); it != region.end();) {
      const Node* n = graph->FindNode(*it);
      bool joined = false;
      for (const Edge* e : n->in_edges()) joined = joined || (!e->IsControlEdge() && region.count(e->src->name()) > 0);
      for (const Edge* e : n->out_edges()) joined = joined || (!e->IsControlEdge() && region.count(e->dst->name()) > 0);
      if (joined) {
        ++it;
      } else {
        it = region.erase(it);
        pruned = true;
      }
    }
  }
  if (region.empty()) return 0;

  // Each becomes a bfloat16 node of the same name, edges and all.
  std::vector<Node*> converted;
  const std::vector<std::string> names(region.begin(), region.end());
  for (const std::string& name : names) {
    Node* n = graph->FindNode(name);
    std::vector<Source> data;
    for (int i = 0; i < n->num_inputs(); ++i) data.push_back(DataInput(*n, i));
    std::vector<int64_t> filter_dims;
    if (DepthwiseAsGrouped(*n, &filter_dims)) {  // in the region: DepthwiseForBfloat16 let it join
      Node* grouped = data.size() > 1 && data[1].node != nullptr ? AddGroupedFilter(graph, *n, data[1], filter_dims)
                                                                 : nullptr;
      if (grouped == nullptr) {
        region.erase(name);
        continue;
      }
      data[1] = Source{grouped, 0};
    }
    NodeDef def = Bfloat16Def(*n);
    def.clear_input();
    Node* replaced = ReplaceNodes(graph, {n}, {n}, data, def);
    if (replaced != nullptr) converted.push_back(replaced);
    else region.erase(name);  // left float (an unconnected input): its edges get Casts
  }

  // Casts where an edge enters or leaves the region: one per float value entering, one per
  // bfloat16 node with consumers outside.
  std::map<std::pair<Node*, int>, Node*> into;
  for (Node* n : converted) {
    std::vector<const Edge*> entering;
    for (const Edge* e : n->in_edges()) {
      if (!e->IsControlEdge() && region.count(e->src->name()) == 0 &&
          e->src->output_type(e->src_output) == tensorflow::DT_FLOAT &&
          n->input_type(e->dst_input) == tensorflow::DT_BFLOAT16) {
        entering.push_back(e);
      }
    }
    for (const Edge* e : entering) {
      Node* src = e->src;
      const int port = e->src_output, input = e->dst_input;
      Node*& cast = into[{src, port}];
      if (cast == nullptr) {
        cast = AddCast(graph, src, port, tensorflow::DT_FLOAT, tensorflow::DT_BFLOAT16, n->requested_device(),
                       IsWeight(*src));
      }
      if (cast == nullptr) continue;
      graph->RemoveEdge(e);
      graph->AddEdge(cast, 0, n, input);
    }
    std::vector<const Edge*> leaving;
    for (const Edge* e : n->out_edges()) {
      if (!e->IsControlEdge() && region.count(e->dst->name()) == 0) leaving.push_back(e);
    }
    if (leaving.empty()) continue;
    Node* back = AddCast(graph, n, 0, tensorflow::DT_BFLOAT16, tensorflow::DT_FLOAT, n->requested_device(), false);
    if (back == nullptr) continue;
    for (const Edge* e : leaving) {
      Node* dst = e->dst;
      const int input = e->dst_input;
      graph->RemoveEdge(e);
      graph->AddEdge(back, 0, dst, input);
    }
  }
  return static_cast<int>(converted.size());
}

}  // namespace tensoract
