#include "graph/optimizer/loop_identity_forwarding.h"

#include <algorithm>
#include <vector>

#include "graph/control_flow.h"
#include "graph/optimizer/optimizer_util.h"

namespace tensoract {
namespace {

struct Forwardable {
  std::vector<const Edge*> data;  // by input index
  std::vector<Node*> control;     // the control inputs' sources (Source left out)
};

// Whether `n` (an Identity or IdentityN in a loop frame) may be skipped; fills its inputs.
bool MayForward(const Node& n, Forwardable* f) {
  if (n.type_string() != "Identity" && n.type_string() != "IdentityN") return false;
  if (HasRefInputOrOutput(n)) return false;
  f->data.assign(n.num_inputs(), nullptr);
  for (const Edge* e : n.in_edges()) {
    if (e->IsControlEdge()) {
      if (!e->src->IsSource()) f->control.push_back(e->src);
    } else if (e->dst_input < n.num_inputs()) {
      f->data[e->dst_input] = e;
    }
  }
  for (const Edge* e : f->data) {
    if (e == nullptr || e->src->requested_device() != n.requested_device()) return false;
  }
  for (const Edge* e : n.out_edges()) {
    if (e->IsControlEdge() || !e->dst->IsOp()) return false;
    if (!f->control.empty() && IsControlFlow(*e->dst)) return false;
  }
  return true;
}

bool HasControlEdge(const Node& src, const Node& dst) {
  for (const Edge* e : dst.in_edges()) {
    if (e->IsControlEdge() && e->src == &src) return true;
  }
  return false;
}

}  // namespace

bool ForwardLoopIdentities(Graph* graph) {
  ControlFlowInfo info;
  if (!BuildControlFlowInfo(*graph, &info).ok() || !info.HasLoops()) return false;
  bool changed = false;
  for (Node* n : StableTopologicalOrder(*graph)) {
    if (info.frame_of[n->id()] <= 0) continue;
    Forwardable f;
    if (!MayForward(*n, &f)) continue;
    const std::vector<const Edge*> outs = n->out_edges();
    for (const Edge* e : outs) {
      const Edge* in = f.data[e->src_output];
      Node* dst = e->dst;
      const int dst_input = e->dst_input;
      graph->RemoveEdge(e);
      graph->AddEdge(in->src, in->src_output, dst, dst_input);
      for (Node* c : f.control) {
        if (!HasControlEdge(*c, *dst)) graph->AddControlEdge(c, dst);
      }
    }
    graph->RemoveNode(n);
    changed = true;
  }
  return changed;
}

}  // namespace tensoract
