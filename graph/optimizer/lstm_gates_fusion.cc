// A Keras LSTM cell's gates into _FusedLstmGates (see lstm_gates_fusion.h).
#include "graph/optimizer/lstm_gates_fusion.h"

#include <array>
#include <string>
#include <vector>

#include "graph/optimizer/remapper_util.h"

namespace tensoract {
namespace {

using namespace remapper;  // NOLINT: the remapper's graph-editing helpers

bool IsFloat(const Node& n) {
  auto t = n.def().attr().find("T");
  return t != n.def().attr().end() && t->second.type() == tensorflow::DT_FLOAT;
}

// The node of type `op` that alone reads output `port` of `split`, on its device; nullptr
// where another node reads it too.
Node* SoleReaderOfPort(const Node& split, int port, const std::string& op) {
  Node* reader = nullptr;
  for (const Edge* e : split.out_edges()) {
    if (e->IsControlEdge() || e->src_output != port) continue;
    if (reader != nullptr) return nullptr;
    reader = e->dst;
  }
  if (reader == nullptr || reader->type_string() != op || !SameCpuFloat(split, *reader)) return nullptr;
  return reader;
}

// `s`, or what the constant Enter (a loop invariant) `s` passes into its loop.
Source ThroughConstantEnter(Source s) {
  while (s.node != nullptr && s.node->type_string() == "Enter") {
    auto constant = s.node->def().attr().find("is_constant");
    if (constant == s.node->def().attr().end() || !constant->second.b()) break;
    s = DataInput(*s.node, 0);
  }
  return s;
}

// A Split into 4 along the last axis of a rank-2 float z on the CPU; *units = z's columns / 4
// where known (-1 otherwise).
bool IsGateSplit(const Node& split, int64_t* units) {
  auto num = split.def().attr().find("num_split");
  if (!OnCpu(split) || !IsFloat(split) || num == split.def().attr().end() || num->second.i() != 4) return false;
  const Source z = DataInput(split, 1);
  if (z.node == nullptr) return false;
  const PartialTensorShape& shape = z.node->output_shape(z.port);
  std::vector<int64_t> axis;
  if (shape.dims() != 2 || !ConstInts(ThroughConstantEnter(DataInput(split, 0)), &axis) || axis.size() != 1) {
    return false;
  }
  if (axis[0] != 1 && axis[0] != -1) return false;
  const int64_t columns = shape.dim_size(1);
  if (columns >= 0 && columns % 4 != 0) return false;
  *units = columns >= 0 ? columns / 4 : -1;
  return true;
}

// c_prev broadcasts into the gates' [batch, units] without widening it, as far as its
// inferred shape says (a loop variable's is often unknown: the kernel checks it then).
bool IsCellState(const Source& c_prev, const Node& split, int64_t units) {
  if (c_prev.node == nullptr) return false;
  const PartialTensorShape& shape = c_prev.node->output_shape(c_prev.port);
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

}  // namespace

bool TryFuseLstmGates(Graph* graph, Node* split) {
  int64_t units = -1;
  if (!IsGateSplit(*split, &units)) return false;
  for (const Edge* e : split->out_edges()) {
    if (e->IsControlEdge()) return false;
  }
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
  if (!IsCellState(c_prev, *split, units)) return false;
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
  for (const Edge* e : c->out_edges()) {
    if (!e->IsControlEdge() && e->src_output != 0) return false;
  }

  NodeDef def;
  def.set_op("_FusedLstmGates");
  (*def.mutable_attr())["T"].set_type(tensorflow::DT_FLOAT);
  const std::vector<Node*> nodes = {split, gate[0], gate[1], gate[2], gate[3], input_part, kept_part, c, c_tanh, h};
  return ReplaceNodes(graph, nodes, {c, h}, {DataInput(*split, 1), c_prev}, std::move(def)) != nullptr;
}

}  // namespace tensoract
