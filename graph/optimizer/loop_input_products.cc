#include "graph/optimizer/loop_input_products.h"

#include <set>
#include <string>
#include <vector>

#include "graph/control_flow.h"
#include "graph/node_def_util.h"
#include "graph/optimizer/optimizer_util.h"
#include "graph/optimizer/remapper_util.h"

namespace tensoract {
namespace {

using remapper::DataInput;
using remapper::InputName;
using remapper::Source;

// One product found in a loop, and what it reads (see the header).
struct Candidate {
  Node* matmul = nullptr;
  Node* bias_add = nullptr;  // or nullptr
  Node* get_item = nullptr;  // x_t = TensorListGetItem(list_enter, t, shape)
  Node* list_enter = nullptr;
  Node* from_tensor = nullptr;  // the list, outside
  Source x;                     // its tensor, [steps, batch, in]
  Source weights, bias;         // outside the loop
};


bool ElementTypeIsFloat(const Node& n) { return remapper::TypeIs(n, "element_dtype", tensorflow::DT_FLOAT); }

// The value of the root frame a constant Enter into top-level frame `frame` passes in.
Source InvariantOfRoot(const ControlFlowInfo& info, const Source& s, int frame) {
  if (s.node == nullptr || !IsConstantEnter(*s.node) || info.enters[s.node->id()] != frame) return {nullptr, 0};
  Source outside = DataInput(*s.node, 0);
  if (outside.node == nullptr || info.frame_of[outside.node->id()] != 0) return {nullptr, 0};
  return outside;
}

bool Find(const ControlFlowInfo& info, Node* matmul, Candidate* c) {
  const int frame = info.frame_of[matmul->id()];
  if (frame <= 0 || info.frames[frame].parent != 0) return false;
  if (!remapper::OnCpu(*matmul) || !remapper::TypeIs(*matmul, "T", tensorflow::DT_FLOAT) ||
      AttrIsTrue(matmul->def(), "transpose_a")) {
    return false;
  }
  c->matmul = matmul;
  c->get_item = DataInput(*matmul, 0).node;
  if (c->get_item == nullptr || c->get_item->type_string() != "TensorListGetItem" || !ElementTypeIsFloat(*c->get_item)) {
    return false;
  }
  c->list_enter = DataInput(*c->get_item, 0).node;
  const Source list = InvariantOfRoot(info, {c->list_enter, 0}, frame);
  if (list.node == nullptr || list.node->type_string() != "TensorListFromTensor" || !ElementTypeIsFloat(*list.node) ||
      list.node->requested_device() != matmul->requested_device()) {
    return false;
  }
  c->from_tensor = list.node;
  c->x = DataInput(*list.node, 0);
  c->weights = InvariantOfRoot(info, DataInput(*matmul, 1), frame);
  if (c->x.node == nullptr || c->weights.node == nullptr) return false;
  // The bias, where the product's only reader adds one that is a loop invariant too.
  Node* bias_add = remapper::SoleConsumerOfType(*matmul, "BiasAdd");
  if (bias_add != nullptr && remapper::AttrString(*bias_add, "data_format", "NHWC") == "NHWC") {
    c->bias = InvariantOfRoot(info, DataInput(*bias_add, 1), frame);
    if (c->bias.node != nullptr) c->bias_add = bias_add;
  }
  return true;
}

Node* Add(Graph* graph, NodeDef def, const std::vector<Source>& inputs) {
  for (const Source& s : inputs) def.add_input(InputName(s));
  Node* n = graph->AddNode(std::move(def)).value();  // the ops and attrs above are valid
  for (size_t i = 0; i < inputs.size(); ++i) graph->AddEdge(inputs[i].node, inputs[i].port, n, static_cast<int>(i));
  return n;
}

NodeDef Def(const Graph& graph, const std::string& name, const char* op, const std::string& device) {
  NodeDef def;
  def.set_name(UnusedNodeName(graph, name));
  def.set_op(op);
  def.set_device(device);
  return def;
}

// The element shape the new list's GetItem names: the product's inferred shape, -1 where
// it is not known.
tensorflow::TensorProto ElementShape(const PartialTensorShape& shape) {
  tensorflow::TensorProto proto;
  proto.set_dtype(tensorflow::DT_INT32);
  if (shape.unknown_rank()) {
    proto.add_int_val(-1);
    return proto;
  }
  proto.mutable_tensor_shape()->add_dim()->set_size(shape.dims());
  for (int d = 0; d < shape.dims(); ++d) proto.add_int_val(static_cast<int32_t>(shape.dim_size(d)));
  return proto;
}

Node* ElementShapeConst(Graph* graph, const std::string& name, const std::string& device, const PartialTensorShape& shape) {
  NodeDef def = Def(*graph, name, "Const", device);
  (*def.mutable_attr())["dtype"].set_type(tensorflow::DT_INT32);
  *(*def.mutable_attr())["value"].mutable_tensor() = ElementShape(shape);
  return Add(graph, def, {});
}

void Hoist(Graph* graph, const ControlFlowInfo& info, const Candidate& c) {
  Node* last = c.bias_add != nullptr ? c.bias_add : c.matmul;
  const std::string& device = c.matmul->requested_device();
  const std::string base = last->name();
  const PartialTensorShape step_shape = last->output_shape(0);
  const ControlFlowInfo::Frame& frame = info.frames[info.frame_of[c.matmul->id()]];

  // Before the loop: every step's product, as a list.
  NodeDef product = Def(*graph, base + "/all_steps", "BatchMatMulV2", device);
  (*product.mutable_attr())["T"].set_type(tensorflow::DT_FLOAT);
  (*product.mutable_attr())["adj_x"].set_b(false);
  (*product.mutable_attr())["adj_y"].set_b(AttrIsTrue(c.matmul->def(), "transpose_b"));
  Node* all = Add(graph, product, {c.x, c.weights});
  if (c.bias_add != nullptr) {
    NodeDef bias = Def(*graph, base + "/all_steps_bias", "BiasAdd", device);
    (*bias.mutable_attr())["T"].set_type(tensorflow::DT_FLOAT);
    all = Add(graph, bias, {{all, 0}, c.bias});
  }
  NodeDef list = Def(*graph, base + "/all_steps_list", "TensorListFromTensor", device);
  (*list.mutable_attr())["element_dtype"].set_type(tensorflow::DT_FLOAT);
  (*list.mutable_attr())["shape_type"].set_type(tensorflow::DT_INT32);
  Node* steps = Add(graph, list, {{all, 0}, {ElementShapeConst(graph, base + "/all_steps_element_shape", device, step_shape), 0}});

  // In the loop: this step's product, read from the list.
  Node* list_in = AddConstantEnter(graph, steps, 0, frame.name, frame.parallel_iterations,
                                   UnusedNodeName(*graph, base + "/all_steps_list/loop_invariant"));
  Node* element_shape = ElementShapeConst(graph, base + "/step_element_shape", device, step_shape);
  const std::string shape_enter_name = UnusedNodeName(*graph, element_shape->name() + "/loop_invariant");
  Node* shape_in = AddConstantEnter(graph, element_shape, 0, frame.name, frame.parallel_iterations, shape_enter_name);
  // Kept beside its Enter, as the loop-invariant motion keeps the constants it moves, so
  // the GetItem's shape function finds its value through the Enter.
  (*element_shape->mutable_def()->mutable_attr())["_class"].mutable_list()->add_s(StrCat("loc:@", shape_enter_name));
  NodeDef get = Def(*graph, base + "/step", "TensorListGetItem", device);
  (*get.mutable_attr())["element_dtype"].set_type(tensorflow::DT_FLOAT);
  Node* step = Add(graph, get, {{list_in, 0}, DataInput(*c.get_item, 1), {shape_in, 0}});
  step->set_output_shape(0, step_shape);

  // The step's value takes over the product's readers and the pattern's control inputs.
  for (Node* n : {c.matmul, c.bias_add}) {
    if (n == nullptr) continue;
    for (const Edge* e : n->in_edges()) {
      if (e->IsControlEdge() && !e->src->IsSource()) graph->AddControlEdge(e->src, step);
    }
  }
  const std::vector<const Edge*> readers(last->out_edges().begin(), last->out_edges().end());
  for (const Edge* e : readers) {
    Node* dst = e->dst;
    const int dst_input = e->dst_input;
    const bool control = e->IsControlEdge();
    graph->RemoveEdge(e);
    if (control) graph->AddControlEdge(step, dst);
    else graph->AddEdge(step, 0, dst, dst_input);
  }
  if (c.bias_add != nullptr) graph->RemoveNode(c.bias_add);
  graph->RemoveNode(c.matmul);
}

// Rebuilds IdentityN `n` without data input `k` where nothing reads its output k: an
// inlined call's IdentityN that passed a value into the loop's body, kept for its control
// edges after the remapper's bypass gave its readers their values straight. True when done.
bool DropUnreadPassThrough(Graph* graph, Node* n, int k) {
  if (n->type_string() != "IdentityN" || n->num_inputs() < 2) return false;
  for (const Edge* e : n->out_edges()) {
    if (!e->IsControlEdge() && e->src_output == k) return false;
  }
  std::vector<Source> data(n->num_inputs(), Source{nullptr, 0});
  std::vector<Node*> control_in;
  for (const Edge* e : n->in_edges()) {
    if (e->IsControlEdge()) control_in.push_back(e->src);
    else data[e->dst_input] = {e->src, e->src_output};
  }
  struct Reader {
    Node* node;
    int output, input;  // output -1: a control edge
  };
  std::vector<Reader> readers;
  for (const Edge* e : n->out_edges()) {
    if (e->IsControlEdge()) readers.push_back({e->dst, -1, -1});
    else readers.push_back({e->dst, e->src_output > k ? e->src_output - 1 : e->src_output, e->dst_input});
  }
  NodeDef def = n->def();
  def.clear_input();
  auto* types = (*def.mutable_attr())["T"].mutable_list()->mutable_type();
  types->erase(types->begin() + k);
  data.erase(data.begin() + k);
  for (const Source& s : data) {
    if (s.node == nullptr) return false;
    def.add_input(InputName(s));
  }
  for (Node* c : control_in) {
    if (!c->IsSource()) def.add_input("^" + c->name());
  }
  std::vector<PartialTensorShape> shapes = n->output_shapes();
  shapes.erase(shapes.begin() + k);
  graph->RemoveNode(n);
  Node* rebuilt = graph->AddNode(def).value();  // the same IdentityN with a type fewer
  for (size_t i = 0; i < shapes.size(); ++i) rebuilt->set_output_shape(static_cast<int>(i), shapes[i]);
  for (size_t i = 0; i < data.size(); ++i) graph->AddEdge(data[i].node, data[i].port, rebuilt, static_cast<int>(i));
  for (Node* c : control_in) graph->AddControlEdge(c, rebuilt);
  for (const Reader& r : readers) {
    if (r.output < 0) graph->AddControlEdge(rebuilt, r.node);
    else graph->AddEdge(rebuilt, r.output, r.node, r.input);
  }
  return true;
}

// Removes `n` where nothing reads it any more, and then its inputs among `removable`.
void RemoveUnread(Graph* graph, Node* n, const std::set<Node*>& removable, std::set<Node*>* removed) {
  if (removed->count(n) || !removable.count(n)) return;
  for (bool dropped = true; dropped;) {
    dropped = false;
    for (const Edge* e : n->out_edges()) {
      if (!e->IsControlEdge() && DropUnreadPassThrough(graph, e->dst, e->dst_input)) {
        dropped = true;
        break;
      }
    }
  }
  for (const Edge* e : n->out_edges()) {
    if (!e->dst->IsSink()) return;
  }
  std::vector<Node*> inputs;
  for (const Edge* e : n->in_edges()) inputs.push_back(e->src);
  removed->insert(n);
  graph->RemoveNode(n);
  for (Node* in : inputs) RemoveUnread(graph, in, removable, removed);
}

}  // namespace

int HoistLoopInputProducts(Graph* graph) {
  ControlFlowInfo info;
  if (!BuildControlFlowInfo(*graph, &info).ok() || !info.HasLoops()) return 0;
  std::vector<Candidate> found;
  for (Node* n : graph->op_nodes()) {
    Candidate c;
    if (n->type_string() == "MatMul" && Find(info, n, &c)) found.push_back(c);
  }
  // Every candidate is found before any changes the graph: the control flow info is of the
  // graph as it was, and two products may read one list.
  std::set<Node*> removable, removed;
  for (const Candidate& c : found) {
    Hoist(graph, info, c);
    removable.insert({c.get_item, c.list_enter, c.from_tensor});
    // The element shapes the old list and its GetItem named: Consts, entering the loop.
    for (Node* n : {c.get_item, c.from_tensor}) {
      Node* shape = DataInput(*n, n == c.get_item ? 2 : 1).node;
      if (shape != nullptr && IsConstantEnter(*shape)) {
        removable.insert(shape);
        shape = DataInput(*shape, 0).node;
      }
      if (shape != nullptr && shape->type_string() == "Const") removable.insert(shape);
    }
  }
  for (const Candidate& c : found) RemoveUnread(graph, c.get_item, removable, &removed);
  return static_cast<int>(found.size());
}

}  // namespace tensoract
