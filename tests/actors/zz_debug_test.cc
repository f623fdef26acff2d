#include <iostream>
#include "graph/builder/control_flow.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/ops.h"
#include "tests/actors/test_util.h"
namespace tensoract {
TEST_CASE("zzdebug") {
  Scope root = Scope::NewRootScope();
  auto p = ops::Placeholder(root.WithOpName("p"), tensorflow::DT_BOOL, PartialTensorShape(std::vector<int64_t>{}));
  auto x = ops::Const(root.WithOpName("x"), {1.f, 2.f});
  auto sw = ops::Switch(root.WithOpName("sw"), x, p);
  auto f = ops::Neg(root.WithOpName("f"), sw.output_false);
  auto t = ops::Square(root.WithOpName("t"), sw.output_true);
  auto m = ops::Merge(root.WithOpName("m"), OutputList{f, t});
  tensorflow::GraphDef def; REQUIRE(root.ToGraphDef(&def).ok());
  auto session = testing::NewSessionWith(def);
  std::vector<Tensor> out;
  RunOptions o; o.trace_level = RunOptions::FULL_TRACE; o.output_partition_graphs = true;
  RunMetadata md;
  Status s = session->Run(o, {{"p", Tensor::Scalar<bool>(true)}}, {"m", "m:1", "t"}, {}, &out, &md);
  std::cout << s.ToString() << "\n";
  for (auto& g : md.partition_graphs) std::cout << g.DebugString() << "\n";
  for (auto& d : md.step_stats.dev_stats()) for (auto& n : d.node_stats()) std::cout << n.timeline_label() << "\n";
  for (auto& t : out) std::cout << t.DebugString() << "\n";
}
}
