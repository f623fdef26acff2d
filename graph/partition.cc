#include "graph/partition.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <set>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "graph/control_flow.h"
#include "graph/slack_analysis.h"

namespace tensoract {
namespace {

using tensorflow::GraphDef;

void SetAttr(NodeDef* def, const std::string& name, DataType v) { (*def->mutable_attr())[name].set_type(v); }
void SetAttr(NodeDef* def, const std::string& name, const std::string& v) { (*def->mutable_attr())[name].set_s(v); }
void SetAttr(NodeDef* def, const std::string& name, int64_t v) { (*def->mutable_attr())[name].set_i(v); }
void SetAttr(NodeDef* def, const std::string& name, bool v) { (*def->mutable_attr())[name].set_b(v); }

// How an input is written in a NodeDef: "n" for port 0, "n:k", "^n" for control.
std::string InputString(const std::string& node, int port) {
  if (port == Edge::kControlSlot) return "^" + node;
  return port == 0 ? node : node + ":" + std::to_string(port);
}

// The node name an input string refers to.
std::string InputNode(const std::string& input) {
  const std::string name = !input.empty() && input[0] == '^' ? input.substr(1) : input;
  return name.substr(0, name.find(':'));
}

class Partitioner {
 public:
  Partitioner(const Graph& graph, const PartitionOptions& options, std::map<std::string, GraphDef>* partitions)
      : graph_(graph), options_(options), partitions_(partitions) {}

  Status Run() {
    partitions_->clear();
    for (const Node* node : graph_.op_nodes()) {
      if (node->def().device().empty()) {
        return errors::InvalidArgument("node '", node->name(), "' (op '", node->type_string(),
                                       "') has no device; Partition needs a placed graph");
      }
    }
    if (options_.lane_of) {
      for (const Node* node : graph_.op_nodes()) {
        if (const int lane = options_.lane_of(*node); lane > 0) laned_[node->id()] = PartitionKey(node->def().device(), lane);
      }
    }
    for (const Node* node : graph_.op_nodes()) {
      if (IsControlFlow(*node)) {
        TA_RETURN_IF_ERROR(BuildControlFlowInfo(graph_, &cf_));
        has_frames_ = cf_.HasLoops();
        break;
      }
    }
    if (has_frames_) TA_RETURN_IF_ERROR(PrepareControlFlow());
    for (const Node* node : graph_.op_nodes()) {
      AddNodeAndInputs(*node);
      TA_RETURN_IF_ERROR(status_);
    }
    for (auto& [key, part] : *partitions_) *part.mutable_versions() = graph_.versions();
    return options_.schedule_recvs ? ScheduleRecvs() : Status::OK();
  }

 private:
  // One _Send/_Recv pair, and what the scheduler needs to know of it.
  struct Pair {
    NodeDef* recv;
    std::string recv_part;
    std::string consumer_input;  // what consumers in the receiving partition write as input
    int src_id;
    std::vector<int> consumers;  // original nodes reading it
  };
  // (producer id, output port or kControlSlot, destination partition)
  using PairKey = std::tuple<int, int, std::string>;

  // The partition a node goes to (PartitionKey): its device, where the placer put it,
  // except for the control-flow nodes that PrepareControlFlow moves next to their data; and
  // its lane there (PartitionOptions::lane_of).
  const std::string& PartOf(const Node& n) const {
    auto it = moved_.find(n.id());
    if (it != moved_.end()) return it->second;
    auto laned = laned_.find(n.id());
    return laned == laned_.end() ? n.def().device() : laned->second;
  }

  // The frame an edge's value is in, when both its ends run in it: the edges that need a
  // control loop on the receiving device when they cross devices. 0 otherwise.
  int FrameOfEdge(const Node& src) const { return has_frames_ ? std::max(0, cf_.OutputFrame(src)) : 0; }

  // TensorFlow's OptimizeControlFlowColocation: a Switch goes with its data, an Exit with
  // its input, an Enter (of a value) and a NextIteration with their first consumer, so
  // fewer loops span devices and a NextIteration never feeds a Merge on another device.
  // Also finds each loop's LoopCond, which the control loops of other devices follow.
  Status PrepareControlFlow() {
    std::vector<Node*> order;
    TA_RETURN_IF_ERROR(TopologicalOrder(graph_, &order));
    for (const Node* n : order) {
      if (!n->IsOp()) continue;
      const Node* with = nullptr;
      if (IsSwitch(*n)) {
        if (const Edge* e = n->input_edge(0)) with = e->src;
      } else if (IsExit(*n)) {
        if (const Edge* e = n->input_edge(0)) with = e->src;
      } else if ((IsEnter(*n) && !IsRefType(n->input_type(0))) || IsNextIteration(*n)) {
        for (const Edge* e : n->out_edges()) {
          if (!e->IsControlEdge() && e->dst->IsOp()) {
            with = e->dst;
            break;
          }
        }
      }
      if (with != nullptr && with->IsOp() && PartOf(*with) != PartOf(*n)) moved_[n->id()] = PartOf(*with);
      if (IsLoopCond(*n)) loop_cond_[cf_.frame_of[n->id()]] = n;
    }
    // A NextIteration's consumer may have moved after it was placed next to it.
    for (const Node* n : graph_.op_nodes()) {
      if (!IsNextIteration(*n)) continue;
      for (const Edge* e : n->out_edges()) {
        if (!e->IsControlEdge() && e->dst->IsOp()) {
          if (PartOf(*e->dst) != PartOf(*n)) moved_[n->id()] = PartOf(*e->dst);
          break;
        }
      }
    }
    return Status::OK();
  }

  // A name no node has, in the graph or among those added: "<base>_<n>".
  std::string FreshName(const std::string& base) {
    for (;; ++next_number_) {
      std::string name = base + "_" + std::to_string(next_number_);
      if (graph_.FindNode(name) == nullptr && by_name_.count(name) == 0) {
        ++next_number_;
        return name;
      }
    }
  }

  // The Merge of the control loop that runs frame `frame` on `device` (TensorFlow's
  // AddControlFlow): a device that receives values inside a loop whose LoopCond is on
  // another device needs its own copy of the loop's iterations and end. Nested frames
  // stack their control loops: an inner one enters from the outer one's Merge.
  //
  //   Enter(dummy, frame) -> Merge(Enter, NextIteration) -> Switch(Merge, LoopCond's value)
  //   Switch:1 -> NextIteration
  //
  // Every _Recv of the frame on `device` runs after the Merge, so it runs once per
  // iteration, and the last iteration (the LoopCond's false) ends the frame there.
  std::string ControlLoop(int frame, const std::string& part) {
    auto key = std::make_pair(frame, part);
    auto found = control_loops_.find(key);
    if (found != control_loops_.end()) return found->second;
    auto cond = loop_cond_.find(frame);
    if (cond == loop_cond_.end()) {
      if (status_.ok()) {
        status_ = errors::InvalidArgument("A cross-device loop must have a pivot predicate: loop '",
                                          cf_.frames[frame].name, "' has no LoopCond");
      }
      return "";
    }
    const std::string base = "_cloop/" + cf_.frames[frame].name;
    const std::string merge_name = FreshName(base + "/Merge");
    control_loops_[key] = merge_name;  // before the LoopCond is cut: its _Recv runs after this Merge
    const int parent = cf_.frames[frame].parent;
    std::string enter_input;
    if (parent == 0) {
      NodeDef* dummy = NewNode(part, FreshName(base + "/dummy"), "Const");
      SetAttr(dummy, "dtype", tensorflow::DT_FLOAT);
      tensorflow::TensorProto* value = (*dummy->mutable_attr())["value"].mutable_tensor();
      value->set_dtype(tensorflow::DT_FLOAT);
      value->mutable_tensor_shape()->add_dim()->set_size(0);
      enter_input = dummy->name();
    } else {
      enter_input = ControlLoop(parent, part);
    }
    NodeDef* enter = NewNode(part, FreshName(base + "/Enter"), "Enter");
    enter->add_input(enter_input);
    SetAttr(enter, "T", tensorflow::DT_FLOAT);
    SetAttr(enter, "frame_name", cf_.frames[frame].name);
    SetAttr(enter, "is_constant", false);
    SetAttr(enter, "parallel_iterations", static_cast<int64_t>(cf_.frames[frame].parallel_iterations));
    const std::string next_name = FreshName(base + "/NextIteration");
    NodeDef* merge = NewNode(part, merge_name, "Merge");
    merge->add_input(enter->name());
    merge->add_input(next_name);
    SetAttr(merge, "T", tensorflow::DT_FLOAT);
    SetAttr(merge, "N", static_cast<int64_t>(2));
    const Node& loop_cond = *cond->second;
    const std::string pred = PartOf(loop_cond) == part ? loop_cond.name()
                                                       : CutTensor(loop_cond, 0, "cloop_" + merge_name, -1, part);
    NodeDef* sw = NewNode(part, FreshName(base + "/Switch"), "Switch");
    sw->add_input(merge_name);
    sw->add_input(pred);
    SetAttr(sw, "T", tensorflow::DT_FLOAT);
    NodeDef* next = NewNode(part, next_name, "NextIteration");
    next->add_input(sw->name() + ":1");
    SetAttr(next, "T", tensorflow::DT_FLOAT);
    return merge_name;
  }

  NodeDef* AddNodeDef(const std::string& part, NodeDef def) {
    def.set_device(DeviceOfPartition(part));
    if (const int lane = LaneOfPartition(part); lane > 0) SetAttr(&def, kExecutorLaneAttr, static_cast<int64_t>(lane));
    NodeDef* added = (*partitions_)[part].add_node();
    *added = std::move(def);
    by_name_[added->name()] = added;
    return added;
  }

  NodeDef* NewNode(const std::string& part, const std::string& name, const std::string& op) {
    NodeDef def;
    def.set_name(name);
    def.set_op(op);
    return AddNodeDef(part, std::move(def));
  }

  // The <n> of a new pair: the first whose names are all free, in the graph and among the
  // nodes added here.
  int NewPairNumber(const std::string& src) {
    for (;; ++next_number_) {
      bool free = true;
      for (const char* kind : {"_Send_", "_Recv_", "_Control_", "_ToBfloat16_", "_FromBfloat16_"}) {
        const std::string name = src + "/" + kind + std::to_string(next_number_);
        free = free && graph_.FindNode(name) == nullptr && by_name_.count(name) == 0;
      }
      if (free) return next_number_++;
    }
  }

  int64_t Incarnation(const std::string& device) const {
    auto it = options_.device_incarnations.find(device);
    return it == options_.device_incarnations.end() ? 1 : it->second;
  }

  void AddNodeAndInputs(const Node& dst) {
    const std::string& part = PartOf(dst);
    NodeDef def = dst.def();
    def.clear_input();
    // Data inputs in input order, then control inputs, each once.
    std::vector<const Edge*> edges;
    for (int i = 0; i < dst.num_inputs(); ++i) {
      if (const Edge* e = dst.input_edge(i)) edges.push_back(e);
    }
    for (const Edge* e : dst.in_edges()) {
      if (e->IsControlEdge()) edges.push_back(e);
    }
    std::set<std::string> control_inputs;
    for (const Edge* e : edges) {
      if (e->src->IsSource()) continue;
      std::string input = PartOf(*e->src) == part ? InputString(e->src->name(), e->src_output)
                                                   : CutEdge(*e, part);
      if (e->IsControlEdge() && !control_inputs.insert(input).second) continue;
      def.add_input(input);
    }
    AddNodeDef(part, std::move(def));
  }

  // Sends what `e` carries to `dst_device` (once per tensor and device); returns the input
  // the consumer on dst_device reads.
  std::string CutEdge(const Edge& e, const std::string& dst_part) {
    return CutTensor(*e.src, e.src_output, std::to_string(e.id), e.dst->id(), dst_part);
  }

  // Sends output `src_output` of `src` (kControlSlot: that src has run) to `dst_device`,
  // once per tensor and device, for consumer `dst_id` (-1: one the partitioner adds);
  // `edge_tag` names the pair ("edge_<tag>_<src>"). Returns what the consumer reads.
  std::string CutTensor(const Node& src, int src_output, const std::string& edge_tag, int dst_id,
                        const std::string& dst_part) {
    const bool control = src_output == Edge::kControlSlot;
    const PairKey key{src.id(), src_output, dst_part};
    auto found = pairs_.find(key);
    if (found != pairs_.end()) {
      if (dst_id >= 0) found->second.consumers.push_back(dst_id);
      return found->second.consumer_input;
    }

    const std::string& src_part = PartOf(src);
    const std::string src_device = DeviceOfPartition(src_part);
    const std::string dst_device = DeviceOfPartition(dst_part);
    const int n = NewPairNumber(src.name());
    const std::string suffix = std::to_string(n);
    const std::string prefix = src.name() + "/";
    std::string sent;  // the input of the _Send
    DataType type;
    bool lossy = false;
    if (control) {
      // A control edge carries no value: an empty tensor that exists once src has run.
      NodeDef* dummy = NewNode(src_part, prefix + "_Control_" + suffix, "Const");
      dummy->add_input(InputString(src.name(), Edge::kControlSlot));
      SetAttr(dummy, "dtype", tensorflow::DT_FLOAT);
      tensorflow::TensorProto* value = (*dummy->mutable_attr())["value"].mutable_tensor();
      value->set_dtype(tensorflow::DT_FLOAT);
      value->mutable_tensor_shape()->add_dim()->set_size(0);
      sent = dummy->name();
      type = tensorflow::DT_FLOAT;
    } else {
      sent = InputString(src.name(), src_output);
      type = BaseType(src.output_type(src_output));
      // Between lanes of one device a value is not narrowed: it does not cross a link.
      lossy = options_.lossy_float_transfers && type == tensorflow::DT_FLOAT && src_device != dst_device;
      if (lossy) {
        NodeDef* narrow = NewNode(src_part, prefix + "_ToBfloat16_" + suffix, "Cast");
        narrow->add_input(sent);
        SetAttr(narrow, "SrcT", tensorflow::DT_FLOAT);
        SetAttr(narrow, "DstT", tensorflow::DT_BFLOAT16);
        SetAttr(narrow, "Truncate", true);
        sent = narrow->name();
        type = tensorflow::DT_BFLOAT16;
      }
    }

    const std::string tensor_name = "edge_" + edge_tag + "_" + src.name();
    auto set_pair_attrs = [&](NodeDef* def) {
      SetAttr(def, "tensor_name", tensor_name);
      SetAttr(def, "send_device", src_device);
      SetAttr(def, "send_device_incarnation", Incarnation(src_device));
      SetAttr(def, "recv_device", dst_device);
      SetAttr(def, "client_terminated", false);
    };
    NodeDef* send = NewNode(src_part, prefix + "_Send_" + suffix, "_Send");
    send->add_input(sent);
    SetAttr(send, "T", type);
    set_pair_attrs(send);
    NodeDef* recv = NewNode(dst_part, prefix + "_Recv_" + suffix, "_Recv");
    SetAttr(recv, "tensor_type", type);
    set_pair_attrs(recv);
    send_of_recv_[recv->name()] = send->name();

    std::string consumer_input = recv->name();
    if (lossy) {
      NodeDef* widen = NewNode(dst_part, prefix + "_FromBfloat16_" + suffix, "Cast");
      widen->add_input(recv->name());
      SetAttr(widen, "SrcT", tensorflow::DT_BFLOAT16);
      SetAttr(widen, "DstT", tensorflow::DT_FLOAT);
      SetAttr(widen, "Truncate", false);
      consumer_input = widen->name();
    }
    if (control) consumer_input = InputString(recv->name(), Edge::kControlSlot);
    // Inside a loop the _Recv runs once per iteration of the loop's control loop here.
    if (const int frame = FrameOfEdge(src); frame > 0) recv->add_input("^" + ControlLoop(frame, dst_part));
    Pair pair{recv, dst_part, consumer_input, src.id(), {}};
    if (dst_id >= 0) pair.consumers.push_back(dst_id);
    pairs_.emplace(key, pair);
    return consumer_input;
  }

  // Whether `node` (a name in some partition) transitively reads `target`: through inputs,
  // and from a _Recv to its _Send.
  bool DependsOn(const std::string& node, const std::string& target) const {
    std::vector<std::string> stack{node};
    std::unordered_set<std::string> seen{node};
    while (!stack.empty()) {
      const std::string name = std::move(stack.back());
      stack.pop_back();
      if (name == target) return true;
      std::vector<std::string> preds;
      auto def = by_name_.find(name);
      if (def != by_name_.end()) {
        for (const std::string& input : def->second->input()) preds.push_back(InputNode(input));
      }
      auto send = send_of_recv_.find(name);
      if (send != send_of_recv_.end()) preds.push_back(send->second);
      for (std::string& p : preds) {
        if (seen.insert(p).second) stack.push_back(std::move(p));
      }
    }
    return false;
  }

  Status ScheduleRecvs() {
    SlackTimes t;
    TA_RETURN_IF_ERROR(ComputeSlack(graph_, options_.node_cost, &t));
    // Per partition, its original nodes by ASAP finish, latest first (ties: lowest id).
    std::map<std::string, std::vector<const Node*>> by_part;
    for (const Node* node : graph_.op_nodes()) by_part[PartOf(*node)].push_back(node);
    for (auto& [part, nodes] : by_part) {
      std::stable_sort(nodes.begin(), nodes.end(), [&](const Node* a, const Node* b) {
        return t.AsapFinish(a->id()) > t.AsapFinish(b->id());
      });
    }
    // Sums of the same costs along different paths may differ in the last bits.
    constexpr double kEpsilon = 1e-9;
    for (auto& [key, pair] : pairs_) {
      // Inside loops a control edge from another frame would be malformed; those _Recvs
      // already wait for their control loop.
      if (FrameOfEdge(*graph_.FindNodeId(pair.src_id)) != 0 || pair.consumers.empty()) continue;
      double need = t.critical_path;
      for (int c : pair.consumers) need = std::min(need, t.alap[c]);
      const double arrive = t.AsapFinish(pair.src_id);
      const std::set<int> consumers(pair.consumers.begin(), pair.consumers.end());
      for (const Node* candidate : by_part[pair.recv_part]) {
        const double finish = t.AsapFinish(candidate->id());
        if (finish > need + kEpsilon) continue;
        if (finish <= arrive + kEpsilon) break;  // holding the Recv back gains nothing
        if (consumers.count(candidate->id()) || DependsOn(candidate->name(), pair.recv->name())) continue;
        if (has_frames_ && cf_.frame_of[candidate->id()] != 0) continue;
        pair.recv->add_input(InputString(candidate->name(), Edge::kControlSlot));
        break;
      }
    }
    return Status::OK();
  }

  const Graph& graph_;
  const PartitionOptions& options_;
  std::map<std::string, GraphDef>* partitions_;
  std::map<PairKey, Pair> pairs_;
  std::unordered_map<std::string, NodeDef*> by_name_;  // every node written, by name
  std::unordered_map<std::string, std::string> send_of_recv_;
  int next_number_ = 0;
  // Control flow (empty without loops).
  ControlFlowInfo cf_;
  bool has_frames_ = false;
  std::map<int, std::string> moved_;               // node id -> partition (PrepareControlFlow)
  std::unordered_map<int, std::string> laned_;     // node id -> partition, for lanes above 0
  std::map<int, const Node*> loop_cond_;           // frame -> its LoopCond
  std::map<std::pair<int, std::string>, std::string> control_loops_;  // (frame, partition) -> Merge
  Status status_;
};

}  // namespace

std::string PartitionKey(const std::string& device, int lane) {
  return lane > 0 ? device + kLaneSeparator + std::to_string(lane) : device;
}

std::string DeviceOfPartition(const std::string& key) { return key.substr(0, key.find(kLaneSeparator)); }

int LaneOfPartition(const std::string& key) {
  const size_t at = key.find(kLaneSeparator);
  return at == std::string::npos ? 0 : std::atoi(key.c_str() + at + std::strlen(kLaneSeparator));
}

Status Partition(const Graph& graph, const PartitionOptions& options,
                 std::map<std::string, tensorflow::GraphDef>* partitions) {
  return Partitioner(graph, options, partitions).Run();
}

}  // namespace tensoract
