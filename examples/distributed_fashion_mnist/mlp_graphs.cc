#include "examples/distributed_fashion_mnist/mlp_graphs.h"

#include <cmath>

#include "graph/builder/array_ops.h"
#include "graph/builder/collective_ops.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/nn_ops.h"
#include "graph/builder/ops.h"
#include "graph/builder/random_ops.h"
#include "graph/gradients/gradients.h"
#include "graph/training/optimizers.h"
#include "graph/training/sync_replicas.h"
#include "graph/training/variables.h"

namespace tensoract {
namespace distributed_mnist {
namespace {

const DataType kFloat = tensorflow::DT_FLOAT;
constexpr int32_t kPixels = 784, kClasses = 10;
constexpr const char* kPs = "/job:ps/replica:0/task:0";

std::string WorkerTask(int task) { return StrCat("/job:worker/replica:0/task:", task); }

Scope Root(const MlpOptions& options) {
  Scope root = Scope::NewRootScope();
  return options.prefix.empty() ? root : root.NewSubScope(options.prefix);
}

struct Weights {
  Variable w1, b1, w2, b2;
  std::vector<Variable> all() const { return {w1, b1, w2, b2}; }
};

// Glorot-uniform in [-limit, limit], limit = sqrt(6 / (fan_in + fan_out)), from fixed
// seeds: every graph starts from the same weights wherever its initializer runs.
Output GlorotUniform(const Scope& s, int32_t fan_in, int32_t fan_out, int64_t seed, int64_t seed2) {
  ops::RandomAttrs attrs;
  attrs.seed = seed;
  attrs.seed2 = seed2;
  Output u = ops::RandomUniform(s.WithOpName("random_uniform"), ops::Const(s.WithOpName("shape"), {fan_in, fan_out}),
                                kFloat, attrs);
  const float limit = static_cast<float>(std::sqrt(6.0 / static_cast<double>(fan_in + fan_out)));
  return ops::Sub(s, ops::Mul(s, u, 2 * limit), limit);
}

// Layer 1's variables in `layer1`'s scope (device), layer 2's in `layer2`'s.
Weights NewWeights(const Scope& layer1, const Scope& layer2, const MlpOptions& o) {
  auto zeros = [](int32_t n) {
    return [n](const Scope& s) { return ops::Fill(s.WithOpName("zeros"), {n}, 0.0f); };
  };
  Weights w;
  w.w1 = NewVariable(layer1, "dense/kernel",
                     [&](const Scope& s) { return GlorotUniform(s, kPixels, o.hidden, o.seed, 1); });
  w.b1 = NewVariable(layer1, "dense/bias", zeros(o.hidden));
  w.w2 = NewVariable(layer2, "dense_1/kernel",
                     [&](const Scope& s) { return GlorotUniform(s, o.hidden, kClasses, o.seed, 2); });
  w.b2 = NewVariable(layer2, "dense_1/bias", zeros(kClasses));
  return w;
}

struct Tower {
  Output images, labels, hidden, loss, correct;
};

// Placeholders in `feeds` (no device: they live on the master's task), layer 1 in
// `layer1`, layer 2, the loss and the accuracy count in `layer2`.
Tower BuildTower(const Scope& feeds, const Scope& layer1, const Scope& layer2, const Weights& w) {
  Tower t;
  t.images = ops::Placeholder(feeds.WithOpName("images"), kFloat, PartialTensorShape({-1, kPixels}));
  t.labels = ops::Placeholder(feeds.WithOpName("labels"), tensorflow::DT_INT32, PartialTensorShape({-1}));
  Scope d = layer1.NewSubScope("dense");
  t.hidden = ops::Relu(d, ops::BiasAdd(d, ops::MatMul(d, t.images, w.w1.value), w.b1.value));
  Scope d1 = layer2.NewSubScope("dense_1");
  Output logits = ops::BiasAdd(d1, ops::MatMul(d1, t.hidden, w.w2.value), w.b2.value);
  Scope loss = layer2.NewSubScope("loss");
  Output xent = ops::SparseSoftmaxCrossEntropyWithLogits(loss, logits, t.labels).loss;
  t.loss = ops::Mean(loss.WithOpName("value"), xent, {0});
  Scope acc = layer2.NewSubScope("accuracy");
  Output predicted = ops::ArgMax(acc, logits, 1, tensorflow::DT_INT32);
  t.correct = ops::Sum(acc.WithOpName("correct"), ops::Cast(acc, ops::Equal(acc, predicted, t.labels), kFloat), {0});
  return t;
}

std::vector<Output> Handles(const Weights& w) {
  std::vector<Output> handles;
  for (const Variable& v : w.all()) handles.push_back(v.handle);
  return handles;
}

// Fills in everything but the placeholders; `init` covers the weights and the optimizer's
// momentum slots.
StatusOr<MlpGraph> Finish(const Scope& root, const Weights& w, const std::vector<Variable>& slots,
                          const Output& loss, const Output& correct, Node* train, bool with_saver) {
  std::vector<Variable> all = w.all();
  all.insert(all.end(), slots.begin(), slots.end());
  Node* init = GroupInitializers(root.WithOpName("init"), all);
  TA_RETURN_IF_ERROR(root.status());
  MlpGraph g;
  if (with_saver) {
    std::vector<Output> handles;
    for (const Variable& v : all) handles.push_back(v.handle);
    TA_ASSIGN_OR_RETURN(Saver saver, Saver::New(root, handles));
    g.saver = std::move(saver);
  }
  g.loss = loss.name();
  g.correct = correct.name();
  g.train = train->name();
  g.init = init->name();
  TA_RETURN_IF_ERROR(root.ToGraphDef(&g.def));
  return g;
}

void AddFeeds(const Tower& t, MlpGraph* g) {
  g->images.push_back(t.images.name());
  g->labels.push_back(t.labels.name());
}

}  // namespace

StatusOr<MlpGraph> BuildLocal(const MlpOptions& options) {
  Scope root = Root(options);
  Weights w = NewWeights(root, root, options);
  Tower t = BuildTower(root, root, root, w);
  MomentumOptimizer opt(options.learning_rate, options.momentum);
  Node* train = opt.Minimize(root, t.loss, w.all());
  TA_ASSIGN_OR_RETURN(MlpGraph g, Finish(root, w, opt.variables(), t.loss, t.correct, train, options.with_saver));
  AddFeeds(t, &g);
  return g;
}

StatusOr<MlpGraph> BuildSync(const MlpOptions& options, int towers) {
  if (towers < 1) return errors::InvalidArgument("sync mode needs at least one tower, got ", towers);
  Scope root = Root(options);
  Scope ps = root.WithDevice(kPs);
  Weights w = NewWeights(ps, ps, options);
  std::vector<Tower> built;
  std::vector<std::vector<Output>> grads;  // [tower][variable]
  for (int i = 0; i < towers; ++i) {
    Scope tower = root.NewSubScope(StrCat("tower_", i));
    Scope compute = tower.WithDevice(WorkerTask(i));
    built.push_back(BuildTower(tower, compute, compute, w));
    // The backward pass in the tower's scope, so it runs on the tower's worker too (by
    // default the gradient nodes would have no device and land on the master's task).
    std::vector<Output> g;
    TA_RETURN_IF_ERROR(AddSymbolicGradients(compute, {built.back().loss}, Handles(w), &g));
    grads.push_back(std::move(g));
  }
  // The mean of the towers' gradients: each tower's loss is the mean over its equal share
  // of the batch, so this is the gradient of the whole batch's mean loss, the one the
  // local graph takes.
  Scope average = ps.NewSubScope("average_gradients");
  const float share = 1.0f / static_cast<float>(towers);
  std::vector<Output> averaged;
  for (size_t v = 0; v < grads[0].size(); ++v) {
    std::vector<Output> per_tower;
    for (const auto& g : grads) per_tower.push_back(g[v]);
    averaged.push_back(ops::Mul(average, towers == 1 ? per_tower[0] : ops::AddN(average, per_tower), share));
  }
  MomentumOptimizer opt(options.learning_rate, options.momentum);
  Node* train = opt.ApplyGradients(ps, w.all(), averaged);
  std::vector<Output> losses, corrects;
  for (const Tower& t : built) losses.push_back(t.loss), corrects.push_back(t.correct);
  Output loss = ops::Mul(root.WithOpName("loss"), towers == 1 ? losses[0] : ops::AddN(root, losses), share);
  Output correct = towers == 1 ? corrects[0] : ops::AddN(root.WithOpName("correct"), corrects);
  TA_ASSIGN_OR_RETURN(MlpGraph g, Finish(root, w, opt.variables(), loss, correct, train, options.with_saver));
  for (const Tower& t : built) AddFeeds(t, &g);
  return g;
}

namespace {

// Replica i of the allreduce mode in `root`: its weights on worker i, its tower, and the
// update by the towers' mean gradient.
struct AllReduceReplica {
  Weights w;
  Tower t;
  Output train;
  std::vector<Variable> slots;
};

StatusOr<AllReduceReplica> AddAllReduceReplica(const Scope& root, const MlpOptions& options, int i, int towers) {
  AllReduceReplica r;
  // Each replica's weights on its own worker, from the same seeds: equal from the start,
  // and kept equal by equal updates.
  Scope replica = root.NewSubScope(StrCat("replica_", i)).WithDevice(WorkerTask(i));
  r.w = NewWeights(replica, replica, options);
  r.t = BuildTower(root.NewSubScope(StrCat("tower_", i)), replica, replica, r.w);
  std::vector<Output> grads;
  TA_RETURN_IF_ERROR(AddSymbolicGradients(replica, {r.t.loss}, Handles(r.w), &grads));
  // The towers' mean gradient, by the workers themselves: the gradients packed into one
  // buffer and all-reduced at once (as MultiWorkerMirroredStrategy packs them), then cut
  // back into the variables' shapes.
  Scope reduce = replica.NewSubScope("allreduce");
  const int32_t h = options.hidden;
  const int32_t sizes[4] = {kPixels * h, h, h * kClasses, kClasses};
  const std::vector<Input> shapes = {Input({kPixels, h}), Input({h}), Input({h, kClasses}), Input({kClasses})};
  std::vector<Output> flat;
  for (const Output& g : grads) flat.push_back(ops::Reshape(reduce, g, {-1}));
  Output mean = ops::CollectiveReduceV2(reduce, ops::Concat(reduce, flat, 0), towers, /*group_key=*/1,
                                        /*instance_key=*/1, "Add", "Div");
  OutputList pieces = ops::SplitV(reduce, mean, ops::Const(reduce, {sizes[0], sizes[1], sizes[2], sizes[3]}), 0, 4);
  std::vector<Output> averaged;
  for (size_t v = 0; v < grads.size(); ++v) averaged.push_back(ops::Reshape(reduce, pieces[v], shapes[v]));
  MomentumOptimizer opt(options.learning_rate, options.momentum);
  r.train = Output(opt.ApplyGradients(replica, r.w.all(), averaged));
  r.slots = opt.variables();
  TA_RETURN_IF_ERROR(root.status());
  return r;
}

}  // namespace

StatusOr<MlpGraph> BuildAllReduce(const MlpOptions& options, int towers) {
  if (towers < 1) return errors::InvalidArgument("allreduce mode needs at least one tower, got ", towers);
  Scope root = Root(options);
  std::vector<AllReduceReplica> replicas;
  std::vector<Variable> others;  // every replica's variables but the first's, and every slot
  std::vector<Output> trains;
  for (int i = 0; i < towers; ++i) {
    TA_ASSIGN_OR_RETURN(AllReduceReplica r, AddAllReduceReplica(root, options, i, towers));
    if (i > 0) {
      const std::vector<Variable> vars = r.w.all();
      others.insert(others.end(), vars.begin(), vars.end());
    }
    others.insert(others.end(), r.slots.begin(), r.slots.end());
    trains.push_back(r.train);
    replicas.push_back(std::move(r));
  }
  Node* train = ops::NoOp(root.WithOpName("train").WithControlDependencies(trains));
  const float share = 1.0f / static_cast<float>(towers);
  std::vector<Output> losses, corrects;
  for (const AllReduceReplica& r : replicas) losses.push_back(r.t.loss), corrects.push_back(r.t.correct);
  Output loss = ops::Mul(root.WithOpName("loss"), towers == 1 ? losses[0] : ops::AddN(root, losses), share);
  Output correct = towers == 1 ? corrects[0] : ops::AddN(root.WithOpName("correct"), corrects);
  TA_ASSIGN_OR_RETURN(MlpGraph g, Finish(root, replicas[0].w, others, loss, correct, train, options.with_saver));
  for (const AllReduceReplica& r : replicas) AddFeeds(r.t, &g);
  return g;
}

StatusOr<MlpGraph> BuildAllReduceReplica(const MlpOptions& options, int task, int towers) {
  if (task < 0 || task >= towers) {
    return errors::InvalidArgument("allreduce replica ", task, " of ", towers, " towers does not exist");
  }
  Scope root = Root(options);
  TA_ASSIGN_OR_RETURN(AllReduceReplica r, AddAllReduceReplica(root, options, task, towers));
  Node* train = ops::NoOp(root.WithOpName("train").WithControlDependencies({r.train}));
  TA_ASSIGN_OR_RETURN(MlpGraph g, Finish(root, r.w, r.slots, r.t.loss, r.t.correct, train, options.with_saver));
  AddFeeds(r.t, &g);
  return g;
}

namespace {

// Replica `task` of the between-graph modes (async, backup): the weights on the ps, outside
// the replica's name scope (every replica's graph names the same variables, which the ps
// holds once for all), and the tower and its gradients on the replica's worker.
struct PsReplica {
  Scope root, ps, compute;
  Weights w;
  Tower t;
  std::vector<Output> grads;
};

StatusOr<PsReplica> AddPsReplica(const MlpOptions& options, int task) {
  PsReplica r{Root(options), Scope::NewRootScope(), Scope::NewRootScope(), {}, {}, {}};
  r.ps = r.root.WithDevice(kPs);
  r.w = NewWeights(r.ps, r.ps, options);
  r.compute = r.root.NewSubScope(StrCat("replica_", task)).WithDevice(WorkerTask(task));
  r.t = BuildTower(r.root, r.compute, r.compute, r.w);
  TA_RETURN_IF_ERROR(AddSymbolicGradients(r.compute, {r.t.loss}, Handles(r.w), &r.grads));
  return r;
}

}  // namespace

StatusOr<MlpGraph> BuildAsyncReplica(const MlpOptions& options, int task) {
  TA_ASSIGN_OR_RETURN(PsReplica r, AddPsReplica(options, task));
  MomentumOptimizer opt(options.learning_rate, options.momentum);
  Node* train = opt.ApplyGradients(r.ps, r.w.all(), r.grads);
  TA_ASSIGN_OR_RETURN(MlpGraph g,
                      Finish(r.root, r.w, opt.variables(), r.t.loss, r.t.correct, train, options.with_saver));
  AddFeeds(r.t, &g);
  return g;
}

StatusOr<MlpGraph> BuildBackupReplica(const MlpOptions& options, int task, int replicas_to_aggregate, int total) {
  TA_ASSIGN_OR_RETURN(PsReplica r, AddPsReplica(options, task));
  Variable global_step = NewVariable(r.ps, "global_step", [](const Scope& s) { return ops::Const(s, int64_t{0}); });
  MomentumOptimizer opt(options.learning_rate, options.momentum);
  SyncReplicasOptimizer sync(&opt, replicas_to_aggregate, total);
  SyncReplicasOps ops = sync.ApplyGradients(r.ps, r.compute, r.w.all(), r.grads, global_step);
  TA_RETURN_IF_ERROR(r.root.status());
  std::vector<Variable> state = opt.variables();
  state.push_back(global_step);
  state.push_back(ops.local_step);
  Node* local_init = GroupInitializers(r.compute.WithOpName("local_init"), {ops.local_step});
  TA_RETURN_IF_ERROR(r.root.status());
  SyncReplicasNames names{local_init->name(),         ops.local_step_init->name(), ops.token.name(),
                          ops.chief_init->name(),     ops.init_tokens->name(),
                          ops.chief_queue_runner.enqueue_op_names.at(0)};
  TA_ASSIGN_OR_RETURN(MlpGraph g, Finish(r.root, r.w, state, r.t.loss, r.t.correct, ops.train, options.with_saver));
  AddFeeds(r.t, &g);
  g.sync_replicas = std::move(names);
  return g;
}

StatusOr<MlpGraph> BuildModelParallel(const MlpOptions& options) {
  Scope root = Root(options);
  Scope first = root.WithDevice(WorkerTask(1));
  Scope second = root.WithDevice(WorkerTask(0));  // the master's task
  Weights w = NewWeights(first, second, options);
  Tower t = BuildTower(root, first, second, w);
  // Backpropagation in two stages, each where its layer is: worker 0 takes the loss back
  // to layer 2's weights and to the hidden activations; worker 1 takes the activations'
  // gradient (sent over) back to layer 1's weights. One AddSymbolicGradients over the
  // whole graph would put every gradient node on one task.
  std::vector<Output> upper;  // d loss / d {hidden, w2, b2}
  TA_RETURN_IF_ERROR(AddSymbolicGradients(second, {t.loss}, {t.hidden, w.w2.handle, w.b2.handle}, &upper));
  std::vector<Output> lower;  // d loss / d {w1, b1}
  TA_RETURN_IF_ERROR(AddSymbolicGradients(first, {t.hidden}, {w.w1.handle, w.b1.handle}, {upper[0]}, &lower));
  // One optimizer per layer, each in its layer's scope, so that its momentum slots are
  // made on the layer's task. (NewZerosSlot does not colocate a slot with its variable: in
  // a scope without a device, the init call graph, where nothing ties the slot to the
  // variable, would put it on the master's task while the train call graph's
  // ResourceApplyMomentum looks for it on worker 1.)
  MomentumOptimizer opt1(options.learning_rate, options.momentum);
  MomentumOptimizer opt2(options.learning_rate, options.momentum);
  Node* train1 = opt1.ApplyGradients(first, {w.w1, w.b1}, {lower[0], lower[1]});
  Node* train2 = opt2.ApplyGradients(second, {w.w2, w.b2}, {upper[1], upper[2]});
  TA_RETURN_IF_ERROR(root.status());
  Node* train = ops::NoOp(root.WithOpName("train").WithControlDependencies({Output(train1), Output(train2)}));
  std::vector<Variable> slots = opt1.variables();
  slots.insert(slots.end(), opt2.variables().begin(), opt2.variables().end());
  TA_ASSIGN_OR_RETURN(MlpGraph g, Finish(root, w, slots, t.loss, t.correct, train, options.with_saver));
  AddFeeds(t, &g);
  return g;
}

}  // namespace distributed_mnist
}  // namespace tensoract
