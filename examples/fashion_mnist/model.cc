#include "examples/fashion_mnist/model.h"

#include "graph/builder/summary_ops.h"

#include <cmath>

#include "graph/builder/array_ops.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/nn_ops.h"
#include "graph/builder/ops.h"
#include "graph/builder/random_ops.h"
#include "graph/builder/summary_ops.h"
#include "graph/training/optimizers.h"

namespace tensoract {
namespace fashion_mnist {
namespace {

const DataType kFloat = tensorflow::DT_FLOAT;

class Layers {
 public:
  Layers(const Scope& root, int64_t seed) : root_(root), seed_(seed) {}

  // Glorot-uniform values in [-limit, limit], limit = sqrt(6 / (fan_in + fan_out)).
  Output GlorotUniform(const Scope& s, const std::vector<int32_t>& shape, int64_t fan_in, int64_t fan_out) {
    ops::RandomAttrs attrs;
    attrs.seed = seed_;
    attrs.seed2 = ++op_seed_;
    tensorflow::TensorProto dims;
    dims.set_dtype(tensorflow::DT_INT32);
    dims.mutable_tensor_shape()->add_dim()->set_size(static_cast<int64_t>(shape.size()));
    for (int32_t d : shape) dims.add_int_val(d);
    Output u = ops::RandomUniform(s.WithOpName("random_uniform"), ops::Const(s.WithOpName("shape"), dims), kFloat, attrs);
    const float limit = static_cast<float>(std::sqrt(6.0 / static_cast<double>(fan_in + fan_out)));
    return ops::Sub(s, ops::Mul(s, u, 2 * limit), limit);
  }

  Output Zeros(const Scope& s, int32_t n) { return ops::Fill(s.WithOpName("zeros"), {n}, 0.0f); }

  Variable Weight(const std::string& name, const std::vector<int32_t>& shape, int64_t fan_in, int64_t fan_out) {
    Variable v = NewVariable(root_, name, [&](const Scope& s) { return GlorotUniform(s, shape, fan_in, fan_out); });
    vars_.push_back(v);
    return v;
  }
  Variable Bias(const std::string& name, int32_t n) {
    Variable v = NewVariable(root_, name, [&](const Scope& s) { return Zeros(s, n); });
    vars_.push_back(v);
    return v;
  }

  Output Dense(const std::string& name, const Output& x, int32_t in, int32_t out, bool relu) {
    Variable w = Weight(name + "/kernel", {in, out}, in, out);
    Variable b = Bias(name + "/bias", out);
    Scope s = root_.NewSubScope(name);
    Output y = ops::BiasAdd(s, ops::MatMul(s, x, w.value), b.value);
    return relu ? ops::Relu(s, y) : y;
  }

  Output ConvRelu(const std::string& name, const Output& x, int32_t in, int32_t out) {
    Variable w = Weight(name + "/kernel", {5, 5, in, out}, 25 * in, 25 * out);
    Variable b = Bias(name + "/bias", out);
    Scope s = root_.NewSubScope(name);
    return ops::Relu(s, ops::BiasAdd(s, ops::Conv2D(s, x, w.value, {1, 1, 1, 1}, "SAME"), b.value));
  }

  Output Pool(const std::string& name, const Output& x) {
    return ops::MaxPool(root_.NewSubScope(name), x, {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID");
  }

  const std::vector<Variable>& variables() const { return vars_; }

 private:
  Scope root_;
  int64_t seed_;
  int64_t op_seed_ = 0;
  std::vector<Variable> vars_;
};

}  // namespace

StatusOr<ModelKind> ParseModelKind(const std::string& name) {
  if (name == "mlp") return ModelKind::kMlp;
  if (name == "cnn") return ModelKind::kCnn;
  return errors::InvalidArgument("unknown model '", name, "': choose \"mlp\" or \"cnn\"");
}

const char* ModelName(ModelKind kind) { return kind == ModelKind::kMlp ? "mlp" : "cnn"; }

// A placeholder, or one that takes `source` when it is not fed.
Output Input(const Scope& scope, DataType dtype, const PartialTensorShape& shape, const Output& source) {
  if (source.node == nullptr) return ops::Placeholder(scope, dtype, shape);
  return ops::PlaceholderWithDefault(scope, source, shape);
}

StatusOr<Model> BuildModel(const Scope& root, ModelKind kind, const ModelOptions& options) {
  Model m;
  Layers layers(root, options.seed);
  m.labels = Input(root.WithOpName("labels"), tensorflow::DT_INT32, PartialTensorShape({-1}), options.labels_source);
  if (kind == ModelKind::kMlp) {
    m.images = Input(root.WithOpName("images"), kFloat, PartialTensorShape({-1, 784}), options.images_source);
    Output hidden = layers.Dense("dense", m.images, 784, 256, /*relu=*/true);
    m.logits = layers.Dense("dense_1", hidden, 256, 10, /*relu=*/false);
  } else {
    m.images = Input(root.WithOpName("images"), kFloat, PartialTensorShape({-1, 28, 28, 1}), options.images_source);
    Output c1 = layers.Pool("max_pooling2d", layers.ConvRelu("conv2d", m.images, 1, 32));
    Output c2 = layers.Pool("max_pooling2d_1", layers.ConvRelu("conv2d_1", c1, 32, 64));
    Output flat = ops::Reshape(root.WithOpName("flatten/Reshape"), c2, {-1, 7 * 7 * 64});
    Output hidden = layers.Dense("dense", flat, 7 * 7 * 64, 1024, /*relu=*/true);
    m.logits = layers.Dense("dense_1", hidden, 1024, 10, /*relu=*/false);
  }
  Scope loss_scope = root.NewSubScope("loss");
  auto xent = ops::SparseSoftmaxCrossEntropyWithLogits(loss_scope, m.logits, m.labels);
  m.loss = ops::Mean(loss_scope.WithOpName("value"), xent.loss, {0});
  Scope acc = root.NewSubScope("accuracy");
  Output predicted = ops::ArgMax(acc, m.logits, 1, tensorflow::DT_INT32);
  m.correct = ops::Sum(acc.WithOpName("correct"), ops::Cast(acc, ops::Equal(acc, predicted, m.labels), kFloat), {0});

  m.global_step = NewVariable(root, "global_step",
                              [](const Scope& s) { return ops::Const(s.WithOpName("zeros"), int64_t{0}); });
  AdamOptimizer adam(options.learning_rate);
  m.train = adam.Minimize(root, m.loss, layers.variables(), &m.global_step);
  m.variables = layers.variables();
  m.weights = layers.variables();
  m.variables.insert(m.variables.end(), adam.variables().begin(), adam.variables().end());
  m.variables.push_back(m.global_step);
  m.init = GroupInitializers(root.WithOpName("init"), m.variables);

  Scope summaries = root.NewSubScope("summaries");
  std::vector<Output> parts = {
      ops::ScalarSummary(summaries, std::string("loss"), m.loss),
      ops::ScalarSummary(summaries, std::string("accuracy"),
                         ops::Div(summaries, m.correct, ops::Cast(summaries, ops::Size(summaries, m.labels), kFloat))),
      ops::ImageSummary(summaries, std::string("images"), ops::Reshape(summaries, m.images, {-1, 28, 28, 1}))};
  for (const Variable& w : m.weights) parts.push_back(ops::HistogramSummary(summaries, w.name(), w.value));
  m.summary = ops::MergeSummary(summaries.WithOpName("merged"), parts);
  TA_RETURN_IF_ERROR(root.status());
  return m;
}

}  // namespace fashion_mnist
}  // namespace tensoract
