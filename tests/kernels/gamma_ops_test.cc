// Ndtri, Erfinv, Lgamma, Digamma, Polygamma and Zeta (kernels/cpu/cwise_gamma_ops.cc) at
// values with known closed forms, and TensorFlow's domain edges (NaN outside ndtri's [0, 1],
// -inf and inf at its ends). The harness (tests/compat, Ndtri ... Zeta) compares them with
// TensorFlow over random and edge values, gradients too.
#include <cmath>
#include <limits>
#include <vector>

#include "tests/kernels/kernel_test_util.h"

namespace tensoract {
namespace {

using testing::RunOp;
using testing::TypeA;

std::vector<double> Unary(const std::string& op, const std::vector<double>& x) {
  auto r = RunOp(op, {Tensor::FromVector<double>(x)}, {{"T", TypeA(tensorflow::DT_DOUBLE)}});
  REQUIRE(r.status.ok());
  return testing::Values<double>(r.outputs[0]);
}

std::vector<double> Binary(const std::string& op, const std::vector<double>& a, const std::vector<double>& b) {
  auto r = RunOp(op, {Tensor::FromVector<double>(a), Tensor::FromVector<double>(b)},
                 {{"T", TypeA(tensorflow::DT_DOUBLE)}});
  REQUIRE(r.status.ok());
  return testing::Values<double>(r.outputs[0]);
}

TEST_CASE("Ndtri and Erfinv invert the normal distribution and erf, NaN outside their domains") {
  const double inf = std::numeric_limits<double>::infinity();
  const auto n = Unary("Ndtri", {0.0, 1.0, 0.5, 0.975, -0.1, 1.1});
  CHECK(n[0] == -inf);
  CHECK(n[1] == inf);
  CHECK(n[2] == 0.0);
  CHECK(n[3] == Approx(1.959963984540054).epsilon(1e-14));
  CHECK(std::isnan(n[4]));
  CHECK(std::isnan(n[5]));
  const auto e = Unary("Erfinv", {-1.0, 1.0, 0.0, std::erf(0.7), 1.5});
  CHECK(e[0] == -inf);
  CHECK(e[1] == inf);
  CHECK(e[2] == 0.0);
  CHECK(e[3] == Approx(0.7).epsilon(1e-14));
  CHECK(std::isnan(e[4]));
}

TEST_CASE("Lgamma, Digamma, Polygamma and Zeta match their closed forms") {
  const double pi = M_PI, euler = 0.5772156649015329;
  const auto lg = Unary("Lgamma", {5.0, 0.5, -0.5});
  CHECK(lg[0] == Approx(std::log(24.0)).epsilon(1e-14));
  CHECK(lg[1] == Approx(0.5 * std::log(pi)).epsilon(1e-14));
  CHECK(lg[2] == Approx(std::log(2 * std::sqrt(pi))).epsilon(1e-14));  // |gamma(-1/2)| = 2 sqrt(pi)
  const auto dg = Unary("Digamma", {1.0, 0.5});
  CHECK(dg[0] == Approx(-euler).epsilon(1e-14));
  CHECK(dg[1] == Approx(-euler - 2 * std::log(2.0)).epsilon(1e-14));
  const auto pg = Binary("Polygamma", {0.0, 1.0, 2.0}, {1.0, 1.0, 1.0});
  CHECK(pg[0] == Approx(-euler).epsilon(1e-14));
  CHECK(pg[1] == Approx(pi * pi / 6).epsilon(1e-13));
  CHECK(pg[2] == Approx(-2 * 1.2020569031595942).epsilon(1e-13));  // -2 zeta(3)
  const auto z = Binary("Zeta", {2.0, 4.0}, {1.0, 1.0});
  CHECK(z[0] == Approx(pi * pi / 6).epsilon(1e-13));
  CHECK(z[1] == Approx(std::pow(pi, 4) / 90).epsilon(1e-13));
}

}  // namespace
}  // namespace tensoract
