#include "graph/optimizer/sequential_loops.h"

#include <map>
#include <set>
#include <string>
#include <vector>

#include "graph/control_flow.h"
#include "graph/node_def_util.h"
#include "graph/optimizer/optimizer_util.h"
#include "graph/optimizer/remapper_util.h"

namespace tensoract {
namespace {

using remapper::Source;

// The stateful ops a loop may hold: their kernels keep nothing of their own between runs
// (the variable lives in the device's resources), so the loop's own copy of the kernel
// behaves as the executor's would.
bool StatefulAllowed(const std::string& op) {
  static const std::set<std::string> kAllowed = {"ReadVariableOp", "AssignVariableOp", "AssignAddVariableOp",
                                                 "AssignSubVariableOp", "ResourceGather"};
  return kAllowed.count(op) != 0;
}

// One loop (frame) of the graph, taken apart into what a _SequentialLoop needs; Fuse
// replaces it, or returns false having changed nothing.
class LoopFusion {
 public:
  LoopFusion(Graph* graph, const ControlFlowInfo& info, int frame,
             const std::function<bool(const Node&)>& has_cpu_kernel)
      : graph_(graph), info_(info), frame_(frame), has_cpu_kernel_(has_cpu_kernel) {}

  bool Fuse() {
    if (!Collect() || !MapVariables() || !CheckSwitchesAndExits() || !CheckNextIterations() || !CheckCompute()) {
      return false;
    }
    return Replace();
  }

 private:
  enum Role { kOutside, kEnter, kMerge, kSwitch, kExit, kNext, kLoopCond, kCompute };

  Role RoleOf(const Node* n) const {
    auto it = role_.find(n);
    return it == role_.end() ? kOutside : it->second;
  }

  // The loop's nodes by role; false for a frame this pass leaves alone.
  bool Collect() {
    for (int id : info_.frames[frame_].enters) enters_.push_back(graph_->FindNodeId(id));
    if (enters_.empty()) return false;
    device_ = enters_[0]->requested_device();
    if (!remapper::OnCpu(*enters_[0])) return false;
    for (Node* e : enters_) {
      if (e->requested_device() != device_ || HasRefInputOrOutput(*e)) return false;
      role_[e] = kEnter;
    }
    for (Node* n : graph_->op_nodes()) {
      if (info_.frame_of[n->id()] != frame_) continue;
      if (n->requested_device() != device_) return false;
      members_.push_back(n);
      if (IsLoopCond(*n)) {
        if (loop_cond_ != nullptr) return false;
        loop_cond_ = n;
        role_[n] = kLoopCond;
      } else if (IsMerge(*n)) {
        merges_.push_back(n);
        role_[n] = kMerge;
      } else if (IsSwitch(*n)) {
        switches_.push_back(n);
        role_[n] = kSwitch;
      } else if (IsExit(*n)) {
        exits_.push_back(n);
        role_[n] = kExit;
      } else if (IsNextIteration(*n)) {
        nexts_.push_back(n);
        role_[n] = kNext;
      } else if (IsControlFlow(*n)) {
        return false;  // an Enter of a loop inside, a ControlTrigger
      } else {
        if (HasRefInputOrOutput(*n) || (n->IsStateful() && !StatefulAllowed(n->type_string())) || !has_cpu_kernel_(*n)) {
          return false;
        }
        if (n->name() == "__var" || n->name() == "__inv") return false;  // the body's names for its inputs
        compute_.push_back(n);
        role_[n] = kCompute;
      }
    }
    return loop_cond_ != nullptr && !merges_.empty() && !exits_.empty();
  }

  static bool HasControlIn(const Node& n) {
    for (const Edge* e : n.in_edges()) {
      if (e->IsControlEdge() && !e->src->IsSource()) return true;
    }
    return false;
  }
  static bool HasControlOut(const Node& n) {
    for (const Edge* e : n.out_edges()) {
      if (e->IsControlEdge() && !e->dst->IsSink()) return true;
    }
    return false;
  }

  // Each Merge is a loop variable: of a non-constant Enter and a NextIteration.
  bool MapVariables() {
    for (Node* e : enters_) {
      if (IsConstantEnter(*e)) {
        invariant_[e] = static_cast<int>(invariants_.size());
        invariants_.push_back(e);
      }
    }
    for (size_t k = 0; k < merges_.size(); ++k) {
      Node* m = merges_[k];
      if (m->num_inputs() != 2 || HasControlIn(*m)) return false;
      Node* enter = nullptr;
      Node* next = nullptr;
      for (int i = 0; i < 2; ++i) {
        const Source s = remapper::DataInput(*m, i);
        if (s.node == nullptr) return false;
        if (RoleOf(s.node) == kEnter && !IsConstantEnter(*s.node) && enter == nullptr) enter = s.node;
        else if (RoleOf(s.node) == kNext && next == nullptr) next = s.node;
        else return false;
      }
      // One Enter may start two variables (common-subexpression elimination merged the
      // Enters of two counters that both start at 0).
      if (enter == nullptr || next == nullptr || var_of_.count(next) != 0) return false;
      var_of_[m] = var_of_[next] = static_cast<int>(k);
      var_enters_.push_back(enter);
      next_of_var_.push_back(next);
      for (const Edge* e : m->out_edges()) {
        if (e->IsControlEdge()) {
          // An inlined condition's nodes wait for its arguments: in every iteration.
          if (!e->dst->IsSink() && RoleOf(e->dst) != kCompute && RoleOf(e->dst) != kLoopCond) return false;
        } else if (e->src_output != 0) {
          return false;  // its value_index
        }
      }
    }
    // A variable's Enter feeds only Merges.
    for (Node* e : enters_) {
      if (IsConstantEnter(*e)) continue;
      if (HasControlOut(*e)) return false;
      for (const Edge* out : e->out_edges()) {
        if (!out->dst->IsSink() && RoleOf(out->dst) != kMerge) return false;
      }
    }
    // An invariant reaches only the loop's computation (and the condition).
    for (Node* e : invariants_) {
      for (const Edge* out : e->out_edges()) {
        if (out->dst->IsSink()) continue;
        const Role r = RoleOf(out->dst);
        if (r != kCompute && r != kLoopCond && r != kNext) return false;
      }
    }
    return var_enters_.size() == merges_.size();
  }

  // Each Switch is of one variable's Merge on the LoopCond; its false side goes to Exits,
  // which take nothing else.
  bool CheckSwitchesAndExits() {
    if (HasControlOut(*loop_cond_)) return false;
    for (const Edge* e : loop_cond_->in_edges()) {
      if (e->IsControlEdge() && !e->src->IsSource() && RoleOf(e->src) != kCompute && RoleOf(e->src) != kMerge) {
        return false;
      }
    }
    for (const Edge* e : loop_cond_->out_edges()) {
      if (!e->dst->IsSink() && RoleOf(e->dst) != kSwitch) return false;
    }
    std::set<int> switched;
    for (Node* s : switches_) {
      const Source data = remapper::DataInput(*s, 0), pred = remapper::DataInput(*s, 1);
      if (data.node == nullptr || RoleOf(data.node) != kMerge || pred.node != loop_cond_ || HasControlIn(*s) ||
          HasControlOut(*s)) {
        return false;
      }
      const int k = var_of_.at(data.node);
      if (!switched.insert(k).second) return false;
      var_of_[s] = k;
      for (const Edge* e : s->out_edges()) {
        if (e->dst->IsSink()) continue;
        const Role r = RoleOf(e->dst);
        if (e->src_output == 0 ? r != kExit : (r != kCompute && r != kNext)) return false;
      }
    }
    if (switched.size() != merges_.size()) return false;
    for (Node* x : exits_) {
      const Source s = remapper::DataInput(*x, 0);
      if (s.node == nullptr || RoleOf(s.node) != kSwitch || s.port != 0 || HasControlIn(*x)) return false;
      exit_vars_.push_back(var_of_.at(s.node));
    }
    return true;
  }

  // What a node of the body reads for output `port` of `src`, in the body's own names;
  // empty where the loop's shape does not allow it.
  std::string BodyInput(const Node* src, int port) const {
    switch (RoleOf(src)) {
      case kCompute:
        return TensorId{src->name(), port}.ToString();
      case kMerge:
        return port == 0 ? StrCat("__var:", var_of_.at(src)) : "";
      case kSwitch:
        return port == 1 ? StrCat("__var:", var_of_.at(src)) : "";
      case kEnter:
        return IsConstantEnter(*src) ? StrCat("__inv:", invariant_.at(src)) : "";
      default:
        return "";
    }
  }

  // A NextIteration takes a value of the iteration and gives it only to its Merge.
  bool CheckNextIterations() {
    for (Node* n : nexts_) {
      const Source s = remapper::DataInput(*n, 0);
      if (s.node == nullptr || HasControlIn(*n) || HasControlOut(*n)) return false;
      const std::string from = BodyInput(s.node, s.port);
      if (from.empty()) return false;
      for (const Edge* e : n->out_edges()) {
        if (!e->dst->IsSink() && (RoleOf(e->dst) != kMerge || var_of_.at(e->dst) != var_of_.at(n))) return false;
      }
    }
    const Source pred = remapper::DataInput(*loop_cond_, 0);
    if (pred.node == nullptr) return false;
    pred_ = BodyInput(pred.node, pred.port);
    return !pred_.empty();
  }

  // The computation reads only the iteration's values and the invariants, and gives its
  // values only to the iteration (the loop's results leave through the Exits).
  bool CheckCompute() {
    for (Node* n : compute_) {
      for (const Edge* e : n->in_edges()) {
        if (e->src->IsSource()) continue;
        if (e->IsControlEdge()) {
          const Role r = RoleOf(e->src);
          // Only order (the condition's waits for a Merge hold in every iteration).
          if (r != kCompute && r != kMerge && !(r == kEnter && IsConstantEnter(*e->src))) return false;
        } else if (BodyInput(e->src, e->src_output).empty()) {
          return false;
        }
      }
      for (const Edge* e : n->out_edges()) {
        if (e->dst->IsSink()) continue;
        const Role r = RoleOf(e->dst);
        if (r != kCompute && r != kNext && r != kLoopCond) return false;
      }
    }
    // The body: what a Switch's true output reaches, by data or control.
    std::vector<const Node*> work;
    for (Node* s : switches_) {
      for (const Edge* e : s->out_edges()) {
        if (e->src_output == 1 && RoleOf(e->dst) == kCompute && gated_.insert(e->dst).second) work.push_back(e->dst);
      }
    }
    while (!work.empty()) {
      const Node* n = work.back();
      work.pop_back();
      for (const Edge* e : n->out_edges()) {
        if (RoleOf(e->dst) == kCompute && gated_.insert(e->dst).second) work.push_back(e->dst);
      }
    }
    const Source pred = remapper::DataInput(*loop_cond_, 0);
    return gated_.count(pred.node) == 0;  // the condition cannot wait for the body
  }

  bool Replace() {
    const std::string& frame_name = info_.frames[frame_].name;
    const std::string name = StrCat(frame_name.empty() ? enters_[0]->name() : frame_name, "/_sequential_loop");
    if (graph_->FindNode(name) != nullptr) return false;

    tensorflow::GraphDef body;
    for (Node* n : compute_) {
      NodeDef def = n->def();
      def.clear_input();
      std::vector<const Edge*> data(n->num_inputs(), nullptr);
      std::vector<std::string> control;
      for (const Edge* e : n->in_edges()) {
        if (e->src->IsSource()) continue;
        if (!e->IsControlEdge()) data[e->dst_input] = e;
        else if (RoleOf(e->src) == kCompute) control.push_back("^" + e->src->name());
      }
      for (const Edge* e : data) {
        if (e == nullptr) return false;  // an unconnected input
        def.add_input(BodyInput(e->src, e->src_output));
      }
      for (const std::string& c : control) def.add_input(c);
      *body.add_node() = std::move(def);
    }

    NodeDef fused;
    fused.set_op("_SequentialLoop");
    auto& attr = *fused.mutable_attr();
    std::vector<Source> data;
    for (Node* e : var_enters_) {
      attr["T"].mutable_list()->add_type(e->output_type(0));
      data.push_back(remapper::DataInput(*e, 0));
    }
    for (Node* e : invariants_) {
      attr["Tinvariants"].mutable_list()->add_type(e->output_type(0));
      data.push_back(remapper::DataInput(*e, 0));
    }
    attr["T"].mutable_list();
    attr["Tinvariants"].mutable_list();
    attr["Texits"].mutable_list();
    attr["exit_vars"].mutable_list();
    attr["next"].mutable_list();
    attr["gated"].mutable_list();
    for (size_t i = 0; i < exits_.size(); ++i) {
      attr["Texits"].mutable_list()->add_type(exits_[i]->output_type(0));
      attr["exit_vars"].mutable_list()->add_i(exit_vars_[i]);
    }
    body.SerializeToString(attr["body"].mutable_s());
    attr["pred"].set_s(pred_);
    for (Node* n : next_of_var_) {
      const Source s = remapper::DataInput(*n, 0);
      attr["next"].mutable_list()->add_s(BodyInput(s.node, s.port));
    }
    for (Node* n : compute_) {
      if (gated_.count(n) != 0) attr["gated"].mutable_list()->add_s(n->name());
    }
    std::vector<Node*> nodes = members_;
    nodes.insert(nodes.end(), enters_.begin(), enters_.end());
    return remapper::ReplaceNodes(graph_, nodes, exits_, data, std::move(fused), name) != nullptr;
  }

  Graph* graph_;
  const ControlFlowInfo& info_;
  int frame_;
  const std::function<bool(const Node&)>& has_cpu_kernel_;

  std::string device_;
  std::map<const Node*, Role> role_;
  std::vector<Node*> enters_, members_, merges_, switches_, exits_, nexts_, compute_;
  Node* loop_cond_ = nullptr;
  std::map<const Node*, int> var_of_;      // Merge, Switch, variable Enter, NextIteration -> variable
  std::map<const Node*, int> invariant_;   // constant Enter -> invariant
  std::vector<Node*> var_enters_, invariants_, next_of_var_;  // by variable / invariant
  std::vector<int> exit_vars_;             // by Exit
  std::set<const Node*> gated_;
  std::string pred_;
};

}  // namespace

int FuseSequentialLoops(Graph* graph, const std::function<bool(const Node&)>& has_cpu_kernel) {
  ControlFlowInfo info;
  if (!BuildControlFlowInfo(*graph, &info).ok() || !info.HasLoops()) return 0;
  int fused = 0;
  for (int f = 1; f < static_cast<int>(info.frames.size()); ++f) {
    if (info.frames[f].parent != 0) continue;
    bool nested = false;
    for (const auto& other : info.frames) nested = nested || other.parent == f;
    if (nested) continue;
    // Each loop's nodes are its own: fusing one leaves the others' ids and frames as found.
    if (LoopFusion(graph, info, f, has_cpu_kernel).Fuse()) ++fused;
  }
  return fused;
}

}  // namespace tensoract
