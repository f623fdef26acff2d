// BatchMatMul, BatchMatMulV2, BatchMatMulV3, MatrixInverse and MatrixDeterminant on the CPU. Expected values were
// printed by TensorFlow 2.21 (tf.linalg.matmul, tf.raw_ops.BatchMatMulV2, tf.linalg.inv,
// tf.linalg.det on the inputs below) and pasted here.
#include <Eigen/Core>
#include <catch2/catch.hpp>
#include <complex>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

#include "tests/kernels/kernel_test_util.h"

namespace tensoract {
namespace {

using testing::Iota;

namespace tf = ::tensorflow;

using testing::BoolA;
using testing::Run;
using testing::RunOp;
using testing::TypeA;
using testing::Values;


TEMPLATE_TEST_CASE("BatchMatMulV2 broadcasts batch dimensions", "[matrix]", float, double, int32_t, int64_t) {
  using T = TestType;
  // tf.linalg.matmul(tf.reshape(tf.range(12.), [2,2,3]), tf.reshape(tf.range(6.), [3,2]))
  Tensor x = Tensor::FromVector<T>(Iota<T>(12), TensorShape({2, 2, 3}));
  Tensor y = Tensor::FromVector<T>(Iota<T>(6), TensorShape({3, 2}));
  Run r = RunOp("BatchMatMulV2", {x, y}, {{"T", TypeA(DataTypeToEnum<T>::value)}});
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({2, 2, 2}));
  CHECK(Values<T>(r.outputs[0]) == std::vector<T>{10, 13, 28, 40, 46, 67, 64, 94});
  // BatchMatMulV2(x=reshape(range(12.), [2,3,2]), y=reshape(range(6.), [1,3,2]), adj_x=True)
  Tensor xa = Tensor::FromVector<T>(Iota<T>(12), TensorShape({2, 3, 2}));
  Tensor ya = Tensor::FromVector<T>(Iota<T>(6), TensorShape({1, 3, 2}));
  r = RunOp("BatchMatMulV2", {xa, ya}, {{"T", TypeA(DataTypeToEnum<T>::value)}, {"adj_x", BoolA(true)}});
  REQUIRE(r.status.ok());
  CHECK(Values<T>(r.outputs[0]) == std::vector<T>{20, 26, 26, 35, 56, 80, 62, 89});
}

TEST_CASE("BatchMatMulV2 rejects mismatched inner or batch dimensions, naming the node", "[matrix]") {
  Tensor x(tf::DT_FLOAT, TensorShape({2, 2, 3}));
  Run r = RunOp("BatchMatMulV2", {x, Tensor(tf::DT_FLOAT, TensorShape({4, 2}))}, {{"T", TypeA(tf::DT_FLOAT)}});
  CHECK_THAT(r.status.message(), Catch::Contains("node 'n'") && Catch::Contains("Matrix size-incompatible"));
  r = RunOp("BatchMatMulV2", {x, Tensor(tf::DT_FLOAT, TensorShape({3, 3, 2}))}, {{"T", TypeA(tf::DT_FLOAT)}});
  CHECK_THAT(r.status.message(), Catch::Contains("must have compatible batch dimensions"));
  r = RunOp("BatchMatMulV2", {Tensor(tf::DT_FLOAT, TensorShape({3})), x}, {{"T", TypeA(tf::DT_FLOAT)}});
  CHECK_THAT(r.status.message(), Catch::Contains("In[0] ndims must be >= 2: 1"));
}

TEMPLATE_TEST_CASE("BatchMatMul (v1) multiplies matrices of equal batch dimensions", "[matrix]", float, double, int32_t,
                   int64_t) {
  using T = TestType;
  // tf.raw_ops.BatchMatMul(x=reshape(range(12.), [2,2,3]), y=reshape(range(12.), [2,3,2])), and y=x, adj_y=True
  Tensor x = Tensor::FromVector<T>(Iota<T>(12), TensorShape({2, 2, 3}));
  Tensor y = Tensor::FromVector<T>(Iota<T>(12), TensorShape({2, 3, 2}));
  Run r = RunOp("BatchMatMul", {x, y}, {{"T", TypeA(DataTypeToEnum<T>::value)}});
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({2, 2, 2}));
  CHECK(Values<T>(r.outputs[0]) == std::vector<T>{10, 13, 28, 40, 172, 193, 244, 274});
  r = RunOp("BatchMatMul", {x, x}, {{"T", TypeA(DataTypeToEnum<T>::value)}, {"adj_y", BoolA(true)}});
  REQUIRE(r.status.ok());
  CHECK(Values<T>(r.outputs[0]) == std::vector<T>{5, 14, 14, 50, 149, 212, 212, 302});
}

TEST_CASE("BatchMatMul (v1) does not broadcast: TensorFlow's messages", "[matrix]") {
  Tensor x(tf::DT_FLOAT, TensorShape({2, 2, 3}));
  Run r = RunOp("BatchMatMul", {x, Tensor(tf::DT_FLOAT, TensorShape({1, 3, 2}))}, {{"T", TypeA(tf::DT_FLOAT)}});
  CHECK_THAT(r.status.message(), Catch::Contains("In[0].dim(0) and In[1].dim(0) must be the same: [2,2,3] vs [1,3,2]"));
  r = RunOp("BatchMatMul", {x, Tensor(tf::DT_FLOAT, TensorShape({3, 2}))}, {{"T", TypeA(tf::DT_FLOAT)}});
  CHECK_THAT(r.status.message(), Catch::Contains("In[0] and In[1] has different ndims: [2,2,3] vs. [3,2]"));
  r = RunOp("BatchMatMul", {x, Tensor(tf::DT_FLOAT, TensorShape({2, 4, 2}))}, {{"T", TypeA(tf::DT_FLOAT)}});
  CHECK_THAT(r.status.message(), Catch::Contains("Matrix size-incompatible: In[0]: [2,2,3], In[1]: [2,4,2]"));
}

TEST_CASE("BatchMatMulV3: one type throughout, or int8/uint8 sides with an int32 product", "[matrix]") {
  auto attrs = [](tf::DataType a, tf::DataType b, tf::DataType out) {
    return std::map<std::string, tf::AttrValue>{{"Ta", TypeA(a)}, {"Tb", TypeA(b)}, {"Tout", TypeA(out)}};
  };
  // tf.raw_ops.BatchMatMulV3(x=reshape(range(12.), [2,2,3]), y=reshape(range(12.), [2,3,2]), Tout=...)
  Tensor x = Tensor::FromVector<float>(Iota<float>(12), TensorShape({2, 2, 3}));
  Tensor y = Tensor::FromVector<float>(Iota<float>(12), TensorShape({2, 3, 2}));
  Run r = RunOp("BatchMatMulV3", {x, y}, attrs(tf::DT_FLOAT, tf::DT_FLOAT, tf::DT_FLOAT));
  REQUIRE(r.status.ok());
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{10, 13, 28, 40, 172, 193, 244, 274});
  Tensor xi = Tensor::FromVector<int8_t>(Iota<int8_t>(12), TensorShape({2, 2, 3}));
  Tensor yu = Tensor::FromVector<uint8_t>(Iota<uint8_t>(12), TensorShape({2, 3, 2}));
  r = RunOp("BatchMatMulV3", {xi, yu}, attrs(tf::DT_INT8, tf::DT_UINT8, tf::DT_INT32));
  REQUIRE(r.status.ok());
  CHECK(Values<int32_t>(r.outputs[0]) == std::vector<int32_t>{10, 13, 28, 40, 172, 193, 244, 274});
  // int8 products past int8's range are exact in int32: 127 * 127 * 3
  Tensor big = Tensor::FromVector<int8_t>({127, 127, 127}, TensorShape({1, 3}));
  Tensor col = Tensor::FromVector<int8_t>({127, 127, 127}, TensorShape({3, 1}));
  r = RunOp("BatchMatMulV3", {big, col}, attrs(tf::DT_INT8, tf::DT_INT8, tf::DT_INT32));
  REQUIRE(r.status.ok());
  CHECK(Values<int32_t>(r.outputs[0]) == std::vector<int32_t>{48387});
  r = RunOp("BatchMatMulV3", {x, Tensor(tf::DT_FLOAT, TensorShape({3, 2, 2}))}, attrs(tf::DT_FLOAT, tf::DT_FLOAT, tf::DT_FLOAT));
  CHECK_THAT(r.status.message(), Catch::Contains("In[0] and In[1] must have compatible batch dimensions: [2,2,3] vs. [3,2,2]"));
}

// Doubles as T, and T's elements as doubles.
template <class T>
Tensor SmallMatrix(const std::vector<double>& v, const TensorShape& shape) {
  std::vector<T> t;
  for (double d : v) t.push_back(static_cast<T>(d));
  return Tensor::FromVector<T>(t, shape);
}
template <class T>
std::vector<double> Doubles(const Tensor& t) {
  std::vector<double> out;
  for (T v : Values<T>(t)) out.push_back(static_cast<double>(v));
  return out;
}

// TensorFlow multiplies half and bfloat16 in float and narrows each product once: half to
// nearest, bfloat16 truncated (1 + 0.75 * 2^-7 is 1 in bfloat16, not 1.0078125).
TEMPLATE_TEST_CASE("BatchMatMul, V2 and V3 of half and bfloat16: TensorFlow's products bit for bit", "[matrix]",
                   Eigen::half, Eigen::bfloat16) {
  using T = TestType;
  const bool half = std::is_same<T, Eigen::half>::value;
  const std::vector<double> xv = {1.0, 0.0078125, 0.1, 0.2, 3.0, -1.0, 1.0 / 3, 2.0 / 3};
  const std::vector<double> yv = {1.0, 2.0, 0.75, -0.3};
  Tensor x = SmallMatrix<T>(xv, TensorShape({2, 2, 2}));
  Tensor y = SmallMatrix<T>(yv, TensorShape({2, 2}));
  const tf::DataType dt = DataTypeToEnum<T>::value;
  // tf.raw_ops.BatchMatMulV2(x=x, y=y) (y broadcast over the batch)
  const std::vector<double> v2 =
      half ? std::vector<double>{1.005859375, 1.998046875, 0.25, 0.1400146484375, 2.25, 6.30078125, 0.8330078125,
                                 0.466552734375}
           : std::vector<double>{1.0, 1.9921875, 0.25, 0.1396484375, 2.25, 6.28125, 0.83203125, 0.466796875};
  Run r = RunOp("BatchMatMulV2", {x, y}, {{"T", TypeA(dt)}});
  REQUIRE(r.status.ok());
  CHECK(Doubles<T>(r.outputs[0]) == v2);
  // tf.raw_ops.BatchMatMul(x=x, y=[y, y], adj_x=True)
  Tensor yy = SmallMatrix<T>({1.0, 2.0, 0.75, -0.3, 1.0, 2.0, 0.75, -0.3}, TensorShape({2, 2, 2}));
  r = RunOp("BatchMatMul", {x, yy}, {{"T", TypeA(dt)}, {"adj_x", BoolA(true)}});
  REQUIRE(r.status.ok());
  CHECK(Doubles<T>(r.outputs[0]) ==
        (half ? std::vector<double>{1.0751953125, 1.9697265625, 0.15771484375, -0.04437255859375, 3.25, 5.8984375,
                                    -0.5, -2.19921875}
              : std::vector<double>{1.0703125, 1.96875, 0.1572265625, -0.04443359375, 3.25, 5.875, -0.498046875,
                                    -2.1875}));
  auto v3 = [](tf::DataType a, tf::DataType b) {
    return std::map<std::string, tf::AttrValue>{
        {"Ta", TypeA(a)}, {"Tb", TypeA(b)}, {"Tout", TypeA(b == tf::DT_INT8 ? a : b)}};
  };
  if (half) return;  // TensorFlow has no CPU BatchMatMulV3 of half, nor do we
  r = RunOp("BatchMatMulV3", {x, y}, v3(dt, dt));
  REQUIRE(r.status.ok());
  CHECK(Doubles<T>(r.outputs[0]) == v2);
  // An int8 side is converted to bfloat16 and the product summed in bfloat16, as TensorFlow's
  // Eigen contraction sums it (two terms: one rounding).
  Tensor yi = Tensor::FromVector<int8_t>({1, 2, -3, 4}, TensorShape({2, 2}));
  r = RunOp("BatchMatMulV3", {x, yi}, v3(dt, tf::DT_INT8));
  REQUIRE(r.status.ok());
  CHECK(Doubles<T>(r.outputs[0]) == std::vector<double>{0.9765625, 2.03125, -0.5, 1.0, 6.0, 2.0, -1.6640625, 3.34375});
}

TEST_CASE("MatrixInverse inverts each matrix; adjoint inverts the transpose", "[matrix]") {
  // tf.linalg.inv([[4.,7],[2,6]]) -> [[0.6,-0.7],[-0.2,0.4]]
  Tensor a = Tensor::FromVector<double>({4, 7, 2, 6}, TensorShape({1, 2, 2}));
  Run r = RunOp("MatrixInverse", {a}, {{"T", TypeA(tf::DT_DOUBLE)}});
  REQUIRE(r.status.ok());
  std::vector<double> want{0.6, -0.7, -0.2, 0.4};
  for (int i = 0; i < 4; ++i) CHECK(Values<double>(r.outputs[0])[i] == Approx(want[i]));
  r = RunOp("MatrixInverse", {a}, {{"T", TypeA(tf::DT_DOUBLE)}, {"adjoint", BoolA(true)}});
  REQUIRE(r.status.ok());
  std::vector<double> want_t{0.6, -0.2, -0.7, 0.4};
  for (int i = 0; i < 4; ++i) CHECK(Values<double>(r.outputs[0])[i] == Approx(want_t[i]));
}

TEST_CASE("MatrixInverse of a singular or non-square matrix is an error", "[matrix]") {
  // tf.linalg.inv([[1.,2],[2,4]]): "Input is not invertible."
  Run r = RunOp("MatrixInverse", {Tensor::FromVector<float>({1, 2, 2, 4}, TensorShape({2, 2}))},
                {{"T", TypeA(tf::DT_FLOAT)}});
  CHECK(r.status.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(r.status.message(), Catch::Contains("node 'n'") && Catch::Contains("Input is not invertible."));
  r = RunOp("MatrixInverse", {Tensor(tf::DT_FLOAT, TensorShape({2, 3}))}, {{"T", TypeA(tf::DT_FLOAT)}});
  CHECK_THAT(r.status.message(), Catch::Contains("must be square"));
}

TEST_CASE("MatrixInverse in half and complex, MatrixDeterminant in complex, as TensorFlow's", "[matrix]") {
  // tf.raw_ops.MatrixInverse(input=[[1, 2], [3, 4.5]] in float16): [[-3, 1.333], [2, -0.6665]]
  using H = Eigen::half;
  Run r = RunOp("MatrixInverse", {Tensor::FromVector<H>({H(1.f), H(2.f), H(3.f), H(4.5f)}, TensorShape({2, 2}))},
                {{"T", TypeA(tf::DT_HALF)}});
  REQUIRE(r.status.ok());
  CHECK(Values<H>(r.outputs[0]) == std::vector<H>{H(-3.f), H(1.333f), H(2.f), H(-0.6665f)});
  // complex64 a = [[1+1j, 2], [3j, 4-1j]]: inverse [[0.67647064+0.20588234j, -0.29411766-0.17647058j],
  // [0.26470587-0.44117647j, 0.05882354+0.23529412j]]; adjoint=True: [[0.6764706-0.20588237j,
  // 0.2647059+0.44117644j], [-0.29411763+0.1764706j, 0.05882352-0.2352941j]]; det 5-2.9999998j
  using C = std::complex<float>;
  Tensor a = Tensor::FromVector<C>({C(1, 1), C(2, 0), C(0, 3), C(4, -1)}, TensorShape({2, 2}));
  auto near = [](const std::vector<C>& got, const std::vector<C>& want) {
    for (size_t i = 0; i < want.size(); ++i) {
      CHECK(got[i].real() == Approx(want[i].real()).margin(1e-6));
      CHECK(got[i].imag() == Approx(want[i].imag()).margin(1e-6));
    }
  };
  r = RunOp("MatrixInverse", {a}, {{"T", TypeA(tf::DT_COMPLEX64)}});
  REQUIRE(r.status.ok());
  near(Values<C>(r.outputs[0]), {C(0.67647064f, 0.20588234f), C(-0.29411766f, -0.17647058f),
                                 C(0.26470587f, -0.44117647f), C(0.05882354f, 0.23529412f)});
  r = RunOp("MatrixInverse", {a}, {{"T", TypeA(tf::DT_COMPLEX64)}, {"adjoint", BoolA(true)}});
  REQUIRE(r.status.ok());
  near(Values<C>(r.outputs[0]), {C(0.6764706f, -0.20588237f), C(0.2647059f, 0.44117644f),
                                 C(-0.29411763f, 0.1764706f), C(0.05882352f, -0.2352941f)});
  r = RunOp("MatrixDeterminant", {a}, {{"T", TypeA(tf::DT_COMPLEX64)}});
  REQUIRE(r.status.ok());
  near(Values<C>(r.outputs[0]), {C(5.f, -2.9999998f)});
  // complex128 [[1, 2], [2, 4]]: not invertible; its determinant 0; a 0x0 one's 1
  using Z = std::complex<double>;
  Tensor s = Tensor::FromVector<Z>({Z(1, 0), Z(2, 0), Z(2, 0), Z(4, 0)}, TensorShape({2, 2}));
  r = RunOp("MatrixInverse", {s}, {{"T", TypeA(tf::DT_COMPLEX128)}});
  CHECK_THAT(r.status.message(), Catch::Contains("Input is not invertible."));
  r = RunOp("MatrixDeterminant", {s}, {{"T", TypeA(tf::DT_COMPLEX128)}});
  REQUIRE(r.status.ok());
  CHECK(Values<Z>(r.outputs[0])[0] == Z(0, 0));
  r = RunOp("MatrixDeterminant", {Tensor(tf::DT_COMPLEX128, TensorShape({0, 0}))}, {{"T", TypeA(tf::DT_COMPLEX128)}});
  REQUIRE(r.status.ok());
  CHECK(Values<Z>(r.outputs[0])[0] == Z(1, 0));
}

TEMPLATE_TEST_CASE("MatrixDeterminant of each matrix of a batch", "[matrix]", float, double) {
  using T = TestType;
  // tf.linalg.det([[[4.,7],[2,6]],[[1,2],[3,4]]]) -> [10, -2]
  Tensor a = Tensor::FromVector<T>({4, 7, 2, 6, 1, 2, 3, 4}, TensorShape({2, 2, 2}));
  Run r = RunOp("MatrixDeterminant", {a}, {{"T", TypeA(DataTypeToEnum<T>::value)}});
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({2}));
  CHECK(Values<T>(r.outputs[0])[0] == Approx(10));
  CHECK(Values<T>(r.outputs[0])[1] == Approx(-2));
  r = RunOp("MatrixDeterminant", {Tensor(DataTypeToEnum<T>::value, TensorShape({3, 2}))},
            {{"T", TypeA(DataTypeToEnum<T>::value)}});
  CHECK_THAT(r.status.message(), Catch::Contains("must be square"));
}

}  // namespace
}  // namespace tensoract
