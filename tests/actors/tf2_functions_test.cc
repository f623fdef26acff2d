// A GraphDef written by TensorFlow 2 with a function library (tests/data/tf2_functions.pbtxt:
// a StatefulPartitionedCall of a function that calls another through a PartitionedCall and
// updates a captured variable) runs through the C++ Session with TensorFlow's values; and
// the inliner's errors (graph/function_library.h); and TensorFlow 2's functional If, Case and
// While lowered to Switch/Merge and loop frames (graph/lower_functional_ops.h).
#include <map>

#include "graph/function_library.h"
#include "tests/actors/test_util.h"

namespace tensoract {
namespace {

using testing::DataPath;
using testing::NewSessionWith;

std::vector<float> Floats(const Tensor& t) {
  REQUIRE(t.dtype() == tensorflow::DT_FLOAT);
  return std::vector<float>(t.base<float>(), t.base<float>() + t.NumElements());
}

tensorflow::GraphDef Load() {
  tensorflow::GraphDef graph;
  Status s = ReadTextProto(DataPath("tf2_functions.pbtxt"), &graph);
  INFO(s.ToString());
  REQUIRE(s.ok());
  REQUIRE(graph.library().function_size() == 2);
  return graph;
}

TEST_CASE("a TensorFlow 2 graph with nested function calls runs with TensorFlow's values") {
  auto session = NewSessionWith(Load());
  std::vector<Tensor> out;
  REQUIRE(session->Run({}, {}, {"init"}, &out).ok());
  Status s = session->Run({{"x", Tensor::FromVector<float>({1, 1, 0, 1}, TensorShape({2, 2}))}}, {"a", "s"}, {}, &out);
  INFO(s.ToString());
  REQUIRE(s.ok());
  CHECK(Floats(out[0]) == std::vector<float>{10, 14, 8, 10});
  CHECK(Floats(out[1]) == std::vector<float>{21});
  REQUIRE(session->Run({}, {"v/Read/ReadVariableOp"}, {}, &out).ok());
  CHECK(Floats(out[0]) == std::vector<float>{21});  // the function's side effect ran
}

TEST_CASE("inlining names the call's nodes after it and keeps its outputs") {
  tensorflow::GraphDef graph = Load();
  REQUIRE(InlineFunctionCalls(&graph).ok());
  CHECK(graph.library().function_size() == 0);
  bool results = false, nested = false;
  for (const auto& n : graph.node()) {
    CHECK(n.op() != "StatefulPartitionedCall");
    CHECK(n.op() != "PartitionedCall");
    if (n.name() == "StatefulPartitionedCall") results = n.op() == "IdentityN";
    if (n.name().rfind("StatefulPartitionedCall/PartitionedCall/", 0) == 0) nested = true;
  }
  CHECK(results);
  CHECK(nested);
}

TEST_CASE("a function calling itself and a call with the wrong inputs are errors") {
  tensorflow::GraphDef graph;
  auto* f = graph.mutable_library()->add_function();
  f->mutable_signature()->set_name("loop");
  auto* in = f->mutable_signature()->add_input_arg();
  in->set_name("x");
  in->set_type(tensorflow::DT_FLOAT);
  auto* out = f->mutable_signature()->add_output_arg();
  out->set_name("y");
  out->set_type(tensorflow::DT_FLOAT);
  auto* body = f->add_node_def();
  body->set_name("again");
  body->set_op("loop");
  body->add_input("x");
  (*f->mutable_ret())["y"] = "again:y:0";
  auto* x = graph.add_node();
  x->set_name("x");
  x->set_op("Placeholder");
  (*x->mutable_attr())["dtype"].set_type(tensorflow::DT_FLOAT);
  auto* call = graph.add_node();
  call->set_name("call");
  call->set_op("loop");
  call->add_input("x");
  tensorflow::GraphDef recursive = graph;
  Status s = InlineFunctionCalls(&recursive);
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK(s.message().find("call itself") != std::string::npos);

  call->add_input("x");  // two inputs for a function of one
  s = InlineFunctionCalls(&graph);
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK(s.message().find("takes 1") != std::string::npos);
}

// A node of a FunctionDef or GraphDef: op, inputs, and a type attr T (when `t` is set).
tensorflow::NodeDef* AddNodeDef(google::protobuf::RepeatedPtrField<tensorflow::NodeDef>* nodes, const std::string& name,
                             const std::string& op, std::vector<std::string> inputs,
                             tensorflow::DataType t = tensorflow::DT_INVALID) {
  auto* n = nodes->Add();
  n->set_name(name);
  n->set_op(op);
  for (auto& in : inputs) n->add_input(in);
  if (t != tensorflow::DT_INVALID) (*n->mutable_attr())["T"].set_type(t);
  return n;
}

tensorflow::NodeDef* AddConst(google::protobuf::RepeatedPtrField<tensorflow::NodeDef>* nodes, const std::string& name,
                              int32_t value) {
  auto* c = AddNodeDef(nodes, name, "Const", {});
  (*c->mutable_attr())["dtype"].set_type(tensorflow::DT_INT32);
  Tensor::Scalar<int32_t>(value).AsProtoTensorContent((*c->mutable_attr())["value"].mutable_tensor());
  return c;
}

// A function of int32 arguments `args` and results `rets` ({name, tensor}).
tensorflow::FunctionDef* AddFunction(tensorflow::GraphDef* graph, const std::string& name,
                                     const std::vector<std::string>& args,
                                     const std::vector<std::pair<std::string, std::string>>& rets,
                                     tensorflow::DataType ret_type = tensorflow::DT_INT32) {
  auto* f = graph->mutable_library()->add_function();
  f->mutable_signature()->set_name(name);
  for (const auto& a : args) {
    auto* in = f->mutable_signature()->add_input_arg();
    in->set_name(a);
    in->set_type(tensorflow::DT_INT32);
  }
  for (const auto& [r, tensor] : rets) {
    auto* out = f->mutable_signature()->add_output_arg();
    out->set_name(r);
    out->set_type(ret_type);
    (*f->mutable_ret())[r] = tensor;
  }
  return f;
}

void SetTypes(tensorflow::NodeDef* n, const std::string& attr, int count) {
  auto* list = (*n->mutable_attr())[attr].mutable_list();
  for (int i = 0; i < count; ++i) list->add_type(tensorflow::DT_INT32);
}

void AddIntPlaceholder(tensorflow::GraphDef* graph, const std::string& name) {
  auto* p = AddNodeDef(graph->mutable_node(), name, "Placeholder", {});
  (*p->mutable_attr())["dtype"].set_type(tensorflow::DT_INT32);
}

// StatelessWhile "loop" over int32 `inputs`, with the library's functions "cond" and "body".
void AddLoop(tensorflow::GraphDef* graph, std::vector<std::string> inputs) {
  const int n = static_cast<int>(inputs.size());
  auto* loop = AddNodeDef(graph->mutable_node(), "loop", "StatelessWhile", std::move(inputs));
  SetTypes(loop, "T", n);
  (*loop->mutable_attr())["cond"].mutable_func()->set_name("cond");
  (*loop->mutable_attr())["body"].mutable_func()->set_name("body");
}

// x = fed; while (i < 10) { i += 3; x *= 2 } (constants inside cond and body); then
// If(i > 10, x + 100, -x).
tensorflow::GraphDef FunctionalControlFlowGraph() {
  tensorflow::GraphDef graph;
  auto* cond = AddFunction(&graph, "cond", {"i", "x"}, {{"less", "less:z:0"}}, tensorflow::DT_BOOL);
  AddConst(cond->mutable_node_def(), "ten", 10);
  AddNodeDef(cond->mutable_node_def(), "less", "Less", {"i", "ten:output:0"}, tensorflow::DT_INT32);
  auto* body = AddFunction(&graph, "body", {"i", "x"}, {{"i2", "add:z:0"}, {"x2", "mul:z:0"}});
  AddConst(body->mutable_node_def(), "three", 3);
  AddConst(body->mutable_node_def(), "two", 2);
  AddNodeDef(body->mutable_node_def(), "add", "AddV2", {"i", "three:output:0"}, tensorflow::DT_INT32);
  AddNodeDef(body->mutable_node_def(), "mul", "Mul", {"x", "two:output:0"}, tensorflow::DT_INT32);
  auto* then_f = AddFunction(&graph, "then", {"x"}, {{"y", "plus:z:0"}});
  AddConst(then_f->mutable_node_def(), "hundred", 100);
  AddNodeDef(then_f->mutable_node_def(), "plus", "AddV2", {"x", "hundred:output:0"}, tensorflow::DT_INT32);
  auto* else_f = AddFunction(&graph, "else", {"x"}, {{"y", "neg:y:0"}});
  AddNodeDef(else_f->mutable_node_def(), "neg", "Neg", {"x"}, tensorflow::DT_INT32);

  AddIntPlaceholder(&graph, "x");
  AddConst(graph.mutable_node(), "zero", 0);
  AddLoop(&graph, {"zero", "x"});
  AddConst(graph.mutable_node(), "limit", 10);
  AddNodeDef(graph.mutable_node(), "big", "Greater", {"loop", "limit"}, tensorflow::DT_INT32);
  auto* branch = AddNodeDef(graph.mutable_node(), "branch", "StatelessIf", {"big", "loop:1"});
  (*branch->mutable_attr())["Tcond"].set_type(tensorflow::DT_BOOL);
  SetTypes(branch, "Tin", 1);
  SetTypes(branch, "Tout", 1);
  (*branch->mutable_attr())["then_branch"].mutable_func()->set_name("then");
  (*branch->mutable_attr())["else_branch"].mutable_func()->set_name("else");
  return graph;
}

TEST_CASE("a functional While and If run as loops and conditionals with their functions' constants") {
  auto session = NewSessionWith(FunctionalControlFlowGraph());
  std::vector<Tensor> out;
  Status s = session->Run({{"x", Tensor::Scalar<int32_t>(5)}}, {"loop:0", "loop:1", "branch"}, {}, &out);
  INFO(s.ToString());
  REQUIRE(s.ok());
  CHECK(*out[0].base<int32_t>() == 12);  // 0, 3, 6, 9, 12
  CHECK(*out[1].base<int32_t>() == 80);  // 5 * 2^4
  CHECK(*out[2].base<int32_t>() == 180);
}

TEST_CASE("a lowered While is a frame named after it; an If's branches hang off Switches") {
  tensorflow::GraphDef graph = FunctionalControlFlowGraph();
  REQUIRE(InlineFunctionCalls(&graph).ok());
  std::map<std::string, std::string> op_of;
  for (const auto& n : graph.node()) {
    op_of[n.name()] = n.op();
    if (n.op() == "Enter") CHECK(n.attr().at("frame_name").s() == "loop");
  }
  CHECK(op_of["loop"] == "IdentityN");
  CHECK(op_of["loop/cond/ten"] == "Const");
  CHECK(op_of["loop/next_iteration_1"] == "NextIteration");
  CHECK(op_of["branch"] == "IdentityN");
  CHECK(op_of["branch/input_0"] == "Switch");
  CHECK(op_of["branch/output_0"] == "Merge");
  CHECK(op_of["branch/then/hundred"] == "Const");
}

// x = fed, k = fed; while (i < 10) { i += k; x *= 2 } with k returned as it came (what a
// tf.function's loop does with what it captures); `all_invariant`: the body returns i and x
// unchanged too (a loop whose cond is false at once).
tensorflow::GraphDef LoopWithInvariant(bool all_invariant) {
  tensorflow::GraphDef graph;
  auto* cond = AddFunction(&graph, "cond", {"i", "x", "k"}, {{"less", "less:z:0"}}, tensorflow::DT_BOOL);
  AddConst(cond->mutable_node_def(), "ten", 10);
  AddNodeDef(cond->mutable_node_def(), "less", "Less", {"i", "ten:output:0"}, tensorflow::DT_INT32);
  auto* body = all_invariant ? AddFunction(&graph, "body", {"i", "x", "k"}, {{"i2", "i"}, {"x2", "x"}, {"k2", "k"}})
                             : AddFunction(&graph, "body", {"i", "x", "k"}, {{"i2", "add:z:0"}, {"x2", "mul:z:0"},
                                                                             {"k2", "k"}});
  AddConst(body->mutable_node_def(), "two", 2);
  AddNodeDef(body->mutable_node_def(), "add", "AddV2", {"i", "k"}, tensorflow::DT_INT32);
  AddNodeDef(body->mutable_node_def(), "mul", "Mul", {"x", "two:output:0"}, tensorflow::DT_INT32);
  for (const char* name : {"x", "k"}) AddIntPlaceholder(&graph, name);
  AddConst(graph.mutable_node(), "start", all_invariant ? 20 : 0);
  AddLoop(&graph, {"start", "x", "k"});
  return graph;
}

TEST_CASE("a While's loop invariant enters once, with no Merge, Switch or NextIteration of its own") {
  tensorflow::GraphDef graph = LoopWithInvariant(false);
  auto session = NewSessionWith(graph);
  std::vector<Tensor> out;
  Status s = session->Run({{"x", Tensor::Scalar<int32_t>(5)}, {"k", Tensor::Scalar<int32_t>(3)}},
                          {"loop:0", "loop:1", "loop:2"}, {}, &out);
  INFO(s.ToString());
  REQUIRE(s.ok());
  CHECK(*out[0].base<int32_t>() == 12);  // 0, 3, 6, 9, 12
  CHECK(*out[1].base<int32_t>() == 80);  // 5 * 2^4
  CHECK(*out[2].base<int32_t>() == 3);
  REQUIRE(InlineFunctionCalls(&graph).ok());
  std::map<std::string, const tensorflow::NodeDef*> nodes;
  for (const auto& n : graph.node()) nodes[n.name()] = &n;
  REQUIRE(nodes.count("loop/enter_2") == 1);
  CHECK(nodes["loop/enter_2"]->attr().at("is_constant").b());
  CHECK_FALSE(nodes["loop/enter_1"]->attr().at("is_constant").b());
  for (const char* gone : {"loop/merge_2", "loop/switch_2", "loop/identity_2", "loop/next_iteration_2", "loop/exit_2"}) {
    INFO(gone);
    CHECK(nodes.count(gone) == 0);
  }
  CHECK(nodes.count("loop/merge_1") == 1);

  // Every variable invariant: the loop is kept as written (and its cond is false at once).
  graph = LoopWithInvariant(true);
  session = NewSessionWith(graph);
  s = session->Run({{"x", Tensor::Scalar<int32_t>(5)}, {"k", Tensor::Scalar<int32_t>(3)}}, {"loop:0", "loop:1", "loop:2"},
                   {}, &out);
  INFO(s.ToString());
  REQUIRE(s.ok());
  CHECK(*out[0].base<int32_t>() == 20);
  CHECK(*out[1].base<int32_t>() == 5);
  REQUIRE(InlineFunctionCalls(&graph).ok());
  bool merges = false;
  for (const auto& n : graph.node()) merges = merges || n.name() == "loop/merge_2";
  CHECK(merges);
}

TEST_CASE("a While without loop variables and an If on a non-bool cond are refused") {
  tensorflow::GraphDef graph = FunctionalControlFlowGraph();
  auto* loop = graph.mutable_node(2);
  REQUIRE(loop->name() == "loop");
  loop->clear_input();
  (*loop->mutable_attr())["T"].mutable_list()->clear_type();
  Status s = InlineFunctionCalls(&graph);
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK(s.message().find("no loop variables") != std::string::npos);

  graph = FunctionalControlFlowGraph();
  (*graph.mutable_node(5)->mutable_attr())["Tcond"].set_type(tensorflow::DT_INT32);
  s = InlineFunctionCalls(&graph);
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK(s.message().find("only bool conds") != std::string::npos);
}

// Three branches of one int32 argument: x + 100, -x, x * 2.
void AddCaseBranches(tensorflow::GraphDef* graph) {
  auto* plus = AddFunction(graph, "plus_hundred", {"x"}, {{"y", "add:z:0"}});
  AddConst(plus->mutable_node_def(), "hundred", 100);
  AddNodeDef(plus->mutable_node_def(), "add", "AddV2", {"x", "hundred:output:0"}, tensorflow::DT_INT32);
  auto* neg = AddFunction(graph, "negate", {"x"}, {{"y", "neg:y:0"}});
  AddNodeDef(neg->mutable_node_def(), "neg", "Neg", {"x"}, tensorflow::DT_INT32);
  auto* twice = AddFunction(graph, "twice", {"x"}, {{"y", "mul:z:0"}});
  AddConst(twice->mutable_node_def(), "two", 2);
  AddNodeDef(twice->mutable_node_def(), "mul", "Mul", {"x", "two:output:0"}, tensorflow::DT_INT32);
}

void SetCase(tensorflow::NodeDef* node) {
  SetTypes(node, "Tin", 1);
  SetTypes(node, "Tout", 1);
  auto* branches = (*node->mutable_attr())["branches"].mutable_list();
  for (const char* f : {"plus_hundred", "negate", "twice"}) branches->add_func()->set_name(f);
}

TEST_CASE("a functional Case runs the indexed branch, and the last one for an index out of range") {
  tensorflow::GraphDef graph;
  AddCaseBranches(&graph);
  for (const char* name : {"x", "index"}) AddIntPlaceholder(&graph, name);
  SetCase(AddNodeDef(graph.mutable_node(), "case", "Case", {"index", "x"}));
  auto session = NewSessionWith(graph);
  for (const auto& [index, want] : std::vector<std::pair<int32_t, int32_t>>{{0, 105}, {1, -5}, {2, 10}, {7, 10}, {-3, 10}}) {
    INFO("index " << index);
    std::vector<Tensor> out;
    Status s = session->Run({{"x", Tensor::Scalar<int32_t>(5)}, {"index", Tensor::Scalar<int32_t>(index)}}, {"case"}, {},
                            &out);
    INFO(s.ToString());
    REQUIRE(s.ok());
    CHECK(*out[0].base<int32_t>() == want);
  }

  tensorflow::GraphDef lowered = graph;
  REQUIRE(InlineFunctionCalls(&lowered).ok());
  std::map<std::string, std::string> op_of;
  for (const auto& n : lowered.node()) op_of[n.name()] = n.op();
  CHECK(op_of["case"] == "IdentityN");
  CHECK(op_of["case/branch_1_input_0"] == "Switch");
  CHECK(op_of["case/output_0"] == "Merge");
  CHECK(op_of["case/branch_2/two"] == "Const");
}

TEST_CASE("a StatelessCase inside a While body picks a branch each iteration") {
  // while (i < 3) { x = branches[i](x); i += 1 }: 5 -> 105 -> -105 -> -210.
  tensorflow::GraphDef graph;
  AddCaseBranches(&graph);
  auto* cond = AddFunction(&graph, "cond", {"i", "x"}, {{"less", "less:z:0"}}, tensorflow::DT_BOOL);
  AddConst(cond->mutable_node_def(), "three", 3);
  AddNodeDef(cond->mutable_node_def(), "less", "Less", {"i", "three:output:0"}, tensorflow::DT_INT32);
  auto* body = AddFunction(&graph, "body", {"i", "x"}, {{"i2", "add:z:0"}, {"x2", "case:output:0"}});
  AddConst(body->mutable_node_def(), "one", 1);
  AddNodeDef(body->mutable_node_def(), "add", "AddV2", {"i", "one:output:0"}, tensorflow::DT_INT32);
  SetCase(AddNodeDef(body->mutable_node_def(), "case", "StatelessCase", {"i", "x"}));
  AddIntPlaceholder(&graph, "x");
  AddConst(graph.mutable_node(), "zero", 0);
  AddLoop(&graph, {"zero", "x"});
  auto session = NewSessionWith(graph);
  std::vector<Tensor> out;
  Status s = session->Run({{"x", Tensor::Scalar<int32_t>(5)}}, {"loop:0", "loop:1"}, {}, &out);
  INFO(s.ToString());
  REQUIRE(s.ok());
  CHECK(*out[0].base<int32_t>() == 3);
  CHECK(*out[1].base<int32_t>() == -210);
}

}  // namespace
}  // namespace tensoract
