// Graphs of the collective benchmarks and tests. AllReduceMemberGraph: one member
// (allreduce_bench, collective_faults). AllReduceTraining: data-parallel training over every
// worker, one client driving them all (collective_faults' resumed training,
// tests/cluster/collective_cluster_test.cc).
#ifndef TENSORACT_TESTS_BENCH_ALLREDUCE_GRAPH_H_
#define TENSORACT_TESTS_BENCH_ALLREDUCE_GRAPH_H_

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "client/session.h"
#include "client/training_loop.h"
#include "graph/builder/array_ops.h"
#include "graph/builder/collective_ops.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/ops.h"
#include "graph/training/variables.h"

namespace tensoract {
namespace bench {

// Task `task` of `n` holds a float variable of `elements` (filled with task + 1 by "init")
// and all-reduces it ("reduce": CollectiveReduceV2, Add then Div, group 1, `instance`).
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

// Replica i of n on /job:worker task i holds w (8 floats, the same start on every replica);
// "<prefix>/train" moves each w by 0.1 x the replicas' mean gradient of |w - x_i|^2
// (CollectiveReduceV2, group 1, `instance_key`), x_i fed as "<prefix>/x_i". The replicas
// stay equal, and a step's result depends on every replica's w: a replica restored from
// another step than the others would show in the weights. Build into `root` (a Saver may
// add its ops over `weights`), then Finish().
struct AllReduceTraining {
  Scope root = Scope::NewRootScope();
  std::string prefix;
  int n;
  tensorflow::GraphDef def;
  std::vector<Output> weights;  // the replicas' variable handles
  std::string train, init;

  AllReduceTraining(std::string prefix_in, int n_in, int instance_key) : prefix(std::move(prefix_in)), n(n_in) {
    Scope s = root.NewSubScope(prefix);
    std::vector<Output> updates;
    std::vector<Variable> vars;
    for (int i = 0; i < n; ++i) {
      Scope on = s.NewSubScope(StrCat("replica_", i)).WithDevice(StrCat("/job:worker/replica:0/task:", i));
      Variable w = NewVariable(on, "w", [](const Scope& c) {
        return ops::Const(c, {0.5f, -1.0f, 2.0f, 0.25f, 1.5f, -0.5f, 3.0f, 1.0f});
      });
      Output x = ops::Placeholder(s.WithOpName(StrCat("x_", i)), tensorflow::DT_FLOAT, PartialTensorShape({8}));
      Output grad = ops::Mul(on, ops::Sub(on, w.value, x), 2.0f);
      Output mean = ops::CollectiveReduceV2(on, grad, n, /*group_key=*/1, instance_key, "Add", "Div");
      updates.push_back(Output(ops::AssignSubVariableOp(on, w.handle, ops::Mul(on, mean, 0.1f))));
      weights.push_back(w.handle);
      vars.push_back(w);
    }
    train = ops::NoOp(s.WithOpName("train").WithControlDependencies(updates))->name();
    init = GroupInitializers(s.WithOpName("init"), vars)->name();
  }
  Status Finish() {
    TA_RETURN_IF_ERROR(root.status());
    return root.ToGraphDef(&def);
  }
  // A TrainingLoop's options for this model: a checkpoint in `dir` every `every` steps, the
  // initializers when there is none to restore.
  TrainingLoopOptions LoopOptions(const std::string& dir, int64_t every) const {
    TrainingLoopOptions options;
    options.checkpoint_dir = dir;
    options.save_every_steps = every;
    options.init_op = init;
    return options;
  }
  // Step `step`'s inputs, the same whichever run asks.
  std::vector<std::pair<std::string, Tensor>> Feeds(int64_t step) const {
    std::vector<std::pair<std::string, Tensor>> feeds;
    for (int i = 0; i < n; ++i) {
      std::vector<float> x(8);
      for (int j = 0; j < 8; ++j) x[j] = std::sin(static_cast<float>(step * 7 + i * 3 + j));
      feeds.emplace_back(StrCat(prefix, "/x_", i), Tensor::FromVector<float>(x));
    }
    return feeds;
  }
  // Every replica's w, replica by replica.
  Status Read(Session& session, std::vector<std::vector<float>>* values) const {
    std::vector<std::string> names;
    for (int i = 0; i < n; ++i) names.push_back(StrCat(prefix, "/replica_", i, "/w/Read/ReadVariableOp"));
    std::vector<Tensor> out;
    TA_RETURN_IF_ERROR(session.Run({}, names, {}, &out));
    values->clear();
    for (const Tensor& t : out) {
      const float* p = t.base<float>();
      values->emplace_back(p, p + t.NumElements());
    }
    return Status::OK();
  }
};

}  // namespace bench
}  // namespace tensoract

#endif  // TENSORACT_TESTS_BENCH_ALLREDUCE_GRAPH_H_
