// The segment reductions (sorted and unsorted), Expm1 and Einsum, run on their CPU kernels.
// Expected values and messages were printed by TensorFlow 2.21 (the tf.raw_ops call in each
// comment), its quirks included: a NaN is kept until a later number replaces it, an empty
// unsorted Max segment is lowest() (so is one holding only -inf), SegmentMean divides by the
// count converted to T.
#include <catch2/catch.hpp>
#include <cmath>
#include <complex>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "tests/kernels/kernel_test_util.h"

namespace tensoract {
namespace {

using testing::IntA;
using testing::Str;

namespace tf = ::tensorflow;

using testing::Run;
using testing::RunOp;
using testing::TypeA;
using testing::Values;

const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kSegInf = std::numeric_limits<float>::infinity();


Run Sorted(const std::string& op, const Tensor& data, const Tensor& ids) {
  return RunOp(op, {data, ids}, {{"T", TypeA(data.dtype())}, {"Tindices", TypeA(ids.dtype())}});
}
Run Unsorted(const std::string& op, const Tensor& data, const Tensor& ids, const Tensor& n) {
  return RunOp(op, {data, ids, n},
               {{"T", TypeA(data.dtype())}, {"Tindices", TypeA(ids.dtype())}, {"Tnumsegments", TypeA(n.dtype())}});
}
Run Einsum(const std::string& equation, const std::vector<Tensor>& xs) {
  return RunOp("Einsum", xs,
               {{"T", TypeA(xs[0].dtype())}, {"N", IntA(static_cast<int64_t>(xs.size()))}, {"equation", Str(equation)}});
}
// Bitwise equality, NaN equal to NaN.
bool SameFloats(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!(a[i] == b[i] || (std::isnan(a[i]) && std::isnan(b[i])))) return false;
  }
  return true;
}

TEST_CASE("the unsorted segment reductions fill empty segments with their identity", "[segment]") {
  // UnsortedSegmentMax(data=[1,2,3,4], segment_ids=[0,-1,1,1], num_segments=3) -> [1,4,-2147483648]
  const Tensor data = Tensor::FromVector<int32_t>({1, 2, 3, 4});
  const Tensor ids = Tensor::FromVector<int32_t>({0, -1, 1, 1});
  const Tensor n = Tensor::Scalar<int32_t>(3);
  Run r = Unsorted("UnsortedSegmentMax", data, ids, n);
  REQUIRE(r.status.ok());
  CHECK(Values<int32_t>(r.outputs[0]) == std::vector<int32_t>{1, 4, std::numeric_limits<int32_t>::min()});
  r = Unsorted("UnsortedSegmentMin", data, ids, n);
  CHECK(Values<int32_t>(r.outputs[0]) == std::vector<int32_t>{1, 3, std::numeric_limits<int32_t>::max()});
  r = Unsorted("UnsortedSegmentProd", data, ids, n);
  CHECK(Values<int32_t>(r.outputs[0]) == std::vector<int32_t>{1, 12, 1});
  r = Unsorted("UnsortedSegmentSum", data, ids, n);
  CHECK(Values<int32_t>(r.outputs[0]) == std::vector<int32_t>{1, 7, 0});
}

TEST_CASE("UnsortedSegmentMax keeps a NaN until a later number, and -inf alone gives lowest()", "[segment]") {
  // UnsortedSegmentMax([1,nan,3,2], [0,0,1,1], 3) -> [nan, 3, lowest];
  // ([nan,1,3,nan], ...) -> [1, nan, lowest]; ([-inf,-inf,-inf,2], [0,0,1,2], 3) -> [lowest, lowest, 2]
  const Tensor ids = Tensor::FromVector<int32_t>({0, 0, 1, 1});
  const Tensor n = Tensor::Scalar<int32_t>(3);
  const float lowest = std::numeric_limits<float>::lowest();
  Run r = Unsorted("UnsortedSegmentMax", Tensor::FromVector<float>({1, kNaN, 3, 2}), ids, n);
  CHECK(SameFloats(Values<float>(r.outputs[0]), {kNaN, 3, lowest}));
  r = Unsorted("UnsortedSegmentMax", Tensor::FromVector<float>({kNaN, 1, 3, kNaN}), ids, n);
  CHECK(SameFloats(Values<float>(r.outputs[0]), {1, kNaN, lowest}));
  r = Unsorted("UnsortedSegmentMax", Tensor::FromVector<float>({-kSegInf, -kSegInf, -kSegInf, 2}),
               Tensor::FromVector<int32_t>({0, 0, 1, 2}), n);
  CHECK(SameFloats(Values<float>(r.outputs[0]), {lowest, lowest, 2}));
  r = Unsorted("UnsortedSegmentMin", Tensor::FromVector<float>({1, kNaN, 3, 2}), ids, n);
  CHECK(SameFloats(Values<float>(r.outputs[0]), {kNaN, 2, std::numeric_limits<float>::max()}));
}

TEST_CASE("the unsorted segment reductions take ids of several dimensions and refuse bad ones", "[segment]") {
  // UnsortedSegmentSum([[1,2],[3,4]], [[0,1],[1,1]], 2) -> [1, 9]
  const Tensor data = Tensor::FromVector<float>({1, 2, 3, 4}, TensorShape({2, 2}));
  Run r = Unsorted("UnsortedSegmentSum", data, Tensor::FromVector<int64_t>({0, 1, 1, 1}, TensorShape({2, 2})),
                   Tensor::Scalar<int64_t>(2));
  REQUIRE(r.status.ok());
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{1, 9});
  r = Unsorted("UnsortedSegmentMax", data, Tensor::FromVector<int32_t>({0, 1, 1, 1}, TensorShape({2, 2})),
               Tensor::Scalar<int32_t>(0));
  CHECK_THAT(r.status.message(), Catch::Contains("segment_ids[0,0] = 0 is out of range [0, 0)"));
  r = Unsorted("UnsortedSegmentMax", Tensor::Scalar<float>(3), Tensor::Scalar<int32_t>(2), Tensor::Scalar<int32_t>(2));
  CHECK_THAT(r.status.message(), Catch::Contains("segment_ids = 2 is out of range [0, 2)"));
  r = Unsorted("UnsortedSegmentProd", data, Tensor::FromVector<int32_t>({0, 1}), Tensor::Scalar<int32_t>(-1));
  CHECK_THAT(r.status.message(), Catch::Contains("Input num_segments == -1 must not be negative."));
  r = Unsorted("UnsortedSegmentProd", data, Tensor::FromVector<int32_t>({0, 1, 1}), Tensor::Scalar<int32_t>(2));
  CHECK_THAT(r.status.message(), Catch::Contains("does not start with segment_ids.shape = [3]"));
  r = Unsorted("UnsortedSegmentMin", data, Tensor::FromVector<int32_t>({0, 1}), Tensor::FromVector<int32_t>({2}));
  CHECK_THAT(r.status.message(), Catch::Contains("num_segments should be a scalar, not shape [1]"));
  // No rows to place: the ids are not looked at.
  r = Unsorted("UnsortedSegmentMax", Tensor(tf::DT_FLOAT, TensorShape({3, 0})),
               Tensor::FromVector<int32_t>({0, 5, 1}), Tensor::Scalar<int32_t>(2));
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({2, 0}));
}

TEST_CASE("the sorted segment reductions fill the rows between ids with 0 (Prod: 1)", "[segment]") {
  // SegmentSum([1,2,3,4], [0,0,3,3]) -> [3,0,0,7]; SegmentProd -> [2,1,1,12]; SegmentMax -> [2,0,0,4]
  const Tensor data = Tensor::FromVector<int32_t>({1, 2, 3, 4});
  const Tensor ids = Tensor::FromVector<int64_t>({0, 0, 3, 3});
  CHECK(Values<int32_t>(Sorted("SegmentSum", data, ids).outputs[0]) == std::vector<int32_t>{3, 0, 0, 7});
  CHECK(Values<int32_t>(Sorted("SegmentProd", data, ids).outputs[0]) == std::vector<int32_t>{2, 1, 1, 12});
  CHECK(Values<int32_t>(Sorted("SegmentMax", data, ids).outputs[0]) == std::vector<int32_t>{2, 0, 0, 4});
  CHECK(Values<int32_t>(Sorted("SegmentMin", data, ids).outputs[0]) == std::vector<int32_t>{1, 0, 0, 3});
  CHECK(Values<int32_t>(Sorted("SegmentMean", data, ids).outputs[0]) == std::vector<int32_t>{1, 0, 0, 3});
  // SegmentMax([-inf,-inf,-inf,2], [0,0,1,2]) -> [-inf,-inf,2]: sorted segments start from -inf.
  Run r = Sorted("SegmentMax", Tensor::FromVector<float>({-kSegInf, -kSegInf, -kSegInf, 2}),
                 Tensor::FromVector<int32_t>({0, 0, 1, 2}));
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{-kSegInf, -kSegInf, 2});
  // SegmentMean([1.5,2,2.5], [0,0,2]) -> [1.75, 0, 2.5]
  r = Sorted("SegmentMean", Tensor::FromVector<float>({1.5f, 2, 2.5f}), Tensor::FromVector<int32_t>({0, 0, 2}));
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{1.75f, 0, 2.5f});
}

TEST_CASE("SegmentMean divides integers by the count as T, truncating", "[segment]") {
  // SegmentMean(ones(200, int8), zeros(200)) -> [1] (200 -> -56 both for the sum and the count);
  // SegmentMean(full((3,), 2**30 + 1, int32), zeros(3)) -> [-357913940] (the sum wraps)
  std::vector<int8_t> ones(200, 1);
  Run r = Sorted("SegmentMean", Tensor::FromVector<int8_t>(ones), Tensor::FromVector<int32_t>(std::vector<int32_t>(200, 0)));
  REQUIRE(r.status.ok());
  CHECK(Values<int8_t>(r.outputs[0]) == std::vector<int8_t>{1});
  r = Sorted("SegmentMean", Tensor::FromVector<int32_t>({(1 << 30) + 1, (1 << 30) + 1, (1 << 30) + 1}),
             Tensor::FromVector<int32_t>({0, 0, 0}));
  CHECK(Values<int32_t>(r.outputs[0]) == std::vector<int32_t>{-357913940});
  r = Sorted("SegmentMean", Tensor::FromVector<int32_t>({-7, -7, -6}), Tensor::FromVector<int32_t>({0, 0, 0}));
  CHECK(Values<int32_t>(r.outputs[0]) == std::vector<int32_t>{-6});
}

TEST_CASE("the sorted segment reductions refuse unsorted, negative and misshapen ids as TensorFlow", "[segment]") {
  const Tensor data = Tensor::FromVector<int8_t>({1, 2, 3, 4, 5});
  auto message = [&](std::vector<int64_t> ids) {
    return Sorted("SegmentSum", data, Tensor::FromVector<int64_t>(ids)).status.message();
  };
  CHECK_THAT(message({0, 0, 1, 1, 0}), Catch::Contains("segment ids are not increasing"));
  CHECK_THAT(message({0, 0, 1, 1, -1}), Catch::Contains("segment ids must be >= 0"));
  CHECK_THAT(message({0, 0, 1, 2, 1}), Catch::Contains("segment ids are not increasing"));
  CHECK_THAT(message({-1, 0, 1, 2, 3}),
             Catch::Contains("Segment id -1 out of range [0, 4), possibly because 'segment_ids' input is not sorted."));
  CHECK_THAT(message({0, 1, 1}), Catch::Contains("segment_ids should be the same size as dimension 0 of input."));
  Run r = Sorted("SegmentMax", Tensor::FromVector<float>({1, 2, 3, 4}), Tensor::FromVector<int32_t>({0, 1, 1, 1}, TensorShape({2, 2})));
  CHECK_THAT(r.status.message(), Catch::Contains("segment_ids should be a vector."));
  r = Sorted("SegmentMax", Tensor::Scalar<float>(5), Tensor::FromVector<int32_t>(std::vector<int32_t>{}));
  CHECK_THAT(r.status.message(), Catch::Contains("input must be at least rank 1"));
  r = Sorted("SegmentProd", Tensor(tf::DT_FLOAT, TensorShape({0, 3})), Tensor::FromVector<int32_t>(std::vector<int32_t>{}));
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({0, 3}));
}

TEST_CASE("the segment reductions of complex numbers", "[segment]") {
  const Tensor data = Tensor::FromVector<complex64>({{1, 2}, {3, -1}, {0, 1}});
  Run r = Sorted("SegmentProd", data, Tensor::FromVector<int32_t>({0, 0, 1}));
  REQUIRE(r.status.ok());
  CHECK(Values<complex64>(r.outputs[0]) == std::vector<complex64>{{5, 5}, {0, 1}});
  r = Sorted("SegmentMean", data, Tensor::FromVector<int32_t>({0, 0, 1}));
  CHECK(Values<complex64>(r.outputs[0]) == std::vector<complex64>{{2, 0.5f}, {0, 1}});
}

TEST_CASE("Expm1 keeps its relative accuracy near 0 and passes denormals through", "[expm1]") {
  // tf.math.expm1([1e-10, -1e-7, 1, -30, 100, 1e-45]) -> [1e-10, -9.9999995e-08, 1.7182817, -1, inf, 1e-45]
  Run r = RunOp("Expm1", {Tensor::FromVector<float>({1e-10f, -1e-7f, 1, -30, 100, 1e-45f, -0.0f})},
                {{"T", TypeA(tf::DT_FLOAT)}});
  REQUIRE(r.status.ok());
  const std::vector<float> y = Values<float>(r.outputs[0]);
  CHECK(y[0] == 1e-10f);
  CHECK(y[1] == Approx(-9.9999995e-08f).epsilon(1e-7));
  CHECK(y[2] == Approx(1.7182817f).epsilon(1e-7));
  CHECK(y[3] == -1.0f);
  CHECK(std::isinf(y[4]));
  CHECK(y[5] == 1e-45f);
  CHECK(std::signbit(y[6]));
  // Every element of a long vector (vectorised and threaded paths) as computed alone.
  std::vector<double> xs(5000);
  for (size_t i = 0; i < xs.size(); ++i) xs[i] = (static_cast<double>(i) - 2500) * 1e-3;
  r = RunOp("Expm1", {Tensor::FromVector<double>(xs)}, {{"T", TypeA(tf::DT_DOUBLE)}});
  const std::vector<double> yd = Values<double>(r.outputs[0]);
  for (size_t i = 0; i < xs.size(); ++i) REQUIRE(yd[i] == std::expm1(xs[i]));
  // expm1(1e-8 + 2i) = (expm1(1e-8) cos 2 - 2 sin^2 1) + i e^1e-8 sin 2
  r = RunOp("Expm1", {Tensor::FromVector<complex128>({{1e-8, 2}})}, {{"T", TypeA(tf::DT_COMPLEX128)}});
  const complex128 z = Values<complex128>(r.outputs[0])[0];
  CHECK(z.real() == Approx(std::exp(1e-8) * std::cos(2.0) - 1).epsilon(1e-14));
  CHECK(z.imag() == Approx(std::exp(1e-8) * std::sin(2.0)).epsilon(1e-14));
}

TEST_CASE("Einsum contracts, transposes, takes diagonals and broadcasts ellipses", "[einsum]") {
  const Tensor a = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3}));
  const Tensor b = Tensor::FromVector<float>({1, 0, -1, 2, 0.5f, 3}, TensorShape({3, 2}));
  Run r = Einsum("ij,jk->ik", {a, b});
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({2, 2}));
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{0.5f, 13, 2, 28});
  r = Einsum("ij->ji", {a});
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{1, 4, 2, 5, 3, 6});
  r = Einsum("ij->", {a});
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{21});
  r = Einsum("ij->j", {a});
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{5, 7, 9});
  const Tensor sq = Tensor::FromVector<int32_t>({1, 2, 3, 4, 5, 6, 7, 8, 9}, TensorShape({3, 3}));
  CHECK(Values<int32_t>(Einsum("ii->i", {sq}).outputs[0]) == std::vector<int32_t>{1, 5, 9});
  CHECK(Values<int32_t>(Einsum("ii->", {sq}).outputs[0]) == std::vector<int32_t>{15});
  // "i->ii": the vector on the diagonal of zeros.
  r = Einsum("i->ii", {Tensor::FromVector<int64_t>({7, 8})});
  CHECK(Values<int64_t>(r.outputs[0]) == std::vector<int64_t>{7, 0, 0, 8});
  // Outer product and dot product.
  const Tensor u = Tensor::FromVector<double>({1, 2}), v = Tensor::FromVector<double>({3, 4, 5});
  CHECK(Values<double>(Einsum("i,j->ij", {u, v}).outputs[0]) == std::vector<double>{3, 4, 5, 6, 8, 10});
  CHECK(Values<double>(Einsum("i,i->", {u, u}).outputs[0]) == std::vector<double>{5});
  // "...ij,...jk->...ik" with batch shapes [2,1] and [3]: [2,3] batches of 1x1 products.
  std::vector<float> xv = {1, 2, 3, 4}, yv = {1, 10, 100, 2, 20, 200};
  r = Einsum("...ij,...jk->...ik", {Tensor::FromVector<float>(xv, TensorShape({2, 1, 1, 2})),
                                    Tensor::FromVector<float>(yv, TensorShape({3, 2, 1}))});
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({2, 3, 1, 1}));
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{21, 104, 420, 43, 308, 860});
  // A label summed inside one operand ("j" of "ijk,k->i").
  r = Einsum("ijk,k->i", {Tensor::FromVector<float>({1, 2, 3, 4, 5, 6, 7, 8}, TensorShape({2, 2, 2})),
                          Tensor::FromVector<float>({1, -1})});
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>{-2, -2});
  // Contracting over nothing gives zeros.
  r = Einsum("ij,jk->ik", {Tensor(tf::DT_FLOAT, TensorShape({2, 0})), Tensor(tf::DT_FLOAT, TensorShape({0, 3}))});
  CHECK(Values<float>(r.outputs[0]) == std::vector<float>(6, 0.0f));
}

// out[o] = sum over the contracted labels of a[..] * b[..], by loops over every label: the
// reference for equations of two operands without repeated labels or ellipses.
std::vector<double> NaiveEinsum(const std::string& eq, const std::map<char, int64_t>& size, const std::vector<double>& a,
                                const std::vector<double>& b) {
  const std::string in0 = eq.substr(0, eq.find(',')), in1 = eq.substr(eq.find(',') + 1, eq.find('-') - eq.find(',') - 1),
                    out = eq.substr(eq.find('>') + 1);
  std::string all;  // the equation's labels, once each
  for (char c : in0 + in1) {
    if (all.find(c) == std::string::npos) all += c;
  }
  auto offset = [&](const std::string& sub, const std::map<char, int64_t>& at) {
    int64_t o = 0;
    for (char c : sub) o = o * size.at(c) + at.at(c);
    return o;
  };
  int64_t n_out = 1, n_all = 1;
  for (char c : out) n_out *= size.at(c);
  for (char c : all) n_all *= size.at(c);
  std::vector<double> r(n_out, 0.0);
  for (int64_t flat = 0; flat < n_all; ++flat) {
    std::map<char, int64_t> at;
    int64_t rest = flat;
    for (int i = static_cast<int>(all.size()) - 1; i >= 0; --i) {
      at[all[i]] = rest % size.at(all[i]);
      rest /= size.at(all[i]);
    }
    r[offset(out, at)] += a[offset(in0, at)] * b[offset(in1, at)];
  }
  return r;
}

TEST_CASE("Einsum of two operands reads them in place for any layout, transposed or not", "[einsum]") {
  // Attention's products, dense layers, transposed sides, vector and scalar results, batch
  // labels anywhere: each as the loops over every label give it (float, summed in double).
  const std::map<char, int64_t> size = {{'b', 2}, {'t', 5}, {'s', 7}, {'n', 3}, {'h', 4}, {'i', 6}, {'j', 9}, {'k', 70}};
  for (const char* eq : {"btnh,bsnh->bnts", "bnts,bsnh->btnh", "ij,jk->ik", "ij,kj->ik", "ji,jk->ik", "ji,kj->ki",
                         "bij,bjk->bik", "bij,jk->bik", "btk,kh->bth", "btk,knh->btnh", "ij,j->i", "j,ij->i",
                         "i,i->", "ij,ij->", "bik,bjk->bij", "ibk,jbk->bij", "ikb,kjb->bij", "tk,sk->st"}) {
    INFO(eq);
    const std::string e = eq;
    const std::string in0 = e.substr(0, e.find(',')), in1 = e.substr(e.find(',') + 1, e.find('-') - e.find(',') - 1);
    std::vector<int64_t> d0, d1;
    for (char c : in0) d0.push_back(size.at(c));
    for (char c : in1) d1.push_back(size.at(c));
    std::vector<float> a(TensorShape(d0).num_elements()), b(TensorShape(d1).num_elements());
    for (size_t i = 0; i < a.size(); ++i) a[i] = std::sin(0.37f * static_cast<float>(i));
    for (size_t i = 0; i < b.size(); ++i) b[i] = std::cos(0.23f * static_cast<float>(i));
    Run r = Einsum(eq, {Tensor::FromVector<float>(a, TensorShape(d0)), Tensor::FromVector<float>(b, TensorShape(d1))});
    REQUIRE(r.status.ok());
    const std::vector<double> want = NaiveEinsum(eq, size, std::vector<double>(a.begin(), a.end()),
                                                 std::vector<double>(b.begin(), b.end()));
    const std::vector<float> got = Values<float>(r.outputs[0]);
    REQUIRE(got.size() == want.size());
    for (size_t i = 0; i < got.size(); ++i) CHECK(got[i] == Approx(want[i]).margin(1e-4));
  }
}

TEST_CASE("Einsum refuses what TensorFlow's kernel refuses, in its words", "[einsum]") {
  const Tensor a(tf::DT_FLOAT, TensorShape({2, 3}));
  const Tensor b(tf::DT_FLOAT, TensorShape({4, 5}));
  CHECK_THAT(Einsum("ij,jk->ik", {a, b}).status.message(),
             Catch::Contains("Expected dimension 3 at axis 0 of the input shaped [4,5] but got dimension 4"));
  CHECK_THAT(Einsum("ijk,jk->ik", {a, b}).status.message(), Catch::Contains("Expected input 0 to have rank 3 but got: 2"));
  CHECK_THAT(Einsum("...ijk->ik", {Tensor(tf::DT_FLOAT, TensorShape({2}))}).status.message(),
             Catch::Contains("Expected input 0 to have rank at least 3 but got: 1"));
  CHECK_THAT(Einsum("...ij->ij", {Tensor(tf::DT_FLOAT, TensorShape({5, 2, 3}))}).status.message(),
             Catch::Contains("Output contains 1 broadcasting dimension(s) but no ellipsis"));
  CHECK_THAT(Einsum("...ij,...jk->...ik",
                    {Tensor(tf::DT_FLOAT, TensorShape({5, 2, 3})), Tensor(tf::DT_FLOAT, TensorShape({2, 3, 4}))})
                 .status.message(),
             Catch::Contains("Invalid broadcasting dimensions: [5,2,3] vs. [2,3,4]"));
  // TensorFlow's diagonals and inflations stop at 6 distinct labels.
  const Tensor big(tf::DT_FLOAT, TensorShape({2, 2, 1, 1, 1, 1, 1, 1}));
  Run r = Einsum("aabcdefg->abcdefg", {big});
  CHECK(r.status.code() == error::UNIMPLEMENTED);
  CHECK_THAT(r.status.message(), Catch::Contains("Unsupported rank: 7 while handling repeated indices. Up to rank 6"));
  CHECK(Einsum("abcdefg->aabcdefg", {Tensor(tf::DT_FLOAT, TensorShape({2, 1, 1, 1, 1, 1, 1}))}).status.code() ==
        error::UNIMPLEMENTED);
  CHECK(Einsum("aabcdef->abcdef", {Tensor(tf::DT_FLOAT, TensorShape({2, 2, 1, 1, 1, 1, 1}))}).status.ok());
  // The equation's syntax is checked when the kernel is made (RunOp requires that to work),
  // so a bad one is the shape function's and the graph import's to refuse (graph tests).
}

}  // namespace
}  // namespace tensoract
