// Bad input gets a Status naming what was wrong, and the session keeps working.
#include "graph/builder/ops.h"
#include "tests/actors/test_util.h"

namespace tensoract {
namespace {

using testing::DataPath;
using testing::NewSessionWith;
using testing::Values;

tensorflow::GraphDef TestGraph() {
  tensorflow::GraphDef graph;
  REQUIRE(ReadTextProto(DataPath("matmul_add.pbtxt"), &graph).ok());
  return graph;
}

Tensor XValue() { return Tensor::FromVector<float>({1, 1, 2, 0}, TensorShape({2, 2})); }

// After any error the same session must still run a good step.
void ExpectStillWorks(Session* session) {
  std::vector<Tensor> out;
  Status s = session->Run({{"x", XValue()}}, {"y"}, {}, &out);
  INFO(s.ToString());
  REQUIRE(s.ok());
  CHECK(Values(out[0]) == std::vector<float>{14, 26, 12, 24});
}

tensorflow::GraphDef FromText(const std::string& text) {
  tensorflow::GraphDef graph;
  Status s = ParseTextProto(text, &graph);
  INFO(s.ToString());
  REQUIRE(s.ok());
  return graph;
}

tensorflow::NodeDef* FindNode(tensorflow::GraphDef* graph, const std::string& name) {
  for (auto& node : *graph->mutable_node()) {
    if (node.name() == name) return &node;
  }
  FAIL("no node '" << name << "' in the test graph");
  return nullptr;
}

// Create must fail with `code` and a message naming every culprit; the same session then
// takes a good graph and runs it (a failed Create leaves nothing behind).
void ExpectCreateFails(const tensorflow::GraphDef& graph, error::Code code, const std::vector<std::string>& culprits) {
  auto session = Session::New();
  REQUIRE(session.ok());
  Status s = (*session)->Create(graph);
  INFO(s.ToString());
  CHECK(s.code() == code);
  for (const std::string& culprit : culprits) CHECK_THAT(s.message(), Catch::Contains(culprit));
  Status again = (*session)->Create(TestGraph());
  INFO(again.ToString());
  REQUIRE(again.ok());
  ExpectStillWorks((*session).get());
}

TEST_CASE("a graph with an unknown op fails at Create, naming the op and the node") {
  tensorflow::GraphDef graph = TestGraph();
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
  tensorflow::GraphDef graph = TestGraph();
  graph.mutable_node(4)->set_input(1, "nope:0");
  auto session = Session::New();
  Status s = (*session)->Create(graph);
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Catch::Contains("'y'") && Catch::Contains("'nope'"));
}

TEST_CASE("a feed of the wrong dtype names the feed and both types") {
  auto session = NewSessionWith(TestGraph());
  std::vector<Tensor> out;
  Status s = session->Run({{"x", Tensor::FromVector<int32_t>({1, 2, 3, 4}, TensorShape({2, 2}))}}, {"y"}, {}, &out);
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Catch::Contains("feed 'x'") && Catch::Contains("int32") && Catch::Contains("float"));
  ExpectStillWorks(session.get());
}

TEST_CASE("a feed of the wrong shape names the feed and both shapes") {
  auto session = NewSessionWith(TestGraph());
  std::vector<Tensor> out;
  Status s = session->Run({{"x", Tensor::FromVector<float>({1, 2, 3})}}, {"y"}, {}, &out);
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Catch::Contains("feed 'x'") && Catch::Contains("[3]") && Catch::Contains("[2,2]"));
  ExpectStillWorks(session.get());
}

TEST_CASE("a fetch of a node that does not exist is NotFound naming it") {
  auto session = NewSessionWith(TestGraph());
  std::vector<Tensor> out;
  Status s = session->Run({{"x", XValue()}}, {"ghost:0"}, {}, &out);
  CHECK(s.code() == error::NOT_FOUND);
  CHECK_THAT(s.message(), Catch::Contains("fetch 'ghost:0'"));
  s = session->Run({{"x", XValue()}}, {"y:3"}, {}, &out);
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Catch::Contains("'y:3'") && Catch::Contains("1 output"));
  s = session->Run({{"ghost", XValue()}}, {"y"}, {}, &out);
  CHECK(s.code() == error::NOT_FOUND);
  s = session->Run({{"x", XValue()}}, {}, {"ghost"}, &out);
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
  tensorflow::GraphDef graph = TestGraph();
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
  REQUIRE((*session)->Create(TestGraph()).ok());
  CHECK((*session)->Create(TestGraph()).code() == error::ALREADY_EXISTS);
  REQUIRE((*session)->Close().ok());
  CHECK((*session)->Run({{"x", XValue()}}, {"y"}, {}, &out).code() == error::CANCELLED);
}

TEST_CASE("a truncated binary GraphDef, at any cut, is an error or a graph Create judges, never a crash") {
  const std::string bytes = TestGraph().SerializeAsString();
  int parse_errors = 0;
  for (size_t cut = 1; cut < bytes.size(); cut += 7) {
    INFO("cut at " << cut << " of " << bytes.size() << " bytes");
    tensorflow::GraphDef parsed;
    Status s = ParseBinaryProto(bytes.substr(0, cut), &parsed);
    if (!s.ok()) {
      ++parse_errors;
      CHECK(s.code() == error::INVALID_ARGUMENT);
      CHECK_THAT(s.message(), Catch::Contains("tensorflow.GraphDef") && Catch::Contains("truncated"));
      continue;
    }
    // A cut between two fields leaves a shorter, well-formed message: Create must judge it
    // with a Status (a node without its inputs, a Const without its value...).
    auto session = Session::New();
    REQUIRE(session.ok());
    Status created = (*session)->Create(parsed);
    if (!created.ok()) CHECK(!created.message().empty());
  }
  CHECK(parse_errors > 0);
  // Bytes that are no protobuf at all, and a truncated file read by its path.
  tensorflow::GraphDef parsed;
  CHECK(ParseBinaryProto(std::string("\xff\xff\xff\xff\x0f garbage", 13), &parsed).code() == error::INVALID_ARGUMENT);
  const std::string path = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") +
                           "/tensoract_bad_input_truncated.pb";
  REQUIRE(WriteStringToFile(path, bytes.substr(0, bytes.size() - 3)).ok());
  Status s = ReadProto(path, &parsed);
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Catch::Contains(path) && Catch::Contains("tensorflow.GraphDef"));
}

TEST_CASE("a text GraphDef file with a syntax error names the file, the line and the column") {
  const std::string path = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") +
                           "/tensoract_bad_input_syntax.pbtxt";
  // Line 4, column 9: a string field given a bare word.
  REQUIRE(WriteStringToFile(path, "node {\n  name: \"a\"\n  op: \"NoOp\"\n  input: b\n}\n").ok());
  tensorflow::GraphDef parsed;
  Status s = ReadProto(path, &parsed);
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Catch::Contains(path) && Catch::Contains("line 4 column 10"));
  // An unterminated message is reported where the text ends.
  s = ParseTextProto("node {\n  name: \"a\"\n", &parsed);
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Catch::Contains("line 3"));
}

TEST_CASE("attr errors fail at Create naming the node and the attr, even in a node no fetch needs") {
  SECTION("wrong attr type") {
    tensorflow::GraphDef graph = TestGraph();
    (*FindNode(&graph, "MatMul")->mutable_attr())["transpose_a"].set_type(tensorflow::DT_FLOAT);
    ExpectCreateFails(graph, error::INVALID_ARGUMENT, {"'MatMul'", "'transpose_a'"});
  }
  SECTION("missing required attr") {
    tensorflow::GraphDef graph = TestGraph();
    FindNode(&graph, "unused")->mutable_attr()->erase("T");
    ExpectCreateFails(graph, error::INVALID_ARGUMENT, {"'unused'", "'T'"});
  }
  SECTION("an attr the op does not declare") {
    tensorflow::GraphDef graph = TestGraph();
    (*FindNode(&graph, "y")->mutable_attr())["frobnicate"].set_b(true);
    ExpectCreateFails(graph, error::INVALID_ARGUMENT, {"'y'", "'frobnicate'"});
  }
  SECTION("a type the op does not allow") {
    ExpectCreateFails(FromText(R"pb(
      node { name: "s" op: "Placeholder" attr { key: "dtype" value { type: DT_STRING } } }
      node { name: "product" op: "MatMul" input: "s" input: "s"
             attr { key: "T" value { type: DT_STRING } } }
    )pb"), error::INVALID_ARGUMENT, {"'product'", "string"});
  }
}

TEST_CASE("structural errors fail at Create naming the culprit") {
  SECTION("two nodes with one name") {
    tensorflow::GraphDef graph = TestGraph();
    *graph.add_node() = *FindNode(&graph, "x");
    ExpectCreateFails(graph, error::INVALID_ARGUMENT, {"'x'"});
  }
  SECTION("an input from a port the node does not have") {
    tensorflow::GraphDef graph = TestGraph();
    FindNode(&graph, "y")->set_input(0, "MatMul:3");
    ExpectCreateFails(graph, error::INVALID_ARGUMENT, {"'y'", "MatMul:3"});
  }
  SECTION("a control input from a node that does not exist") {
    tensorflow::GraphDef graph = TestGraph();
    FindNode(&graph, "y")->add_input("^phantom");
    ExpectCreateFails(graph, error::INVALID_ARGUMENT, {"'y'", "phantom"});
  }
  SECTION("an input that is not a tensor name") {
    tensorflow::GraphDef graph = TestGraph();
    FindNode(&graph, "y")->set_input(1, "b:one");
    ExpectCreateFails(graph, error::INVALID_ARGUMENT, {"b:one"});
  }
  SECTION("too few inputs") {
    tensorflow::GraphDef graph = TestGraph();
    FindNode(&graph, "y")->mutable_input()->RemoveLast();
    ExpectCreateFails(graph, error::INVALID_ARGUMENT, {"'y'"});
  }
  SECTION("an input of the wrong dtype") {
    tensorflow::GraphDef graph = TestGraph();
    (*FindNode(&graph, "x")->mutable_attr())["dtype"].set_type(tensorflow::DT_INT32);
    ExpectCreateFails(graph, error::INVALID_ARGUMENT, {"'MatMul'", "int32", "float"});
  }
}

TEST_CASE("a cycle outside control flow fails at Create naming a node on it, wherever it is") {
  SECTION("two nodes feeding each other, needed by no fetch") {
    tensorflow::GraphDef graph = TestGraph();
    auto* a = graph.add_node();
    *a = *FindNode(&graph, "unused");
    a->set_name("loop_a");
    a->set_input(0, "loop_b");
    auto* b = graph.add_node();
    *b = *a;
    b->set_name("loop_b");
    b->set_input(0, "loop_a");
    auto session = Session::New();
    Status s = (*session)->Create(graph);
    CHECK(s.code() == error::INVALID_ARGUMENT);
    CHECK_THAT(s.message(), Catch::Contains("cycle"));
    CHECK_THAT(s.message(), Catch::Contains("loop_a") || Catch::Contains("loop_b"));
  }
  SECTION("a node that is its own input") {
    tensorflow::GraphDef graph = TestGraph();
    FindNode(&graph, "unused")->set_input(0, "unused");
    ExpectCreateFails(graph, error::INVALID_ARGUMENT, {"cycle", "unused"});
  }
  SECTION("a cycle of control inputs") {
    tensorflow::GraphDef graph = TestGraph();
    FindNode(&graph, "y")->add_input("^unused");
    FindNode(&graph, "unused")->add_input("^y");
    auto session = Session::New();
    Status s = (*session)->Create(graph);
    CHECK(s.code() == error::INVALID_ARGUMENT);
    CHECK_THAT(s.message(), Catch::Contains("cycle") && (Catch::Contains("'y'") || Catch::Contains("unused")));
  }
}

TEST_CASE("a fetch of a port a node does not have, or of a pruned-away node, names it") {
  auto session = NewSessionWith(TestGraph());
  std::vector<Tensor> out;
  Status s = session->Run({{"x", XValue()}}, {"x:5"}, {}, &out);
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Catch::Contains("'x:5'") && Catch::Contains("1 output"));
  s = session->Run({{"x:1", XValue()}}, {"y"}, {}, &out);
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Catch::Contains("x:1"));
  // `unused` is pruned from the step that fetches y, but a step may fetch it by name.
  REQUIRE(session->Run({{"x", XValue()}}, {"y", "unused"}, {}, &out).ok());
  CHECK(Values(out[1]) == std::vector<float>{2, 4, 6, 8});
  s = session->Run({{"x", XValue()}}, {}, {"nowhere"}, &out);
  CHECK(s.code() == error::NOT_FOUND);
  CHECK_THAT(s.message(), Catch::Contains("'nowhere'"));
  ExpectStillWorks(session.get());
}

TEST_CASE("feeds of the wrong dtype or an incompatible shape name the feed; the same tensor fed and fetched comes back") {
  auto session = NewSessionWith(FromText(R"pb(
    node { name: "n" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } }
           attr { key: "shape" value { shape { dim { size: -1 } dim { size: 2 } } } } }
    node { name: "twice" op: "Add" input: "n" input: "n" attr { key: "T" value { type: DT_INT32 } } }
  )pb"));
  std::vector<Tensor> out;
  Status s = session->Run({{"n", Tensor::FromVector<float>({1, 2}, TensorShape({1, 2}))}}, {"twice"}, {}, &out);
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Catch::Contains("'n'") && Catch::Contains("float") && Catch::Contains("int32"));
  s = session->Run({{"n", Tensor::FromVector<int32_t>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3}))}}, {"twice"}, {}, &out);
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Catch::Contains("'n'") && Catch::Contains("[2,3]") && Catch::Contains("[?,2]"));
  s = session->Run({{"n", Tensor::Scalar<int32_t>(1)}}, {"twice"}, {}, &out);
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Catch::Contains("'n'") && Catch::Contains("[]"));
  // Any number of rows fits [?,2].
  Tensor n = Tensor::FromVector<int32_t>({1, 2, 3, 4, 5, 6}, TensorShape({3, 2}));
  REQUIRE(session->Run({{"n", n}}, {"twice", "n"}, {}, &out).ok());
  CHECK(out[0].shape() == TensorShape({3, 2}));
  const int32_t* twice = out[0].base<int32_t>();
  CHECK(std::vector<int32_t>(twice, twice + 6) == std::vector<int32_t>{2, 4, 6, 8, 10, 12});
  // A fed tensor that is also fetched comes back as fed, as in TensorFlow.
  CHECK(out[1].SharesBufferWith(n));
  Tensor fed_sum = Tensor::FromVector<int32_t>({7, 7}, TensorShape({1, 2}));
  REQUIRE(session->Run({{"twice:0", fed_sum}}, {"twice:0"}, {}, &out).ok());
  CHECK(out[0].base<int32_t>()[0] == 7);
}

TEST_CASE("a Const whose value does not match its dtype is an error naming it, not a crash") {
  tensorflow::GraphDef graph = TestGraph();
  auto* value = (*FindNode(&graph, "W")->mutable_attr())["value"].mutable_tensor();
  value->clear_float_val();
  value->set_tensor_content(std::string(5, '\0'));  // 5 bytes for 4 floats
  auto session = Session::New();
  Status s = (*session)->Create(graph);
  std::vector<Tensor> out;
  if (s.ok()) s = (*session)->Run({{"x", XValue()}}, {"y"}, {}, &out);
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Catch::Contains("'W'"));
}

TEST_CASE("Run after Close says the session was closed") {
  auto session = NewSessionWith(TestGraph());
  REQUIRE(session->Close().ok());
  std::vector<Tensor> out;
  Status s = session->Run({{"x", XValue()}}, {"y"}, {}, &out);
  // TensorFlow's DirectSession: CANCELLED "Session has been closed."
  CHECK(s.code() == error::CANCELLED);
  CHECK_THAT(s.message(), Catch::Contains("Session has been closed."));
  CHECK(session->Close().ok());  // closing twice is harmless
}

}  // namespace
}  // namespace tensoract
