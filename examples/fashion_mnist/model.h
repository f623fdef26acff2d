// The two Fashion-MNIST classifiers, built with the C++ graph API: the models that
// examples/fashion_mnist trains and tests/bench times against PyTorch and TensorFlow.
//
//   mlp: 784 -> dense 256 (ReLU) -> dense 10
//   cnn: 28x28x1 -> conv 5x5x32 SAME (ReLU) -> max pool 2x2 -> conv 5x5x64 SAME (ReLU)
//        -> max pool 2x2 -> dense 1024 (ReLU) -> dense 10, TensorFlow's layers tutorial
//
// Weights start Glorot-uniform (Keras' default) from fixed seeds, biases at zero; the loss
// is the mean sparse softmax cross-entropy, minimized with Adam.
#ifndef TENSORACT_EXAMPLES_FASHION_MNIST_MODEL_H_
#define TENSORACT_EXAMPLES_FASHION_MNIST_MODEL_H_

#include <string>
#include <vector>

#include "graph/builder/scope.h"
#include "graph/training/variables.h"

namespace tensoract {
namespace fashion_mnist {

enum class ModelKind { kMlp, kCnn };

// "mlp" or "cnn"; InvalidArgument naming the choices otherwise.
StatusOr<ModelKind> ParseModelKind(const std::string& name);
const char* ModelName(ModelKind kind);

struct ModelOptions {
  double learning_rate = 0.001;
  int64_t seed = 42;
  // Where the batches come from when nothing is fed: an input pipeline's dequeued batch
  // (images float [batch, 784] or [batch, 28, 28, 1], labels int32 [batch]). Unset: the
  // images and labels must be fed.
  Output images_source, labels_source;
};

// The nodes an application feeds, fetches and runs.
struct Model {
  Output images;   // placeholder float [batch, 784] (mlp) or [batch, 28, 28, 1] (cnn),
  Output labels;   // placeholder int32 [batch]; with sources, defaulting to them
  Output logits;   // [batch, 10]
  Output loss;     // scalar: mean cross-entropy of the batch
  Output correct;  // scalar float: how many of the batch are classified right
  Node* train = nullptr;  // one Adam step (and global_step + 1)
  Node* init = nullptr;   // initializes every variable
  Variable global_step;   // int64
  // Everything a checkpoint must hold: weights, Adam's state, global_step.
  std::vector<Variable> variables;
  std::vector<Variable> weights;  // the layers' kernels and biases (trained)
  // One serialized Summary for TensorBoard: the batch's loss and accuracy, a histogram of
  // every weight, the batch's first three images.
  Output summary;
};

// Adds the model to `root`'s graph; errors are the scope's (naming the node).
StatusOr<Model> BuildModel(const Scope& root, ModelKind kind, const ModelOptions& options = {});

}  // namespace fashion_mnist
}  // namespace tensoract

#endif  // TENSORACT_EXAMPLES_FASHION_MNIST_MODEL_H_
