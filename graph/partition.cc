#include "graph/partition.h"

#include <algorithm>
#include <set>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <vector>

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
    for (const Node* node : graph_.op_nodes()) AddNodeAndInputs(*node);
    for (auto& [device, part] : *partitions_) *part.mutable_versions() = graph_.versions();
    return options_.schedule_recvs ? ScheduleRecvs() : Status::OK();
  }

 private:
  // One _Send/_Recv pair, and what the scheduler needs to know of it.
  struct Pair {
    NodeDef* recv;
    std::string consumer_input;  // what consumers on the receiving device write as input
    int src_id;
    std::vector<int> consumers;  // original nodes reading it
  };
  // (producer id, output port or kControlSlot, destination device)
  using PairKey = std::tuple<int, int, std::string>;

  NodeDef* AddNodeDef(const std::string& device, NodeDef def) {
    def.set_device(device);
    NodeDef* added = (*partitions_)[device].add_node();
    *added = std::move(def);
    by_name_[added->name()] = added;
    return added;
  }

  NodeDef* NewNode(const std::string& device, const std::string& name, const std::string& op) {
    NodeDef def;
    def.set_name(name);
    def.set_op(op);
    return AddNodeDef(device, std::move(def));
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
    const std::string& device = dst.def().device();
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
      std::string input = e->src->def().device() == device ? InputString(e->src->name(), e->src_output)
                                                            : CutEdge(*e, device);
      if (e->IsControlEdge() && !control_inputs.insert(input).second) continue;
      def.add_input(input);
    }
    AddNodeDef(device, std::move(def));
  }

  // Sends what `e` carries to `dst_device` (once per tensor and device); returns the input
  // the consumer on dst_device reads.
  std::string CutEdge(const Edge& e, const std::string& dst_device) {
    const Node& src = *e.src;
    const PairKey key{src.id(), e.src_output, dst_device};
    auto found = pairs_.find(key);
    if (found != pairs_.end()) {
      found->second.consumers.push_back(e.dst->id());
      return found->second.consumer_input;
    }

    const std::string& src_device = src.def().device();
    const int n = NewPairNumber(src.name());
    const std::string suffix = std::to_string(n);
    const std::string prefix = src.name() + "/";
    std::string sent;  // the input of the _Send
    DataType type;
    bool lossy = false;
    if (e.IsControlEdge()) {
      // A control edge carries no value: an empty tensor that exists once src has run.
      NodeDef* dummy = NewNode(src_device, prefix + "_Control_" + suffix, "Const");
      dummy->add_input(InputString(src.name(), Edge::kControlSlot));
      SetAttr(dummy, "dtype", tensorflow::DT_FLOAT);
      tensorflow::TensorProto* value = (*dummy->mutable_attr())["value"].mutable_tensor();
      value->set_dtype(tensorflow::DT_FLOAT);
      value->mutable_tensor_shape()->add_dim()->set_size(0);
      sent = dummy->name();
      type = tensorflow::DT_FLOAT;
    } else {
      sent = InputString(src.name(), e.src_output);
      type = BaseType(src.output_type(e.src_output));
      lossy = options_.lossy_float_transfers && type == tensorflow::DT_FLOAT;
      if (lossy) {
        NodeDef* narrow = NewNode(src_device, prefix + "_ToBfloat16_" + suffix, "Cast");
        narrow->add_input(sent);
        SetAttr(narrow, "SrcT", tensorflow::DT_FLOAT);
        SetAttr(narrow, "DstT", tensorflow::DT_BFLOAT16);
        SetAttr(narrow, "Truncate", true);
        sent = narrow->name();
        type = tensorflow::DT_BFLOAT16;
      }
    }

    const std::string tensor_name = "edge_" + std::to_string(e.id) + "_" + src.name();
    auto set_pair_attrs = [&](NodeDef* def) {
      SetAttr(def, "tensor_name", tensor_name);
      SetAttr(def, "send_device", src_device);
      SetAttr(def, "send_device_incarnation", Incarnation(src_device));
      SetAttr(def, "recv_device", dst_device);
      SetAttr(def, "client_terminated", false);
    };
    NodeDef* send = NewNode(src_device, prefix + "_Send_" + suffix, "_Send");
    send->add_input(sent);
    SetAttr(send, "T", type);
    set_pair_attrs(send);
    NodeDef* recv = NewNode(dst_device, prefix + "_Recv_" + suffix, "_Recv");
    SetAttr(recv, "tensor_type", type);
    set_pair_attrs(recv);
    send_of_recv_[recv->name()] = send->name();

    std::string consumer_input = recv->name();
    if (lossy) {
      NodeDef* widen = NewNode(dst_device, prefix + "_FromBfloat16_" + suffix, "Cast");
      widen->add_input(recv->name());
      SetAttr(widen, "SrcT", tensorflow::DT_BFLOAT16);
      SetAttr(widen, "DstT", tensorflow::DT_FLOAT);
      SetAttr(widen, "Truncate", false);
      consumer_input = widen->name();
    }
    if (e.IsControlEdge()) consumer_input = InputString(recv->name(), Edge::kControlSlot);
    pairs_.emplace(key, Pair{recv, consumer_input, src.id(), {e.dst->id()}});
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
    // Per device, its original nodes by ASAP finish, latest first (ties: lowest id).
    std::map<std::string, std::vector<const Node*>> by_device;
    for (const Node* node : graph_.op_nodes()) by_device[node->def().device()].push_back(node);
    for (auto& [device, nodes] : by_device) {
      std::stable_sort(nodes.begin(), nodes.end(), [&](const Node* a, const Node* b) {
        return t.AsapFinish(a->id()) > t.AsapFinish(b->id());
      });
    }
    // Sums of the same costs along different paths may differ in the last bits.
    constexpr double kEpsilon = 1e-9;
    for (auto& [key, pair] : pairs_) {
      double need = t.critical_path;
      for (int c : pair.consumers) need = std::min(need, t.alap[c]);
      const double arrive = t.AsapFinish(pair.src_id);
      const std::set<int> consumers(pair.consumers.begin(), pair.consumers.end());
      for (const Node* candidate : by_device[pair.recv->device()]) {
        const double finish = t.AsapFinish(candidate->id());
        if (finish > need + kEpsilon) continue;
        if (finish <= arrive + kEpsilon) break;  // holding the Recv back gains nothing
        if (consumers.count(candidate->id()) || DependsOn(candidate->name(), pair.recv->name())) continue;
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
};

}  // namespace

Status Partition(const Graph& graph, const PartitionOptions& options,
                 std::map<std::string, tensorflow::GraphDef>* partitions) {
  return Partitioner(graph, options, partitions).Run();
}

}  // namespace tensoract
