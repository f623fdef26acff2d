// The gradients of Cholesky, MatrixSolve and MatrixTriangularSolve (TensorFlow's, from
// linalg_grad.py) checked against central differences through a real Session
// (client/gradient_checker.h), in double. Cholesky reads only a symmetric matrix's lower
// triangle and its gradient is the symmetric one, so it is checked through (x + x^T) / 2, as
// TensorFlow's own test does.
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

const DataType kDouble = tensorflow::DT_DOUBLE;

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

}  // namespace
}  // namespace tensoract
