// Keras' LSTM and GRU cells' gates into _FusedLstmGates and _FusedGruGates (see
// recurrent_gates_fusion.h).
#include "graph/optimizer/recurrent_gates_fusion.h"

#include <array>
#include <string>
#include <vector>

#include "graph/optimizer/remapper_util.h"

namespace tensoract {
namespace {

using namespace remapper;  // NOLINT: the remapper's graph-editing helpers

// The node that alone reads output `port` of `n`, of type `op` (AddV2 also matching Add) on
// `n`'s device; nullptr where another node reads it too.
Node* SoleReaderOfPort(const Node& n, int port, const std::string& op) {
  Node* reader = nullptr;
  for (const Edge* e : n.out_edges()) {
    if (e->IsControlEdge() || e->src_output != port) continue;
    if (reader != nullptr) return nullptr;
    reader = e->dst;
  }
  if (reader == nullptr || !SameCpuFloat(n, *reader)) return nullptr;
  const std::string& type = reader->type_string();
  return type == op || (op == "AddV2" && type == "Add") ? reader : nullptr;
}

// A Split into `parts` along the last axis of a rank-2 float value on the CPU, nothing read
// but its outputs' values; *units = the value's columns / parts where known (-1 otherwise).
bool IsGateSplit(const Node& split, int parts, int64_t* units) {
  auto num = split.def().attr().find("num_split");
  if (!OnCpu(split) || !TypeIs(split, "T", tensorflow::DT_FLOAT) || num == split.def().attr().end() || num->second.i() != parts) return false;
  for (const Edge* e : split.out_edges()) {
    if (e->IsControlEdge()) return false;
  }
  const Source z = DataInput(split, 1);
  if (z.node == nullptr) return false;
  const PartialTensorShape& shape = z.node->output_shape(z.port);
  std::vector<int64_t> axis;
  if (shape.dims() != 2 || !ConstInts(ThroughConstantEnter(DataInput(split, 0)), &axis) || axis.size() != 1) {
    return false;
  }
  if (axis[0] != 1 && axis[0] != -1) return false;
  const int64_t columns = shape.dim_size(1);
  if (columns >= 0 && columns % parts != 0) return false;
  *units = columns >= 0 ? columns / parts : -1;
  return true;
}

// The previous state broadcasts into the gates' [batch, units] without widening it, as far
// as its inferred shape says (a loop variable's is often unknown: the kernel checks it then).
bool IsState(const Source& state, const Node& split, int64_t units) {
  if (state.node == nullptr) return false;
  const PartialTensorShape& shape = state.node->output_shape(state.port);
  if (shape.dims() < 0) return true;
  if (shape.dims() > 2) return false;
  const Source z = DataInput(split, 1);
  const int64_t gates[2] = {z.node->output_shape(z.port).dim_size(0), units};
  for (int d = 0; d < shape.dims(); ++d) {
    const int64_t have = shape.dim_size(d), want = gates[2 - shape.dims() + d];
    if (have > 1 && want >= 0 && have != want) return false;
  }
  return true;
}

// A StridedSlice of every row and the columns [*begin, *end) of a rank-2 value (*end -1: to
// the last column), as Keras' GRU slices its recurrent gates.
bool IsColumnSlice(const Node& slice, int64_t* begin, int64_t* end) {
  if (slice.type_string() != "StridedSlice" || !OnCpu(slice) || !TypeIs(slice, "T", tensorflow::DT_FLOAT)) return false;
  const auto& attr = slice.def().attr();
  for (const char* mask : {"ellipsis_mask", "new_axis_mask", "shrink_axis_mask"}) {
    auto m = attr.find(mask);
    if (m != attr.end() && m->second.i() != 0) return false;
  }
  auto begin_mask = attr.find("begin_mask"), end_mask = attr.find("end_mask");
  if (begin_mask == attr.end() || end_mask == attr.end()) return false;
  std::vector<int64_t> b, e, s;
  if (!ConstInts(ThroughConstantEnter(DataInput(slice, 1)), &b) ||
      !ConstInts(ThroughConstantEnter(DataInput(slice, 2)), &e) ||
      !ConstInts(ThroughConstantEnter(DataInput(slice, 3)), &s) || b.size() != 2 || e.size() != 2 ||
      s != std::vector<int64_t>{1, 1}) {
    return false;
  }
  // Every row: both masks' first bit. Columns from b[1] (or 0) to e[1] (or the end).
  if ((begin_mask->second.i() & 1) == 0 || (end_mask->second.i() & 1) == 0) return false;
  *begin = (begin_mask->second.i() & 2) != 0 ? 0 : b[1];
  *end = (end_mask->second.i() & 2) != 0 ? -1 : e[1];
  return *begin >= 0 && *end >= -1;
}

// The bias added to the LSTM's gates just before their Split (Keras' `z += b`), read by the
// Split alone: the remapper's per-channel add (AsChannelStep: a BiasAdd, or an Add of a
// vector of the gates' width), a vector as the kernel takes it. That node, with *gates and
// *bias its operands; nullptr where there is none.
Node* GateBias(const Node& split, int64_t units, Source* gates, Source* bias) {
  const Source z = DataInput(split, 1);
  if (z.node == nullptr || z.port != 0 || !SameCpuFloat(*z.node, split)) return nullptr;
  const Edge* only = SoleConsumer(*z.node);
  if (only == nullptr || only->dst != &split) return nullptr;
  for (int input : {0, 1}) {
    ChannelStep step;
    if (!AsChannelStep(*z.node, input, 4 * units, 1, &step) || step.op != "BiasAdd") continue;
    *gates = DataInput(*z.node, input);
    *bias = step.args[0];
    const bool matrix = gates->node != nullptr && gates->node->output_shape(gates->port).dims() == 2;
    const bool vector = bias->node->output_shape(bias->port).dims() == 1;
    return matrix && vector ? z.node : nullptr;
  }
  return nullptr;
}

}  // namespace

bool TryFuseLstmGates(Graph* graph, Node* split) {
  int64_t units = -1;
  if (!IsGateSplit(*split, 4, &units)) return false;
  static const std::array<const char*, 4> kActivations = {"Sigmoid", "Sigmoid", "Tanh", "Sigmoid"};
  std::array<Node*, 4> gate{};  // i, f, g, o activated
  for (int k = 0; k < 4; ++k) {
    gate[k] = SoleReaderOfPort(*split, k, kActivations[k]);
    if (gate[k] == nullptr) return false;
  }
  // sigmoid(i) * tanh(g) and sigmoid(f) * c_prev, added into c.
  Node* input_part = SoleConsumerOfType(*gate[0], "Mul");
  if (input_part == nullptr || SoleConsumerOfType(*gate[2], "Mul") != input_part) return false;
  Node* kept_part = SoleConsumerOfType(*gate[1], "Mul");
  if (kept_part == nullptr || kept_part == input_part) return false;
  const Source c_prev = OtherInput(*kept_part, *gate[1]);
  if (!IsState(c_prev, *split, units)) return false;
  Node* c = SoleConsumerOfType(*kept_part, "AddV2");
  if (c == nullptr || SoleConsumerOfType(*input_part, "AddV2") != c) return false;
  // h = sigmoid(o) * tanh(c); c itself may be read elsewhere too (the loop carries it).
  Node* h = SoleConsumerOfType(*gate[3], "Mul");
  if (h == nullptr) return false;
  Node* c_tanh = nullptr;
  for (const Edge* e : c->out_edges()) {
    if (e->IsControlEdge() || e->dst->type_string() != "Tanh" || !SameCpuFloat(*c, *e->dst)) continue;
    if (SoleConsumerOfType(*e->dst, "Mul") == h) c_tanh = e->dst;
  }
  if (c_tanh == nullptr) return false;

  NodeDef def;
  def.set_op("_FusedLstmGates");
  (*def.mutable_attr())["T"].set_type(tensorflow::DT_FLOAT);
  std::vector<Node*> nodes = {split, gate[0], gate[1], gate[2], gate[3], input_part, kept_part, c, c_tanh, h};
  std::vector<Source> data = {DataInput(*split, 1), c_prev};
  // The gates' bias goes in too, added as each gate is read (the same sums): in a loop, a
  // kernel fewer in every step.
  Source gates{}, bias{};
  if (Node* bias_add = GateBias(*split, units, &gates, &bias)) {
    nodes.push_back(bias_add);
    data = {gates, c_prev, bias};
    (*def.mutable_attr())["num_bias"].set_i(1);
  }
  return ReplaceNodes(graph, nodes, {c, h}, data, std::move(def)) != nullptr;
}

bool TryFuseGruGates(Graph* graph, Node* split) {
  int64_t units = -1;
  if (!IsGateSplit(*split, 3, &units) || units < 1) return false;
  // x's gates each added to the recurrent gate sliced from q: xz + hz, xr + hr; xn + r * hn.
  std::array<Node*, 3> sum{}, slice{};
  for (int k = 0; k < 3; ++k) {
    sum[k] = SoleReaderOfPort(*split, k, "AddV2");
    if (sum[k] == nullptr) return false;
    const Source other = OtherInput(*sum[k], *split, k);
    if (other.node == nullptr || other.port != 0) return false;
    slice[k] = other.node;  // the third is r * hn, its slice found below
  }
  Node* reset_product = slice[2];
  if (reset_product->type_string() != "Mul" || !SameCpuFloat(*split, *reset_product)) return false;
  Node* z_gate = SoleConsumerOfType(*sum[0], "Sigmoid");
  Node* r_gate = SoleConsumerOfType(*sum[1], "Sigmoid");
  if (z_gate == nullptr || r_gate == nullptr || SoleConsumerOfType(*r_gate, "Mul") != reset_product) return false;
  const Source hn = OtherInput(*reset_product, *r_gate);
  slice[2] = hn.port == 0 ? hn.node : nullptr;
  if (slice[2] == nullptr) return false;
  // The three slices take q's columns [0, u), [u, 2u) and [2u, 3u) (or to its end).
  const Source q = DataInput(*slice[0], 0);
  for (int k = 0; k < 3; ++k) {
    int64_t begin = 0, end = 0;
    if (!IsColumnSlice(*slice[k], &begin, &end) || !SameSource(DataInput(*slice[k], 0), q)) return false;
    if (!SameCpuFloat(*split, *slice[k]) || SoleConsumer(*slice[k]) == nullptr) return false;
    if (begin != k * units || (end != (k + 1) * units && !(k == 2 && end == -1))) return false;
  }
  if (q.node == nullptr) return false;
  const PartialTensorShape& q_shape = q.node->output_shape(q.port);
  if (q_shape.dims() != 2 || (q_shape.dim_size(1) >= 0 && q_shape.dim_size(1) != 3 * units)) return false;
  Node* n_gate = SoleConsumerOfType(*sum[2], "Tanh");
  if (n_gate == nullptr) return false;
  // h = zt * h_prev + (1 - zt) * n: zt read by exactly those two nodes.
  Node *kept = nullptr, *complement = nullptr;
  int readers = 0;
  for (const Edge* e : z_gate->out_edges()) {
    if (e->IsControlEdge()) return false;
    ++readers;
    if (e->dst->type_string() == "Mul" && SameCpuFloat(*z_gate, *e->dst)) kept = e->dst;
    else if (e->dst->type_string() == "Sub" && SameCpuFloat(*z_gate, *e->dst) && e->dst_input == 1) complement = e->dst;
  }
  float one = 0;
  if (readers != 2 || kept == nullptr || complement == nullptr ||
      !ScalarConstValue(ThroughConstantEnter(DataInput(*complement, 0)), &one) || one != 1.f) {
    return false;
  }
  const Source h_prev = OtherInput(*kept, *z_gate);
  if (!IsState(h_prev, *split, units)) return false;
  Node* new_part = SoleConsumerOfType(*complement, "Mul");
  if (new_part == nullptr || SoleConsumerOfType(*n_gate, "Mul") != new_part) return false;
  Node* h = SoleConsumerOfType(*kept, "AddV2");
  if (h == nullptr || SoleConsumerOfType(*new_part, "AddV2") != h) return false;

  NodeDef def;
  def.set_op("_FusedGruGates");
  (*def.mutable_attr())["T"].set_type(tensorflow::DT_FLOAT);
  const std::vector<Node*> nodes = {split,  sum[0], sum[1], sum[2], slice[0],   slice[1], slice[2], z_gate,
                                    r_gate, reset_product, n_gate, kept, complement, new_part, h};
  return ReplaceNodes(graph, nodes, {h}, {DataInput(*split, 1), q, h_prev}, std::move(def)) != nullptr;
}

}  // namespace tensoract
