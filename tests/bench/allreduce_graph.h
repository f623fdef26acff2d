// The graph of one member of the collective benchmarks (allreduce_bench, collective_faults):
// task `task` of `n` holds a float variable of `elements` (filled with task + 1 by "init")
// and all-reduces it ("reduce": CollectiveReduceV2, Add then Div, group 1, `instance`).
#ifndef TENSORACT_TESTS_BENCH_ALLREDUCE_GRAPH_H_
#define TENSORACT_TESTS_BENCH_ALLREDUCE_GRAPH_H_

#include <cstdio>
#include <cstdlib>

#include "graph/builder/array_ops.h"
#include "graph/builder/collective_ops.h"
#include "graph/builder/ops.h"

namespace tensoract {
namespace bench {

inline tensorflow::GraphDef AllReduceMemberGraph(int task, int n, int64_t elements, int instance) {
  Scope s = Scope::NewRootScope().WithDevice(StrCat("/job:worker/replica:0/task:", task, "/device:CPU:0"));
  auto var = ops::VarHandleOp(s.WithOpName("var"), tensorflow::DT_FLOAT, PartialTensorShape({elements}));
  auto fill = ops::Fill(s.WithOpName("fill"), ops::Const(s, {elements}), 1.f + task);
  ops::AssignVariableOp(s.WithOpName("init"), var, fill);
  auto value = ops::ReadVariableOp(s.WithOpName("read"), var, tensorflow::DT_FLOAT);
  ops::CollectiveReduceV2(s.WithOpName("reduce"), value, n, 1, instance, "Add", "Div");
  tensorflow::GraphDef graph;
  Status st = s.ToGraphDef(&graph);
  if (!st.ok()) {
    std::fprintf(stderr, "AllReduceMemberGraph: %s\n", st.ToString().c_str());
    std::exit(1);
  }
  return graph;
}

}  // namespace bench
}  // namespace tensoract

#endif  // TENSORACT_TESTS_BENCH_ALLREDUCE_GRAPH_H_
