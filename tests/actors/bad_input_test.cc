// Bad input gets a Status naming what was wrong, and the session keeps working.
#include "graph/builder/ops.h"
#include "tests/actors/test_util.h"

namespace tensoract {
namespace {

using testing::DataPath;
using testing::NewSessionWith;
using testing::Values;

tensorflow::GraphDef Graph() {
  tensorflow::GraphDef graph;
  REQUIRE(ReadTextProto(DataPath("matmul_add.pbtxt"), &graph).ok());
  return graph;
}

Tensor X() { return Tensor::FromVector<float>({1, 1, 2, 0}, TensorShape({2, 2})); }

// After any error the same session must still run a good step.
void ExpectStillWorks(Session* session) {
  std::vector<Tensor> out;
  Status s = session->Run({{"x", X()}}, {"y"}, {}, &out);
  INFO(s.ToString());
  REQUIRE(s.ok());
  CHECK(Values(out[0]) == std::vector<float>{14, 26, 12, 24});
}

TEST_CASE("a graph with an unknown op fails at Create, naming the op and the node") {
  tensorflow::GraphDef graph = Graph();
  auto* node = graph.add_node();
  node->set_name("mystery");
  node->set_op("FrobnicateV7");
  auto session = Session::New();
  REQUIRE(session.ok());
  Status s = (*session)->Create(graph);
  CHECK(s.code() == error::NOT_FOUND);
  CHECK_THAT(s.message(), Catch::Contains("'FrobnicateV7'") && Catch::Contains("'mystery'"));
}

TEST_CASE("a node whose input names a missing node fails at Create") {
  tensorflow::GraphDef graph = Graph();
  graph.mutable_node(4)->set_input(1, "nope:0");
  auto session = Session::New();
  Status s = (*session)->Create(graph);
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Catch::Contains("'y'") && Catch::Contains("'nope'"));
}

TEST_CASE("a feed of the wrong dtype names the feed and both types") {
  auto session = NewSessionWith(Graph());
  std::vector<Tensor> out;
  Status s = session->Run({{"x", Tensor::FromVector<int32_t>({1, 2, 3, 4}, TensorShape({2, 2}))}}, {"y"}, {}, &out);
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Catch::Contains("feed 'x'") && Catch::Contains("int32") && Catch::Contains("float"));
  ExpectStillWorks(session.get());
}

TEST_CASE("a feed of the wrong shape names the feed and both shapes") {
  auto session = NewSessionWith(Graph());
  std::vector<Tensor> out;
  Status s = session->Run({{"x", Tensor::FromVector<float>({1, 2, 3})}}, {"y"}, {}, &out);
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Catch::Contains("feed 'x'") && Catch::Contains("[3]") && Catch::Contains("[2,2]"));
  ExpectStillWorks(session.get());
}

TEST_CASE("a fetch of a node that does not exist is NotFound naming it") {
  auto session = NewSessionWith(Graph());
  std::vector<Tensor> out;
  Status s = session->Run({{"x", X()}}, {"ghost:0"}, {}, &out);
  CHECK(s.code() == error::NOT_FOUND);
  CHECK_THAT(s.message(), Catch::Contains("fetch 'ghost:0'"));
  s = session->Run({{"x", X()}}, {"y:3"}, {}, &out);
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Catch::Contains("'y:3'") && Catch::Contains("1 output"));
  s = session->Run({{"ghost", X()}}, {"y"}, {}, &out);
  CHECK(s.code() == error::NOT_FOUND);
  s = session->Run({{"x", X()}}, {}, {"ghost"}, &out);
  CHECK(s.code() == error::NOT_FOUND);
  ExpectStillWorks(session.get());
}

TEST_CASE("a kernel's shape error ends the step with a message naming the node") {
  Scope root = Scope::NewRootScope();
  auto a = ops::Placeholder(root.WithOpName("a"), tensorflow::DT_FLOAT);
  auto b = ops::Placeholder(root.WithOpName("b"), tensorflow::DT_FLOAT);
  ops::Add(root.WithOpName("sum"), ops::MatMul(root.WithOpName("product"), a, b), 1.0f);
  tensorflow::GraphDef graph;
  REQUIRE(root.ToGraphDef(&graph).ok());
  auto session = NewSessionWith(graph);
  std::vector<Tensor> out;
  Status s = session->Run({{"a", Tensor::FromVector<float>({1, 2, 3}, TensorShape({1, 3}))},
                           {"b", Tensor::FromVector<float>({1, 2}, TensorShape({2, 1}))}},
                          {"sum"}, {}, &out);
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Catch::Contains("'product'") && Catch::Contains("[1,3]") && Catch::Contains("[2,1]"));
  s = session->Run({{"a", Tensor::FromVector<float>({1, 2}, TensorShape({1, 2}))},
                    {"b", Tensor::FromVector<float>({3, 4}, TensorShape({2, 1}))}},
                   {"sum"}, {}, &out);
  REQUIRE(s.ok());
  CHECK(Values(out[0]) == std::vector<float>{12});
}

TEST_CASE("a truncated binary GraphDef is an error naming the message, not a crash") {
  tensorflow::GraphDef graph = Graph();
  std::string bytes = graph.SerializeAsString();
  tensorflow::GraphDef parsed;
  Status s = ParseBinaryProto(bytes.substr(0, bytes.size() / 2), &parsed);
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Catch::Contains("tensorflow.GraphDef"));
}

TEST_CASE("text with a syntax error says where") {
  tensorflow::GraphDef parsed;
  Status s = ParseTextProto("node {\n  name: \"a\"\n  op: Const\" }\n", &parsed);
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Catch::Contains("line 3"));
}

TEST_CASE("Run before Create and after Close fail cleanly") {
  auto session = Session::New();
  REQUIRE(session.ok());
  std::vector<Tensor> out;
  CHECK((*session)->Run({}, {"y"}, {}, &out).code() == error::FAILED_PRECONDITION);
  REQUIRE((*session)->Create(Graph()).ok());
  CHECK((*session)->Create(Graph()).code() == error::ALREADY_EXISTS);
  REQUIRE((*session)->Close().ok());
  CHECK((*session)->Run({{"x", X()}}, {"y"}, {}, &out).code() == error::FAILED_PRECONDITION);
}

}  // namespace
}  // namespace tensoract
