#include "graph/optimizer/loop_invariant_motion.h"

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "graph/control_flow.h"
#include "graph/optimizer/optimizer_util.h"

namespace tensoract {
namespace {

// Ops that take a resource without changing what it holds, and the ops that only pass a
// handle along. Any other op with a resource input may write one.
bool ReadsResourcesOnly(const Node& n) {
  static const std::set<std::string>* const kOps = new std::set<std::string>{
      "ReadVariableOp", "VariableShape", "VarIsInitializedOp", "ResourceGather", "ResourceGatherNd",
      "Identity", "IdentityN", "_Retval"};
  return IsControlFlow(n) || kOps->count(n.type_string()) > 0;
}

bool WritesAnyResource(const Graph& graph) {
  for (const Node* n : graph.op_nodes()) {
    for (DataType t : n->input_types()) {
      if (t == tensorflow::DT_RESOURCE && !ReadsResourcesOnly(*n)) return true;
    }
  }
  return false;
}

// A node that could run once for all iterations, judged by its op alone.
bool MayMove(const Node& n, bool resources_written) {
  if (!n.IsOp() || IsControlFlow(n) || IsNeverEvaluatedAhead(n.type_string()) || HasRefInputOrOutput(n)) return false;
  if (n.IsStateful() && (n.type_string() != "ReadVariableOp" || resources_written)) return false;
  for (DataType t : n.output_types()) {
    if (t == tensorflow::DT_VARIANT) return false;
  }
  for (const Edge* e : n.out_edges()) {
    if (e->dst->IsOp() && IsControlFlow(*e->dst)) return false;
  }
  return true;
}

// The nodes that make an iteration of `frame` live or dead as a whole: its pivots
// (Identity of a loop Switch's true output, the Switch driven by the frame's LoopCond) and
// its loop Merges (fed back by a NextIteration).
std::set<const Node*> GatesOf(const Graph& graph, const ControlFlowInfo& info, int frame) {
  std::set<const Node*> gates;
  for (const Node* n : graph.op_nodes()) {
    if (info.frame_of[n->id()] != frame) continue;
    if (IsMerge(*n)) {
      for (const Edge* e : n->in_edges()) {
        if (!e->IsControlEdge() && IsNextIteration(*e->src)) gates.insert(n);
      }
    } else if (n->type_string() == "Identity") {
      const Edge* in = n->input_edge(0);
      if (in == nullptr || in->src_output != 1 || !IsSwitch(*in->src)) continue;
      const Edge* pred = in->src->input_edge(1);
      if (pred != nullptr && IsLoopCond(*pred->src)) gates.insert(n);
    }
  }
  return gates;
}

struct Moved {
  Node* gate = nullptr;  // the gate its value was tied to in the loop, if any
};

class Hoister {
 public:
  Hoister(Graph* graph, const ControlFlowInfo& info) : graph_(graph), info_(info) {}

  bool Run() {
    const bool written = WritesAnyResource(*graph_);
    std::map<int, std::set<const Node*>> gates;  // by frame
    std::vector<Node*> order;
    for (Node* n : StableTopologicalOrder(*graph_)) {
      const int f = info_.frame_of[n->id()];
      if (f <= 0 || info_.frames[f].parent != 0 || !MayMove(*n, written)) continue;
      if (!gates.count(f)) gates[f] = GatesOf(*graph_, info_, f);
      Moved m;
      if (!InputsInvariant(*n, f, gates[f], &m)) continue;
      moved_[n] = m;
      order.push_back(n);
    }
    if (order.empty()) return false;
    for (Node* n : order) MoveOut(n);
    for (auto& [consumer, gate] : tie_to_gate_) {
      if (!HasInputFromFrame(*consumer)) graph_->AddControlEdge(gate, consumer);
    }
    return true;
  }

 private:
  // Whether every input of `n` (in frame `f`) is the same in every iteration; sets the gate
  // its value depends on.
  bool InputsInvariant(const Node& n, int f, const std::set<const Node*>& gates, Moved* m) const {
    for (const Edge* e : n.in_edges()) {
      Node* src = e->src;
      if (src->IsSource()) continue;
      if (IsConstantEnter(*src) && info_.enters[src->id()] == f) continue;
      auto moved = moved_.find(src);
      if (moved != moved_.end()) {
        if (m->gate == nullptr) m->gate = moved->second.gate;
        continue;
      }
      if (e->IsControlEdge() && gates.count(src)) {
        if (m->gate == nullptr) m->gate = src;
        continue;
      }
      return false;
    }
    return true;
  }

  bool HasInputFromFrame(const Node& n) const {
    for (const Edge* e : n.in_edges()) {
      if (e->src->IsOp() && !IsConstantEnter(*e->src) && !moved_.count(e->src)) return true;
    }
    return false;
  }

  void MoveOut(Node* n) {
    const int f = info_.frame_of[n->id()];
    const std::vector<const Edge*> ins = n->in_edges();
    for (const Edge* e : ins) {
      Node* src = e->src;
      if (src->IsSource() || moved_.count(src)) continue;
      if (IsConstantEnter(*src)) {
        const Edge* outer = src->input_edge(0);
        if (outer != nullptr) {
          if (e->IsControlEdge()) {
            graph_->AddControlEdge(outer->src, n);
          } else {
            graph_->AddEdge(outer->src, outer->src_output, n, e->dst_input);
          }
        }
      }
      graph_->RemoveEdge(e);  // an invariant's Enter (replaced) or the gate (dropped)
    }
    const std::vector<const Edge*> outs = n->out_edges();
    for (const Edge* e : outs) {
      Node* dst = e->dst;
      if (!dst->IsOp() || moved_.count(dst)) continue;
      const Node* gate = moved_[n].gate;
      if (gate != nullptr) tie_to_gate_.emplace(dst, const_cast<Node*>(gate));
      if (!e->IsControlEdge()) {
        graph_->AddEdge(EnterFor(n, e->src_output, f), 0, dst, e->dst_input);
      }
      graph_->RemoveEdge(e);  // a control edge from a value read or computed once orders nothing
    }
  }

  // The constant Enter that carries output `port` of `n` into frame `f`.
  Node* EnterFor(Node* n, int port, int f) {
    auto key = std::make_pair(n, port);
    auto found = enters_.find(key);
    if (found != enters_.end()) return found->second;
    const std::string name =
        UnusedNodeName(*graph_, StrCat(n->name(), "/loop_invariant", port == 0 ? "" : StrCat("_", port)));
    Node* enter = AddConstantEnter(graph_, n, port, info_.frames[f].name, info_.frames[f].parallel_iterations, name);
    if (n->type_string() == "Const" && !n->def().attr().count("_class")) {
      // Kept beside its Enter: on its device and lane, and apart from equal constants of
      // other loops (CSE compares attrs), so the shape functions that need its value (a
      // TensorListGetItem's element shape) still find it through the Enter.
      (*n->mutable_def()->mutable_attr())["_class"].mutable_list()->add_s(StrCat("loc:@", name));
    }
    enters_[key] = enter;
    return enter;
  }

  Graph* graph_;
  const ControlFlowInfo& info_;
  std::map<const Node*, Moved> moved_;
  std::map<std::pair<Node*, int>, Node*> enters_;
  std::map<Node*, Node*> tie_to_gate_;  // consumer left in the loop -> the gate to keep it tied to
};

}  // namespace

bool HoistLoopInvariants(Graph* graph) {
  ControlFlowInfo info;
  if (!BuildControlFlowInfo(*graph, &info).ok() || !info.HasLoops()) return false;
  return Hoister(graph, info).Run();
}

}  // namespace tensoract
