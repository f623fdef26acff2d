// Every registered gradient whose kernels exist, checked against central differences
// through a real Session (client/gradient_checker.h). Doubles keep the check tight.
#include <catch2/catch.hpp>

#include "client/gradient_checker.h"
#include "tests/actors/gradient_check_util.h"
#include "graph/builder/attr_util.h"
#include "graph/builder/ops.h"

namespace tensoract {
namespace {

using testing::kDouble;
using testing::Values;



TEST_CASE("MatMul's gradient, every transpose combination", "[gradients]") {
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      INFO("transpose_a " << ta << " transpose_b " << tb);
      Scope root = Scope::NewRootScope();
      auto a = ops::Placeholder(root.WithOpName("a"), kDouble);
      auto b = ops::Placeholder(root.WithOpName("b"), kDouble);
      auto y = ops::MatMul(root.WithOpName("y"), a, b, {ta, tb});
      Tensor av = Values({1, -2, 3, 0.5, 2, -1}, ta ? TensorShape({3, 2}) : TensorShape({2, 3}));
      Tensor bv = Values({0.3, 1, -1, 2, 0.7, -0.4, 1.5, 2, 0.1, -3, 1, 0.25}, tb ? TensorShape({4, 3}) : TensorShape({3, 4}));
      testing::CheckGradient(root, {a, b}, {av, bv}, y);
    }
  }
}

TEST_CASE("Add, Mul and Identity of equal shapes; a tensor used twice", "[gradients]") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), kDouble, PartialTensorShape({3}));
  auto z = ops::Placeholder(root.WithOpName("z"), kDouble, PartialTensorShape({3}));
  auto y = ops::Add(root.WithOpName("y"), ops::Mul(root, x, z), ops::Identity(root, ops::Mul(root, x, x)));
  testing::CheckGradient(root, {x, z}, {Values({1, 2, -3}, {3}), Values({0.5, -1, 4}, {3})}, y);
}

// y = f(x) for a unary op given by name, checked at `values`.
void CheckUnary(const std::string& op, std::vector<double> values) {
  INFO("op " << op);
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), kDouble, PartialTensorShape({2, 2}));
  auto y = ops::TypedOp(root.WithOpName("y"), op, {x});
  testing::CheckGradient(root, {x}, {Values(values, {2, 2})}, y);
}

TEST_CASE("element-wise unary gradients", "[gradients]") {
  for (const char* op : {"Neg", "Square", "Exp", "Tanh", "Sigmoid", "Relu", "Identity"}) {
    CheckUnary(op, {0.5, -1.3, 2.0, -0.2});
  }
  for (const char* op : {"Log", "Sqrt", "Rsqrt"}) CheckUnary(op, {0.5, 1.3, 2.0, 0.7});
}

TEST_CASE("broadcasting binary gradients sum over the broadcast dimensions", "[gradients]") {
  for (const char* op : {"Add", "AddV2", "Sub", "Mul", "RealDiv"}) {
    INFO("op " << op);
    Scope root = Scope::NewRootScope();
    auto x = ops::Placeholder(root.WithOpName("x"), kDouble);  // unknown shapes: the dynamic path
    auto z = ops::Placeholder(root.WithOpName("z"), kDouble);
    auto y = ops::TypedOp(root.WithOpName("y"), op, {x, z});
    testing::CheckGradient(root, {x, z}, {Values({1, 2, -3, 0.5, 1.5, -2}, {2, 3}), Values({0.5, -1.25, 4}, {3})}, y);
  }
}

TEST_CASE("Sum, Mean and Reshape gradients", "[gradients]") {
  for (const char* op : {"Sum", "Mean"}) {
    for (bool keep : {false, true}) {
      INFO("op " << op << " keep_dims " << keep);
      Scope root = Scope::NewRootScope();
      auto x = ops::Placeholder(root.WithOpName("x"), kDouble, PartialTensorShape({2, 3}));
      auto y = Output(root.AddOp(op, "y", {x, Input(1)},
                                 {{"T", ops::TypeAttr(kDouble)},
                                  {"Tidx", ops::TypeAttr(tensorflow::DT_INT32)},
                                  {"keep_dims", ops::BoolAttr(keep)}}),
                      0);
      testing::CheckGradient(root, {x}, {Values({1, 2, -3, 0.5, 1.5, -2}, {2, 3})}, y);
    }
  }
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), kDouble, PartialTensorShape({2, 3}));
  auto reshaped = Output(root.AddOp("Reshape", "r", {x, Input({3, 2})},
                                    {{"T", ops::TypeAttr(kDouble)}, {"Tshape", ops::TypeAttr(tensorflow::DT_INT32)}}),
                         0);
  auto y = ops::Mul(root, reshaped, 2.0);
  testing::CheckGradient(root, {x}, {Values({1, 2, -3, 0.5, 1.5, -2}, {2, 3})}, y);
}

TEST_CASE("BiasAdd, Softmax and softmax cross-entropy gradients", "[gradients]") {
  {
    Scope root = Scope::NewRootScope();
    auto x = ops::Placeholder(root.WithOpName("x"), kDouble, PartialTensorShape({2, 3}));
    auto b = ops::Placeholder(root.WithOpName("b"), kDouble, PartialTensorShape({3}));
    auto y = ops::TypedOp(root.WithOpName("y"), "BiasAdd", {x, b}, {{"data_format", ops::StringAttr("NHWC")}});
    testing::CheckGradient(root, {x, b}, {Values({1, 2, -3, 0.5, 1.5, -2}, {2, 3}), Values({0.1, -0.2, 0.3}, {3})}, y);
  }
  {
    Scope root = Scope::NewRootScope();
    auto x = ops::Placeholder(root.WithOpName("x"), kDouble, PartialTensorShape({2, 3}));
    auto y = ops::TypedOp(root.WithOpName("y"), "Softmax", {x});
    testing::CheckGradient(root, {x}, {Values({1, 2, -3, 0.5, 1.5, -2}, {2, 3})}, y);
  }
  {
    Scope root = Scope::NewRootScope();
    auto logits = ops::Placeholder(root.WithOpName("logits"), kDouble, PartialTensorShape({2, 3}));
    Node* xent = root.AddOp("SparseSoftmaxCrossEntropyWithLogits", "xent", {logits, Input({2, 0})},
                            {{"T", ops::TypeAttr(kDouble)}, {"Tlabels", ops::TypeAttr(tensorflow::DT_INT32)}});
    testing::CheckGradient(root, {logits}, {Values({1, 2, -3, 0.5, 1.5, -2}, {2, 3})}, Output(xent, 0));
  }
  {
    // Dense labels (a distribution per row): the loss's gradient for logits and labels.
    Scope root = Scope::NewRootScope();
    auto logits = ops::Placeholder(root.WithOpName("logits"), kDouble, PartialTensorShape({2, 3}));
    auto labels = ops::Placeholder(root.WithOpName("labels"), kDouble, PartialTensorShape({2, 3}));
    Node* xent = root.AddOp("SoftmaxCrossEntropyWithLogits", "xent", {logits, labels},
                            {{"T", ops::TypeAttr(kDouble)}});
    testing::CheckGradient(root, {logits, labels},
          {Values({1, 2, -3, 0.5, 1.5, -2}, {2, 3}), Values({0.2, 0.3, 0.5, 0.6, 0.1, 0.3}, {2, 3})},
          Output(xent, 0));
  }
}

}  // namespace
}  // namespace tensoract
