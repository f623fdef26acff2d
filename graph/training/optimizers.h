// Optimizers that build `minimize(loss)` into a graph, as TensorFlow 1.x's tf.train
// optimizers do: the gradients of the loss with respect to each variable
// (AddSymbolicGradients), one ResourceApply* update per variable, and a train op that
// runs them all.
//
//   AdamOptimizer adam(0.001);
//   Node* train = adam.Minimize(root, loss, {w1, b1, w2, b2}, &global_step);
//   Node* init = GroupInitializers(root, Concat(model_vars, adam.variables(), {global_step}));
//   session->Run({{"x", images}, {"y", labels}}, {loss.name()}, {train->name()}, &out);
//
// Node names follow TensorFlow's ("Adam/update_w1/ResourceApplyAdam", slots "w1/Adam" and
// "w1/Adam_1"), so a checkpoint's names match one TensorFlow would write for the same
// model. Errors go to the scope's status (Minimize returns nullptr).
// Only resource variables (graph/training/variables.h) are supported.
//
// Eagerly (TensorFlow 2's optimizer.apply_gradients), ApplyGradients on an eager scope
// runs the updates at once; slots and Adam's beta powers are made on the first call and
// kept, so calling it every step trains:
//   auto grads = tape.Gradient(loss, vars).value();
//   adam.ApplyGradients(ctx->scope(), vars, grads);
// (Minimize builds graph gradients, so it is for graphs only.)
#ifndef TENSORACT_GRAPH_TRAINING_OPTIMIZERS_H_
#define TENSORACT_GRAPH_TRAINING_OPTIMIZERS_H_

#include <map>
#include <string>
#include <vector>

#include "graph/training/variables.h"

namespace tensoract {

class Optimizer {
 public:
  virtual ~Optimizer() = default;

  // The train op: a NoOp named like the optimizer ("GradientDescent", "Adam", ...) that
  // applies one update to every variable in `vars` and, if given, adds one to global_step
  // (an int64 scalar variable) after the updates.
  Node* Minimize(const Scope& scope, const Output& loss, const std::vector<Variable>& vars,
                 const Variable* global_step = nullptr);

  // Applies precomputed gradients (grads[i] for vars[i]; a null Output skips the variable).
  Node* ApplyGradients(const Scope& scope, const std::vector<Variable>& vars, const std::vector<Output>& grads,
                       const Variable* global_step = nullptr);

  // Makes the optimizer's state for `vars` now (Keras' optimizer.build): what a traced
  // function's updates need before the trace, as variables are made only eagerly there.
  // ApplyGradients makes whatever is missing itself.
  void Build(const Scope& scope, const std::vector<Variable>& vars);

  // The state this optimizer created (slots, Adam's beta powers): to initialize and save.
  const std::vector<Variable>& variables() const { return state_; }

 protected:
  explicit Optimizer(std::string name) : name_(std::move(name)) {}
  // The update of one variable, built in `scope` ("<name>/update_<var>/"); slots go in
  // `root` (the scope Minimize was given, without its control dependencies).
  virtual Node* ApplyDense(const Scope& root, const Scope& scope, const Variable& var, const Output& grad) = 0;
  // Built once before the updates ("<name>/"); Adam makes its beta powers here.
  virtual void Prepare(const Scope& scope, const Scope& root, const std::vector<Variable>& vars) {}
  // Makes the slots of `var` (in `root`).
  virtual void MakeSlots(const Scope& root, const Variable& var) {}
  // Runs after every update (Adam advances its beta powers); nullptr when nothing.
  virtual Node* Finish(const Scope& scope) { return nullptr; }
  // A constant `value` of `dtype` (the learning rate and friends).
  static Output Constant(const Scope& scope, double value, DataType dtype, const std::string& name);
  Variable AddSlot(const Scope& root, const Variable& var, const std::string& slot);
  // The variable's value now: its read node in a graph, a new read in an eager scope.
  static Output Current(const Scope& scope, const Variable& var);

  std::string name_;
  std::vector<Variable> state_;
  std::map<std::string, Variable> slots_;  // by "<variable>/<slot>"
};

// var -= learning_rate * grad.
class GradientDescentOptimizer : public Optimizer {
 public:
  explicit GradientDescentOptimizer(double learning_rate)
      : Optimizer("GradientDescent"), learning_rate_(learning_rate) {}

 protected:
  Node* ApplyDense(const Scope& root, const Scope& scope, const Variable& var, const Output& grad) override;

 private:
  double learning_rate_;
};

// accum = momentum * accum + grad; var -= learning_rate * accum (Nesterov as TensorFlow).
class MomentumOptimizer : public Optimizer {
 public:
  MomentumOptimizer(double learning_rate, double momentum, bool use_nesterov = false)
      : Optimizer("Momentum"), learning_rate_(learning_rate), momentum_(momentum), use_nesterov_(use_nesterov) {}

 protected:
  Node* ApplyDense(const Scope& root, const Scope& scope, const Variable& var, const Output& grad) override;
  void MakeSlots(const Scope& root, const Variable& var) override { AddSlot(root, var, "Momentum"); }

 private:
  double learning_rate_, momentum_;
  bool use_nesterov_;
};

// Adam (Kingma and Ba) with TensorFlow 1.x's bias correction through beta1_power and
// beta2_power, which advance once per step after every variable's update.
class AdamOptimizer : public Optimizer {
 public:
  explicit AdamOptimizer(double learning_rate = 0.001, double beta1 = 0.9, double beta2 = 0.999,
                         double epsilon = 1e-8)
      : Optimizer("Adam"), learning_rate_(learning_rate), beta1_(beta1), beta2_(beta2), epsilon_(epsilon) {}

 protected:
  void Prepare(const Scope& scope, const Scope& root, const std::vector<Variable>& vars) override;
  Node* ApplyDense(const Scope& root, const Scope& scope, const Variable& var, const Output& grad) override;
  Node* Finish(const Scope& scope) override;
  void MakeSlots(const Scope& root, const Variable& var) override {
    AddSlot(root, var, "Adam");
    AddSlot(root, var, "Adam_1");
  }

 private:
  double learning_rate_, beta1_, beta2_, epsilon_;
  DataType dtype_ = tensorflow::DT_FLOAT;
  Variable beta1_power_, beta2_power_;
};

}  // namespace tensoract

#endif  // TENSORACT_GRAPH_TRAINING_OPTIMIZERS_H_
