// RewriteForCall and PruneForTargets: from a session's whole graph to what one Run call
// executes.
//
// Any tensor may be fed, not only a Placeholder's, and feeding one cuts off whatever
// produced it; whatever no fetch or target needs is not run. Getting this wrong runs too
// much (a stateful op fires that should not) or too little (a fetch has no producer).
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "base/proto_io.h"
#include "base/status.h"
#include "graph/graph.h"
#include "graph/subgraph.h"

namespace tensoract {
namespace {

using Catch::Matchers::Contains;
namespace tf = ::tensorflow;

//   x (Placeholder [?,2]) --+
//                           Add "a" --> Mul "b"
//   c (Const) --------------+-----------^
//   c --> Identity "unused";  NoOp "init" after "unused" (a target, when asked)
const char* const kSubgraphGraph = R"pb(
  node {
    name: "x" op: "Placeholder"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape { dim { size: -1 } dim { size: 2 } } } }
  }
  node {
    name: "c" op: "Const"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT float_val: 2 } } }
  }
  node { name: "a" op: "Add" input: "x" input: "c" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "b" op: "Mul" input: "a" input: "c" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "unused" op: "Identity" input: "c" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "init" op: "NoOp" input: "^unused" }
)pb";

void Import(Graph* graph) {
  tf::GraphDef def;
  REQUIRE(ParseTextProto(kSubgraphGraph, &def).ok());
  Status s = ImportGraphDef(def, graph);
  INFO(s);
  REQUIRE(s.ok());
}

std::vector<std::string> NodeNames(const Graph& graph) {
  std::vector<std::string> names;
  for (Node* n : graph.op_nodes()) names.push_back(n->name());
  return names;
}

std::vector<Node*> NodesOfOp(const Graph& graph, const std::string& op) {
  std::vector<Node*> out;
  for (Node* n : graph.op_nodes()) {
    if (n->type_string() == op) out.push_back(n);
  }
  return out;
}

// Rewrites and prunes a fresh import of kSubgraphGraph for `sig`, requiring success.
void RewriteAndPrune(Graph* graph, CallSignature* sig) {
  Import(graph);
  Status s = RewriteForCall(graph, sig);
  INFO(s);
  REQUIRE(s.ok());
  PruneForTargets(graph, sig->targets);
  std::vector<Node*> order;
  REQUIRE(TopologicalOrder(*graph, &order).ok());
}

Status RewriteError(CallSignature sig) {
  Graph graph;
  Import(&graph);
  Status s = RewriteForCall(&graph, &sig);
  REQUIRE_FALSE(s.ok());
  return s;
}

TEST_CASE("feeding a placeholder and fetching a result keeps only what the fetch needs") {
  Graph graph;
  CallSignature sig;
  sig.feeds = {"x"};
  sig.fetches = {"b"};
  RewriteAndPrune(&graph, &sig);

  auto args = NodesOfOp(graph, "_Arg");
  auto rets = NodesOfOp(graph, "_Retval");
  REQUIRE(args.size() == 1);
  REQUIRE(rets.size() == 1);
  CHECK(graph.FindNode("a") != nullptr);
  CHECK(graph.FindNode("b") != nullptr);
  CHECK(graph.FindNode("c") != nullptr);
  CHECK(graph.FindNode("x") == nullptr);  // replaced by the _Arg
  CHECK(graph.FindNode("unused") == nullptr);
  CHECK(graph.FindNode("init") == nullptr);
  CHECK(graph.num_op_nodes() == 5);

  CHECK(graph.FindNode("a")->input_edge(0)->src == args[0]);
  CHECK(rets[0]->input_edge(0)->src == graph.FindNode("b"));
  int64_t index = -1;
  REQUIRE(GetNodeAttr(args[0]->def(), "index", &index).ok());
  CHECK(index == 0);

  CHECK(sig.feed_types == DataTypeVector{tf::DT_FLOAT});
  REQUIRE(sig.feed_shapes.size() == 1);
  CHECK(sig.feed_shapes[0].DebugString() == "[?,2]");
  CHECK(sig.fetch_types == DataTypeVector{tf::DT_FLOAT});
}

TEST_CASE("feeding a tensor that is not a placeholder cuts its producer out of the call") {
  Graph graph;
  CallSignature sig;
  sig.feeds = {"a"};
  sig.fetches = {"b"};
  RewriteAndPrune(&graph, &sig);

  CHECK(graph.FindNode("a") == nullptr);  // its value comes from the feed
  CHECK(graph.FindNode("x") == nullptr);  // and so nothing needs the placeholder
  auto args = NodesOfOp(graph, "_Arg");
  REQUIRE(args.size() == 1);
  CHECK(graph.FindNode("b")->input_edge(0)->src == args[0]);
  CHECK(graph.FindNode("b")->input_edge(1)->src == graph.FindNode("c"));
  CHECK(sig.feed_types == DataTypeVector{tf::DT_FLOAT});
  REQUIRE(sig.feed_shapes.size() == 1);
  CHECK(sig.feed_shapes[0].unknown_rank());  // nothing declares a's shape
}

TEST_CASE("fetching a fed tensor returns the fed value, without running its producer") {
  Graph graph;
  CallSignature sig;
  sig.feeds = {"a"};
  sig.fetches = {"a", "b"};
  RewriteAndPrune(&graph, &sig);

  CHECK(graph.FindNode("a") == nullptr);
  auto args = NodesOfOp(graph, "_Arg");
  auto rets = NodesOfOp(graph, "_Retval");
  REQUIRE(args.size() == 1);
  REQUIRE(rets.size() == 2);
  for (Node* ret : rets) {
    int64_t index = -1;
    REQUIRE(GetNodeAttr(ret->def(), "index", &index).ok());
    const Node* src = ret->input_edge(0)->src;
    if (index == 0) CHECK(src == args[0]);
    if (index == 1) CHECK(src == graph.FindNode("b"));
  }
  CHECK(sig.fetch_types == DataTypeVector{tf::DT_FLOAT, tf::DT_FLOAT});
}

TEST_CASE("a target keeps itself and what it depends on, through control edges too") {
  Graph graph;
  CallSignature sig;
  sig.targets = {"init"};
  RewriteAndPrune(&graph, &sig);
  CHECK(NodeNames(graph) == std::vector<std::string>{"c", "unused", "init"});
  CHECK(NodesOfOp(graph, "_Retval").empty());
}

TEST_CASE("a call with no fetches and no targets runs nothing") {
  Graph graph;
  CallSignature sig;
  RewriteAndPrune(&graph, &sig);
  CHECK(graph.num_op_nodes() == 0);
}

TEST_CASE("a fed tensor that nothing fetched needs is pruned, _Arg and all") {
  Graph graph;
  CallSignature sig;
  sig.feeds = {"x"};
  sig.fetches = {"unused"};
  RewriteAndPrune(&graph, &sig);
  CHECK(graph.FindNode("a") == nullptr);
  CHECK(graph.FindNode("b") == nullptr);
  CHECK(graph.FindNode("unused") != nullptr);
  CHECK(NodesOfOp(graph, "_Retval").size() == 1);
  CHECK(NodesOfOp(graph, "_Arg").empty());
  CHECK(sig.feed_types.size() == 1);  // the signature still lists the feed
}

TEST_CASE("a fetch written 'node:0' is the node's first output") {
  Graph graph;
  CallSignature sig;
  sig.fetches = {"c:0"};
  RewriteAndPrune(&graph, &sig);
  CHECK(sig.fetch_types == DataTypeVector{tf::DT_FLOAT});
  CHECK(graph.num_op_nodes() == 2);
}

TEST_CASE("a fetch naming a missing node is NotFound naming it") {
  CallSignature sig;
  sig.fetches = {"nope:0"};
  Status s = RewriteError(sig);
  CHECK(s.code() == error::NOT_FOUND);
  CHECK_THAT(s.message(), Contains("fetch") && Contains("nope"));
}

TEST_CASE("a feed naming a missing node is NotFound naming it") {
  CallSignature sig;
  sig.feeds = {"ghost"};
  sig.fetches = {"b"};
  Status s = RewriteError(sig);
  CHECK(s.code() == error::NOT_FOUND);
  CHECK_THAT(s.message(), Contains("feed") && Contains("ghost"));
}

TEST_CASE("a target naming a missing node is NotFound naming it") {
  CallSignature sig;
  sig.targets = {"train_op"};
  Status s = RewriteError(sig);
  CHECK(s.code() == error::NOT_FOUND);
  CHECK_THAT(s.message(), Contains("target") && Contains("train_op"));
}

TEST_CASE("a feed or fetch port past the node's outputs is an InvalidArgument naming it") {
  CallSignature feed;
  feed.feeds = {"a:1"};
  Status s = RewriteError(feed);
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Contains("a:1"));

  CallSignature fetch;
  fetch.fetches = {"b:5"};
  s = RewriteError(fetch);
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Contains("b:5"));
}

TEST_CASE("a tensor fed twice, under either of its names, is an InvalidArgument naming it") {
  CallSignature sig;
  sig.feeds = {"x", "x:0"};
  Status s = RewriteError(sig);
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Contains("x:0"));
}

TEST_CASE("a control name as a feed or fetch is an InvalidArgument naming it") {
  CallSignature sig;
  sig.fetches = {"^b"};
  Status s = RewriteError(sig);
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Contains("^b"));
}

}  // namespace
}  // namespace tensoract
