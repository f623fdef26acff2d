// The gradients of Cholesky, MatrixSolve, MatrixTriangularSolve, SelfAdjointEigV2, Svd and Qr
// (TensorFlow's, from linalg_grad.py) checked against central differences through a real
// Session (client/gradient_checker.h), in double. Cholesky and SelfAdjointEigV2 read only a
// symmetric matrix's lower triangle and their gradients are the symmetric ones, so they are
// checked through (x + x^T) / 2, as TensorFlow's own tests do; vectors, whose signs are
// arbitrary, through their squares.
#include <catch2/catch.hpp>

#include <cmath>

#include "client/gradient_checker.h"
#include "graph/builder/array_ops.h"
#include "graph/builder/attr_util.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/ops.h"
#include "tests/actors/gradient_check_util.h"

namespace tensoract {
namespace {

using testing::kDouble;


// sin-valued entries plus `diagonal` on each matrix's diagonal: well conditioned.
Tensor Conditioned(TensorShape shape, double seed, double diagonal) {
  std::vector<double> v(shape.num_elements());
  const int64_t n = shape.dim_size(shape.dims() - 1), rows = shape.dim_size(shape.dims() - 2);
  for (size_t i = 0; i < v.size(); ++i) {
    const int64_t r = (static_cast<int64_t>(i) / n) % rows, c = static_cast<int64_t>(i) % n;
    v[i] = std::sin(0.9 * static_cast<double>(i) + seed) + (r == c ? diagonal : 0.0);
  }
  return Tensor::FromVector<double>(v, shape);
}

TEST_CASE("Cholesky's gradient, through a symmetric input", "[gradients][linalg]") {
  for (TensorShape shape : {TensorShape({3, 3}), TensorShape({2, 4, 4})}) {
    INFO(shape.DebugString());
    Scope root = Scope::NewRootScope();
    auto x = ops::Placeholder(root.WithOpName("x"), kDouble);
    Output perm = shape.dims() == 2 ? ops::Const(root, {1, 0}) : ops::Const(root, {0, 2, 1});
    auto sym = ops::Mul(root, ops::AddV2(root, x, ops::Transpose(root, x, perm)), 0.5);
    auto y = ops::TypedOp(root.WithOpName("y"), "Cholesky", {sym});
    testing::CheckGradient(root, {x}, {Conditioned(shape, 0.3, 6.0)}, y);
  }
}

TEST_CASE("MatrixSolve's gradient with respect to matrix and rhs, adjoint or not", "[gradients][linalg]") {
  for (bool adjoint : {false, true}) {
    INFO("adjoint " << adjoint);
    Scope root = Scope::NewRootScope();
    auto a = ops::Placeholder(root.WithOpName("a"), kDouble);
    auto b = ops::Placeholder(root.WithOpName("b"), kDouble);
    auto y = ops::TypedOp(root.WithOpName("y"), "MatrixSolve", {a, b}, {{"adjoint", ops::BoolAttr(adjoint)}});
    testing::CheckGradient(root, {a, b}, {Conditioned({2, 3, 3}, 0.1, 4.0), Conditioned({2, 3, 2}, 0.7, 0.0)}, y);
  }
}

TEST_CASE("MatrixTriangularSolve's gradient: either triangle, adjoint, broadcast batches", "[gradients][linalg]") {
  struct TriCase {
    TensorShape a, b;
    bool lower, adjoint;
  };
  const TriCase cases[] = {{{3, 3}, {3, 2}, true, false},        {{3, 3}, {3, 2}, false, false},
                           {{2, 3, 3}, {2, 3, 1}, true, true},   {{2, 3, 3}, {2, 3, 1}, false, true},
                           {{3, 2, 2}, {1, 2, 2}, true, false},  {{2, 2}, {3, 2, 1}, false, true}};
  for (const TriCase& c : cases) {
    INFO(c.a.DebugString() << " " << c.b.DebugString() << " lower " << c.lower << " adjoint " << c.adjoint);
    Scope root = Scope::NewRootScope();
    auto a = ops::Placeholder(root.WithOpName("a"), kDouble);
    auto b = ops::Placeholder(root.WithOpName("b"), kDouble);
    auto y = ops::TypedOp(root.WithOpName("y"), "MatrixTriangularSolve", {a, b},
                          {{"lower", ops::BoolAttr(c.lower)}, {"adjoint", ops::BoolAttr(c.adjoint)}});
    testing::CheckGradient(root, {a, b}, {Conditioned(c.a, 0.2, 3.0), Conditioned(c.b, 1.3, 0.0)}, y);
  }
}

// Entries sin(1.3 i^2 + seed): no structure, so eigenvalues and singular values are apart
// (Conditioned's sin(0.9 i) makes every matrix of rank 2 plus its diagonal).
Tensor Irregular(TensorShape shape, double seed) {
  std::vector<double> v(shape.num_elements());
  for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(1.3 * static_cast<double>(i * i) + seed);
  return Tensor::FromVector<double>(v, shape);
}

// (x + x^T) / 2 of a [..., n, n] placeholder of rank `rank`.
Output Symmetric(const Scope& root, const Output& x, int rank) {
  Output perm = rank == 2 ? ops::Const(root, {1, 0}) : ops::Const(root, {0, 2, 1});
  return ops::Mul(root, ops::AddV2(root, x, ops::Transpose(root, x, perm)), 0.5);
}

TEST_CASE("SelfAdjointEigV2's gradient: eigenvalues, and eigenvectors up to sign", "[gradients][linalg]") {
  for (bool compute_v : {true, false}) {
    for (int output : {0, 1}) {
      if (!compute_v && output == 1) continue;
      INFO("compute_v " << compute_v << " output " << output);
      Scope root = Scope::NewRootScope();
      auto x = ops::Placeholder(root.WithOpName("x"), kDouble);
      Node* eig = root.AddOp("SelfAdjointEigV2", "eig", {Symmetric(root, x, 3)},
                             {{"T", ops::TypeAttr(kDouble)}, {"compute_v", ops::BoolAttr(compute_v)}});
      Output y = output == 0 ? Output(eig, 0) : ops::Square(root, Output(eig, 1));
      testing::CheckGradient(root, {x}, {Irregular({2, 4, 4}, 0.4)}, y);
    }
  }
}

TEST_CASE("Svd's gradient: values, and vectors up to sign, wide, tall and square", "[gradients][linalg]") {
  struct SvdCase {
    TensorShape shape;
    bool full;
  };
  const SvdCase cases[] = {{{3, 5}, false}, {{5, 3}, false}, {{2, 4, 4}, false}, {{3, 4}, true}, {{4, 4}, true}};
  for (const SvdCase& c : cases) {
    for (int output : {0, 1, 2}) {
      INFO(c.shape.DebugString() << " full " << c.full << " output " << output);
      Scope root = Scope::NewRootScope();
      // Of a known shape: the gradient slices by it.
      auto x = ops::Placeholder(root.WithOpName("x"), kDouble, PartialTensorShape(c.shape.dim_sizes()));
      Node* svd = root.AddOp("Svd", "svd", {x},
                             {{"T", ops::TypeAttr(kDouble)}, {"compute_uv", ops::BoolAttr(true)},
                              {"full_matrices", ops::BoolAttr(c.full)}});
      Output y = output == 0 ? Output(svd, 0) : ops::Square(root, Output(svd, output));
      testing::CheckGradient(root, {x}, {Irregular(c.shape, 0.8)}, y);
    }
  }
  // Singular values alone (compute_uv false: a second factorisation gives the vectors).
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), kDouble);
  Node* svd = root.AddOp("Svd", "svd", {x}, {{"T", ops::TypeAttr(kDouble)}, {"compute_uv", ops::BoolAttr(false)},
                                              {"full_matrices", ops::BoolAttr(false)}});
  testing::CheckGradient(root, {x}, {Irregular({3, 5}, 0.8)}, Output(svd, 0));
}

TEST_CASE("Qr's gradient: deep, square and wide, thin and full", "[gradients][linalg]") {
  struct QrCase {
    TensorShape shape;
    bool full;
  };
  const QrCase cases[] = {{{4, 3}, false}, {{3, 3}, true}, {{2, 3, 5}, false}, {{2, 4}, true}};
  for (const QrCase& c : cases) {
    for (int output : {0, 1}) {
      INFO(c.shape.DebugString() << " full " << c.full << " output " << output);
      Scope root = Scope::NewRootScope();
      auto x = ops::Placeholder(root.WithOpName("x"), kDouble, PartialTensorShape(c.shape.dim_sizes()));
      Node* qr = root.AddOp("Qr", "qr", {x}, {{"T", ops::TypeAttr(kDouble)}, {"full_matrices", ops::BoolAttr(c.full)}});
      testing::CheckGradient(root, {x}, {Irregular(c.shape, 0.5)}, Output(qr, output));
    }
  }
}

}  // namespace
}  // namespace tensoract
