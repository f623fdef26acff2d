#include "graph/optimizer/concat_flattening.h"

#include <string>
#include <vector>

#include "graph/optimizer/remapper_util.h"

namespace tensoract {

using remapper::ConcatAxis;
using remapper::DataInput;
using remapper::Source;

namespace {

bool HasControlInputs(const Node& n) {
  for (const Edge* e : n.in_edges()) {
    if (e->IsControlEdge() && !e->src->IsSource()) return true;
  }
  return false;
}

// Appends the pieces of `s` to *pieces: its own inputs where it is a ConcatV2 like `outer`
// (taken apart in turn, and added to *taken_apart), else `s` itself. True when any was taken
// apart.
bool AppendPieces(const Node& outer, int64_t axis, const Source& s, std::vector<Source>* pieces,
                  std::vector<int>* taken_apart) {
  Node* inner = s.node;
  int64_t inner_axis = 0;
  if (inner == nullptr || s.port != 0 || inner->type_string() != "ConcatV2" || !remapper::OnCpu(*inner) ||
      inner->requested_device() != outer.requested_device() ||
      inner->def().attr().at("T").type() != outer.def().attr().at("T").type() || HasControlInputs(*inner) ||
      !ConcatAxis(*inner, &inner_axis) || inner_axis != axis) {
    pieces->push_back(s);
    return false;
  }
  taken_apart->push_back(inner->id());
  const int n = static_cast<int>(inner->def().attr().at("N").i());
  for (int i = 0; i < n; ++i) AppendPieces(outer, axis, DataInput(*inner, i), pieces, taken_apart);
  return true;
}

}  // namespace

bool TryFlattenConcat(Graph* graph, Node* concat) {
  int64_t axis = 0;
  if (!remapper::OnCpu(*concat) || !ConcatAxis(*concat, &axis)) return false;
  const int n = static_cast<int>(concat->def().attr().at("N").i());
  std::vector<Source> pieces;
  std::vector<int> taken_apart;  // ids of the inner ConcatV2 nodes, outermost first
  bool flattened = false;
  for (int i = 0; i < n; ++i) {
    flattened |= AppendPieces(*concat, axis, DataInput(*concat, i), &pieces, &taken_apart);
  }
  if (!flattened) return false;
  NodeDef def;
  def.set_op("ConcatV2");
  remapper::CopyAttrs(*concat, {"T", "Tidx", "_class"}, &def);
  (*def.mutable_attr())["N"].set_i(static_cast<int64_t>(pieces.size()));
  pieces.push_back(DataInput(*concat, n));  // the axis
  if (!remapper::ReplaceChain(graph, {concat}, pieces, std::move(def))) return false;
  // An inner concatenation nothing reads any more would still run: it goes (outermost first,
  // so that its own inner ones lose their last reader before they are looked at).
  for (int id : taken_apart) {
    Node* inner = graph->FindNodeId(id);
    if (inner != nullptr && inner->out_edges().empty()) graph->RemoveNode(inner);
  }
  return true;
}

}  // namespace tensoract
