// Qr, SelfAdjointEigV2 and Svd (kernels/linalg/qr_op.cc, self_adjoint_eig_op.cc, svd_op.cc) on
// hand-worked 2x2 matrices: the factors multiply back, come in TensorFlow's order and shapes
// (thin and full, empty matrices, scalars for vectors not asked for), and with the sign
// Eigen's Householder reflection gives; what cannot be factored is refused (eig) or NaN (svd). The harness
// (tests/compat, family linalg) compares all three with TensorFlow.
#include <cmath>
#include <limits>
#include <vector>

#include <Eigen/Core>

#include "tests/kernels/kernel_test_util.h"

namespace tensoract {
namespace {

using testing::M2;

using testing::BoolA;
using testing::RunOp;
using testing::TypeA;


// x (r x k) times y (k x c), row-major.
std::vector<double> Times(const std::vector<double>& x, const std::vector<double>& y, int r, int k, int c) {
  std::vector<double> z(r * c, 0.0);
  for (int i = 0; i < r; ++i)
    for (int j = 0; j < c; ++j)
      for (int l = 0; l < k; ++l) z[i * c + j] += x[i * k + l] * y[l * c + j];
  return z;
}

void CheckCloseDoubles(const std::vector<double>& got, const std::vector<double>& want) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) CHECK(got[i] == Approx(want[i]).margin(1e-14));
}

TEST_CASE("Qr of [[3, 1], [4, 2]]: the reflection makes r[0][0] = -5; q r is the matrix") {
  auto r = RunOp("Qr", {M2(3, 1, 4, 2)}, {{"T", TypeA(tensorflow::DT_DOUBLE)}, {"full_matrices", BoolA(false)}});
  REQUIRE(r.status.ok());
  const std::vector<double> q = testing::Values<double>(r.outputs[0]), rr = testing::Values<double>(r.outputs[1]);
  CheckCloseDoubles({q[0], q[2]}, {-0.6, -0.8});
  CheckCloseDoubles({rr[0], rr[1], rr[2]}, {-5, -2.2, 0});
  CheckCloseDoubles(Times(q, rr, 2, 2, 2), {3, 1, 4, 2});
  // Thin and full of a 3x0 matrix: q is 3x0, or the 3x3 identity.
  const Tensor empty = Tensor::FromVector<double>({}, TensorShape({3, 0}));
  r = RunOp("Qr", {empty}, {{"T", TypeA(tensorflow::DT_DOUBLE)}, {"full_matrices", BoolA(false)}});
  CHECK(r.outputs[0].shape() == TensorShape({3, 0}));
  CHECK(r.outputs[1].shape() == TensorShape({0, 0}));
  r = RunOp("Qr", {empty}, {{"T", TypeA(tensorflow::DT_DOUBLE)}, {"full_matrices", BoolA(true)}});
  CHECK(testing::Values<double>(r.outputs[0]) == std::vector<double>{1, 0, 0, 0, 1, 0, 0, 0, 1});
  CHECK(r.outputs[1].shape() == TensorShape({3, 0}));
}

TEST_CASE("SelfAdjointEigV2 of [[2, 1], [1, 2]]: eigenvalues 1 and 3, ascending; only the lower triangle is read") {
  auto r = RunOp("SelfAdjointEigV2", {M2(2, 100, 1, 2)},
                 {{"T", TypeA(tensorflow::DT_DOUBLE)}, {"compute_v", BoolA(true)}});
  REQUIRE(r.status.ok());
  CheckCloseDoubles(testing::Values<double>(r.outputs[0]), {1, 3});
  const std::vector<double> v = testing::Values<double>(r.outputs[1]);
  const double h = 1 / std::sqrt(2.0);
  CheckCloseDoubles({std::abs(v[0]), std::abs(v[1]), std::abs(v[2]), std::abs(v[3])}, {h, h, h, h});
  CHECK(v[0] * v[2] < 0);  // (1, -1) for eigenvalue 1
  CHECK(v[1] * v[3] > 0);  // (1, 1) for eigenvalue 3
  r = RunOp("SelfAdjointEigV2", {M2(2, 1, 1, 2)}, {{"T", TypeA(tensorflow::DT_DOUBLE)}, {"compute_v", BoolA(false)}});
  CHECK(r.outputs[1].shape() == TensorShape({}));
  r = testing::RunMaybe("SelfAdjointEigV2", {M2(std::nan(""), 1, 1, 2)},
                        {{"T", TypeA(tensorflow::DT_DOUBLE)}, {"compute_v", BoolA(true)}});
  CHECK_THAT(r.status.message(), Catch::Contains("Self-adjoint eigen decomposition was not successful"));
}

TEST_CASE("Svd of [[3, 0], [0, -4]]: singular values 4 and 3; u diag(s) v^T is the matrix; NaN in, NaN out") {
  auto attrs = [](bool full) {
    return testing::AttrMap{
        {"T", TypeA(tensorflow::DT_DOUBLE)}, {"compute_uv", BoolA(true)}, {"full_matrices", BoolA(full)}};
  };
  auto r = RunOp("Svd", {M2(3, 0, 0, -4)}, attrs(false));
  REQUIRE(r.status.ok());
  const std::vector<double> s = testing::Values<double>(r.outputs[0]);
  CheckCloseDoubles(s, {4, 3});
  std::vector<double> u = testing::Values<double>(r.outputs[1]), v = testing::Values<double>(r.outputs[2]);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) u[i * 2 + j] *= s[j];
  CheckCloseDoubles(Times(u, {v[0], v[2], v[1], v[3]}, 2, 2, 2), {3, 0, 0, -4});
  // A 0x3 matrix: with full_matrices v is the 3x3 identity.
  r = RunOp("Svd", {Tensor::FromVector<double>({}, TensorShape({0, 3}))}, attrs(true));
  CHECK(r.outputs[0].shape() == TensorShape({0}));
  CHECK(testing::Values<double>(r.outputs[2]) == std::vector<double>{1, 0, 0, 0, 1, 0, 0, 0, 1});
  r = RunOp("Svd", {M2(std::nan(""), 1, 1, 2)}, attrs(false));
  CHECK(std::isnan(testing::Values<double>(r.outputs[0])[0]));
  CHECK(std::isnan(testing::Values<double>(r.outputs[1])[3]));
}

TEST_CASE("Qr in half, as TensorFlow's CPU kernel: [[3, 1], [4, 2]] gives r[0][0] = -5") {
  const Tensor a = Tensor::FromVector<Eigen::half>({Eigen::half(3), Eigen::half(1), Eigen::half(4), Eigen::half(2)},
                                                   TensorShape({2, 2}));
  auto r = RunOp("Qr", {a}, {{"T", TypeA(tensorflow::DT_HALF)}, {"full_matrices", BoolA(false)}});
  REQUIRE(r.status.ok());
  CHECK(static_cast<float>(r.outputs[1].base<Eigen::half>()[0]) == -5.0f);
  CHECK(static_cast<float>(r.outputs[0].base<Eigen::half>()[0]) == Approx(-0.6f).epsilon(1e-3));
}

}  // namespace
}  // namespace tensoract
