// An embedding bag into _FusedGatherMean (see gather_mean_fusion.h).
#include "graph/optimizer/gather_mean_fusion.h"

#include <vector>

#include "graph/node_def_util.h"
#include "graph/optimizer/remapper_util.h"

namespace tensoract {
namespace {

using namespace remapper;  // NOLINT: the remapper's graph-editing helpers

bool KnownRank(const Source& s, int rank) {
  return s.node != nullptr && s.node->output_shape(s.port).dims() == rank;
}

}  // namespace

bool TryFuseGatherMean(Graph* graph, Node* mean) {
  if (!OnCpu(*mean) || !TypeIs(*mean, "T", tensorflow::DT_FLOAT)) return false;
  if (AttrIsTrue(mean->def(), "keep_dims")) return false;
  std::vector<int64_t> axes;
  if (!ConstInts(DataInput(*mean, 1), &axes) || axes.size() != 1 || (axes[0] != 1 && axes[0] != -2)) return false;
  const Source gathered = DataInput(*mean, 0);
  Node* gather = gathered.node;
  if (gather == nullptr || gathered.port != 0 || gather->type_string() != "GatherV2" || !OnCpu(*gather) ||
      gather->requested_device() != mean->requested_device() || !TypeIs(*gather, "Tparams", tensorflow::DT_FLOAT)) {
    return false;
  }
  const Edge* only = SoleConsumer(*gather);
  if (only == nullptr || only->dst != mean) return false;
  auto batch_dims = gather->def().attr().find("batch_dims");
  if (batch_dims != gather->def().attr().end() && batch_dims->second.i() != 0) return false;
  std::vector<int64_t> axis;
  if (!ConstInts(DataInput(*gather, 2), &axis) || axis.size() != 1 || axis[0] != 0) return false;
  const Source params = DataInput(*gather, 0), indices = DataInput(*gather, 1);
  if (!KnownRank(params, 2) || !KnownRank(indices, 2)) return false;

  NodeDef def;
  def.set_op("_FusedGatherMean");
  (*def.mutable_attr())["T"].set_type(tensorflow::DT_FLOAT);
  CopyAttrs(*gather, {"Tindices"}, &def);
  return ReplaceNodes(graph, {gather, mean}, {mean}, {params, indices}, std::move(def)) != nullptr;
}

}  // namespace tensoract
