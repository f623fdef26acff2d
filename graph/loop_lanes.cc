#include "graph/loop_lanes.h"

#include <string>

#include "graph/control_flow.h"
#include "graph/device_name.h"
#include "graph/optimizer/optimizer_util.h"

namespace tensoract {
namespace {

// Past this many top-level loops the reachability walks (one per loop) are not made: such
// a graph's loops stay on one executor.
constexpr size_t kMaxLoops = 64;

// The top-level loop (a frame entered from the root frame) each frame is in: itself, or
// its outermost enclosing frame below the root; -1 for the root.
std::vector<int> TopLevelFrames(const ControlFlowInfo& cf) {
  std::vector<int> top(cf.frames.size(), -1);
  for (size_t f = 1; f < cf.frames.size(); ++f) {
    int at = static_cast<int>(f);
    while (cf.frames[at].parent > 0) at = cf.frames[at].parent;
    top[f] = at;
  }
  return top;
}

bool OnCpu(const std::string& device) {
  ParsedDeviceName parsed;
  return ParseDeviceName(device, &parsed) && parsed.has_type && parsed.type == "CPU";
}

}  // namespace

Status IndependentLoopLanes(const Graph& graph, std::vector<int>* lanes) {
  lanes->assign(graph.num_node_ids(), 0);
  bool has_loop = false;
  for (const Node* n : graph.op_nodes()) {
    if (n->type_string() == "StackV2" || n->type_string() == "Stack" || n->type_string() == "TensorArrayV3") {
      return Status::OK();
    }
    has_loop = has_loop || IsEnter(*n);
  }
  if (!has_loop) return Status::OK();
  ControlFlowInfo cf;
  TA_RETURN_IF_ERROR(BuildControlFlowInfo(graph, &cf));
  const std::vector<int> top = TopLevelFrames(cf);

  // The loops, numbered in the order of their first node, and each node's (-1: none).
  std::vector<int> loop_of(graph.num_node_ids(), -1);
  std::vector<int> loop_number(cf.frames.size(), -1);
  struct Loop {
    std::vector<const Node*> nodes;
    std::string device;
    bool movable = true;
  };
  std::vector<Loop> loops;
  for (const Node* n : graph.op_nodes()) {
    const int frame = cf.frame_of[n->id()];
    if (frame <= 0) continue;
    int& number = loop_number[top[frame]];
    if (number < 0) {
      number = static_cast<int>(loops.size());
      loops.emplace_back();
      loops.back().device = n->def().device();
      loops.back().movable = OnCpu(n->def().device());
    }
    loop_of[n->id()] = number;
    Loop& loop = loops[number];
    loop.nodes.push_back(n);
    if (n->def().device() != loop.device) loop.movable = false;
    for (const Edge* e : n->in_edges()) {
      if (!e->IsControlEdge() && cf.frame_of[e->src->id()] <= 0 && IsRefType(e->src->output_type(e->src_output))) {
        loop.movable = false;  // a reference entering through an Enter
      }
    }
    for (const Edge* e : n->out_edges()) {
      if (!e->IsControlEdge() && IsRefType(n->output_type(e->src_output)) && cf.frame_of[e->dst->id()] <= 0) {
        loop.movable = false;  // a reference leaving through an Exit
      }
    }
  }
  if (loops.size() < 2 || loops.size() > kMaxLoops) return Status::OK();

  // reaches[a][b]: some path leads from loop a to loop b.
  std::vector<std::vector<bool>> reaches(loops.size(), std::vector<bool>(loops.size(), false));
  for (size_t a = 0; a < loops.size(); ++a) {
    std::vector<bool> seen(graph.num_node_ids(), false);
    std::vector<const Node*> stack(loops[a].nodes.begin(), loops[a].nodes.end());
    for (const Node* n : stack) seen[n->id()] = true;
    while (!stack.empty()) {
      const Node* n = stack.back();
      stack.pop_back();
      if (loop_of[n->id()] >= 0) reaches[a][loop_of[n->id()]] = true;
      for (const Edge* e : n->out_edges()) {
        if (!seen[e->dst->id()]) {
          seen[e->dst->id()] = true;
          stack.push_back(e->dst);
        }
      }
    }
  }

  std::vector<int> lane_of_loop(loops.size(), 0);
  int next_lane = 1;
  for (size_t b = 0; b < loops.size(); ++b) {
    if (!loops[b].movable) continue;
    bool beside_lane_zero = false;  // independent of a loop of its device in lane 0
    for (size_t a = 0; a < b; ++a) {
      if (lane_of_loop[a] == 0 && loops[a].device == loops[b].device && !reaches[a][b] && !reaches[b][a]) {
        beside_lane_zero = true;
      }
    }
    if (beside_lane_zero) lane_of_loop[b] = next_lane++;
  }
  for (const Node* n : graph.op_nodes()) {
    if (loop_of[n->id()] >= 0) (*lanes)[n->id()] = lane_of_loop[loop_of[n->id()]];
  }
  // What only one lane's loop reads (its weights, what loop-invariant motion moved out of
  // it) is computed in that lane: its values then need no _Send/_Recv between lanes.
  std::vector<Node*> order = StableTopologicalOrder(graph);
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const Node* n = *it;
    if (cf.frame_of[n->id()] != 0 || n->type_string() == "_Arg" || n->type_string() == "_Retval" ||
        HasRefInputOrOutput(*n)) {
      continue;
    }
    int lane = -1;
    for (const Edge* e : n->out_edges()) {
      if (!e->dst->IsOp()) continue;
      const int l = (*lanes)[e->dst->id()];
      const bool same_device = e->dst->def().device() == n->def().device();
      lane = (lane == -1 || lane == l) && same_device ? l : 0;
    }
    if (lane > 0) (*lanes)[n->id()] = lane;
  }
  return Status::OK();
}

}  // namespace tensoract
