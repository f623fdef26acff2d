// Element-wise regions into _FusedElementwise (see elementwise_fusion.h).
#include "graph/optimizer/elementwise_fusion.h"

#include <map>
#include <set>
#include <string>
#include <vector>

#include "graph/node_def_util.h"
#include "graph/optimizer/remapper_util.h"

namespace tensoract {
namespace {

using namespace remapper;  // NOLINT: the remapper's graph-editing helpers

// The instruction of each element-wise op a region takes (AddN and BroadcastTo aside).
const std::map<std::string, std::string>& Instructions() {
  static const auto* kInstructions = new std::map<std::string, std::string>{
      {"Mul", "mul"}, {"Add", "add"}, {"AddV2", "add"}, {"Sub", "sub"}, {"RealDiv", "div"},
      {"SquaredDifference", "squared_difference"}, {"Neg", "neg"}};
  return *kInstructions;
}

bool IsElementwise(const Node& n) {
  return Instructions().count(n.type_string()) > 0 || n.type_string() == "AddN" || n.type_string() == "BroadcastTo";
}

bool FloatOnCpu(const Node& n) {
  auto t = n.def().attr().find("T");
  return OnCpu(n) && t != n.def().attr().end() && t->second.type() == tensorflow::DT_FLOAT;
}

// Each operand of `a` and `b` broadcasts into the other's shape without growing it: `b`'s
// dimensions (right-aligned) are 1 or `a`'s, all known; so the result has `a`'s shape.
bool BroadcastsInto(const PartialTensorShape& b, const PartialTensorShape& a) {
  if (a.unknown_rank() || b.unknown_rank() || b.dims() > a.dims()) return false;
  const int offset = a.dims() - b.dims();
  for (int i = 0; i < b.dims(); ++i) {
    const int64_t bd = b.dim_size(i), ad = a.dim_size(offset + i);
    if (bd != 1 && (bd < 0 || bd != ad)) return false;
  }
  return true;
}

const PartialTensorShape& ShapeOf(const Source& s) { return s.node->output_shape(s.port); }

// A float Sum or Mean on the CPU over every dimension of its input but the last (known
// rank of at least 2, the last dimension known).
bool IsChannelReduction(const Node& n) {
  if ((n.type_string() != "Sum" && n.type_string() != "Mean") || !FloatOnCpu(n)) return false;
  const Source input = DataInput(n, 0);
  if (input.node == nullptr) return false;
  const PartialTensorShape& shape = ShapeOf(input);
  if (shape.unknown_rank() || shape.dims() < 2 || shape.dim_size(shape.dims() - 1) < 0) return false;
  std::vector<int64_t> axes;
  if (!ConstInts(DataInput(n, 1), &axes)) return false;
  const int rank = shape.dims();
  std::set<int64_t> seen;
  for (int64_t a : axes) {
    if (a < -rank || a >= rank) return false;
    seen.insert(a < 0 ? a + rank : a);
  }
  return static_cast<int>(seen.size()) == rank - 1 && seen.count(rank - 1) == 0;
}

// A region being collected from its root (see TryFuseElementwiseRegion).
class Region {
 public:
  Region(Node* root, bool reduce, const PartialTensorShape& shape) : root_(root), reduce_(reduce), shape_(shape) {
    channels_ = shape.dim_size(shape.dims() - 1);
  }

  // Collects the tree; false where a node or leaf does not fit.
  bool Collect() {
    nodes_.push_back(root_);
    if (reduce_) {
      const Source input = DataInput(*root_, 0);
      if (!Absorbable(input, *root_) || input.node->type_string() == "BroadcastTo") return false;
      return Grow(input.node);
    }
    return GrowInputs(root_);
  }

  // Writes the program; false where a leaf or a control edge does not fit.
  bool Emit() {
    if (nodes_.size() < 2) return false;
    for (Node* n : nodes_) inside_.insert(n);
    // A scalar Const is an immediate; one that only this region uses (its data and control
    // edges, as TensorFlow's gradients write `2.0` with a control input) goes with it.
    for (Node* n : nodes_) {
      if (n == root_) continue;
      for (const Edge* e : n->out_edges()) {
        if (!e->IsControlEdge() || inside_.count(e->dst) > 0) continue;
        if (e->dst->out_edges().empty() || !OnlyFeedsRegion(*e->dst) || !IsScalarFloatConst(*e->dst)) return false;
        absorbed_consts_.insert(e->dst);
      }
    }
    const std::string result = reduce_ ? OperandOf(DataInput(*root_, 0)) : OperandOf({root_, 0});
    // Without a full operand or a broadcast shape it is a region of vectors: nothing to gain.
    return !failed_ && !program_.empty() && result == "r" + std::to_string(program_.size() - 1) &&
           !(full_.empty() && shapes_.empty());
  }

  // Replaces the region by the fused node.
  bool Replace(Graph* graph) {
    std::vector<Node*> remove = nodes_;
    remove.insert(remove.end(), absorbed_consts_.begin(), absorbed_consts_.end());
    NodeDef def;
    def.set_op("_FusedElementwise");
    auto& attr = *def.mutable_attr();
    attr["T"].set_type(tensorflow::DT_FLOAT);
    attr["Tshape"].set_type(shape_type_);
    attr["num_full"].set_i(static_cast<int64_t>(full_.size()));
    attr["num_vectors"].set_i(static_cast<int64_t>(vectors_.size()));
    attr["num_shapes"].set_i(static_cast<int64_t>(shapes_.size()));
    for (const std::string& line : program_) attr["program"].mutable_list()->add_s(line);
    auto* constants = attr["constants"].mutable_list();
    for (float c : constants_) constants->add_f(c);
    attr["reduce"].set_s(!reduce_ ? "none" : root_->type_string() == "Mean" ? "mean" : "sum");
    attr["keep_dims"].set_b(reduce_ && AttrIsTrue(root_->def(), "keep_dims"));
    std::vector<Source> data = full_;
    data.insert(data.end(), vectors_.begin(), vectors_.end());
    data.insert(data.end(), shapes_.begin(), shapes_.end());
    if (ReplaceNodes(graph, remove, {root_}, data, std::move(def)) == nullptr) return false;
    // Consts used as immediates that nothing reads any more.
    for (Node* c : kept_consts_) {
      if (c->out_edges().empty()) graph->RemoveNode(c);
    }
    return true;
  }

 private:
  // `s` is an element-wise result this region can take: output 0 of a float node on the
  // root's device, read by `consumer` alone, of a rank that broadcasts into the region's.
  bool Absorbable(const Source& s, const Node& consumer) const {
    if (s.node == nullptr || s.port != 0 || !IsElementwise(*s.node) || !FloatOnCpu(*s.node) ||
        s.node->requested_device() != root_->requested_device()) {
      return false;
    }
    int data_out = 0;
    for (const Edge* e : s.node->out_edges()) {
      if (e->IsControlEdge()) continue;
      if (e->dst != &consumer || e->src_output != 0) return false;
      ++data_out;
    }
    if (data_out != 1) return false;
    if (s.node->type_string() == "BroadcastTo") return IsVector(DataInput(*s.node, 0));
    return FitsRegion(ShapeOf(s));
  }

  // A shape of known rank that broadcasts into the region's: each known dimension equal to
  // the region's or 1 where the region's is unknown (a batch).
  bool FitsRegion(const PartialTensorShape& s) const {
    if (s.unknown_rank() || s.dims() > shape_.dims()) return false;
    const int offset = shape_.dims() - s.dims();
    for (int i = 0; i < s.dims(); ++i) {
      const int64_t d = s.dim_size(i), want = shape_.dim_size(offset + i);
      // A known size where the region's is unknown (a batch) is checked by the kernel.
      if (d >= 0 && want >= 0 && d != want) return false;
    }
    return s.dims() == 0 || s.dim_size(s.dims() - 1) == channels_ || s.dim_size(s.dims() - 1) < 0;
  }

  // One value per channel (or one value): its shape known, every dimension 1 but the last.
  bool IsVector(const Source& s) const {
    if (s.node == nullptr) return false;
    const PartialTensorShape& shape = ShapeOf(s);
    if (!shape.IsFullyDefined() || shape.dims() > shape_.dims()) return false;
    for (int i = 0; i + 1 < shape.dims(); ++i) {
      if (shape.dim_size(i) != 1) return false;
    }
    return shape.dims() == 0 || shape.dim_size(shape.dims() - 1) == channels_ || shape.dim_size(shape.dims() - 1) == 1;
  }

  static bool IsScalarFloatConst(const Node& n) {
    float v;
    return ScalarConstValue({const_cast<Node*>(&n), 0}, &v);
  }

  // Every edge out of `n` goes into the region.
  bool OnlyFeedsRegion(const Node& n) const {
    for (const Edge* e : n.out_edges()) {
      if (inside_.count(e->dst) == 0) return false;
    }
    return true;
  }

  bool Grow(Node* n) {
    nodes_.push_back(n);
    return GrowInputs(n);
  }

  bool GrowInputs(Node* n) {
    const int inputs = n->type_string() == "BroadcastTo" ? 1 : n->num_inputs();
    for (int i = 0; i < inputs; ++i) {
      const Source s = DataInput(*n, i);
      if (s.node == nullptr) return false;
      if (Absorbable(s, *n)) {
        if (!Grow(s.node)) return false;
      }
    }
    return true;
  }

  // The program operand that holds the value of `s`, emitting the instructions of region
  // nodes (inputs first) and adding leaves as inputs.
  std::string OperandOf(const Source& s) {
    if (failed_) return "";
    if (inside_.count(s.node) > 0) return Instruction(s.node);
    float value = 0;
    if (ScalarConstValue(s, &value)) {
      // An immediate where its control inputs can go to the fused node (ReplaceNodes gives
      // it those of the nodes it removes) or where it has none.
      bool controlled = false;
      for (const Edge* e : s.node->in_edges()) controlled = controlled || (e->IsControlEdge() && !e->src->IsSource());
      const bool absorbed = absorbed_consts_.count(s.node) > 0;
      if (absorbed || !controlled) {
        if (!absorbed) kept_consts_.insert(s.node);
        constants_.push_back(value);
        return "c" + std::to_string(constants_.size() - 1);
      }
    }
    if (IsVector(s)) return "v" + std::to_string(IndexOf(&vectors_, s));
    if (FitsRegion(ShapeOf(s))) return "f" + std::to_string(IndexOf(&full_, s));
    failed_ = true;
    return "";
  }

  std::string Instruction(Node* n) {
    const std::string& op = n->type_string();
    if (op == "BroadcastTo") {
      const Source shape = DataInput(*n, 1);
      auto tidx = n->def().attr().find("Tidx");
      const tensorflow::DataType type =
          tidx == n->def().attr().end() ? tensorflow::DT_INT32 : tidx->second.type();
      if (shape.node == nullptr || (!shapes_.empty() && type != shape_type_)) {
        failed_ = true;
        return "";
      }
      shape_type_ = type;
      IndexOf(&shapes_, shape);
      return OperandOf(DataInput(*n, 0));
    }
    std::vector<std::string> operands;
    for (int i = 0; i < n->num_inputs(); ++i) operands.push_back(OperandOf(DataInput(*n, i)));
    if (failed_) return "";
    if (op == "AddN") {
      std::string sum = operands[0];
      for (size_t i = 1; i < operands.size(); ++i) sum = Append("add " + sum + " " + operands[i]);
      return sum;
    }
    const std::string& code = Instructions().at(op);
    return Append(operands.size() == 1 ? code + " " + operands[0] : code + " " + operands[0] + " " + operands[1]);
  }

  std::string Append(const std::string& line) {
    program_.push_back(line);
    return "r" + std::to_string(program_.size() - 1);
  }

  static size_t IndexOf(std::vector<Source>* list, const Source& s) {
    for (size_t i = 0; i < list->size(); ++i) {
      if ((*list)[i].node == s.node && (*list)[i].port == s.port) return i;
    }
    list->push_back(s);
    return list->size() - 1;
  }

  Node* root_;
  bool reduce_;
  PartialTensorShape shape_;
  int64_t channels_ = 0;
  std::vector<Node*> nodes_;
  std::set<Node*> inside_, absorbed_consts_, kept_consts_;
  std::vector<Source> full_, vectors_, shapes_;
  std::vector<float> constants_;
  std::vector<std::string> program_;
  tensorflow::DataType shape_type_ = tensorflow::DT_INT32;
  bool failed_ = false;
};

// `n`'s value would join its consumer's region instead.
bool FeedsLargerRegion(const Node& n) {
  const Edge* e = SoleConsumer(n);
  if (e == nullptr || e->dst->requested_device() != n.requested_device() || !FloatOnCpu(*e->dst)) return false;
  const Node& consumer = *e->dst;
  if (IsChannelReduction(consumer)) return e->dst_input == 0;
  return IsElementwise(consumer) && consumer.type_string() != "BroadcastTo";
}

}  // namespace

int ShapesFromOperands(Graph* graph) {
  int rewired = 0;
  std::vector<Node*> shapes;
  for (Node* n : graph->op_nodes()) {
    if (n->type_string() == "Shape") shapes.push_back(n);
  }
  for (Node* shape : shapes) {
    for (;;) {
      const Source value = DataInput(*shape, 0);
      if (value.node == nullptr || value.port != 0 || Instructions().count(value.node->type_string()) == 0 ||
          value.node->num_inputs() != 2) {
        break;
      }
      const Source a = DataInput(*value.node, 0), b = DataInput(*value.node, 1);
      if (a.node == nullptr || b.node == nullptr) break;
      Source operand{nullptr, 0};
      if (BroadcastsInto(ShapeOf(b), ShapeOf(a))) operand = a;
      else if (BroadcastsInto(ShapeOf(a), ShapeOf(b))) operand = b;
      if (operand.node == nullptr) break;
      // The other operand's deadness (a branch not taken) still reaches the Shape.
      const Node* other = operand.node == a.node && operand.port == a.port ? b.node : a.node;
      bool may_be_dead = false;
      for (const Edge* e : other->in_edges()) may_be_dead = may_be_dead || !e->src->IsSource();
      if (may_be_dead) graph->AddControlEdge(const_cast<Node*>(other), shape);
      graph->RemoveEdge(shape->input_edge(0));
      graph->AddEdge(operand.node, operand.port, shape, 0);
      ++rewired;
    }
  }
  return rewired;
}

bool TryFuseElementwiseRegion(Graph* graph, Node* root) {
  if (!FloatOnCpu(*root) || FeedsLargerRegion(*root)) return false;
  const bool reduce = root->type_string() == "Sum" || root->type_string() == "Mean";
  if (reduce && !IsChannelReduction(*root)) return false;
  if (!reduce && (!IsElementwise(*root) || root->type_string() == "BroadcastTo")) return false;
  const PartialTensorShape& shape = reduce ? ShapeOf(DataInput(*root, 0)) : root->output_shape(0);
  if (shape.unknown_rank() || shape.dims() < 1 || shape.dim_size(shape.dims() - 1) < 1) return false;
  Region region(root, reduce, shape);
  return region.Collect() && region.Emit() && region.Replace(graph);
}

}  // namespace tensoract
