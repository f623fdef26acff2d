// Ndtri, Erfinv, Lgamma, Digamma, Polygamma, Zeta, Igamma, Igammac, IgammaGradA,
// RandomGammaGrad and Betainc (kernels/cpu/cwise_gamma_ops.cc) at values with known closed forms, and TensorFlow's domain edges (NaN outside ndtri's [0, 1],
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

std::vector<double> GammaBinary(const std::string& op, const std::vector<double>& a, const std::vector<double>& b) {
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
  const auto pg = GammaBinary("Polygamma", {0.0, 1.0, 2.0}, {1.0, 1.0, 1.0});
  CHECK(pg[0] == Approx(-euler).epsilon(1e-14));
  CHECK(pg[1] == Approx(pi * pi / 6).epsilon(1e-13));
  CHECK(pg[2] == Approx(-2 * 1.2020569031595942).epsilon(1e-13));  // -2 zeta(3)
  const auto z = GammaBinary("Zeta", {2.0, 4.0}, {1.0, 1.0});
  CHECK(z[0] == Approx(pi * pi / 6).epsilon(1e-13));
  CHECK(z[1] == Approx(std::pow(pi, 4) / 90).epsilon(1e-13));
}

TEST_CASE("Igamma and Igammac match their closed forms and sum to one; their derivatives agree with differences") {
  // P(1, x) = 1 - exp(-x), P(1/2, x) = erf(sqrt(x)).
  const std::vector<double> a = {1.0, 1.0, 0.5, 0.5, 3.0}, x = {0.3, 2.0, 0.7, 4.0, 2.5};
  const auto p = GammaBinary("Igamma", a, x);
  const auto q = GammaBinary("Igammac", a, x);
  CHECK(p[0] == Approx(1 - std::exp(-0.3)).epsilon(1e-13));
  CHECK(p[1] == Approx(1 - std::exp(-2.0)).epsilon(1e-13));
  CHECK(p[2] == Approx(std::erf(std::sqrt(0.7))).epsilon(1e-13));
  CHECK(p[3] == Approx(std::erf(2.0)).epsilon(1e-13));
  // P(3, x) = 1 - exp(-x) (1 + x + x^2 / 2).
  CHECK(p[4] == Approx(1 - std::exp(-2.5) * (1 + 2.5 + 2.5 * 2.5 / 2)).epsilon(1e-13));
  for (size_t i = 0; i < a.size(); ++i) CHECK(p[i] + q[i] == Approx(1.0).epsilon(1e-13));

  // d P / da against central differences of Igamma itself.
  const double h = 1e-6;
  const auto da = GammaBinary("IgammaGradA", {2.5, 0.8}, {1.5, 3.0});
  const auto up = GammaBinary("Igamma", {2.5 + h, 0.8 + h}, {1.5, 3.0});
  const auto down = GammaBinary("Igamma", {2.5 - h, 0.8 - h}, {1.5, 3.0});
  for (int i = 0; i < 2; ++i) CHECK(da[i] == Approx((up[i] - down[i]) / (2 * h)).epsilon(1e-6));

  // A Gamma(alpha) sample moves with alpha so that its CDF stays put:
  // d sample / d alpha = -(dP/dalpha) / (dP/dx), with dP/dx = x^(alpha-1) e^-x / Gamma(alpha).
  const double alpha = 2.5, sample = 1.5;
  const double density = std::exp((alpha - 1) * std::log(sample) - sample - std::lgamma(alpha));
  const auto ds = GammaBinary("RandomGammaGrad", {alpha}, {sample});
  CHECK(ds[0] == Approx(-da[0] / density).epsilon(1e-6));
}

TEST_CASE("Betainc matches its closed forms, broadcasts scalars and refuses other shapes") {
  // I_x(a, 1) = x^a, I_x(1, b) = 1 - (1 - x)^b.
  auto r = RunOp("Betainc",
                 {Tensor::FromVector<double>({2.0, 1.0, 3.0}), Tensor::FromVector<double>({1.0, 4.0, 1.0}),
                  Tensor::FromVector<double>({0.3, 0.3, 0.6})},
                 {{"T", TypeA(tensorflow::DT_DOUBLE)}});
  REQUIRE(r.status.ok());
  const auto v = testing::Values<double>(r.outputs[0]);
  CHECK(v[0] == Approx(0.09).epsilon(1e-13));
  CHECK(v[1] == Approx(1 - std::pow(0.7, 4)).epsilon(1e-13));
  CHECK(v[2] == Approx(0.216).epsilon(1e-13));
  // Scalar a and b with a vector x.
  r = RunOp("Betainc", {Tensor::Scalar<double>(1.0), Tensor::Scalar<double>(1.0), Tensor::FromVector<double>({0.25, 0.5})},
            {{"T", TypeA(tensorflow::DT_DOUBLE)}});
  REQUIRE(r.status.ok());
  CHECK(testing::Values<double>(r.outputs[0]) == std::vector<double>{0.25, 0.5});
  // Two different non-scalar shapes: TensorFlow broadcasts nothing else.
  r = RunOp("Betainc",
            {Tensor::FromVector<double>({1.0, 2.0}), Tensor::FromVector<double>({1.0, 2.0, 3.0}),
             Tensor::Scalar<double>(0.5)},
            {{"T", TypeA(tensorflow::DT_DOUBLE)}});
  CHECK(r.status.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(r.status.message(), Catch::Contains("shapes of a, b and x are inconsistent"));
}

}  // namespace
}  // namespace tensoract
