// Keras' LayerNormalization into _MklLayerNorm (see layer_norm_fusion.h).
#include "graph/optimizer/layer_norm_fusion.h"

#include <string>
#include <vector>

#include "graph/node_def_util.h"
#include "graph/optimizer/remapper_util.h"

namespace tensoract {
namespace {

using namespace remapper;  // NOLINT: the remapper's graph-editing helpers

// An int32 or int64 Const holding one axis (a scalar or [1]) that is the last of `rank`
// (-1, or rank - 1 where the rank is known).
bool IsLastAxis(const Source& axes, int rank) {
  std::vector<int64_t> axis;
  if (!ConstInts(axes, &axis) || axis.size() != 1) return false;
  return axis[0] == -1 || (rank > 0 && axis[0] == rank - 1);
}

// A float Mean over x's last axis that keeps it, on the device of `like`.
bool IsLastAxisMean(const Node& n, const Node& like, int rank) {
  return n.type_string() == "Mean" && SameCpuFloat(like, n) && AttrIsTrue(n.def(), "keep_dims") &&
         IsLastAxis(DataInput(n, 1), rank);
}

}  // namespace

bool TryFuseLayerNorm(Graph* graph, Node* mean) {
  const Source x = DataInput(*mean, 0);
  if (x.node == nullptr || mean->def().attr().at("T").type() != tensorflow::DT_FLOAT) return false;
  // x's rank and depth C where inferred (a fed input's may not be: then C is gamma's, and
  // the kernel refuses an x whose last dimension differs, which Keras' layer never makes).
  const PartialTensorShape& shape = x.node->output_shape(x.port);
  const int rank = shape.dims();  // -1: unknown
  if (rank == 0) return false;
  int64_t channels = rank > 0 ? shape.dim_size(rank - 1) : -1;
  const int max_rank = rank > 0 ? rank : 8;
  if (!IsLastAxisMean(*mean, *mean, rank)) return false;

  // mean feeds the variance (through StopGradient, as tf.nn.moments writes it) and Neg.
  const std::vector<const Edge*> readers = ConsumersOfOutput0(*mean);
  if (readers.size() != 2) return false;
  Node *stop = nullptr, *difference = nullptr, *neg = nullptr;
  for (const Edge* e : readers) {
    const std::string& type = e->dst->type_string();
    if (type == "StopGradient") stop = e->dst;
    else if (type == "SquaredDifference") difference = e->dst;
    else if (type == "Neg") neg = e->dst;
  }
  if (stop != nullptr) difference = SoleConsumerOfType(*stop, "SquaredDifference");
  if (difference == nullptr || neg == nullptr || !SameCpuFloat(*mean, *neg)) return false;
  if (!SameSource(DataInput(*difference, 0), x)) return false;
  Node* variance = SoleConsumerOfType(*difference, "Mean");
  if (variance == nullptr || !IsLastAxisMean(*variance, *mean, rank)) return false;
  Node* plus_epsilon = SoleConsumerOfType(*variance, "AddV2");
  float epsilon = 0;
  if (plus_epsilon == nullptr || !ScalarConstValue(OtherInput(*plus_epsilon, *variance), &epsilon)) return false;
  Node* rsqrt = SoleConsumerOfType(*plus_epsilon, "Rsqrt");
  Node* scaled = rsqrt == nullptr ? nullptr : SoleConsumerOfType(*rsqrt, "Mul");
  if (scaled == nullptr) return false;
  const Source gamma = OtherInput(*scaled, *rsqrt);
  if (channels < 1 && gamma.node != nullptr && gamma.node->output_shape(gamma.port).dims() > 0) {
    const PartialTensorShape& g = gamma.node->output_shape(gamma.port);
    channels = g.dim_size(g.dims() - 1);
  }
  if (channels < 1 || !IsChannelVector(gamma, channels, max_rank)) return false;

  // m = inv * gamma feeds -mean * m and x * m.
  const std::vector<const Edge*> products = ConsumersOfOutput0(*scaled);
  if (products.size() != 2) return false;
  Node *mean_product = nullptr, *x_product = nullptr;
  for (const Edge* e : products) {
    Node* n = e->dst;
    if (n->type_string() != "Mul" || !SameCpuFloat(*mean, *n)) return false;
    const Source other = OtherInput(*n, *scaled);
    if (other.node == neg && other.port == 0) mean_product = n;
    else if (SameSource(other, x)) x_product = n;
  }
  if (mean_product == nullptr || x_product == nullptr || SoleConsumerOfType(*neg, "Mul") != mean_product) return false;
  Node* shift = SoleConsumerOfType(*mean_product, "AddV2");
  if (shift == nullptr) return false;
  const Source beta = OtherInput(*shift, *mean_product);
  if (!IsChannelVector(beta, channels, max_rank)) return false;
  Node* out = SoleConsumerOfType(*x_product, "AddV2");
  if (out == nullptr || SoleConsumerOfType(*shift, "AddV2") != out) return false;

  std::vector<Node*> nodes = {mean, difference, variance, plus_epsilon, rsqrt, scaled, neg,
                              mean_product, shift, x_product, out};
  if (stop != nullptr) nodes.push_back(stop);
  NodeDef def;
  def.set_op("_MklLayerNorm");
  (*def.mutable_attr())["T"].set_type(tensorflow::DT_FLOAT);
  (*def.mutable_attr())["epsilon"].set_f(epsilon);
  return ReplaceNodes(graph, nodes, {out}, {x, gamma, beta}, std::move(def)) != nullptr;
}

}  // namespace tensoract
