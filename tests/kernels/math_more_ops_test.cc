// Kernels of Complex, Real, Imag, Conj, Mod, TruncateMod, ApproximateEqual, CheckNumerics,
// CheckNumericsV2, EuclideanNorm, Bitcast, BiasAddV1, InTopKV2, the TensorScatter ops and
// SparseToDense. Expected values and messages were printed by TensorFlow 2.21 (python3, the
// tf.raw_ops call named in each comment, eagerly on the CPU) and pasted here.
#include <catch2/catch.hpp>
#include <Eigen/Core>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "tests/kernels/kernel_test_util.h"

namespace tensoract {
namespace {

using Catch::Contains;
using testing::Run;
using testing::RunOp;
using testing::Str;
using testing::TypeA;
using testing::Values;

const float kMoreInfF = std::numeric_limits<float>::infinity();
const float kNanF = std::numeric_limits<float>::quiet_NaN();

Run RunPart(const char* op, const Tensor& x, DataType part) {
  return RunOp(op, {x}, {{"T", TypeA(x.dtype())}, {"Tout", TypeA(part)}});
}

TEST_CASE("Real, Imag and Conj take complex numbers apart exactly", "[complex]") {
  // Real/Imag/Conj(input=np.array([1.5-2j, -0.0+3j, np.inf-1j], np.complex64))
  const Tensor x = Tensor::FromVector<complex64>({{1.5f, -2.f}, {-0.f, 3.f}, {kMoreInfF, -1.f}});
  Run r = RunPart("Real", x, tensorflow::DT_FLOAT);
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].dtype() == tensorflow::DT_FLOAT);
  const std::vector<float> re = Values<float>(r.outputs[0]);
  CHECK(re == std::vector<float>{1.5f, -0.f, kMoreInfF});
  CHECK(std::signbit(re[1]));
  r = RunPart("Imag", x, tensorflow::DT_FLOAT);
  REQUIRE(r.status.ok());
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{-2.f, 3.f, -1.f});
  r = RunOp("Conj", {x}, {{"T", TypeA(tensorflow::DT_COMPLEX64)}});
  REQUIRE(r.status.ok());
  CHECK(Values<complex64>(r.outputs[0]) == std::vector<complex64>{{1.5f, 2.f}, {-0.f, -3.f}, {kMoreInfF, 1.f}});
  // complex128 gives double parts.
  r = RunPart("Imag", Tensor::FromVector<complex128>({{0.25, -1e-300}}), tensorflow::DT_DOUBLE);
  REQUIRE(r.status.ok());
  CHECK(Values<double>(r.outputs[0]) == std::vector<double>{-1e-300});
}

TEST_CASE("Complex pairs real and imaginary parts with broadcasting", "[complex]") {
  // Complex(real=np.array([[1.],[2.]]), imag=np.array([3.,4.,5.])): [[1+3j,1+4j,1+5j],[2+3j,2+4j,2+5j]]
  Run r = RunOp("Complex", {Tensor::FromVector<double>({1, 2}, TensorShape({2, 1})), Tensor::FromVector<double>({3, 4, 5})},
                {{"T", TypeA(tensorflow::DT_DOUBLE)}, {"Tout", TypeA(tensorflow::DT_COMPLEX128)}});
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({2, 3}));
  CHECK(Values<complex128>(r.outputs[0]) == std::vector<complex128>{{1, 3}, {1, 4}, {1, 5}, {2, 3}, {2, 4}, {2, 5}});
  r = RunOp("Complex", {Tensor::FromVector<float>({1, 2}), Tensor::FromVector<float>({3, 4, 5})}, {});
  CHECK(r.status.code() == error::INVALID_ARGUMENT);
}

Run RunMod(const char* op, const Tensor& x, const Tensor& y) { return RunOp(op, {x, y}, {{"T", TypeA(x.dtype())}}); }

TEST_CASE("Mod and TruncateMod give the remainder with x's sign", "[mod]") {
  // Mod(x=np.array([-7,7,-7,7,-2**63],np.int64), y=np.array([3,-3,-3,3,-1],np.int64)): [-1,1,-1,1,0]
  for (const char* op : {"Mod", "TruncateMod"}) {
    INFO(op);
    Run r = RunMod(op, Tensor::FromVector<int64_t>({-7, 7, -7, 7, std::numeric_limits<int64_t>::min()}),
                   Tensor::FromVector<int64_t>({3, -3, -3, 3, -1}));
    REQUIRE(r.status.ok());
    CHECK(Values<int64_t>(r.outputs[0]) == std::vector<int64_t>{-1, 1, -1, 1, 0});
    // Mod(x=np.array([-7.5,7.5,-0.0,3],np.float32), y=np.array([2,-2,5,np.inf],np.float32)): [-1.5,1.5,-0.,3.]
    r = RunMod(op, Tensor::FromVector<float>({-7.5f, 7.5f, -0.f, 3.f}), Tensor::FromVector<float>({2, -2, 5, kMoreInfF}));
    REQUIRE(r.status.ok());
    const std::vector<float> z = Values<float>(r.outputs[0]);
    CHECK(z == std::vector<float>{-1.5f, 1.5f, -0.f, 3.f});
    CHECK(std::signbit(z[2]));
  }
}

TEST_CASE("an integer zero divisor is Mod's InvalidArgument and TruncateMod's Internal, as TensorFlow's", "[mod]") {
  const Tensor x = Tensor::FromVector<int32_t>({5, 3}), y = Tensor::FromVector<int32_t>({0, 1});
  Run r = RunMod("Mod", x, y);
  CHECK(r.status.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(r.status.message(), Contains("Integer division by zero"));
  r = RunMod("TruncateMod", x, y);
  CHECK(r.status.code() == error::INTERNAL);
  CHECK_THAT(r.status.message(), Contains("Unexpected error in binary operator"));
  // Nothing to compute, nothing refused.
  r = RunMod("TruncateMod", Tensor::FromVector<int32_t>({}), Tensor::FromVector<int32_t>({0}));
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].NumElements() == 0);
  // Shapes that do not broadcast are InvalidArgument whatever the divisor.
  r = RunMod("TruncateMod", Tensor::FromVector<int32_t>({1, 2, 3}), Tensor::FromVector<int32_t>({0, 0}));
  CHECK(r.status.code() == error::INVALID_ARGUMENT);
}

TEST_CASE("ApproximateEqual compares |x - y| with the tolerance in T", "[approximate_equal]") {
  // ApproximateEqual(x=[1.,2.,inf,nan,0.], y=[1.05,2.2,inf,nan,-0.], tolerance=0.1) (float64):
  // [True, False, False, False, True]
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  Run r = RunOp("ApproximateEqual",
                {Tensor::FromVector<double>({1, 2, inf, nan, 0}), Tensor::FromVector<double>({1.05, 2.2, inf, nan, -0.})},
                {{"T", TypeA(tensorflow::DT_DOUBLE)}, {"tolerance", testing::FloatA(0.1f)}});
  REQUIRE(r.status.ok());
  CHECK(Values<bool>(r.outputs[0]) == std::vector<bool>{true, false, false, false, true});
  // The default tolerance 1e-5 (float32): [1.,2.] against [1.000005,1.99999]: [True, False]
  r = RunOp("ApproximateEqual", {Tensor::FromVector<float>({1, 2}), Tensor::FromVector<float>({1.000005f, 1.99999f})},
            {{"T", TypeA(tensorflow::DT_FLOAT)}});
  REQUIRE(r.status.ok());
  CHECK(Values<bool>(r.outputs[0]) == std::vector<bool>{true, false});
  // At exactly the tolerance: ApproximateEqual(x=[0.,0.], y=[0.5,0.5000001], tolerance=0.5)
  // (float32): [True, False]
  r = RunOp("ApproximateEqual", {Tensor::FromVector<float>({0, 0}), Tensor::FromVector<float>({0.5f, 0.5000001f})},
            {{"T", TypeA(tensorflow::DT_FLOAT)}, {"tolerance", testing::FloatA(0.5f)}});
  REQUIRE(r.status.ok());
  CHECK(Values<bool>(r.outputs[0]) == std::vector<bool>{true, false});
  r = RunOp("ApproximateEqual", {Tensor::FromVector<float>({1, 2}), Tensor::FromVector<float>({1})},
            {{"T", TypeA(tensorflow::DT_FLOAT)}});
  CHECK(r.status.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(r.status.message(), Contains("x and y must be of the same shape"));
}

Run RunCheck(const char* op, const Tensor& x) {
  return RunOp(op, {x}, {{"T", TypeA(x.dtype())}, {"message", Str("msg")}});
}

TEST_CASE("CheckNumerics passes finite tensors and names what it found otherwise", "[check_numerics]") {
  const Tensor finite = Tensor::FromVector<float>({1, -2, 1e-45f});
  Run r = RunCheck("CheckNumerics", finite);
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].base<float>() == finite.base<float>());  // the same buffer
  // CheckNumerics(tensor=..., message="msg"): "msg : Tensor had <what> values"
  struct Want {
    std::vector<float> values;
    const char* v1;
    const char* v2;
  };
  const std::vector<Want> wants = {{{1, kMoreInfF}, "Inf", "+Inf"},
                                   {{kNanF}, "NaN", "NaN"},
                                   {{kMoreInfF, kNanF}, "Inf and NaN", "+Inf and NaN"},
                                   {{-kMoreInfF}, "Inf", "-Inf"},
                                   {{-kMoreInfF, kMoreInfF}, "Inf", "-Inf and +Inf"},
                                   {{-kMoreInfF, kNanF, kMoreInfF}, "Inf and NaN", "-Inf, +Inf, and NaN"}};
  for (const Want& w : wants) {
    r = RunCheck("CheckNumerics", Tensor::FromVector<float>(w.values));
    CHECK(r.status.code() == error::INVALID_ARGUMENT);
    CHECK_THAT(r.status.message(), Contains(std::string("msg : Tensor had ") + w.v1 + " values"));
    r = RunCheck("CheckNumericsV2", Tensor::FromVector<float>(w.values));
    CHECK(r.status.code() == error::INVALID_ARGUMENT);
    CHECK_THAT(r.status.message(), Contains(std::string("msg : Tensor had ") + w.v2 + " values"));
  }
  r = RunCheck("CheckNumerics", Tensor::FromVector<Eigen::half>({Eigen::half(1.f), Eigen::half(-kMoreInfF)}));
  CHECK_THAT(r.status.message(), Contains("Tensor had Inf values"));
  r = RunCheck("CheckNumericsV2", Tensor::FromVector<Eigen::bfloat16>({Eigen::bfloat16(kNanF)}));
  CHECK_THAT(r.status.message(), Contains("Tensor had NaN values"));
}

template <class T>
Run RunNorm(const std::vector<T>& x, const TensorShape& shape, const std::vector<int32_t>& axes, bool keep = false) {
  return RunOp("EuclideanNorm", {Tensor::FromVector<T>(x, shape), Tensor::FromVector<int32_t>(axes)},
               {{"T", TypeA(DataTypeToEnum<T>::value)}, {"keep_dims", testing::BoolA(keep)}});
}

TEST_CASE("EuclideanNorm is sqrt(sum(x * x)), squares and sums in T", "[euclidean_norm]") {
  // EuclideanNorm(input=[-3.,4.], axis=[0]): 5
  Run r = RunNorm<float>({-3, 4}, TensorShape({2}), {0});
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({}));
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{5});
  // axis=[] and axis over a dimension of 1: [3., 4.] (no pass-through: |x|); [1e20, -0.0] gives [inf, 0]
  r = RunNorm<float>({-3, 4}, TensorShape({2}), {});
  REQUIRE(r.status.ok());
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{3, 4});
  r = RunNorm<float>({-3, 4}, TensorShape({2, 1}), {1});
  REQUIRE(r.status.ok());
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{3, 4});
  r = RunNorm<float>({1e20f, -0.f}, TensorShape({2}), {});
  REQUIRE(r.status.ok());
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{kMoreInfF, 0});
  CHECK_FALSE(std::signbit(Values<float>(r.outputs[0])[1]));
  // [[3, 4], [6, 8]] over axis 1 with keep_dims (double): [[5], [10]]; an empty reduction is 0
  r = RunNorm<double>({3, 4, 6, 8}, TensorShape({2, 2}), {1}, true);
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({2, 1}));
  CHECK(Values<double>(r.outputs[0]) == std::vector<double>{5, 10});
  r = RunNorm<float>({}, TensorShape({0, 3}), {0});
  REQUIRE(r.status.ok());
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{0, 0, 0});
  // Integers wrap: int8 [100, 100, 3] gives 6; int32 [40000, 40000] wraps negative: -2147483648;
  // int16 [200] gives 0; uint64 [2**32-1] gives 4294967295
  r = RunNorm<int8_t>({100, 100, 3}, TensorShape({3}), {0});
  REQUIRE(r.status.ok());
  CHECK(Values<int8_t>(r.outputs[0]) == std::vector<int8_t>{6});
  r = RunNorm<int32_t>({40000, 40000}, TensorShape({2}), {0});
  REQUIRE(r.status.ok());
  CHECK(Values<int32_t>(r.outputs[0]) == std::vector<int32_t>{std::numeric_limits<int32_t>::min()});
  r = RunNorm<int16_t>({200}, TensorShape({1}), {0});
  REQUIRE(r.status.ok());
  CHECK(Values<int16_t>(r.outputs[0]) == std::vector<int16_t>{0});
  r = RunNorm<uint64_t>({4294967295u}, TensorShape({1}), {0});
  REQUIRE(r.status.ok());
  CHECK(Values<uint64_t>(r.outputs[0]) == std::vector<uint64_t>{4294967295u});
  // axis=[2] of a vector: "Invalid reduction dimension (2 for input with 1 dimension(s)"
  r = RunNorm<float>({3, 4}, TensorShape({2}), {2});
  CHECK(r.status.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(r.status.message(), Contains("Invalid reduction dimension (2 for input with 1 dimension(s)"));
}

TEST_CASE("EuclideanNorm of half sums in half, of bfloat16 in float, of complex to a real root",
          "[euclidean_norm]") {
  using H = Eigen::half;
  using B = Eigen::bfloat16;
  // half [300, 400]: inf (the squares overflow half); [[1.5, 2.5, -3], [0.1, 0.2, 0.3]] over
  // axis 1: [4.184, 0.3743]
  Run r = RunNorm<H>({H(300.f), H(400.f)}, TensorShape({2}), {0});
  REQUIRE(r.status.ok());
  CHECK(std::isinf(static_cast<float>(Values<H>(r.outputs[0])[0])));
  r = RunNorm<H>({H(1.5f), H(2.5f), H(-3.f), H(0.1f), H(0.2f), H(0.3f)}, TensorShape({2, 3}), {1});
  REQUIRE(r.status.ok());
  CHECK(Values<H>(r.outputs[0]) == std::vector<H>{H(4.184f), H(0.3743f)});
  // bfloat16 [300, 400]: 500; the same matrix: [4.1875, 0.375]
  r = RunNorm<B>({B(300.f), B(400.f)}, TensorShape({2}), {0});
  REQUIRE(r.status.ok());
  CHECK(Values<B>(r.outputs[0]) == std::vector<B>{B(500.f)});
  r = RunNorm<B>({B(1.5f), B(2.5f), B(-3.f), B(0.1f), B(0.2f), B(0.3f)}, TensorShape({2, 3}), {1});
  REQUIRE(r.status.ok());
  CHECK(Values<B>(r.outputs[0]) == std::vector<B>{B(4.1875f), B(0.375f)});
  // complex64 [[3+4j, 1-1j, 2j], [1.5e19, 0, 0]] over axis 1: [5.5677643+0j, inf+0j] (Eigen's
  // complex root of 2.25e38 overflows: sqrt((|s| + |s|) / 2))
  using C = std::complex<float>;
  r = RunNorm<C>({C(3, 4), C(1, -1), C(0, 2), C(1.5e19f, 0), C(0, 0), C(0, 0)}, TensorShape({2, 3}), {1});
  REQUIRE(r.status.ok());
  std::vector<C> got = Values<C>(r.outputs[0]);
  CHECK(got[0] == C(5.5677643f, 0));
  CHECK(got[1] == C(kMoreInfF, 0));
  // complex128, nothing reduced: [inf+0j, nan+1j] gives [inf+nanj, nan+nanj]
  using Z = std::complex<double>;
  r = RunNorm<Z>({Z(std::numeric_limits<double>::infinity(), 0), Z(std::nan(""), 1)}, TensorShape({2}), {});
  REQUIRE(r.status.ok());
  std::vector<Z> got2 = Values<Z>(r.outputs[0]);
  CHECK((std::isinf(got2[0].real()) && std::isnan(got2[0].imag())));
  CHECK((std::isnan(got2[1].real()) && std::isnan(got2[1].imag())));
}

Run RunBitcast(const Tensor& x, DataType type) {
  return RunOp("Bitcast", {x}, {{"T", TypeA(x.dtype())}, {"type", TypeA(type)}});
}

TEST_CASE("Bitcast reads the bytes as another type, reshaping by the sizes' ratio", "[bitcast]") {
  // Bitcast(input=np.array([1.0],np.float32), type=tf.uint16): [[0, 16256]]
  Run r = RunBitcast(Tensor::FromVector<float>({1.f}), tensorflow::DT_UINT16);
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({1, 2}));
  CHECK(Values<uint16_t>(r.outputs[0]) == std::vector<uint16_t>{0, 16256});
  // Bitcast(input=np.array([[1,2],[3,4]],np.uint16), type=tf.float32): shape [2]
  r = RunBitcast(Tensor::FromVector<uint16_t>({0, 16256, 0, 16384}, TensorShape({2, 2})), tensorflow::DT_FLOAT);
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({2}));
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{1.f, 2.f});
  r = RunBitcast(Tensor::FromVector<int32_t>({-1}), tensorflow::DT_UINT32);
  REQUIRE(r.status.ok());
  CHECK(Values<uint32_t>(r.outputs[0]) == std::vector<uint32_t>{4294967295u});
  // A last dimension that is not the ratio, and a scalar: "Cannot bitcast from 17 to 1"
  r = RunBitcast(Tensor::FromVector<uint16_t>({1, 2, 3}), tensorflow::DT_FLOAT);
  CHECK(r.status.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(r.status.message(), Contains("Cannot bitcast from 17 to 1"));
  r = RunBitcast(Tensor::Scalar<uint16_t>(5), tensorflow::DT_FLOAT);
  CHECK(r.status.code() == error::INVALID_ARGUMENT);
}

TEST_CASE("BiasAddV1 adds the bias along the last dimension", "[bias_add_v1]") {
  Run r = RunOp("BiasAddV1", {Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3})),
                              Tensor::FromVector<float>({10, 20, 30})},
                {{"T", TypeA(tensorflow::DT_FLOAT)}});
  REQUIRE(r.status.ok());
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{11, 22, 33, 14, 25, 36});
  r = RunOp("BiasAddV1", {Tensor::FromVector<int64_t>({1, 2, 3, 4}, TensorShape({2, 2})),
                          Tensor::FromVector<int64_t>({1, 2, 3})},
            {{"T", TypeA(tensorflow::DT_INT64)}});
  CHECK(r.status.code() == error::INVALID_ARGUMENT);
}

Run RunInTopK(const Tensor& predictions, const std::vector<int32_t>& targets, int32_t k) {
  return RunOp("InTopKV2", {predictions, Tensor::FromVector<int32_t>(targets), Tensor::Scalar<int32_t>(k)},
               {{"T", TypeA(tensorflow::DT_INT32)}});
}

TEST_CASE("InTopKV2 counts the larger predictions; non-finite rows and bad targets say false", "[in_top_k]") {
  // InTopKV2(predictions=[[0.1,0.9,0.5],[0.3,0.3,0.3],[nan,1,2],[1,2,3]], targets=[2,1,1,5], k=1):
  // [False, True, False, False]; targets [2,1,1,-1] with k=2: [True, True, False, False]
  const Tensor p = Tensor::FromVector<float>({0.1f, 0.9f, 0.5f, 0.3f, 0.3f, 0.3f, kNanF, 1, 2, 1, 2, 3},
                                             TensorShape({4, 3}));
  Run r = RunInTopK(p, {2, 1, 1, 5}, 1);
  REQUIRE(r.status.ok());
  CHECK(Values<bool>(r.outputs[0]) == std::vector<bool>{false, true, false, false});
  r = RunInTopK(p, {2, 1, 1, -1}, 2);
  REQUIRE(r.status.ok());
  CHECK(Values<bool>(r.outputs[0]) == std::vector<bool>{true, true, false, false});
  r = RunInTopK(p, {2, 1, 1, 0}, 0);
  REQUIRE(r.status.ok());
  CHECK(Values<bool>(r.outputs[0]) == std::vector<bool>{false, false, false, false});
  r = RunInTopK(p, {1, 2}, 1);
  CHECK_THAT(r.status.message(), Contains("First dimension of predictions 4 must match length of targets 2"));
  r = RunOp("InTopKV2", {p, Tensor::FromVector<int32_t>({1, 2, 1, 1}), Tensor::FromVector<int32_t>({1})},
            {{"T", TypeA(tensorflow::DT_INT32)}});
  CHECK_THAT(r.status.message(), Contains("k must be 0-D, got shape [1]"));
}

Run RunScatter(const char* op, const Tensor& tensor, const Tensor& indices, const Tensor& updates) {
  return RunOp(op, {tensor, indices, updates}, {{"T", TypeA(tensor.dtype())}, {"Tindices", TypeA(indices.dtype())}});
}

TEST_CASE("the TensorScatter ops apply the updates in order at their index tuples", "[tensor_scatter]") {
  const Tensor tensor = Tensor::FromVector<float>({kNanF, 1, 2, 3});
  const Tensor indices = Tensor::FromVector<int32_t>({0, 1, 2, 1}, TensorShape({4, 1}));
  const Tensor updates = Tensor::FromVector<float>({5, kNanF, 1, 7});
  // TensorScatterUpdate: the last of a repeated tuple wins: [5, 7, 1, 3]
  Run r = RunScatter("TensorScatterUpdate", tensor, indices, updates);
  REQUIRE(r.status.ok());
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{5, 7, 1, 3});
  // TensorScatterMax(tensor=[nan,1,2,3], indices=[[0],[1],[2]], updates=[5.,nan,1]): [nan, 1, 2, 3]
  // (here with a fourth update, 7 at 1)
  r = RunScatter("TensorScatterMax", tensor, indices, updates);
  REQUIRE(r.status.ok());
  std::vector<float> v = Values<float>(r.outputs[0]);
  CHECK(std::isnan(v[0]));
  CHECK(std::vector<float>(v.begin() + 1, v.end()) == std::vector<float>{7, 2, 3});
  r = RunScatter("TensorScatterMin", tensor, indices, updates);
  REQUIRE(r.status.ok());
  v = Values<float>(r.outputs[0]);
  CHECK(std::vector<float>(v.begin() + 1, v.end()) == std::vector<float>{1, 1, 3});
  // Add and Sub of rows, int32 wrapping
  const Tensor rows = Tensor::FromVector<int32_t>({1, 2, 3, 4, 5, 6}, TensorShape({3, 2}));
  const Tensor at = Tensor::FromVector<int64_t>({2, 0, 2}, TensorShape({3, 1}));
  const Tensor add = Tensor::FromVector<int32_t>({10, 20, 30, 40, std::numeric_limits<int32_t>::max(), 1},
                                                 TensorShape({3, 2}));
  r = RunScatter("TensorScatterAdd", rows, at, add);
  REQUIRE(r.status.ok());
  CHECK(Values<int32_t>(r.outputs[0]) ==
        std::vector<int32_t>{31, 42, 3, 4, std::numeric_limits<int32_t>::min() + 14, 27});
  r = RunScatter("TensorScatterSub", rows, at, add);
  REQUIRE(r.status.ok());
  CHECK(Values<int32_t>(r.outputs[0]) == std::vector<int32_t>{-29, -38, 3, 4, 2147483644, -15});
}

TEST_CASE("the TensorScatter ops refuse what TensorFlow's refuse", "[tensor_scatter]") {
  const Tensor tensor = Tensor::FromVector<float>({0, 0, 0, 0});
  // TensorScatterUpdate(tensor=np.zeros(4), indices=[[4]], updates=[5.]):
  // "indices[0] = [4] does not index into shape [4]"
  Run r = RunScatter("TensorScatterUpdate", tensor, Tensor::FromVector<int32_t>({4}, TensorShape({1, 1})),
                     Tensor::FromVector<float>({5}));
  CHECK(r.status.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(r.status.message(), Contains("indices[0] = [4] does not index into shape [4]"));
  // indices [1,3] (rank 1): "Inner dimensions of output shape must match inner dimensions of updates shape"
  r = RunScatter("TensorScatterAdd", tensor, Tensor::FromVector<int32_t>({1, 3}), Tensor::FromVector<float>({5, 6}));
  CHECK_THAT(r.status.message(), Contains("Inner dimensions of output shape must match"));
  // updates [2,3] for indices [1,1] into [2,3]: "Outer dimensions of indices and update must match"
  r = RunScatter("TensorScatterSub", Tensor::FromVector<float>({0, 0, 0, 0, 0, 0}, TensorShape({2, 3})),
                 Tensor::FromVector<int32_t>({0}, TensorShape({1, 1})),
                 Tensor::FromVector<float>({1, 1, 1, 1, 1, 1}, TensorShape({2, 3})));
  CHECK_THAT(r.status.message(), Contains("Outer dimensions of indices and update must match"));
  r = RunScatter("TensorScatterMax", Tensor::FromVector<float>({}), Tensor::FromVector<int32_t>({0}, TensorShape({1, 1})),
                 Tensor::FromVector<float>({5}));
  CHECK_THAT(r.status.message(), Contains("Indices and updates specified for empty output shape"));
}

Run RunSparseToDense(const Tensor& indices, const std::vector<int32_t>& shape, const Tensor& values,
                     bool validate = true) {
  return RunOp("SparseToDense", {indices, Tensor::FromVector<int32_t>(shape), values, Tensor::Scalar<float>(-1)},
               {{"T", TypeA(tensorflow::DT_FLOAT)},
                {"Tindices", TypeA(tensorflow::DT_INT32)},
                {"validate_indices", testing::BoolA(validate)}});
}

TEST_CASE("SparseToDense fills the default and sets the tuples' values", "[sparse_to_dense]") {
  // SparseToDense(sparse_indices=[[0,1],[1,2]], output_shape=[2,3], sparse_values=[5.,6.], default_value=-1):
  // [[-1, 5, -1], [-1, -1, 6]]
  Run r = RunSparseToDense(Tensor::FromVector<int32_t>({0, 1, 1, 2}, TensorShape({2, 2})), {2, 3},
                           Tensor::FromVector<float>({5, 6}));
  REQUIRE(r.status.ok());
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{-1, 5, -1, -1, -1, 6});
  // Vector indices [1, 3], one scalar value 2: [-1, 2, -1, 2, -1]
  r = RunSparseToDense(Tensor::FromVector<int32_t>({1, 3}), {5}, Tensor::Scalar<float>(2));
  REQUIRE(r.status.ok());
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{-1, 2, -1, 2, -1});
  // [[1],[0]]: "indices[1] = [0] is out of order"; unvalidated, each set: [2, 1, -1, -1, -1]
  const Tensor unsorted = Tensor::FromVector<int32_t>({1, 0}, TensorShape({2, 1}));
  r = RunSparseToDense(unsorted, {5}, Tensor::FromVector<float>({1, 2}));
  CHECK_THAT(r.status.message(), Contains("indices[1] = [0] is out of order"));
  r = RunSparseToDense(unsorted, {5}, Tensor::FromVector<float>({1, 2}), false);
  REQUIRE(r.status.ok());
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{2, 1, -1, -1, -1});
  const Tensor repeated = Tensor::FromVector<int32_t>({1, 1}, TensorShape({2, 1}));
  r = RunSparseToDense(repeated, {5}, Tensor::FromVector<float>({1, 2}));
  CHECK_THAT(r.status.message(), Contains("indices[1] = [1] is repeated"));
  const Tensor far = Tensor::FromVector<int32_t>({1, 7}, TensorShape({2, 1}));
  r = RunSparseToDense(far, {5}, Tensor::FromVector<float>({1, 2}));
  CHECK_THAT(r.status.message(), Contains("indices[1] = [7] is out of bounds: need 0 <= index < [5]"));
  r = RunSparseToDense(far, {5}, Tensor::FromVector<float>({1, 2}), false);
  CHECK_THAT(r.status.message(), Contains("Indices are not valid (out of bounds)"));
  r = RunSparseToDense(Tensor::FromVector<int32_t>({1}, TensorShape({1, 1})), {5, 2}, Tensor::FromVector<float>({1}));
  CHECK_THAT(r.status.message(), Contains("output_shape has incorrect number of elements: 2 should be: 1"));
}

}  // namespace
}  // namespace tensoract
