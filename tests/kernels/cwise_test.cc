// The element-wise CPU kernels: values (hand-computed, or TensorFlow 2.21's where noted),
// NumPy broadcasting, every registered dtype, and the errors TensorFlow gives.
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "graph/op_registry.h"
#include "kernels/device.h"
#include "kernels/kernel_registry.h"
#include "kernels/tensor.h"
#include "tests/kernels/kernel_test_util.h"

namespace tensoract {
namespace {

using testing::TestDevice;

using testing::Values;

namespace tf = ::tensorflow;


struct Result {
  Status status;
  std::vector<Tensor> outputs;
};

AttrValue TypeAttr(DataType t) {
  AttrValue v;
  v.set_type(t);
  return v;
}

AttrValue BoolAttr(bool b) {
  AttrValue v;
  v.set_b(b);
  return v;
}

// Runs one node of `op` on `inputs`; T is input `t_from`'s dtype unless `attrs` sets it.
Result RunCwise(const std::string& op, const std::vector<Tensor>& inputs, std::map<std::string, AttrValue> attrs = {},
           int t_from = 0) {
  Result r;
  StatusOr<const tf::OpDef*> op_def = OpRegistry::Global()->LookUp(op);
  REQUIRE(op_def.ok());
  NodeDef def;
  def.set_name("k");
  def.set_op(op);
  for (size_t i = 0; i < inputs.size(); ++i) def.add_input(StrCat("in", i));
  bool has_t = false;
  for (const auto& a : (*op_def)->attr()) has_t |= a.name() == "T";
  if (has_t && !attrs.count("T")) attrs["T"] = TypeAttr(inputs[t_from].dtype());
  for (const auto& [name, value] : attrs) (*def.mutable_attr())[name] = value;
  AddDefaultsToNodeDef(**op_def, &def);
  std::unique_ptr<OpKernel> kernel;
  r.status = CreateOpKernel(TestDevice(), def, **op_def, &kernel);
  if (!r.status.ok()) return r;
  OpKernelContext::Params params;
  params.device = TestDevice();
  params.kernel = kernel.get();
  params.inputs = &inputs;
  OpKernelContext ctx(params);
  kernel->Compute(&ctx);
  r.status = ctx.status();
  r.outputs = ctx.outputs();
  return r;
}

// The single output of a run that must succeed.
Tensor Out(const std::string& op, const std::vector<Tensor>& inputs, std::map<std::string, AttrValue> attrs = {},
           int t_from = 0) {
  Result r = RunCwise(op, inputs, std::move(attrs), t_from);
  INFO(op << ": " << r.status);
  REQUIRE(r.status.ok());
  REQUIRE(r.outputs.size() == 1);
  return r.outputs[0];
}


// bool tensors read as ints, so a failing CHECK prints them.
std::vector<int> Bools(const Tensor& t) {
  REQUIRE(t.dtype() == tf::DT_BOOL);
  return std::vector<int>(t.base<bool>(), t.base<bool>() + t.NumElements());
}

template <class T>
Tensor V(std::vector<T> v, TensorShape shape) {
  return Tensor::FromVector(v, shape);
}
template <class T>
Tensor V(std::vector<T> v) {
  return Tensor::FromVector(v);
}

template <class T>
void CheckClose(const Tensor& t, const std::vector<double>& expected) {
  std::vector<T> got = Values<T>(t);
  REQUIRE(got.size() == expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i);
    if (std::isnan(expected[i])) CHECK(std::isnan(static_cast<double>(got[i])));
    else CHECK(static_cast<double>(got[i]) == Approx(expected[i]).epsilon(1e-6).margin(1e-7));
  }
}

Status ErrorOf(const std::string& op, const std::vector<Tensor>& inputs, std::map<std::string, AttrValue> attrs = {}) {
  return RunCwise(op, inputs, std::move(attrs)).status;
}

// ---- arithmetic ----------------------------------------------------------------------------

TEMPLATE_TEST_CASE("Sub, Maximum, Minimum, SquaredDifference on every dtype", "[cwise]", float, double, int32_t,
                   int64_t) {
  using T = TestType;
  Tensor x = V<T>({5, -2, 7, 0}, {2, 2});
  Tensor y = V<T>({1, 3, 7, -4}, {2, 2});
  CHECK(Values<T>(Out("Sub", {x, y})) == std::vector<T>{4, -5, 0, 4});
  CHECK(Values<T>(Out("Maximum", {x, y})) == std::vector<T>{5, 3, 7, 0});
  CHECK(Values<T>(Out("Minimum", {x, y})) == std::vector<T>{1, -2, 7, -4});
  CHECK(Values<T>(Out("SquaredDifference", {x, y})) == std::vector<T>{16, 25, 0, 16});
  CHECK(Out("Sub", {x, y}).shape() == TensorShape({2, 2}));
  // Division, truncating for integers.
  Tensor a = V<T>({8, -9, 6, 0}, {4});
  Tensor b = V<T>({2, 3, -4, 5}, {4});
  if constexpr (std::is_integral_v<T>) {
    CHECK(Values<T>(Out("Div", {a, b})) == std::vector<T>{4, -3, -1, 0});
  } else {
    CheckClose<T>(Out("Div", {a, b}), {4, -3, -1.5, 0});
    CheckClose<T>(Out("RealDiv", {a, b}), {4, -3, -1.5, 0});
  }
}

TEMPLATE_TEST_CASE("binary ops broadcast as NumPy does", "[cwise]", float, int32_t) {
  using T = TestType;
  Tensor m = V<T>({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor row = V<T>({10, 20, 30}, {3});
  Tensor col = V<T>({100, 200}, {2, 1});
  Tensor s = Tensor::Scalar<T>(1);
  Tensor r = Out("Sub", {m, row});
  CHECK(r.shape() == TensorShape({2, 3}));
  CHECK(Values<T>(r) == std::vector<T>{-9, -18, -27, -6, -15, -24});
  CHECK(Values<T>(Out("Sub", {col, m})) == std::vector<T>{99, 98, 97, 196, 195, 194});
  CHECK(Values<T>(Out("Sub", {s, m})) == std::vector<T>{0, -1, -2, -3, -4, -5});
  CHECK(Values<T>(Out("Maximum", {m, Tensor::Scalar<T>(3)})) == std::vector<T>{3, 3, 3, 4, 5, 6});
  // [2,1] against [3]: an outer product shape.
  Tensor o = Out("Sub", {col, row});
  CHECK(o.shape() == TensorShape({2, 3}));
  CHECK(Values<T>(o) == std::vector<T>{90, 80, 70, 190, 180, 170});
  // Three dimensions, the middle one broadcast.
  Tensor c3 = V<T>({1, 2, 3, 4}, {2, 1, 2});
  Tensor d3 = V<T>({0, 10, 20, 30, 40, 50}, {3, 2});
  Tensor e = Out("Sub", {d3, c3});
  CHECK(e.shape() == TensorShape({2, 3, 2}));
  CHECK(Values<T>(e) == std::vector<T>{-1, 8, 19, 28, 39, 48, -3, 6, 17, 26, 37, 46});
  // An empty dimension gives an empty result.
  CHECK(Out("Sub", {V<T>({}, {0, 3}), row}).shape() == TensorShape({0, 3}));
  // A short row repeated over a large tensor (an image's per-channel mean): on either side,
  // over many runs of the tiled row, split over the threads.
  std::vector<T> big(64 * 100 * 3);
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<T>(static_cast<int>(i % 1000) - 500);
  const Tensor image = V<T>(big, {64, 100, 3}), channels = V<T>({7, -3, 11}, {1, 1, 3});
  const std::vector<T> minus = Values<T>(Out("Sub", {image, channels}));
  const std::vector<T> from = Values<T>(Out("Sub", {channels, image}));
  for (size_t i = 0; i < big.size(); ++i) {
    const T c = std::vector<T>{7, -3, 11}[i % 3];
    if (minus[i] != big[i] - c || from[i] != c - big[i]) FAIL("element " << i);
  }
}

TEST_CASE("shapes that do not broadcast are InvalidArgument naming the node", "[cwise]") {
  Status s = ErrorOf("Sub", {V<float>({1, 2}), V<float>({1, 2, 3})});
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK(s.message().find("'k'") != std::string::npos);
  CHECK(s.message().find("[2]") != std::string::npos);
  CHECK(s.message().find("[3]") != std::string::npos);
}

TEMPLATE_TEST_CASE("integer division, floor division and modulus follow TensorFlow", "[cwise]", int32_t, int64_t) {
  using T = TestType;
  // TensorFlow 2.21: floordiv [-4 -4 3 3 0], floormod [1 -1 -1 1 0], Div [-3 -3 3 3 0].
  Tensor x = V<T>({-7, 7, -7, 7, 0});
  Tensor y = V<T>({2, -2, -2, 2, 3});
  CHECK(Values<T>(Out("FloorDiv", {x, y})) == std::vector<T>{-4, -4, 3, 3, 0});
  CHECK(Values<T>(Out("FloorMod", {x, y})) == std::vector<T>{1, -1, -1, 1, 0});
  CHECK(Values<T>(Out("Div", {x, y})) == std::vector<T>{-3, -3, 3, 3, 0});
  // The most negative value over -1 wraps rather than trapping.
  const T lowest = std::numeric_limits<T>::lowest();
  CHECK(Values<T>(Out("Div", {V<T>({lowest}), V<T>({-1})})) == std::vector<T>{lowest});
  CHECK(Values<T>(Out("FloorMod", {V<T>({lowest}), V<T>({-1})})) == std::vector<T>{0});
  for (const char* op : {"Div", "FloorDiv", "FloorMod"}) {
    Status s = ErrorOf(op, {V<T>({1, 2}), V<T>({1, 0})});
    INFO(op);
    CHECK(s.code() == error::INVALID_ARGUMENT);
    CHECK(s.message().find("Integer division by zero") != std::string::npos);
  }
  CHECK(Values<T>(Out("Pow", {V<T>({2, 3, -2, 5}), V<T>({3, 0, 3, 1})})) == std::vector<T>{8, 1, -8, 5});
  Status s = ErrorOf("Pow", {V<T>({2}), V<T>({-1})});
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK(s.message().find("Integers to negative integer powers are not allowed") != std::string::npos);
}

TEMPLATE_TEST_CASE("floating floor division, modulus, power and DivNoNan", "[cwise]", float, double) {
  using T = TestType;
  // TensorFlow 2.21: floormod [0.5 -0.5 -1.5], floordiv [-4 3].
  CheckClose<T>(Out("FloorMod", {V<T>({-7.5, 7.5, -7.5}), V<T>({2, -2, -2})}), {0.5, -0.5, -1.5});
  CheckClose<T>(Out("FloorDiv", {V<T>({-7.5, 7.5}), V<T>({2, 2})}), {-4, 3});
  CheckClose<T>(Out("Pow", {V<T>({2, 9, 4}), V<T>({0.5, 0.5, -1})}), {1.4142135623730951, 3, 0.25});
  CheckClose<T>(Out("DivNoNan", {V<T>({1, 6, 0}), V<T>({0, 3, 0})}), {0, 2, 0});
  CheckClose<T>(Out("Div", {V<T>({1, -1}), V<T>({0, 0})}), {INFINITY, -INFINITY});
  // Maximum and Minimum propagate NaN, as TensorFlow 2.21's do.
  CheckClose<T>(Out("Maximum", {V<T>({NAN, 1}), V<T>({1, NAN})}), {NAN, NAN});
  CheckClose<T>(Out("Minimum", {V<T>({NAN, 1}), V<T>({1, NAN})}), {NAN, NAN});
}

TEST_CASE("float Pow by a scalar 2 or 3 gives std::pow's values, specials included", "[cwise]") {
  // The fast path (a product in double, rounded once): squares exactly, cubes within a
  // rounding of double's, so equal to the correctly rounded power but for double rounding's
  // rare ties (at most one ulp).
  std::vector<float> x = {0.f, -0.f, 1.f, -1.f, 1e-20f, 3e12f, 1e13f, -1e13f, INFINITY, -INFINITY, NAN, 1e-45f};
  for (int i = 0; i < 2000; ++i) x.push_back(std::ldexp(std::sin(0.37f * i), (i % 41) - 20));
  for (float power : {2.f, 3.f}) {
    std::vector<float> got = Values<float>(Out("Pow", {V<float>(x), Tensor::Scalar<float>(power)}));
    REQUIRE(got.size() == x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      // A denormal base reads as zero, as everywhere in the kernels (1e-45 ** 2 is 0).
      const float want = std::pow(std::fpclassify(x[i]) == FP_SUBNORMAL ? 0.f : x[i], power);
      INFO(x[i] << " ** " << power << ": got " << got[i] << ", want " << want);
      if (std::isnan(want)) {
        CHECK(std::isnan(got[i]));
      } else if (std::isinf(want)) {
        CHECK(got[i] == want);
      } else {
        CHECK(std::fabs(got[i] - want) <= std::fabs(std::nextafter(want, INFINITY) - want));
        CHECK(std::signbit(got[i]) == std::signbit(want));
      }
    }
  }
}

// ---- unary ---------------------------------------------------------------------------------

TEMPLATE_TEST_CASE("Neg, Square, Abs, Sign, Round on every dtype", "[cwise]", float, double, int32_t, int64_t) {
  using T = TestType;
  Tensor x = V<T>({-3, 0, 2, 5}, {2, 2});
  Tensor neg = Out("Neg", {x});
  CHECK(neg.shape() == TensorShape({2, 2}));
  CHECK(Values<T>(neg) == std::vector<T>{3, 0, -2, -5});
  CHECK(Values<T>(Out("Square", {x})) == std::vector<T>{9, 0, 4, 25});
  CHECK(Values<T>(Out("Abs", {x})) == std::vector<T>{3, 0, 2, 5});
  CHECK(Values<T>(Out("Sign", {x})) == std::vector<T>{-1, 0, 1, 1});
  CHECK(Values<T>(Out("Round", {x})) == std::vector<T>{-3, 0, 2, 5});
}

TEMPLATE_TEST_CASE("Sqrt, Rsqrt, Exp, Log, Tanh, Sigmoid, Reciprocal, Log1p, Floor, Ceil, Round", "[cwise]", float,
                   double) {
  using T = TestType;
  CheckClose<T>(Out("Sqrt", {V<T>({4, 2, 0})}), {2, 1.4142135623730951, 0});
  CheckClose<T>(Out("Rsqrt", {V<T>({4, 0.25})}), {0.5, 2});
  // TensorFlow 2.21 (float32): exp [1 2.7182817 0.36787945 12.182494], tanh [0 0.7615942
  // -0.7615942 0.98661435], sigmoid [0.5 0.7310586 0.26894143 0.9241418].
  Tensor f = V<T>({0, 1, -1, 2.5});
  CheckClose<T>(Out("Exp", {f}), {1, 2.718281828459045, 0.36787944117144233, 12.182493960703473});
  CheckClose<T>(Out("Tanh", {f}), {0, 0.7615941559557649, -0.7615941559557649, 0.9866142981514303});
  CheckClose<T>(Out("Sigmoid", {f}), {0.5, 0.7310585786300049, 0.2689414213699951, 0.9241418199787566});
  CheckClose<T>(Out("Sigmoid", {V<T>({-100, 100})}), {3.720075976020836e-44, 1});
  CheckClose<T>(Out("Log", {V<T>({1, 2.718281828459045, 0})}), {0, 1, -INFINITY});
  CheckClose<T>(Out("Log1p", {V<T>({0, 1, 3})}), {0, 0.6931471805599453, 1.3862943611198906});
  CheckClose<T>(Out("Reciprocal", {V<T>({4, -0.5})}), {0.25, -2});
  CheckClose<T>(Out("Floor", {V<T>({1.5, -1.5, 2})}), {1, -2, 2});
  CheckClose<T>(Out("Ceil", {V<T>({1.5, -1.5, 2})}), {2, -1, 2});
  // Half to even, as TensorFlow 2.21: [0 2 2 -0 -2 0].
  CheckClose<T>(Out("Round", {V<T>({0.5, 1.5, 2.5, -0.5, -1.5, 0.4})}), {0, 2, 2, 0, -2, 0});
}

TEMPLATE_TEST_CASE("the gradient helpers compute from y and dy", "[cwise]", float, double) {
  using T = TestType;
  Tensor y = V<T>({0.5, 2}, {2});
  Tensor dy = V<T>({3, -1}, {2});
  CheckClose<T>(Out("TanhGrad", {y, dy}), {3 * (1 - 0.25), -1 * (1 - 4)});
  CheckClose<T>(Out("SigmoidGrad", {y, dy}), {3 * 0.5 * 0.5, -1 * 2 * (1 - 2)});
  CheckClose<T>(Out("SqrtGrad", {y, dy}), {0.5 * 3 / 0.5, 0.5 * -1 / 2});
  CheckClose<T>(Out("RsqrtGrad", {y, dy}), {-0.5 * 3 * 0.125, -0.5 * -1 * 8});
  CheckClose<T>(Out("ReciprocalGrad", {y, dy}), {-3 * 0.25, 1 * 4});
  Status s = ErrorOf("TanhGrad", {y, V<T>({1, 2, 3})});
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK(s.message().find("same number of elements") != std::string::npos);
}

// ---- Cast and AddN -------------------------------------------------------------------------

TEST_CASE("Cast converts between float, double, int32, int64 and bool", "[cwise]") {
  auto cast = [](const Tensor& x, DataType to) {
    return Out("Cast", {x}, {{"SrcT", TypeAttr(x.dtype())}, {"DstT", TypeAttr(to)}});
  };
  // TensorFlow 2.21: [-1.7, 2.9, 0] to int32 is [-1 2 0]; [-1.7, 0] to bool is [True False].
  Tensor f = V<float>({-1.7f, 2.9f, 0.f}, {3});
  CHECK(Values<int32_t>(cast(f, tf::DT_INT32)) == std::vector<int32_t>{-1, 2, 0});
  CHECK(Values<int64_t>(cast(f, tf::DT_INT64)) == std::vector<int64_t>{-1, 2, 0});
  CHECK(Bools(cast(f, tf::DT_BOOL)) == std::vector<int>{1, 1, 0});
  CheckClose<double>(cast(f, tf::DT_DOUBLE), {-1.7f, 2.9f, 0});
  CheckClose<float>(cast(V<int64_t>({-3, 1LL << 40}), tf::DT_FLOAT), {-3, 1099511627776.0});
  CheckClose<float>(cast(V<bool>({true, false}), tf::DT_FLOAT), {1, 0});
  CHECK(Values<int32_t>(cast(V<int64_t>({-3, 7}), tf::DT_INT32)) == std::vector<int32_t>{-3, 7});
  CHECK(Values<int64_t>(cast(V<bool>({true, false}), tf::DT_INT64)) == std::vector<int64_t>{1, 0});
  CHECK(Bools(cast(V<int32_t>({0, -2}), tf::DT_BOOL)) == std::vector<int>{0, 1});
  // To its own type: the same tensor.
  Tensor same = cast(f, tf::DT_FLOAT);
  CHECK(same.base<float>() == f.base<float>());
  CHECK(cast(f, tf::DT_INT32).shape() == TensorShape({3}));
}

TEMPLATE_TEST_CASE("AddN sums inputs of one shape", "[cwise]", float, double, int32_t, int64_t) {
  using T = TestType;
  Tensor a = V<T>({1, 2, 3, 4}, {2, 2});
  Tensor b = V<T>({10, 20, 30, 40}, {2, 2});
  Tensor c = V<T>({100, 200, 300, 400}, {2, 2});
  AttrValue n3;
  n3.set_i(3);
  Tensor sum = Out("AddN", {a, b, c}, {{"N", n3}});
  CHECK(sum.shape() == TensorShape({2, 2}));
  CHECK(Values<T>(sum) == std::vector<T>{111, 222, 333, 444});
  AttrValue n1;
  n1.set_i(1);
  CHECK(Values<T>(Out("AddN", {a}, {{"N", n1}})) == std::vector<T>{1, 2, 3, 4});
  AttrValue n2;
  n2.set_i(2);
  Status s = ErrorOf("AddN", {a, V<T>({1, 2})}, {{"N", n2}});
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK(s.message().find("must have the same size and shape") != std::string::npos);
}

// ---- comparisons, logic, Select ---------------------------------------------------------------

TEMPLATE_TEST_CASE("comparisons give bool tensors, with broadcasting", "[cwise]", float, double, int32_t, int64_t) {
  using T = TestType;
  Tensor x = V<T>({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor y = V<T>({2, 2, 5}, {3});
  Tensor g = Out("Greater", {x, y});
  CHECK(g.shape() == TensorShape({2, 3}));
  CHECK(Bools(g) == std::vector<int>{0, 0, 0, 1, 1, 1});
  CHECK(Bools(Out("GreaterEqual", {x, y})) == std::vector<int>{0, 1, 0, 1, 1, 1});
  CHECK(Bools(Out("Less", {x, y})) == std::vector<int>{1, 0, 1, 0, 0, 0});
  CHECK(Bools(Out("LessEqual", {x, y})) == std::vector<int>{1, 1, 1, 0, 0, 0});
  CHECK(Bools(Out("Equal", {x, y})) == std::vector<int>{0, 1, 0, 0, 0, 0});
  CHECK(Bools(Out("NotEqual", {x, Tensor::Scalar<T>(3)})) == std::vector<int>{1, 1, 0, 1, 1, 1});
  // Shapes that do not broadcast: an error, or with incompatible_shape_error=false a scalar
  // (TensorFlow 2.21: Equal gives False).
  CHECK(ErrorOf("Equal", {V<T>({1, 2}), V<T>({1, 2, 3})}).code() == error::INVALID_ARGUMENT);
  Tensor eq = Out("Equal", {V<T>({1, 2}), V<T>({1, 2, 3})}, {{"incompatible_shape_error", BoolAttr(false)}});
  CHECK(eq.dims() == 0);
  CHECK(Bools(eq) == std::vector<int>{0});
  Tensor ne = Out("NotEqual", {V<T>({1, 2}), V<T>({1, 2, 3})}, {{"incompatible_shape_error", BoolAttr(false)}});
  CHECK(Bools(ne) == std::vector<int>{1});
}

TEST_CASE("logical ops and Equal on bools", "[cwise]") {
  Tensor a = V<bool>({true, true, false, false});
  Tensor b = V<bool>({true, false, true, false});
  CHECK(Bools(Out("LogicalAnd", {a, b})) == std::vector<int>{1, 0, 0, 0});
  CHECK(Bools(Out("LogicalOr", {a, b})) == std::vector<int>{1, 1, 1, 0});
  CHECK(Bools(Out("LogicalNot", {a})) == std::vector<int>{0, 0, 1, 1});
  CHECK(Bools(Out("LogicalAnd", {a, Tensor::Scalar<bool>(true)})) == std::vector<int>{1, 1, 0, 0});
  CHECK(Bools(Out("Equal", {a, b})) == std::vector<int>{1, 0, 0, 1});
}

TEMPLATE_TEST_CASE("Select picks from t or e by a scalar, row or element-wise condition", "[cwise]", float, double,
                   int32_t, int64_t, bool) {
  using T = TestType;
  Tensor t = V<T>({1, 1, 1, 1}, {2, 2});
  Tensor e = V<T>({0, 0, 0, 0}, {2, 2});
  CHECK(Values<T>(Out("Select", {Tensor::Scalar<bool>(false), t, e}, {}, 1)) == std::vector<T>{0, 0, 0, 0});
  CHECK(Values<T>(Out("Select", {V<bool>({false, true}), t, e}, {}, 1)) == std::vector<T>{0, 0, 1, 1});
  CHECK(Values<T>(Out("Select", {V<bool>({true, false, false, true}, {2, 2}), t, e}, {}, 1)) ==
        std::vector<T>{1, 0, 0, 1});
  CHECK(RunCwise("Select", {V<bool>({true, false, true}), t, e}, {}, 1).status.code() == error::INVALID_ARGUMENT);
  CHECK(RunCwise("Select", {V<bool>({true}), t, V<T>({0, 0})}, {}, 1).status.code() == error::INVALID_ARGUMENT);
  // SelectV2 broadcasts all three: a [2,1] condition against a [2] t and a scalar e.
  Tensor r = Out("SelectV2", {V<bool>({true, false}, {2, 1}), V<T>({1, 0}), Tensor::Scalar<T>(1)}, {}, 1);
  CHECK(r.shape() == TensorShape({2, 2}));
  CHECK(Values<T>(r) == std::vector<T>{1, 0, 1, 1});
  CHECK(Values<T>(Out("SelectV2", {V<bool>({true, false}), t, e}, {}, 1)) == std::vector<T>{1, 0, 1, 0});
  CHECK(RunCwise("SelectV2", {V<bool>({true, false, true}), t, e}, {}, 1).status.code() == error::INVALID_ARGUMENT);
  // A recurrent layer's mask: [3, 1, 1] against states [3, 2, 5] and [1, 2, 5], every row.
  std::vector<T> then_values(30), else_values(10), want(30);
  for (int i = 0; i < 30; ++i) then_values[i] = static_cast<T>(i % 2);
  for (int i = 0; i < 10; ++i) else_values[i] = static_cast<T>(i % 3 == 0);
  for (int i = 0; i < 30; ++i) want[i] = i / 10 == 1 ? else_values[i % 10] : then_values[i];
  CHECK(Values<T>(Out("SelectV2", {V<bool>({true, false, true}, {3, 1, 1}), V<T>(then_values, {3, 2, 5}),
                                   V<T>(else_values, {1, 2, 5})}, {}, 1)) == want);
}

// ---- large tensors take the device's threads ---------------------------------------------------

TEST_CASE("large element-wise ops split over the device's threads give the same values", "[cwise]") {
  const int64_t n = 1 << 20;
  std::vector<float> xs(n), ys(n);
  for (int64_t i = 0; i < n; ++i) {
    xs[i] = static_cast<float>(i % 1000) * 0.01f;
    ys[i] = static_cast<float>(i % 7);
  }
  Tensor x = V<float>(xs, {n});
  Tensor y = V<float>(ys, {n});
  std::vector<float> d = Values<float>(Out("Sub", {x, y}));
  std::vector<float> t = Values<float>(Out("Tanh", {x}));
  bool ok = true;
  for (int64_t i = 0; i < n; ++i) {
    ok &= d[i] == xs[i] - ys[i];
    ok &= std::abs(t[i] - std::tanh(xs[i])) < 1e-5f;
  }
  CHECK(ok);
  // A broadcast over rows, split by rows.
  Tensor m = V<float>(xs, {1024, 1024});
  Tensor row = V<float>(std::vector<float>(ys.begin(), ys.begin() + 1024), {1024});
  std::vector<float> b = Values<float>(Out("Sub", {m, row}));
  ok = true;
  for (int64_t i = 0; i < n; ++i) ok &= b[i] == xs[i] - ys[i % 1024];
  CHECK(ok);
}

// ---- outputs in an operand's buffer ------------------------------------------------------------

// The kernel holds an input's only reference when the executor hands a value's last consumer
// the value itself; the inputs vector below is then that only holder.
TEST_CASE("element-wise kernels write into an operand nothing else holds, else into a fresh buffer", "[cwise]") {
  const std::vector<float> xs = {1, 2, 3, 4, 5, 6}, ys = {10, 20, 30, 40, 50, 60};
  SECTION("binary: x, or y when x is broadcast or held") {
    std::vector<Tensor> in = {V<float>(xs, {2, 3}), V<float>(ys, {2, 3})};
    Tensor out = Out("Sub", in);
    CHECK(out.SharesBufferWith(in[0]));
    CHECK(Values<float>(out) == std::vector<float>{-9, -18, -27, -36, -45, -54});
    std::vector<Tensor> row_first = {V<float>({1, 2, 3}, {3}), V<float>(ys, {2, 3})};
    out = Out("Sub", row_first);
    CHECK(out.SharesBufferWith(row_first[1]));
    CHECK(Values<float>(out) == std::vector<float>{-9, -18, -27, -39, -48, -57});
    Tensor held = V<float>(xs, {2, 3});
    std::vector<Tensor> one_held = {held, V<float>(ys, {2, 3})};
    out = Out("Mul", one_held);
    CHECK(out.SharesBufferWith(one_held[1]));
    CHECK(Values<float>(held) == xs);  // a buffer someone else holds is never written
    CHECK(Values<float>(out) == std::vector<float>{10, 40, 90, 160, 250, 360});
  }
  SECTION("a different output dtype, a broadcast operand or a shared buffer is not taken") {
    std::vector<Tensor> cmp = {V<float>(xs, {2, 3}), V<float>(ys, {2, 3})};
    Tensor less = Out("Less", cmp);
    CHECK_FALSE(less.SharesBufferWith(cmp[0]));
    CHECK(Bools(less) == std::vector<int>{1, 1, 1, 1, 1, 1});
    std::vector<Tensor> small = {V<float>({1, 2, 3}, {3}), V<float>({10, 100}, {2, 1})};
    Tensor outer = Out("AddV2", small);
    CHECK_FALSE(outer.SharesBufferWith(small[0]));
    CHECK_FALSE(outer.SharesBufferWith(small[1]));
    CHECK(Values<float>(outer) == std::vector<float>{11, 12, 13, 101, 102, 103});
    Tensor same = V<float>(xs, {2, 3});
    std::vector<Tensor> twice = {same, same};
    same = Tensor();
    Tensor sq = Out("Mul", twice);  // both inputs are one buffer: two holders
    CHECK_FALSE(sq.SharesBufferWith(twice[0]));
    CHECK(Values<float>(sq) == std::vector<float>{1, 4, 9, 16, 25, 36});
  }
  SECTION("unary, gradient helpers, BiasAdd and AddN") {
    std::vector<Tensor> neg = {V<float>(xs, {2, 3})};
    Tensor out = Out("Neg", neg);
    CHECK(out.SharesBufferWith(neg[0]));
    CHECK(Values<float>(out) == std::vector<float>{-1, -2, -3, -4, -5, -6});
    std::vector<Tensor> tanh_grad = {V<float>({0.5f, 0.f}, {2}), V<float>({2.f, 3.f}, {2})};
    out = Out("TanhGrad", tanh_grad);
    CHECK(out.SharesBufferWith(tanh_grad[0]));
    CHECK(Values<float>(out) == std::vector<float>{1.5f, 3.f});
    std::vector<Tensor> bias = {V<float>(xs, {2, 3}), V<float>({10, 20, 30}, {3})};
    out = Out("BiasAdd", bias);
    CHECK(out.SharesBufferWith(bias[0]));
    CHECK(Values<float>(out) == std::vector<float>{11, 22, 33, 14, 25, 36});
    AttrValue n3;
    n3.set_i(3);
    // Only input 2 is free: it is read after the first pass has written, so not taken.
    Tensor a = V<float>(xs, {2, 3}), b = V<float>(ys, {2, 3});
    std::vector<Tensor> third_free = {a, b, V<float>({100, 200, 300, 400, 500, 600}, {2, 3})};
    out = Out("AddN", third_free, {{"N", n3}});
    for (const Tensor& t : third_free) CHECK_FALSE(out.SharesBufferWith(t));
    CHECK(Values<float>(out) == std::vector<float>{111, 222, 333, 444, 555, 666});
    std::vector<Tensor> second_free = {a, V<float>(ys, {2, 3}), b};
    out = Out("AddN", second_free, {{"N", n3}});
    CHECK(out.SharesBufferWith(second_free[1]));
    CHECK(Values<float>(out) == std::vector<float>{21, 42, 63, 84, 105, 126});
  }
  SECTION("split over the device's threads") {
    const int64_t n = 1 << 20;
    std::vector<float> big(n), row(1024);
    for (int64_t i = 0; i < n; ++i) big[i] = static_cast<float>(i % 1000);
    for (int64_t i = 0; i < 1024; ++i) row[i] = static_cast<float>(i % 7);
    std::vector<Tensor> in = {V<float>(row, {1024}), V<float>(big, {1024, 1024})};
    Tensor out = Out("SquaredDifference", in);
    CHECK(out.SharesBufferWith(in[1]));
    const float* o = out.base<float>();
    bool ok = true;
    for (int64_t i = 0; i < n; ++i) ok &= o[i] == (row[i % 1024] - big[i]) * (row[i % 1024] - big[i]);
    CHECK(ok);
  }
}

}  // namespace
}  // namespace tensoract
