// Cholesky, MatrixSolve and MatrixTriangularSolve (kernels/linalg/linalg_ops.cc) on hand-worked
// 2x2 systems: which triangle each reads, the adjoint, batch broadcasting, and TensorFlow's
// answers to what they cannot factor (NaN from Cholesky, a refusal from MatrixSolve, inf from
// a triangular solve). The harness (tests/compat, family linalg) compares them with
// TensorFlow; tests/actors/gradient_check_linalg_test.cc checks their gradients.
#include <cmath>
#include <vector>

#include "tests/kernels/kernel_test_util.h"

namespace tensoract {
namespace {

using testing::M2;

using testing::BoolA;
using testing::RunOp;
using testing::TypeA;

Tensor Ones(TensorShape shape) { return Tensor::FromVector<double>(std::vector<double>(shape.num_elements(), 1.0), shape); }

testing::AttrMap DoubleT() { return {{"T", TypeA(tensorflow::DT_DOUBLE)}}; }

TEST_CASE("Cholesky of [[4, 2], [2, 3]] is [[2, 0], [1, sqrt 2]]; the upper triangle is never read") {
  auto r = RunOp("Cholesky", {M2(4, 2, 2, 3)}, DoubleT());
  REQUIRE(r.status.ok());
  CHECK(testing::Values<double>(r.outputs[0]) == std::vector<double>{2, 0, 1, std::sqrt(2.0)});
  r = RunOp("Cholesky", {M2(4, 100, 2, 3)}, DoubleT());
  CHECK(testing::Values<double>(r.outputs[0]) == std::vector<double>{2, 0, 1, std::sqrt(2.0)});
}

TEST_CASE("Cholesky of a matrix that is not positive definite is NaN in its lower triangle, as TensorFlow 2.21's") {
  auto r = RunOp("Cholesky", {M2(1, 2, 2, 1)}, DoubleT());
  REQUIRE(r.status.ok());
  const std::vector<double> v = testing::Values<double>(r.outputs[0]);
  CHECK(std::isnan(v[0]));
  CHECK(v[1] == 0);
  CHECK(std::isnan(v[2]));
  CHECK(std::isnan(v[3]));
  r = testing::RunMaybe("Cholesky", {Ones(TensorShape({2, 3}))}, DoubleT());
  CHECK_THAT(r.status.message(), Catch::Contains("Input matrix must be square."));
}

TEST_CASE("MatrixSolve solves A x = b, or A^T x = b, and refuses a singular A") {
  auto r = RunOp("MatrixSolve", {M2(4, 2, 2, 3), Ones(TensorShape({2, 1}))},
                 {{"T", TypeA(tensorflow::DT_DOUBLE)}, {"adjoint", BoolA(false)}});
  REQUIRE(r.status.ok());
  CHECK(testing::Values<double>(r.outputs[0]) == std::vector<double>{0.125, 0.25});
  // [[1, 3], [2, 4]] x = [1, 1]: x = [-0.5, 0.5].
  r = RunOp("MatrixSolve", {M2(1, 2, 3, 4), Ones(TensorShape({2, 1}))},
            {{"T", TypeA(tensorflow::DT_DOUBLE)}, {"adjoint", BoolA(true)}});
  REQUIRE(r.status.ok());
  const std::vector<double> x = testing::Values<double>(r.outputs[0]);
  CHECK(x[0] == Approx(-0.5).epsilon(1e-15));
  CHECK(x[1] == Approx(0.5).epsilon(1e-15));
  r = testing::RunMaybe("MatrixSolve", {M2(1, 2, 2, 4), Ones(TensorShape({2, 1}))},
                        {{"T", TypeA(tensorflow::DT_DOUBLE)}, {"adjoint", BoolA(false)}});
  CHECK_THAT(r.status.message(), Catch::Contains("Input matrix is not invertible."));
  r = testing::RunMaybe("MatrixSolve", {Ones(TensorShape({2, 2, 2})), Ones(TensorShape({3, 2, 1}))},
                        {{"T", TypeA(tensorflow::DT_DOUBLE)}, {"adjoint", BoolA(false)}});
  CHECK_THAT(r.status.message(), Catch::Contains("All input tensors must have the same outer dimensions."));
}

testing::AttrMap TriAttrs(bool lower, bool adjoint) {
  return {{"T", TypeA(tensorflow::DT_DOUBLE)}, {"lower", BoolA(lower)}, {"adjoint", BoolA(adjoint)}};
}

TEST_CASE("MatrixTriangularSolve reads one triangle, its adjoint on request, and broadcasts batches") {
  const Tensor a = M2(2, 100, 1, 4);
  const Tensor b = Ones(TensorShape({2, 1}));
  // [[2, 0], [1, 4]] x = 1: x = [0.5, 0.125].
  auto r = RunOp("MatrixTriangularSolve", {a, b}, TriAttrs(true, false));
  CHECK(testing::Values<double>(r.outputs[0]) == std::vector<double>{0.5, 0.125});
  // [[2, 1], [0, 4]] x = 1: x = [0.375, 0.25].
  r = RunOp("MatrixTriangularSolve", {a, b}, TriAttrs(true, true));
  CHECK(testing::Values<double>(r.outputs[0]) == std::vector<double>{0.375, 0.25});
  // [[2, 100], [0, 4]] x = 1: x = [-12, 0.25].
  r = RunOp("MatrixTriangularSolve", {a, b}, TriAttrs(false, false));
  CHECK(testing::Values<double>(r.outputs[0]) == std::vector<double>{-12, 0.25});
  // Three matrices against one right-hand side.
  const Tensor three = Tensor::FromVector<double>({1, 0, 0, 1, 2, 0, 0, 2, 4, 0, 0, 4}, TensorShape({3, 2, 2}));
  r = RunOp("MatrixTriangularSolve", {three, Ones(TensorShape({1, 2, 1}))}, TriAttrs(true, false));
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({3, 2, 1}));
  CHECK(testing::Values<double>(r.outputs[0]) == std::vector<double>{1, 1, 0.5, 0.5, 0.25, 0.25});
  r = testing::RunMaybe("MatrixTriangularSolve", {three, Ones(TensorShape({2, 2, 1}))}, TriAttrs(true, false));
  CHECK_THAT(r.status.message(), Catch::Contains("must have compatible batch dimensions: [3,2,2] vs. [2,2,1]"));
  r = testing::RunMaybe("MatrixTriangularSolve", {a, Ones(TensorShape({3, 1}))}, TriAttrs(true, false));
  CHECK_THAT(r.status.message(), Catch::Contains("In[0] mismatch In[1] shape: 2 vs. 3: [2,2] [3,1] 1 0"));
}

TEST_CASE("MatrixTriangularSolve with a zero on the diagonal divides by it, as TensorFlow's does") {
  auto r = RunOp("MatrixTriangularSolve", {M2(0, 0, 2, 4), Ones(TensorShape({2, 1}))}, TriAttrs(true, false));
  REQUIRE(r.status.ok());
  const std::vector<double> x = testing::Values<double>(r.outputs[0]);
  CHECK(std::isinf(x[0]));
  CHECK(x[0] > 0);
  CHECK(std::isinf(x[1]));
  CHECK(x[1] < 0);
}

}  // namespace
}  // namespace tensoract
