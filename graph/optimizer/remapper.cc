// The remapper's fusions on CPU devices (see remapper.h).
#include "graph/optimizer/remapper.h"

#include "graph/control_flow.h"
#include "graph/optimizer/attention_fusion.h"
#include "graph/optimizer/broadcast_reorder.h"
#include "graph/optimizer/concat_flattening.h"
#include "graph/optimizer/elementwise_fusion.h"
#include "graph/optimizer/gather_mean_fusion.h"
#include "graph/optimizer/layer_norm_fusion.h"
#include "graph/optimizer/loop_input_products.h"
#include "graph/optimizer/recurrent_gates_fusion.h"
#include "graph/optimizer/pad_folding.h"
#include "graph/optimizer/pointwise_depthwise_fusion.h"
#include "graph/optimizer/remapper_util.h"
#include "graph/optimizer/select_broadcast.h"
#include "graph/optimizer/steps_conv_fusion.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

namespace tensoract {
namespace {

using namespace remapper;  // NOLINT: the graph-editing helpers every fusion here uses

// An Add or AddV2 of the chain's value (input `input`) and a tensor of the product's own
// shape: a residual connection (ResNet's), fused as TensorFlow's "Add". Both shapes must be
// known but for the batch, unknown in both (a served model's): a batch that then differs at
// run time, which the unfused Add would broadcast from 1, fails the fused kernel with
// InvalidArgument naming both shapes.
bool IsResidualAdd(const Node& n, int input, const PartialTensorShape& shape) {
  if (n.type_string() != "Add" && n.type_string() != "AddV2") return false;
  if (shape.dims() < 1) return false;
  for (int i = 1; i < shape.dims(); ++i) {
    if (shape.dim_size(i) < 0) return false;
  }
  const Source other = DataInput(n, 1 - input);
  return other.node != nullptr && other.node->output_shape(other.port).IsIdenticalTo(shape);
}

// The activations the fused kernels apply (fused_epilogue.h), by op.
bool IsFusableActivation(const std::string& op) {
  return op == "Relu" || op == "Relu6" || op == "Elu" || op == "LeakyRelu" || op == "Tanh" || op == "Sigmoid";
}

// `n` as a fused node's activation, when it is one of those: its op (and LeakyRelu's alpha).
bool ReadActivation(const Node& n, std::string* activation, float* leakyrelu_alpha) {
  if (!IsFusableActivation(n.type_string())) return false;
  *activation = n.type_string();
  if (*activation == "LeakyRelu") {
    auto alpha = n.def().attr().find("alpha");
    if (alpha != n.def().attr().end()) *leakyrelu_alpha = alpha->second.f();
  }
  return true;
}

// A fused node's epilogue attrs: fused_ops (the steps, then the activation), num_args,
// epsilon (from the FusedBatchNorm among `nodes`) and leakyrelu_alpha; the steps' args are
// appended to `data`. Returns num_args.
int AddFusedOps(const std::vector<ChannelStep>& steps, const std::string& activation, float leakyrelu_alpha,
                const std::vector<Node*>& nodes, NodeDef* def, std::vector<Source>* data) {
  auto* fused_ops = (*def->mutable_attr())["fused_ops"].mutable_list();
  int num_args = 0;
  for (const ChannelStep& step : steps) {
    fused_ops->add_s(step.op);
    data->insert(data->end(), step.args.begin(), step.args.end());
    num_args += static_cast<int>(step.args.size());
  }
  if (!activation.empty()) fused_ops->add_s(activation);
  (*def->mutable_attr())["num_args"].set_i(num_args);
  for (Node* n : nodes) {
    if (n->type_string().rfind("FusedBatchNorm", 0) == 0) CopyAttrs(*n, {"epsilon"}, def);
  }
  if (activation == "LeakyRelu") (*def->mutable_attr())["leakyrelu_alpha"].set_f(leakyrelu_alpha);
  return num_args;
}

// x * sigmoid(x) or Keras' x * sigmoid(1 * x), x being `x`'s output 0 and `consumers` its
// two readers: the nodes after x in order ([scale,] sigmoid, product), or false.
bool MatchSwish(const Node& x, const std::vector<const Edge*>& consumers, std::vector<Node*>* nodes) {
  for (int gate = 0; gate < 2; ++gate) {
    Node* first = consumers[gate]->dst;
    Node* product = consumers[1 - gate]->dst;
    std::vector<Node*> chain;
    Node* sigmoid = first;
    if (first->type_string() == "Mul") {  // beta * x
      if (!IsScalarConst(DataInput(*first, 1 - consumers[gate]->dst_input), 1.f) || !SameCpuFloat(x, *first)) continue;
      const Edge* to_sigmoid = SoleConsumer(*first);
      if (to_sigmoid == nullptr) continue;
      chain.push_back(first);
      sigmoid = to_sigmoid->dst;
    }
    const Edge* to_product = SoleConsumer(*sigmoid);
    if (sigmoid->type_string() != "Sigmoid" || to_product == nullptr || to_product->dst != product ||
        product->type_string() != "Mul" || !SameCpuFloat(x, *sigmoid) || !SameCpuFloat(x, *product)) {
      continue;
    }
    chain.push_back(sigmoid);
    chain.push_back(product);
    *nodes = chain;
    return true;
  }
  return false;
}

// Exact GELU as TensorFlow's tf.nn.gelu writes it (Keras' "gelu"), x being `x`'s output 0
// and `consumers` its two readers: Mul(Mul(0.5, x), Erfc(Mul(Neg(x), 0.70710677))), either
// operand order. The nodes after x in order, or false. Float only: the fused epilogue
// computes it in the same operations and order, so the values are the same to the bit.
bool MatchGeluExact(const Node& x, const std::vector<const Edge*>& consumers, std::vector<Node*>* nodes) {
  for (int side = 0; side < 2; ++side) {
    Node* neg = consumers[side]->dst;
    Node* half = consumers[1 - side]->dst;
    if (neg->type_string() != "Neg" || half->type_string() != "Mul" ||
        !IsScalarConst(DataInput(*half, 1 - consumers[1 - side]->dst_input), 0.5f)) {
      continue;
    }
    const Edge* to_scale = SoleConsumer(*neg);
    Node* scale = to_scale == nullptr ? nullptr : to_scale->dst;
    if (scale == nullptr || scale->type_string() != "Mul" ||
        !IsScalarConst(DataInput(*scale, 1 - to_scale->dst_input), static_cast<float>(0.7071067811865476))) {
      continue;
    }
    const Edge* to_erfc = SoleConsumer(*scale);
    Node* erfc = to_erfc == nullptr ? nullptr : to_erfc->dst;
    if (erfc == nullptr || erfc->type_string() != "Erfc") continue;
    const Edge* to_product = SoleConsumer(*erfc);
    const Edge* half_to_product = SoleConsumer(*half);
    if (to_product == nullptr || half_to_product == nullptr || to_product->dst != half_to_product->dst ||
        to_product->dst->type_string() != "Mul") {
      continue;
    }
    Node* product = to_product->dst;
    if (x.def().attr().at("T").type() != tensorflow::DT_FLOAT) return false;
    bool same = true;
    for (Node* n : {neg, scale, erfc, half, product}) same = same && SameCpuFloat(x, *n);
    if (!same) continue;
    *nodes = {neg, scale, erfc, half, product};
    return true;
  }
  return false;
}

// The node `e` leads to when it is `op` (AddV2 also matches Add) and its other input is the
// scalar Const `scalar`; else null.
Node* ScalarStep(const Edge* e, const char* op, float scalar) {
  if (e == nullptr) return nullptr;
  Node* n = e->dst;
  const std::string& type = n->type_string();
  const bool is_op = type == op || (std::string(op) == "AddV2" && type == "Add");
  if (!is_op || n->num_inputs() != 2 || !IsScalarConst(DataInput(*n, 1 - e->dst_input), scalar)) return nullptr;
  return n;
}

// Tanh-approximated GELU as tf.nn.gelu(x, approximate=True) writes it (Keras'
// gelu(approximate=True)), x being `x`'s output 0 and `consumers` its three readers:
//   Mul(Mul(0.5, x), AddV2(1, Tanh(Mul(0.7978846, AddV2(x, Mul(0.044715, Pow(x, 3)))))))
// with either operand order. The nodes after x in order, or false. Float only; the fused
// epilogue computes the same function without the cancellation of 1 + tanh(u) for negative
// x (within TensorFlow's float tolerance of the unfused ops, closer to the true value).
bool MatchGeluApproximate(const Node& x, const std::vector<const Edge*>& consumers, std::vector<Node*>* nodes) {
  if (consumers.size() != 3 || x.def().attr().at("T").type() != tensorflow::DT_FLOAT) return false;
  Node *pow = nullptr, *half = nullptr, *inner = nullptr;
  for (const Edge* e : consumers) {
    Node* n = e->dst;
    if (n->type_string() == "Pow" && e->dst_input == 0 && IsScalarConst(DataInput(*n, 1), 3.f)) {
      pow = n;
    } else if (Node* h = ScalarStep(e, "Mul", 0.5f)) {
      half = h;
    } else if (n->type_string() == "AddV2" || n->type_string() == "Add") {
      inner = n;
    }
  }
  if (pow == nullptr || half == nullptr || inner == nullptr) return false;
  Node* cubed = ScalarStep(SoleConsumer(*pow), "Mul", 0.044715f);
  if (cubed == nullptr || SoleConsumer(*cubed) == nullptr || SoleConsumer(*cubed)->dst != inner) return false;
  Node* scaled = ScalarStep(SoleConsumer(*inner), "Mul", static_cast<float>(0.7978845608028654));
  if (scaled == nullptr) return false;
  const Edge* to_tanh = SoleConsumer(*scaled);
  if (to_tanh == nullptr || to_tanh->dst->type_string() != "Tanh") return false;
  Node* tanh = to_tanh->dst;
  Node* one_plus = ScalarStep(SoleConsumer(*tanh), "AddV2", 1.f);
  if (one_plus == nullptr) return false;
  const Edge* to_product = SoleConsumer(*one_plus);
  const Edge* half_to_product = SoleConsumer(*half);
  if (to_product == nullptr || half_to_product == nullptr || to_product->dst != half_to_product->dst ||
      to_product->dst->type_string() != "Mul") {
    return false;
  }
  Node* product = to_product->dst;
  *nodes = {pow, cubed, inner, scaled, tanh, one_plus, half, product};
  for (Node* n : *nodes) {
    if (!SameCpuFloat(x, *n)) return false;
  }
  return true;
}

// A Squeeze of named dimensions of a value whose last dimension is `last` (its rank - 1),
// none of them the last.
bool SqueezesAllBut(const Node& n, int last) {
  if (n.type_string() != "Squeeze" || last < 1) return false;
  auto dims = n.def().attr().find("squeeze_dims");
  if (dims == n.def().attr().end() || dims->second.list().i_size() == 0) return false;  // all size-1 dimensions
  for (int64_t d : dims->second.list().i()) {
    if (d == -1 || d == last || d < -(last + 1) || d > last) return false;
  }
  return true;
}

// What Keras writes between a product and its bias and activation, which keeps the channels
// (its output's last dimension, known, is the product's): per-channel and element-wise steps
// read the same values in the same order on either side of it. A MatMul's sole consumer when
// it is a Reshape (Keras' Dense on inputs of rank 3 or more, a transformer's tokens or
// ConvNeXt's pixels: Reshape(MatMul(Reshape(x), w))), a convolution's when it is a Squeeze of
// other dimensions than the last (Keras' Conv1D: Squeeze(Conv2D(ExpandDims(x)), [-3])).
Node* ChannelKeepingReshape(const Node& product, int64_t channels) {
  const Edge* to = SoleConsumer(product);
  if (to == nullptr || to->dst_input != 0) return nullptr;
  Node* reshape = to->dst;
  const bool matmul = product.type_string() == "MatMul";
  if (matmul ? reshape->type_string() != "Reshape" : !SqueezesAllBut(*reshape, product.output_shape(0).dims() - 1)) {
    return nullptr;
  }
  if (!OnCpu(*reshape) || reshape->requested_device() != product.requested_device()) return nullptr;
  const PartialTensorShape& shape = reshape->output_shape(0);
  if (shape.dims() < 1 || shape.dim_size(shape.dims() - 1) != channels) return nullptr;
  return reshape;
}

// Moves the data consumers of `fused` onto a new Reshape of it by `shape` (or a Squeeze: no
// shape; a copy of `reshape_def`'s op and attrs), whose output takes `reshaped`'s inferred
// shape.
bool ReshapeAfter(Graph* graph, Node* fused, const NodeDef& reshape_def, const Source& shape,
                  const PartialTensorShape& unreshaped, const PartialTensorShape& reshaped) {
  std::vector<const Edge*> out;
  for (const Edge* e : fused->out_edges()) {
    if (!e->IsControlEdge()) out.push_back(e);
  }
  NodeDef def;
  def.set_op(reshape_def.op());
  *def.mutable_attr() = reshape_def.attr();
  def.set_name(StrCat(fused->name(), "/_", reshape_def.op()));
  def.set_device(fused->requested_device());
  def.add_input(fused->name());
  if (shape.node != nullptr) {
    def.add_input(remapper::InputName(shape));
  }
  StatusOr<Node*> added = graph->AddNode(def);
  if (!added.ok()) return false;
  Node* reshape = *added;
  struct Sink {
    Node* node;
    int input;
  };
  std::vector<Sink> sinks;
  for (const Edge* e : out) sinks.push_back({e->dst, e->dst_input});
  for (const Edge* e : out) graph->RemoveEdge(e);
  graph->AddEdge(fused, 0, reshape, 0);
  if (shape.node != nullptr) graph->AddEdge(shape.node, shape.port, reshape, 1);
  for (const Sink& s : sinks) graph->AddEdge(reshape, 0, s.node, s.input);
  fused->set_output_shape(0, unreshaped);
  reshape->set_output_shape(0, reshaped);
  return true;
}

// Conv2D, DepthwiseConv2dNative or MatMul followed by per-channel steps (BiasAdd, a Mul or
// Add of a channel vector, an inference FusedBatchNorm: what Keras' Dense, Conv and
// BatchNormalization layers write) and at most one activation (an op above, or x *
// sigmoid(x): Keras' swish/silu), each the sole consumer of the one before, into one
// _FusedConv2D, _FusedDepthwiseConv2dNative or _FusedMatMul.
bool TryFuseProductEpilogue(Graph* graph, Node* product) {
  const std::string& op = product->type_string();
  if (op != "MatMul" && AttrString(*product, "data_format", "NHWC") != "NHWC") return false;
  if (!OnCpu(*product) || !FloatingT(*product)) return false;
  const tensorflow::DataType type = product->def().attr().at("T").type();
  // TensorFlow's _FusedMatMul has no double.
  if (op == "MatMul" && type != tensorflow::DT_FLOAT) return false;
  const PartialTensorShape& shape = product->output_shape(0);
  if (shape.dims() < 1 || shape.dim_size(shape.dims() - 1) < 1) return false;  // channels must be known
  const int64_t channels = shape.dim_size(shape.dims() - 1);
  std::vector<Node*> nodes = {product};
  Node* last = product;
  Node* reshape = ChannelKeepingReshape(*product, channels);
  if (reshape != nullptr) {
    nodes.push_back(reshape);
    last = reshape;
  }
  // The shape the steps see (a residual's addend must have it).
  const PartialTensorShape chain_shape = reshape != nullptr ? reshape->output_shape(0) : shape;
  std::vector<ChannelStep> steps;
  bool batch_norm = false;  // one epsilon per node
  bool added = false;       // a residual's Add, the last step
  std::string activation;
  float leakyrelu_alpha = 0.2f;
  for (;;) {
    const std::vector<const Edge*> consumers = ConsumersOfOutput0(*last);
    if ((consumers.size() == 2 || consumers.size() == 3) && !steps.empty()) {  // swish or GELU?
      std::vector<Node*> more;
      if (consumers.size() == 3) {
        if (MatchGeluApproximate(*last, consumers, &more)) activation = "GeluApproximate";
      } else if (MatchSwish(*last, consumers, &more)) {
        activation = "_MklSwish";
      } else if (MatchGeluExact(*last, consumers, &more)) {
        activation = "GeluExact";
      }
      if (!more.empty()) {
        nodes.insert(nodes.end(), more.begin(), more.end());
        last = more.back();
      }
      break;
    }
    if (consumers.size() != 1) break;
    Node* next = consumers[0]->dst;
    if (!SameCpuFloat(*last, *next)) break;
    if (!steps.empty() && ReadActivation(*next, &activation, &leakyrelu_alpha)) {
      nodes.push_back(next);
      last = next;
      break;
    }
    if (added) break;  // only an activation after a residual's Add
    ChannelStep step;
    // (Not across a Reshape: the fused kernel's Add wants its operand in the product's shape.)
    if (reshape == nullptr && IsResidualAdd(*next, consumers[0]->dst_input, chain_shape)) {
      step = {"Add", {DataInput(*next, 1 - consumers[0]->dst_input)}};
      added = true;
    } else if (!AsChannelStep(*next, consumers[0]->dst_input, channels, chain_shape.dims(), &step)) {
      break;
    }
    if (step.op == "FusedBatchNorm") {
      if (batch_norm) break;
      batch_norm = true;
    }
    steps.push_back(std::move(step));
    nodes.push_back(next);
    last = next;
  }
  if (steps.empty()) return false;

  NodeDef def;
  if (op == "Conv2D") {
    def.set_op("_FusedConv2D");
    CopyAttrs(*product, {"T", "strides", "padding", "explicit_paddings", "data_format", "dilations", "use_cudnn_on_gpu"},
              &def);
  } else if (op == "DepthwiseConv2dNative") {
    def.set_op("_FusedDepthwiseConv2dNative");  // with explicit padding too (a folded Pad)
    CopyAttrs(*product, {"T", "strides", "padding", "explicit_paddings", "data_format", "dilations"}, &def);
  } else {
    def.set_op("_FusedMatMul");
    CopyAttrs(*product, {"T", "transpose_a", "transpose_b"}, &def);
  }
  std::vector<Source> data = {DataInput(*product, 0), DataInput(*product, 1)};
  const int num_args = AddFusedOps(steps, activation, leakyrelu_alpha, nodes, &def, &data);
  if (op == "Conv2D") {
    for (int i = 0; i < num_args; ++i) (*def.mutable_attr())["TArgs"].mutable_list()->add_type(type);
  }
  if (reshape == nullptr) return ReplaceNodes(graph, nodes, {last}, data, std::move(def)) != nullptr;
  const NodeDef reshape_def = reshape->def();
  const Source new_shape = DataInput(*reshape, 1);  // none for a Squeeze
  if (reshape_def.op() == "Reshape" && new_shape.node == nullptr) return false;
  const PartialTensorShape reshaped = last->output_shape(0);
  Node* fused = ReplaceNodes(graph, nodes, {last}, data, std::move(def));
  return fused != nullptr && ReshapeAfter(graph, fused, reshape_def, new_shape, shape, reshaped);
}

// The per-channel step `n` makes of a value, when one of its inputs is a tensor of known
// depth and the other (or n's own args) per-channel: that value's input index and depth.
// (The value's own shape must be known: the output then has it, where a scalar times a
// vector would not.)
bool ChannelStepOf(const Node& n, int* input, int64_t* channels, int* rank, ChannelStep* step) {
  if (!OnCpu(n) || !FloatingT(n)) return false;
  for (int i = 0; i < 2 && i < n.num_inputs(); ++i) {
    const Source x = DataInput(n, i);
    if (x.node == nullptr) continue;
    const PartialTensorShape& shape = x.node->output_shape(x.port);
    if (shape.dims() < 1 || shape.dim_size(shape.dims() - 1) < 1) continue;
    if (AsChannelStep(n, i, shape.dim_size(shape.dims() - 1), shape.dims(), step)) {
      *input = i;
      *channels = shape.dim_size(shape.dims() - 1);
      *rank = shape.dims();
      return true;
    }
  }
  return false;
}

// Per-channel steps and an activation on a value no product feeds (Keras 3's batch norm,
// Mul and AddV2 of channel vectors, then Relu: DenseNet's and ResNetV2's pre-activations),
// each the sole consumer of the one before, into one _FusedChannelSteps: two steps at least,
// or one and the activation. Runs after the product fusions, which take the chains that
// start at a product; `first` must start its chain (not follow a step it could join).
bool TryFuseChannelSteps(Graph* graph, Node* first) {
  int input = 0, rank = 0;
  int64_t channels = 0;
  ChannelStep step;
  if (!ChannelStepOf(*first, &input, &channels, &rank, &step)) return false;
  const Source x = DataInput(*first, input);
  {
    int unused_input, unused_rank;
    int64_t unused_channels;
    ChannelStep before;
    const Edge* to_first = SoleConsumer(*x.node);
    if (x.port == 0 && to_first != nullptr && to_first->dst == first &&
        ChannelStepOf(*x.node, &unused_input, &unused_channels, &unused_rank, &before)) {
      return false;  // the chain starts before `first`
    }
  }
  std::vector<ChannelStep> steps = {step};
  std::vector<Node*> nodes = {first};
  Node* last = first;
  std::string activation;
  float leakyrelu_alpha = 0.2f;
  for (;;) {
    const std::vector<const Edge*> consumers = ConsumersOfOutput0(*last);
    if (consumers.size() != 1) break;
    Node* next = consumers[0]->dst;
    if (!SameCpuFloat(*last, *next)) break;
    if (ReadActivation(*next, &activation, &leakyrelu_alpha)) {
      nodes.push_back(next);
      break;
    }
    ChannelStep more;
    if (!AsChannelStep(*next, consumers[0]->dst_input, channels, rank, &more)) break;
    if (more.op == "FusedBatchNorm" && std::any_of(steps.begin(), steps.end(), [](const ChannelStep& s) {
          return s.op == "FusedBatchNorm";
        })) {
      break;  // one epsilon per node
    }
    steps.push_back(std::move(more));
    nodes.push_back(next);
    last = next;
  }
  if (steps.size() < 2 && activation.empty()) return false;
  NodeDef def;
  def.set_op("_FusedChannelSteps");
  CopyAttrs(*first, {"T"}, &def);
  std::vector<Source> data = {x};
  AddFusedOps(steps, activation, leakyrelu_alpha, nodes, &def, &data);
  return ReplaceChain(graph, nodes, data, std::move(def));
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

// Identity and IdentityN nodes that only pass values on (Keras writes an IdentityN after
// every swish for its custom gradient, tf.function an Identity before every result, and a
// lowered While one after each loop Switch and one per value its body returns: 11 of a
// Keras GRU's ~60 nodes an iteration): their consumers read the values where they come from
// instead, and the node goes. A node's control inputs go to its consumers (they then wait
// for what it waited for, dead when it would have been dead). Kept where it does more: a
// control edge out (a loop's or a conditional's pivot, a dependency it carries), control
// inputs where a consumer is a control-flow op (a Merge or NextIteration takes none),
// another device before or after it (a copy, a transfer named after it), a reference
// input (reading a ref variable). Returns the number removed.
int BypassIdentities(Graph* graph) {
  std::vector<int> ids;
  for (Node* n : graph->op_nodes()) {
    if (n->type_string() == "Identity" || n->type_string() == "IdentityN") ids.push_back(n->id());
  }
  int removed = 0;
  for (int id : ids) {
    Node* n = graph->FindNodeId(id);
    if (n == nullptr || !OnCpu(*n)) continue;
    std::vector<Source> sources(n->num_inputs(), Source{nullptr, 0});
    std::vector<Node*> control;
    bool keep = false;
    for (const Edge* e : n->in_edges()) {
      if (e->IsControlEdge()) {
        if (!e->src->IsSource()) control.push_back(e->src);
        continue;
      }
      sources[e->dst_input] = {e->src, e->src_output};
      keep = keep || e->src->requested_device() != n->requested_device() || IsRefType(n->input_type(e->dst_input));
    }
    for (const Edge* e : n->out_edges()) {
      // A value another device reads keeps its name on the transfer (what tensoract-observe
      // explains a stuck step with).
      keep = keep || e->IsControlEdge() || e->dst->requested_device() != n->requested_device() ||
             (!control.empty() && IsControlFlow(*e->dst));
    }
    for (const Source& src : sources) keep = keep || src.node == nullptr;
    if (keep) continue;
    const std::vector<const Edge*> out(n->out_edges().begin(), n->out_edges().end());
    for (const Edge* e : out) {
      Node* dst = e->dst;
      const int dst_input = e->dst_input, port = e->src_output;
      graph->RemoveEdge(e);
      graph->AddEdge(sources[port].node, sources[port].port, dst, dst_input);
      for (Node* c : control) {
        bool has = false;
        for (const Edge* in : dst->in_edges()) has = has || (in->IsControlEdge() && in->src == c);
        if (!has) graph->AddControlEdge(c, dst);
      }
    }
    graph->RemoveNode(n);
    ++removed;
  }
  return removed;
}


}  // namespace

int Remap(Graph* graph, const RemapOptions& options) {
  BypassIdentities(graph);
  // In this order: each pass sees what the ones before it made (one sum of the calls would
  // leave their order to the compiler).
  int fused = HoistLoopInputProducts(graph);
  fused += FuseEach(graph, {"Conv2D", "DepthwiseConv2dNative"}, TryFoldPadIntoConvolution);
  fused += FuseEach(graph, {"Conv2D", "DepthwiseConv2dNative", "MatMul"}, TryFuseProductEpilogue);
  if (options.fuse_pointwise_depthwise) fused += FuseEach(graph, {"_FusedConv2D"}, TryFusePointwiseDepthwise);
  fused += FuseEach(graph, {"MaxPoolGrad"}, TryFuseMaxPoolGradAndReluGrad);
  fused += FuseEach(graph, {"BiasAddGrad"}, TryFuseConvFilterAndBiasGrad);
  fused += FuseEach(graph, {"Mean"}, TryFuseLayerNorm);
  fused += FuseEach(graph, {"Einsum"}, TryFuseAttention);
  fused += FuseEach(graph, {"Split"}, TryFuseLstmGates);
  fused += FuseEach(graph, {"Split"}, TryFuseGruGates);
  fused += FuseEach(graph, {"Mean"}, TryFuseGatherMean);
  fused += FuseEach(graph, {"SelectV2"}, TryBroadcastSelectCondition);
  fused += FuseEach(graph, {"Mul", "Add", "AddV2", "BiasAdd", "FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"},
                    TryFuseChannelSteps);
  fused += FuseEach(graph, {"_FusedChannelSteps"}, TryFuseStepsIntoConvolution);
  fused += FuseEach(graph, {"ConcatV2"}, TryFlattenConcat);
  fused += FuseEach(graph, {"_FusedChannelStepsConv2D"}, TryFuseConcatIntoStepsConvolution);
  fused += FuseEach(graph, {"RealDiv", "Mul"}, TryScaleBeforeBroadcast);
  fused += ShapesFromOperands(graph);
  fused += FuseEach(graph, {"AddN", "Mul", "Add", "AddV2", "Sub", "RealDiv", "SquaredDifference", "Neg", "Sum", "Mean"},
                    TryFuseElementwiseRegion);
  return fused;
}

}  // namespace tensoract
