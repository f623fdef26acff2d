#include "graph/placer.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <queue>
#include <set>
#include <utility>

#include "graph/device_name.h"

namespace tensoract {
namespace {

struct DeviceInfo {
  ParsedDeviceName parsed;
  std::string name;  // canonical full name
  std::string type;
};

// One colocation group, kept at its union-find root.
struct Group {
  std::vector<Node*> members;
  ParsedDeviceName spec;       // the merged constraint of all members
  const Node* asked = nullptr;  // the first member with a constraint, for messages
  std::vector<int> feasible;   // device indices, ascending
  int device = -1;             // chosen device, -1 until decided
};

std::string Quoted(const Node& n) { return StrCat("'", n.name(), "' (op '", n.type_string(), "')"); }

std::string DeviceList(const std::vector<DeviceInfo>& devices, const std::vector<int>& which) {
  std::string s;
  for (size_t i = 0; i < which.size(); ++i) s += (i ? ", " : "") + devices[which[i]].name;
  return s.empty() ? "none" : s;
}

// Everything one PlaceGraph call works on.
class Placer {
 public:
  Placer(Graph* graph, const std::vector<tensorflow::DeviceAttributes>& devices, const KernelSupportFn& has_kernel,
         const PlacerOptions& options, const CostModel& cost)
      : graph_(graph), attrs_(devices), has_kernel_(has_kernel), options_(options), cost_(cost) {}

  Status Run();

 private:
  Status ReadDevices();
  Status InitGroups();
  Status Colocate();
  Status Union(Node* a, Node* b, const std::string& why);
  int Find(int id);
  Group& GroupOf(const Node* n) { return groups_[Find(n->id())]; }
  bool HasKernel(const Node& n, int device);
  bool GroupHasKernels(const Group& g, int device);
  Status ComputeFeasible(Group* g);
  std::string Members(const Group& g) const;
  bool IsGenerator(const Node* n);
  double Simulate(Node* n, int d, bool commit);
  void PlaceAt(Node* n, int d, double finish);
  void Decide(Node* n);
  Status Simulation();

  Graph* graph_;
  const std::vector<tensorflow::DeviceAttributes>& attrs_;
  const KernelSupportFn& has_kernel_;
  const PlacerOptions& options_;
  const CostModel& cost_;

  std::vector<DeviceInfo> devices_;
  ParsedDeviceName default_device_;         // options_.default_device, parsed
  std::vector<int> parent_;                 // union-find, by node id
  std::map<int, Group> groups_;             // by root id
  std::map<std::pair<int, int>, bool> kernel_cache_;  // (node id, device) -> has a kernel
  std::vector<int> node_device_;            // by node id, -1 until placed
  std::vector<double> finish_;              // simulated finish, by node id
  std::vector<double> free_;                // by device
};

Status Placer::ReadDevices() {
  if (attrs_.empty()) return errors::InvalidArgument("cannot place the graph: the device list is empty");
  for (const tensorflow::DeviceAttributes& a : attrs_) {
    DeviceInfo d;
    TA_RETURN_IF_ERROR(ParseDeviceSpec(a.name(), &d.parsed));
    if (!IsCompleteName(d.parsed)) {
      return errors::InvalidArgument("device '", a.name(), "' has no complete name (job, replica, task, type and id)");
    }
    d.name = DeviceNameString(d.parsed);
    d.type = a.device_type().empty() ? d.parsed.type : a.device_type();
    devices_.push_back(std::move(d));
  }
  return ParseDeviceSpec(options_.default_device, &default_device_).WithContext("the default device");
}

Status Placer::InitGroups() {
  parent_.resize(graph_->num_node_ids());
  for (int i = 0; i < graph_->num_node_ids(); ++i) parent_[i] = i;
  for (Node* n : graph_->op_nodes()) {
    Group& g = groups_[n->id()];
    g.members.push_back(n);
    Status s = ParseDeviceSpec(n->requested_device(), &g.spec);
    if (!s.ok()) return s.WithContext(StrCat("node ", Quoted(*n)));
    if (!g.spec.IsEmpty()) g.asked = n;
  }
  return Status::OK();
}

int Placer::Find(int id) {
  while (parent_[id] != id) {
    parent_[id] = parent_[parent_[id]];
    id = parent_[id];
  }
  return id;
}

Status Placer::Union(Node* a, Node* b, const std::string& why) {
  int ra = Find(a->id()), rb = Find(b->id());
  if (ra == rb) return Status::OK();
  // The older group (lower root) absorbs the other, so results do not depend on edge order.
  if (rb < ra) std::swap(ra, rb);
  Group& ga = groups_[ra];
  Group& gb = groups_[rb];
  ParsedDeviceName merged = ga.spec;
  Status s = MergeDeviceNames(&merged, gb.spec, options_.allow_soft_placement);
  if (!s.ok()) {
    return errors::InvalidArgument("cannot colocate nodes '", a->name(), "' and '", b->name(), "' (", why, "): node '",
                                   ga.asked->name(), "' asks for device '", DeviceNameString(ga.spec), "' and node '",
                                   gb.asked->name(), "' for device '", DeviceNameString(gb.spec), "': ", s.message());
  }
  ga.spec = merged;
  if (ga.asked == nullptr) ga.asked = gb.asked;
  ga.members.insert(ga.members.end(), gb.members.begin(), gb.members.end());
  parent_[rb] = ra;
  groups_.erase(rb);
  return Status::OK();
}

Status Placer::Colocate() {
  for (Node* n : graph_->op_nodes()) {
    std::vector<std::string> classes;
    if (n->def().attr().count(kColocationAttrName) &&
        GetNodeAttr(n->def(), kColocationAttrName, &classes).ok()) {
      for (const std::string& c : classes) {
        const std::string prefix = kColocationGroupPrefix;
        if (c.compare(0, prefix.size(), prefix) != 0) continue;  // other _class values say nothing about devices
        const std::string target = c.substr(prefix.size());
        Node* other = graph_->FindNode(target);
        // The master places each call's pruned graph, which may have dropped the node a
        // group is named after; the remaining members still go together through it only.
        if (other == nullptr || !other->IsOp()) continue;
        TA_RETURN_IF_ERROR(Union(n, other, StrCat(kColocationAttrName, " '", c, "'")));
      }
    }
  }
  for (Node* n : graph_->op_nodes()) {
    for (const Edge* e : n->in_edges()) {
      if (e->IsControlEdge() || !e->src->IsOp()) continue;
      const DataType t = n->input_type(e->dst_input);
      if (IsRefType(t)) {
        TA_RETURN_IF_ERROR(Union(e->src, n, "a reference edge: the variable's buffer lives on one device"));
      } else if (t == tensorflow::DT_RESOURCE) {
        TA_RETURN_IF_ERROR(Union(e->src, n, "a resource edge: the resource lives on one device"));
      }
    }
  }
  return Status::OK();
}

bool Placer::HasKernel(const Node& n, int device) {
  if (!has_kernel_) return true;
  auto key = std::make_pair(n.id(), device);
  auto it = kernel_cache_.find(key);
  if (it != kernel_cache_.end()) return it->second;
  const bool ok = has_kernel_(n, devices_[device].type);
  kernel_cache_[key] = ok;
  return ok;
}

bool Placer::GroupHasKernels(const Group& g, int device) {
  for (const Node* m : g.members) {
    if (!HasKernel(*m, device)) return false;
  }
  return true;
}

std::string Placer::Members(const Group& g) const {
  if (g.members.size() < 2) return "";
  std::string s = "; its colocation group is";
  const size_t shown = std::min<size_t>(g.members.size(), 6);
  for (size_t i = 0; i < shown; ++i) s += StrCat(i ? ", '" : " '", g.members[i]->name(), "'");
  if (g.members.size() > shown) s += StrCat(" and ", g.members.size() - shown, " more");
  return s;
}

Status Placer::ComputeFeasible(Group* g) {
  const Node& asked = g->asked ? *g->asked : *g->members.front();
  std::vector<int> all, matching;
  for (int d = 0; d < static_cast<int>(devices_.size()); ++d) {
    all.push_back(d);
    if (IsSpecification(g->spec, devices_[d].parsed)) matching.push_back(d);
  }
  if (matching.empty()) {
    if (!options_.allow_soft_placement) {
      return errors::InvalidArgument("cannot place node ", Quoted(asked), ": no device matches its requested device '",
                                     DeviceNameString(g->spec), "'", Members(*g),
                                     "; the devices are: ", DeviceList(devices_, all));
    }
    // Soft placement: keep the job, replica and task, forget the type and id; then forget all.
    ParsedDeviceName relaxed = g->spec;
    relaxed.has_type = relaxed.has_id = false;
    for (int d : all) {
      if (IsSpecification(relaxed, devices_[d].parsed)) matching.push_back(d);
    }
    if (matching.empty()) matching = all;
  }

  std::vector<int> with_kernels;
  for (int d : matching) {
    if (GroupHasKernels(*g, d)) with_kernels.push_back(d);
  }
  if (with_kernels.empty() && options_.allow_soft_placement) {
    for (int d : all) {
      if (GroupHasKernels(*g, d)) with_kernels.push_back(d);
    }
  }
  if (with_kernels.empty()) {
    // Name the member that lacks a kernel on every device considered, if one does.
    const Node* culprit = nullptr;
    for (const Node* m : g->members) {
      bool any = false;
      for (int d : matching) any = any || HasKernel(*m, d);
      if (!any) {
        culprit = m;
        break;
      }
    }
    std::set<std::string> types;
    for (int d : matching) types.insert(devices_[d].type);
    std::string type_list;
    for (const std::string& t : types) type_list += (type_list.empty() ? "" : ", ") + t;
    const std::string requested = g->spec.IsEmpty() ? "none" : "'" + DeviceNameString(g->spec) + "'";
    if (culprit != nullptr) {
      return errors::InvalidArgument("cannot place node ", Quoted(*culprit), ": no kernel for op '",
                                     culprit->type_string(), "' on device type(s) ", type_list,
                                     " (requested device: ", requested, ")", Members(*g),
                                     "; the devices considered are: ", DeviceList(devices_, matching));
    }
    return errors::InvalidArgument("cannot place the colocated nodes of ", Quoted(asked),
                                   " on one device: no device type has kernels for all of them (requested device: ",
                                   requested, ")", Members(*g), "; the devices considered are: ",
                                   DeviceList(devices_, matching));
  }

  // TensorFlow's default device: where unconstrained nodes go when it can run them.
  if (g->spec.IsEmpty() && !options_.default_device.empty()) {
    std::vector<int> narrowed;
    for (int d : with_kernels) {
      if (IsSpecification(default_device_, devices_[d].parsed)) narrowed.push_back(d);
    }
    if (!narrowed.empty()) with_kernels = narrowed;
  }
  // TensorFlow's device-type priority: a group that does not ask for a device type runs on
  // a GPU when one has kernels for all of it, unless earlier steps measured its nodes
  // (then the simulation weighs the measured times).
  bool measured = false;
  for (const Node* m : g->members) measured = measured || cost_.HasMeasurement(m->name());
  if (!g->spec.has_type && !measured) {
    std::vector<int> gpus;
    for (int d : with_kernels) {
      if (devices_[d].type == "GPU") gpus.push_back(d);
    }
    if (!gpus.empty()) with_kernels = gpus;
  }
  g->feasible = with_kernels;
  if (g->feasible.size() == 1) g->device = g->feasible[0];  // pinned
  return Status::OK();
}

// A stateless node without inputs, alone in its group and free to move: it goes where its
// first consumer goes.
bool Placer::IsGenerator(const Node* n) {
  const Group& g = GroupOf(n);
  if (g.members.size() != 1 || g.device >= 0 || n->IsStateful()) return false;
  for (const Edge* e : n->in_edges()) {
    if (!e->src->IsSource()) return false;
  }
  for (const Edge* e : n->out_edges()) {
    if (!e->IsControlEdge() && e->dst->IsOp()) return true;
  }
  return false;
}

// The simulated finish of `n` on device `d`. With `commit`, the generators feeding `n` that
// are not placed yet are placed (on `d` when they can run there) and their time is spent.
double Placer::Simulate(Node* n, int d, bool commit) {
  double device_free = free_[d];
  double inputs_ready = 0;
  std::set<const Node*> seen;
  for (const Edge* e : n->in_edges()) {
    Node* src = e->src;
    if (!src->IsOp()) continue;  // Source: ready at 0
    const bool data = !e->IsControlEdge();
    if (node_device_[src->id()] < 0) {
      // An unplaced generator: it will run just before `n`, on `d` if it can.
      if (!seen.insert(src).second) continue;
      const Group& sg = GroupOf(src);
      const bool here = std::find(sg.feasible.begin(), sg.feasible.end(), d) != sg.feasible.end();
      const int gd = here ? d : sg.feasible.front();
      if (gd == d) {
        const double t = cost_.ComputeMicros(*src, devices_[d].type);
        if (commit) PlaceAt(src, d, device_free + t);
        device_free += t;
      } else {
        const double start = free_[gd];
        const double t = start + cost_.ComputeMicros(*src, devices_[gd].type);
        if (commit) PlaceAt(src, gd, t);
        const int64_t bytes = data ? cost_.OutputBytes(*src, e->src_output) : 0;
        inputs_ready = std::max(inputs_ready, t + cost_.TransferMicros(bytes, devices_[gd].name, devices_[d].name));
      }
      continue;
    }
    const int sd = node_device_[src->id()];
    const int64_t bytes = data ? cost_.OutputBytes(*src, e->src_output) : 0;
    inputs_ready = std::max(inputs_ready,
                            finish_[src->id()] + cost_.TransferMicros(bytes, devices_[sd].name, devices_[d].name));
  }
  return std::max(device_free, inputs_ready) + cost_.ComputeMicros(*n, devices_[d].type);
}

void Placer::PlaceAt(Node* n, int d, double finish) {
  node_device_[n->id()] = d;
  finish_[n->id()] = finish;
  free_[d] = std::max(free_[d], finish);
  Group& g = GroupOf(n);
  if (g.device < 0) g.device = d;
}

// Places `n`: where its group is, or where it would finish first.
void Placer::Decide(Node* n) {
  const Group& g = GroupOf(n);
  int best = g.device;
  if (best < 0) {
    double best_finish = std::numeric_limits<double>::infinity();
    for (int d : g.feasible) {
      const double f = Simulate(n, d, /*commit=*/false);
      // Strictly earlier (beyond rounding) wins, so ties keep the lowest device index.
      if (best < 0 || f < best_finish - 1e-9 * std::max(1.0, std::abs(best_finish))) {
        best_finish = f;
        best = d;
      }
    }
  }
  PlaceAt(n, best, Simulate(n, best, /*commit=*/true));
}

Status Placer::Simulation() {
  const int num = graph_->num_node_ids();
  node_device_.assign(num, -1);
  finish_.assign(num, 0.0);
  free_.assign(devices_.size(), 0.0);
  std::vector<int> pending(num, 0);

  // Nodes become ready in simulated time: a min-heap on (ready time, id).
  using Entry = std::pair<double, int>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> ready;
  for (Node* n : graph_->nodes()) {
    pending[n->id()] = static_cast<int>(n->in_edges().size());
    if (pending[n->id()] == 0) ready.push({0.0, n->id()});
  }
  while (!ready.empty()) {
    Node* n = graph_->FindNodeId(ready.top().second);
    const double ready_at = ready.top().first;
    ready.pop();
    if (!n->IsOp()) {
      finish_[n->id()] = ready_at;
    } else if (node_device_[n->id()] < 0) {
      // A generator waits for its first consumer to place it; for readiness it counts as
      // done at time 0.
      if (!IsGenerator(n)) Decide(n);
    }
    for (const Edge* e : n->out_edges()) {
      Node* dst = e->dst;
      if (--pending[dst->id()] > 0) continue;
      double t = 0;
      for (const Edge* in : dst->in_edges()) {
        if (node_device_[in->src->id()] >= 0 || !in->src->IsOp()) t = std::max(t, finish_[in->src->id()]);
      }
      ready.push({t, dst->id()});
    }
  }
  // Left over: nodes on a cycle (control-flow loops), and generators no consumer placed.
  for (Node* n : graph_->op_nodes()) {
    if (node_device_[n->id()] >= 0) continue;
    const Group& g = GroupOf(n);
    PlaceAt(n, g.device >= 0 ? g.device : g.feasible.front(), finish_[n->id()]);
  }
  return Status::OK();
}

Status Placer::Run() {
  TA_RETURN_IF_ERROR(ReadDevices());
  TA_RETURN_IF_ERROR(InitGroups());
  TA_RETURN_IF_ERROR(Colocate());
  for (auto& [root, g] : groups_) TA_RETURN_IF_ERROR(ComputeFeasible(&g));
  TA_RETURN_IF_ERROR(Simulation());
  for (Node* n : graph_->op_nodes()) {
    const std::string& name = devices_[node_device_[n->id()]].name;
    n->mutable_def()->set_device(name);
    if (options_.log_device_placement && options_.placement_log != nullptr) {
      options_.placement_log->push_back(n->name() + ": " + name);
    }
  }
  return Status::OK();
}

}  // namespace

Status PlaceGraph(Graph* graph, const std::vector<tensorflow::DeviceAttributes>& devices,
                  const KernelSupportFn& has_kernel, const PlacerOptions& options) {
  CostModel default_cost;
  const CostModel& cost = options.cost_model != nullptr ? *options.cost_model : default_cost;
  Placer placer(graph, devices, has_kernel, options, cost);
  return placer.Run();
}

}  // namespace tensoract
