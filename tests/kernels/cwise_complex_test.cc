// Kernels of complex64 and complex128 arithmetic, reductions and MatMul. Expected values were
// printed by TensorFlow 2.21 (python3, the tf.raw_ops call named in each comment, eagerly on
// the CPU) and pasted here.
#include <catch2/catch.hpp>
#include <cmath>
#include <complex>
#include <limits>
#include <vector>

#include "tests/kernels/kernel_test_util.h"

namespace tensoract {
namespace {

using testing::Unary;
using testing::Binary;

using testing::AttrMap;
using testing::BoolA;
using testing::Run;
using testing::RunOp;
using testing::TypeA;
using testing::Values;

const float kInfF = std::numeric_limits<float>::infinity();


TEST_CASE("complex Mul, Div and SquaredDifference give TensorFlow's values", "[complex]") {
  const Tensor x = Tensor::FromVector<complex128>({{1, 2}, {-3, 0.5}, {2.5, -1}});
  const Tensor y = Tensor::FromVector<complex128>({{3, 4}, {0.25, -2}, {-1, 1}});
  // Mul(x, y): [-5+10j, 0.25+6.125j, -1.5+3.5j]
  Run r = Binary("Mul", x, y);
  REQUIRE(r.status.ok());
  CHECK(Values<complex128>(r.outputs[0]) == std::vector<complex128>{{-5, 10}, {0.25, 6.125}, {-1.5, 3.5}});
  // Div(x, y): [0.44+0.08j, -0.43076923-1.44615385j, -1.75-0.75j]
  r = Binary("Div", x, y);
  REQUIRE(r.status.ok());
  const std::vector<complex128> q = Values<complex128>(r.outputs[0]);
  CHECK(q[0].real() == Approx(0.44).epsilon(1e-15));
  CHECK(q[0].imag() == Approx(0.08).epsilon(1e-15));
  CHECK(q[1].real() == Approx(-0.43076923076923).epsilon(1e-12));
  CHECK(q[1].imag() == Approx(-1.44615384615385).epsilon(1e-12));
  CHECK(q[2] == complex128(-1.75, -0.75));
  // SquaredDifference(x, y) = (x - y) conj(x - y): [8+0j, 16.8125+0j, 16.25+0j]
  r = Binary("SquaredDifference", x, y);
  REQUIRE(r.status.ok());
  CHECK(Values<complex128>(r.outputs[0]) == std::vector<complex128>{{8, 0}, {16.8125, 0}, {16.25, 0}});
}

TEST_CASE("a complex product in whole vectors is (ac - bd, ad + bc), as TensorFlow's", "[complex]") {
  // Mul(x=[inf+inf j] * 4, y=[1+0j] * 4): [nan+nanj] * 4 (C's product would recover inf + inf j)
  const Tensor x = Tensor::FromVector<complex64>(std::vector<complex64>(4, {kInfF, kInfF}));
  const Tensor y = Tensor::FromVector<complex64>(std::vector<complex64>(4, {1.f, 0.f}));
  Run r = Binary("Mul", x, y);
  REQUIRE(r.status.ok());
  for (const complex64& v : Values<complex64>(r.outputs[0])) {
    CHECK(std::isnan(v.real()));
    CHECK(std::isnan(v.imag()));
  }
}

TEST_CASE("complex Sign, Sqrt and Sigmoid at their special values", "[complex]") {
  // Sign(x=np.array([3+4j, 0j, -2j], np.complex64)): [0.6+0.8j, 0+0j, -0-1j]
  Run r = Unary("Sign", Tensor::FromVector<complex64>({{3, 4}, {0, 0}, {0, -2}}));
  REQUIRE(r.status.ok());
  const std::vector<complex64> s = Values<complex64>(r.outputs[0]);
  CHECK(s[0].real() == Approx(0.6f));
  CHECK(s[0].imag() == Approx(0.8f));
  CHECK(s[1] == complex64(0, 0));
  CHECK(s[2] == complex64(0, -1));
  // Sqrt(x=np.array([-4+0j, 3+4j, 0j], np.complex64)): [0+2j, 2+1j, 0+0j]
  r = Unary("Sqrt", Tensor::FromVector<complex64>({{-4, 0}, {3, 4}, {0, 0}}));
  REQUIRE(r.status.ok());
  CHECK(Values<complex64>(r.outputs[0]) == std::vector<complex64>{{0, 2}, {2, 1}, {0, 0}});
  // Sigmoid(x=np.array([0j, -1000+1j, 1000+0j], np.complex64)): [0.5+0j, 0+0j, 1+0j]
  r = Unary("Sigmoid", Tensor::FromVector<complex64>({{0, 0}, {-1000, 1}, {1000, 0}}));
  REQUIRE(r.status.ok());
  CHECK(Values<complex64>(r.outputs[0]) == std::vector<complex64>{{0.5f, 0}, {0, 0}, {1, 0}});
  // ReciprocalGrad(y=[1+1j, 2-1j], dy=[1+0j, 0j]) = -conj(y)^2 dy: [0+2j, 0+0j]
  r = Binary("ReciprocalGrad", Tensor::FromVector<complex64>({{1, 1}, {2, -1}}),
             Tensor::FromVector<complex64>({{1, 0}, {0, 0}}));
  REQUIRE(r.status.ok());
  CHECK(Values<complex64>(r.outputs[0]) == std::vector<complex64>{{0, 2}, {0, 0}});
}

TEST_CASE("complex Sum, Mean, Prod and MatMul", "[complex]") {
  const Tensor m = Tensor::FromVector<complex64>({{1, 2}, {3, -1}, {0, 0.5}, {-2, 0}}, TensorShape({2, 2}));
  const Tensor axis = Tensor::FromVector<int32_t>({1});
  const AttrMap attrs = {{"T", TypeA(tensorflow::DT_COMPLEX64)}, {"Tidx", TypeA(tensorflow::DT_INT32)},
                         {"keep_dims", BoolA(false)}};
  // Sum(input=[[1+2j, 3-1j], [0.5j, -2+0j]], axis=[1]): [4+1j, -2+0.5j]; Mean: [2+0.5j, -1+0.25j]
  Run r = RunOp("Sum", {m, axis}, attrs);
  REQUIRE(r.status.ok());
  CHECK(Values<complex64>(r.outputs[0]) == std::vector<complex64>{{4, 1}, {-2, 0.5f}});
  r = RunOp("Mean", {m, axis}, attrs);
  REQUIRE(r.status.ok());
  CHECK(Values<complex64>(r.outputs[0]) == std::vector<complex64>{{2, 0.5f}, {-1, 0.25f}});
  // Mean(input=np.zeros((0,), np.complex64), axis=[0]): 0j (a float mean of nothing is NaN)
  r = RunOp("Mean", {Tensor::FromVector<complex64>({}), Tensor::FromVector<int32_t>({0})}, attrs);
  REQUIRE(r.status.ok());
  CHECK(Values<complex64>(r.outputs[0]) == std::vector<complex64>{{0, 0}});
  // Prod(input=np.array([1+2j, 3-1j, 0.5j], np.complex128), axis=[0]): -2.5+2.5j
  r = RunOp("Prod", {Tensor::FromVector<complex128>({{1, 2}, {3, -1}, {0, 0.5}}), Tensor::FromVector<int32_t>({0})},
            {{"T", TypeA(tensorflow::DT_COMPLEX128)}, {"Tidx", TypeA(tensorflow::DT_INT32)}, {"keep_dims", BoolA(false)}});
  REQUIRE(r.status.ok());
  CHECK(Values<complex128>(r.outputs[0]) == std::vector<complex128>{{-2.5, 2.5}});
  // MatMul(a=[[1+1j], [2-1j]], b=[[1j, 3+0j]], transpose_a=True, transpose_b=True): [[5-2j]]
  r = RunOp("MatMul",
            {Tensor::FromVector<complex64>({{1, 1}, {2, -1}}, TensorShape({2, 1})),
             Tensor::FromVector<complex64>({{0, 1}, {3, 0}}, TensorShape({1, 2}))},
            {{"T", TypeA(tensorflow::DT_COMPLEX64)}, {"transpose_a", BoolA(true)}, {"transpose_b", BoolA(true)}});
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({1, 1}));
  CHECK(Values<complex64>(r.outputs[0]) == std::vector<complex64>{{5, -2}});
  // Equal(x=[1+2j, 1+2j], y=[1+2j, 1-2j]): [True, False]
  r = RunOp("Equal", {Tensor::FromVector<complex64>({{1, 2}, {1, 2}}), Tensor::FromVector<complex64>({{1, 2}, {1, -2}})},
            {{"T", TypeA(tensorflow::DT_COMPLEX64)}, {"incompatible_shape_error", BoolA(true)}});
  REQUIRE(r.status.ok());
  CHECK(Values<bool>(r.outputs[0]) == std::vector<bool>{true, false});
}

}  // namespace
}  // namespace tensoract
