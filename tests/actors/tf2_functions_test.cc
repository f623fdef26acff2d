// A GraphDef written by TensorFlow 2 with a function library (tests/data/tf2_functions.pbtxt:
// a StatefulPartitionedCall of a function that calls another through a PartitionedCall and
// updates a captured variable) runs through the C++ Session with TensorFlow's values; and
// the inliner's errors (graph/function_library.h).
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

}  // namespace
}  // namespace tensoract
