#include "graph/control_flow.h"

#include <deque>
#include <map>

namespace tensoract {
namespace {

bool OpIs(const Node& n, const char* a, const char* b) {
  const std::string& op = n.op_def().name();
  return op == a || op == b;
}

}  // namespace

bool IsSwitch(const Node& n) { return OpIs(n, "Switch", "RefSwitch"); }
bool IsMerge(const Node& n) { return OpIs(n, "Merge", "RefMerge"); }
bool IsEnter(const Node& n) { return OpIs(n, "Enter", "RefEnter"); }
bool IsExit(const Node& n) { return OpIs(n, "Exit", "RefExit"); }
bool IsNextIteration(const Node& n) { return OpIs(n, "NextIteration", "RefNextIteration"); }
bool IsLoopCond(const Node& n) { return n.op_def().name() == "LoopCond"; }
bool IsControlTrigger(const Node& n) { return n.op_def().name() == "ControlTrigger"; }

bool IsControlFlow(const Node& n) { return n.IsOp() && IsControlFlowOp(n.op_def().name()); }

bool IsControlFlowOp(const std::string& op) {
  static const char* const kOps[] = {"Switch", "RefSwitch", "Merge", "RefMerge", "Enter", "RefEnter",
                                     "Exit", "RefExit", "Leave", "NextIteration", "RefNextIteration",
                                     "LoopCond", "ControlTrigger"};
  for (const char* k : kOps) {
    if (op == k) return true;
  }
  return false;
}

bool IsConstantEnter(const Node& n) {
  if (!IsEnter(n)) return false;
  bool constant = false;
  return GetNodeAttr(n.def(), "is_constant", &constant).ok() && constant;
}

int ControlFlowInfo::OutputFrame(const Node& n) const {
  int f = frame_of[n.id()];
  if (f < 0) return f;
  if (IsEnter(n)) return enters[n.id()];
  if (IsExit(n)) return frames[f].parent;
  return f;
}

Status BuildControlFlowInfo(const Graph& graph, ControlFlowInfo* info) {
  info->frames.clear();
  info->frames.push_back(ControlFlowInfo::Frame{});
  info->frame_of.assign(graph.num_node_ids(), -1);
  info->enters.assign(graph.num_node_ids(), -1);
  std::map<std::string, int> by_name;          // child frames by name
  std::vector<const Node*> decided_by(graph.num_node_ids(), nullptr);  // the input that set a node's frame
  auto frame_name = [&](int f) { return f == 0 ? std::string("the root frame") : "frame '" + info->frames[f].name + "'"; };

  // Nodes without inputs start in the root frame (the builder's graphs are not yet joined
  // to the Source).
  std::deque<const Node*> queue;
  for (const Node* n : graph.op_nodes()) {
    bool has_input = false;
    for (const Edge* e : n->in_edges()) has_input |= e->src->IsOp();
    if (has_input) continue;
    info->frame_of[n->id()] = 0;
    queue.push_back(n);
  }
  while (!queue.empty()) {
    const Node* n = queue.front();
    queue.pop_front();
    const int own = info->frame_of[n->id()];
    int out = own;
    if (IsEnter(*n)) {
      std::string name;
      TA_RETURN_IF_ERROR(GetNodeAttr(n->def(), "frame_name", &name));
      if (name.empty()) {
        return errors::InvalidArgument("Enter node '", n->name(), "' has an empty frame_name");
      }
      auto found = by_name.find(name);
      if (found == by_name.end()) {
        ControlFlowInfo::Frame f;
        f.name = name;
        f.parent = own;
        int64_t parallel = 10;
        GetNodeAttr(n->def(), "parallel_iterations", &parallel).IgnoreError();
        if (parallel < 1) {
          return errors::InvalidArgument("Enter node '", n->name(), "' has parallel_iterations ", parallel,
                                         "; it must be at least 1");
        }
        f.parallel_iterations = static_cast<int>(parallel);
        info->frames.push_back(std::move(f));
        found = by_name.emplace(name, static_cast<int>(info->frames.size()) - 1).first;
      } else if (info->frames[found->second].parent != own) {
        return errors::InvalidArgument("frame '", name, "' is entered from two frames: Enter node '", n->name(),
                                       "' is in ", frame_name(own), ", and an earlier Enter into it is in ",
                                       frame_name(info->frames[found->second].parent));
      }
      out = found->second;
      info->frames[out].enters.push_back(n->id());
      info->enters[n->id()] = out;
    } else if (IsExit(*n) || IsNextIteration(*n)) {
      if (own == 0) {
        return errors::InvalidArgument(n->type_string(), " node '", n->name(),
                                       "' is not inside a loop: no Enter node leads to it");
      }
      if (IsExit(*n)) out = info->frames[own].parent;
    }
    for (const Edge* e : n->out_edges()) {
      const Node* dst = e->dst;
      if (!dst->IsOp()) continue;
      int& dst_frame = info->frame_of[dst->id()];
      if (dst_frame < 0) {
        dst_frame = out;
        decided_by[dst->id()] = n;
        queue.push_back(dst);
      } else if (dst_frame != out) {
        const Node* other = decided_by[dst->id()];
        return errors::InvalidArgument("node '", dst->name(), "' (op '", dst->type_string(),
                                       "') has inputs from different frames: input '", n->name(), "' is in ",
                                       frame_name(out), " and input '", other ? other->name() : "?", "' is in ",
                                       frame_name(dst_frame));
      }
    }
  }
  for (const Node* n : graph.op_nodes()) {
    if (info->frame_of[n->id()] < 0) {
      return errors::InvalidArgument("node '", n->name(), "' (op '", n->type_string(),
                                     "') can never run: it is on a cycle that no Enter node leads into");
    }
  }
  return Status::OK();
}

}  // namespace tensoract
