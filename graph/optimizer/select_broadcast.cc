// SelectV2 broadcasting its condition instead of a Tile (see select_broadcast.h).
#include "graph/optimizer/select_broadcast.h"

#include <vector>

#include "graph/optimizer/remapper_util.h"

namespace tensoract {
namespace {

using namespace remapper;  // NOLINT: the remapper's graph-editing helpers

// Dimension `d` of the rank-`rank` shape of `s` (right-aligned), or -1 where not known.
int64_t KnownDim(const Source& s, int d, int rank) {
  const PartialTensorShape& shape = s.node->output_shape(s.port);
  const int at = shape.dims() - rank + d;
  return shape.dims() < 0 || at < 0 ? -1 : shape.dim_size(at);
}

}  // namespace

bool TryBroadcastSelectCondition(Graph* graph, Node* select) {
  if (!OnCpu(*select)) return false;
  const Source cond = DataInput(*select, 0);
  Node* tile = cond.node;
  if (tile == nullptr || cond.port != 0 || tile->type_string() != "Tile") return false;
  const Source c = DataInput(*tile, 0);
  std::vector<int64_t> multiples;
  if (c.node == nullptr || !ConstInts(ThroughConstantEnter(DataInput(*tile, 1)), &multiples)) return false;
  const int rank = static_cast<int>(multiples.size());
  if (c.node->output_shape(c.port).dims() != rank) return false;
  for (int d = 0; d < rank; ++d) {
    if (multiples[d] != 1 && KnownDim(c, d, rank) != 1) return false;  // repeats only a 1
  }
  // Every reader of the Tile is a SelectV2's condition (CSE merges a layer's two Tiles of one
  // mask), whose selected values are as wide as the Tile makes them, so its output keeps
  // its shape.
  std::vector<const Edge*> readers;
  for (const Edge* e : tile->out_edges()) {
    Node* s = e->dst;
    if (e->IsControlEdge() || e->dst_input != 0 || s->type_string() != "SelectV2" || !OnCpu(*s) ||
        s->requested_device() != tile->requested_device()) {
      return false;
    }
    const Source then = DataInput(*s, 1), otherwise = DataInput(*s, 2);
    if (then.node == nullptr || otherwise.node == nullptr) return false;
    for (int d = 0; d < rank; ++d) {
      if (multiples[d] == 1) continue;
      if (KnownDim(then, d, rank) != multiples[d] && KnownDim(otherwise, d, rank) != multiples[d]) return false;
    }
    readers.push_back(e);
  }
  for (const Edge* e : readers) {
    Node* s = e->dst;
    graph->RemoveEdge(e);
    graph->AddEdge(c.node, c.port, s, 0);
  }
  graph->RemoveNode(tile);
  return true;
}

}  // namespace tensoract
