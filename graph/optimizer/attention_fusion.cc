// Keras' attention into _FusedAttention (see attention_fusion.h).
#include "graph/optimizer/attention_fusion.h"

#include <set>
#include <string>
#include <vector>

#include "graph/optimizer/remapper_util.h"

namespace tensoract {
namespace {

using namespace remapper;  // NOLINT: the remapper's graph-editing helpers

// The three terms of a two-operand Einsum equation of rank-4 terms ("abcd,efgh->ijkl"),
// each four distinct letters; false for anything else (ellipses, other ranks).
bool Terms(const Node& einsum, std::string* x, std::string* y, std::string* out) {
  const std::string eq = AttrString(einsum, "equation", "");
  const size_t comma = eq.find(','), arrow = eq.find("->");
  if (comma == std::string::npos || arrow == std::string::npos || arrow < comma) return false;
  *x = eq.substr(0, comma);
  *y = eq.substr(comma + 1, arrow - comma - 1);
  *out = eq.substr(arrow + 2);
  for (const std::string* term : {x, y, out}) {
    if (term->size() != 4 || std::set<char>(term->begin(), term->end()).size() != 4) return false;
    for (char c : *term) {
      if (c < 'A' || (c > 'Z' && c < 'a') || c > 'z') return false;
    }
  }
  return true;
}

// "BTNH,BSNH->BNTS" in roles: batch, query token, head, depth, key token.
bool IsScoresEquation(const std::string& q, const std::string& k, const std::string& o) {
  return q[0] == k[0] && k[0] == o[0] && q[2] == k[2] && k[2] == o[1] && q[3] == k[3] && o[2] == q[1] &&
         o[3] == k[1] && q[1] != k[1] && std::string(o).find(q[3]) == std::string::npos;
}

// "BNTS,BSNH->BTNH" in roles.
bool IsWeightedSumEquation(const std::string& p, const std::string& v, const std::string& o) {
  return p[0] == v[0] && v[0] == o[0] && p[1] == v[2] && v[2] == o[2] && p[2] == o[1] && p[3] == v[1] &&
         v[3] == o[3] && p[2] != p[3] && std::string(o).find(p[3]) == std::string::npos;
}

// A mask the fused kernel can add: rank 4, [B or 1, N or 1, T, S] against scores [B, N, T,
// S], its last two dimensions known and equal to the scores' (a broadcast there would need
// the unfused Add).
bool IsMaskShape(const PartialTensorShape& mask, const PartialTensorShape& scores) {
  if (mask.dims() != 4 || scores.dims() != 4) return false;
  for (int d = 2; d < 4; ++d) {
    if (mask.dim_size(d) < 0 || mask.dim_size(d) != scores.dim_size(d)) return false;
  }
  // The batch and heads: 1, or the scores' (unknown in a served model: the kernel then
  // checks them at run time).
  for (int d = 0; d < 2; ++d) {
    if (mask.dim_size(d) != 1 && mask.dim_size(d) >= 0 && mask.dim_size(d) != scores.dim_size(d)) return false;
  }
  return true;
}

}  // namespace

bool TryFuseAttention(Graph* graph, Node* scores) {
  if (!OnCpu(*scores) || scores->def().attr().at("T").type() != tensorflow::DT_FLOAT) return false;
  std::string q, k, o;
  if (scores->num_inputs() != 2 || !Terms(*scores, &q, &k, &o) || !IsScoresEquation(q, k, o)) return false;
  std::vector<Node*> nodes = {scores};
  Node* last = scores;
  float scale = 1.f;
  if (const Edge* e = SoleConsumer(*scores); e != nullptr && e->dst->type_string() == "Mul" &&
                                              SameCpuFloat(*scores, *e->dst) &&
                                              ScalarConstValue(DataInput(*e->dst, 1 - e->dst_input), &scale)) {
    nodes.push_back(e->dst);
    last = e->dst;
  }
  // Keras' masked softmax adds (1 - mask) * -1e9, of shape [B or 1, N or 1, T, S].
  std::vector<Source> mask;
  if (const Edge* e = SoleConsumer(*last);
      e != nullptr && (e->dst->type_string() == "AddV2" || e->dst->type_string() == "Add") &&
      SameCpuFloat(*last, *e->dst)) {
    const Source adder = DataInput(*e->dst, 1 - e->dst_input);
    const PartialTensorShape scores_shape = last->output_shape(0);
    if (adder.node == nullptr || !IsMaskShape(adder.node->output_shape(adder.port), scores_shape)) return false;
    mask.push_back(adder);
    nodes.push_back(e->dst);
    last = e->dst;
  }
  Node* softmax = SoleConsumerOfType(*last, "Softmax");
  if (softmax == nullptr) return false;
  const Edge* to_sum = SoleConsumer(*softmax);
  if (to_sum == nullptr || to_sum->dst_input != 0 || to_sum->dst->type_string() != "Einsum") return false;
  Node* weighted = to_sum->dst;
  std::string p, v, out;
  if (!SameCpuFloat(*softmax, *weighted) || weighted->num_inputs() != 2 || !Terms(*weighted, &p, &v, &out) ||
      !IsWeightedSumEquation(p, v, out)) {
    return false;
  }
  nodes.push_back(softmax);
  nodes.push_back(weighted);
  NodeDef def;
  def.set_op("_FusedAttention");
  (*def.mutable_attr())["T"].set_type(tensorflow::DT_FLOAT);
  (*def.mutable_attr())["scale"].set_f(scale);
  (*def.mutable_attr())["num_masks"].set_i(static_cast<int64_t>(mask.size()));
  std::vector<Source> data = {DataInput(*scores, 0), DataInput(*scores, 1), DataInput(*weighted, 1)};
  data.insert(data.end(), mask.begin(), mask.end());
  return ReplaceNodes(graph, nodes, {weighted}, data, std::move(def)) != nullptr;
}

}  // namespace tensoract
