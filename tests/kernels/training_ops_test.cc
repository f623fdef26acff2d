// The optimizer kernels (kernels/cpu/training_ops.cc) against TensorFlow 2.21: the
// expected values are what tf.raw_ops.ResourceApply{GradientDescent,Momentum,Adam} left in
// the variables for the same inputs. Reference variables update in place and output their
// reference; resource variables copy a buffer a reader still holds before updating.
#include <Eigen/Core>
#include <catch2/catch.hpp>

#include <cmath>
#include <complex>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "graph/builder/ops.h"
#include "graph/builder/training_ops.h"
#include "kernels/resource_handle.h"
#include "tests/kernels/nn_kernel_runner.h"

namespace tensoract {
namespace {

using nn_test::AsDoubles;
using nn_test::CheckClose;
using nn_test::KernelRunner;
using nn_test::Make;
namespace tf = ::tensorflow;

const TensorShape kTrainShape({3});
const std::vector<double> kVar = {1, 2, 3}, kGrad = {0.1, -0.2, 0.3};

template <class T>
std::shared_ptr<Var> MakeVar(const std::string& name, const std::vector<double>& values) {
  auto v = std::make_shared<Var>(DataTypeToEnum<T>::value, name);
  *v->tensor() = Make<T>(values, kTrainShape);
  v->is_initialized = true;
  return v;
}

template <class T>
Tensor S(double x) {
  return Tensor::Scalar<T>(static_cast<T>(x));
}

// A resource handle tensor naming variable `name` in the runner's device, created from `values`.
template <class T>
Tensor ResourceVar(KernelRunner& r, const std::string& name, const std::vector<double>& values) {
  auto var = r.device()->resource_manager()->LookupOrCreate<Var>("", name, [&]() -> StatusOr<std::shared_ptr<Var>> {
    return MakeVar<T>(name, values);
  });
  REQUIRE(var.ok());
  Tensor h(tf::DT_RESOURCE, TensorShape());
  *h.base<ResourceHandle>() = r.device()->resource_manager()->MakeHandle<Var>("", name);
  return h;
}

template <class T>
std::vector<double> ResourceValue(KernelRunner& r, const std::string& name) {
  auto var = r.device()->resource_manager()->LookupOrCreate<Var>(
      "", name, [&]() -> StatusOr<std::shared_ptr<Var>> { return errors::NotFound(name); });
  REQUIRE(var.ok());
  auto t = var.value()->Read();
  REQUIRE(t.ok());
  return AsDoubles<T>(t.value());
}

template <class T>
double Tol() {
  return std::is_same<T, float>::value ? 1e-6 : 1e-12;
}

TEMPLATE_TEST_CASE("ApplyGradientDescent and ResourceApplyGradientDescent: var -= alpha * delta", "[training]",
                   float, double) {
  constexpr DataType dt = DataTypeToEnum<TestType>::value;
  Scope s = Scope::NewRootScope();
  Output ref = ops::ApplyGradientDescent(s, ops::Variable(s, PartialTensorShape({3}), dt), ops::Placeholder(s, dt),
                                         ops::Placeholder(s, dt));
  REQUIRE(s.ok());
  KernelRunner r;
  auto var = MakeVar<TestType>("var", kVar);
  const Tensor before = *var->tensor();  // shares the buffer: a ref update is seen through it
  auto out = r.Run(ref, {Tensor(), S<TestType>(0.5), Make<TestType>(kGrad, kTrainShape)}, {var, nullptr, nullptr});
  INFO(out.status());
  REQUIRE(out.ok());
  CheckClose(AsDoubles<TestType>(*var->tensor()), {0.95, 2.1, 2.85}, Tol<TestType>());
  CHECK(var->tensor()->SharesBufferWith(before));
  REQUIRE(r.last_output_refs().size() == 1);
  CHECK(r.last_output_refs()[0] == var);

  Node* res = ops::ResourceApplyGradientDescent(s, ops::VarHandleOp(s, dt, PartialTensorShape({3})),
                                                ops::Placeholder(s, dt), ops::Placeholder(s, dt));
  REQUIRE(s.ok());
  KernelRunner rr;
  Tensor h = ResourceVar<TestType>(rr, "w", kVar);
  auto held = rr.device()->resource_manager()->Lookup<Var>(*h.base<ResourceHandle>()).value()->Read().value();
  REQUIRE(rr.Run(Output(res), {h, S<TestType>(0.5), Make<TestType>(kGrad, kTrainShape)}).ok());
  CheckClose(ResourceValue<TestType>(rr, "w"), {0.95, 2.1, 2.85}, Tol<TestType>());
  CheckClose(AsDoubles<TestType>(held), kVar, 0);  // copy-on-write: the reader's value is unchanged
}

TEMPLATE_TEST_CASE("ApplyMomentum and ResourceApplyMomentum, with and without Nesterov", "[training]", float,
                   double) {
  constexpr DataType dt = DataTypeToEnum<TestType>::value;
  for (bool nesterov : {false, true}) {
    INFO("use_nesterov " << nesterov);
    const std::vector<double> want = nesterov ? std::vector<double>{0.9405, 1.9975, 2.9025}
                                              : std::vector<double>{0.945, 1.975, 2.925};
    Scope s = Scope::NewRootScope();
    Output ref = ops::ApplyMomentum(s, ops::Variable(s, PartialTensorShape({3}), dt),
                                    ops::Variable(s, PartialTensorShape({3}), dt), ops::Placeholder(s, dt),
                                    ops::Placeholder(s, dt), ops::Placeholder(s, dt), {false, nesterov});
    REQUIRE(s.ok());
    KernelRunner r;
    auto var = MakeVar<TestType>("var", kVar), accum = MakeVar<TestType>("accum", {0.5, 0.5, 0.5});
    auto out = r.Run(ref, {Tensor(), Tensor(), S<TestType>(0.1), Make<TestType>(kGrad, kTrainShape), S<TestType>(0.9)},
                     {var, accum, nullptr, nullptr, nullptr});
    INFO(out.status());
    REQUIRE(out.ok());
    CheckClose(AsDoubles<TestType>(*var->tensor()), want, Tol<TestType>());
    CheckClose(AsDoubles<TestType>(*accum->tensor()), {0.55, 0.25, 0.75}, Tol<TestType>());

    Node* res = ops::ResourceApplyMomentum(s, ops::VarHandleOp(s, dt, PartialTensorShape({3})),
                                           ops::VarHandleOp(s, dt, PartialTensorShape({3})), ops::Placeholder(s, dt),
                                           ops::Placeholder(s, dt), ops::Placeholder(s, dt), {false, nesterov});
    REQUIRE(s.ok());
    KernelRunner rr;
    Tensor a = ResourceVar<TestType>(rr, "a", {0.5, 0.5, 0.5});
    // A reader holds accum's value: accum is updated out of place, var in place.
    auto held = rr.device()->resource_manager()->Lookup<Var>(*a.base<ResourceHandle>()).value()->Read().value();
    auto rout = rr.Run(Output(res), {ResourceVar<TestType>(rr, "w", kVar), a, S<TestType>(0.1),
                                     Make<TestType>(kGrad, kTrainShape), S<TestType>(0.9)});
    INFO(rout.status());
    REQUIRE(rout.ok());
    CheckClose(ResourceValue<TestType>(rr, "w"), want, Tol<TestType>());
    CheckClose(ResourceValue<TestType>(rr, "a"), {0.55, 0.25, 0.75}, Tol<TestType>());
    CheckClose(AsDoubles<TestType>(held), {0.5, 0.5, 0.5}, 0);
  }
}

TEMPLATE_TEST_CASE("ApplyAdam and ResourceApplyAdam, with and without Nesterov", "[training]", float, double) {
  constexpr DataType dt = DataTypeToEnum<TestType>::value;
  const double tol = std::is_same<TestType, float>::value ? 1e-6 : 2e-8;  // TF printed 9 digits
  const std::vector<double> m0 = {0.01, 0.02, 0.03}, v0 = {0.001, 0.002, 0.003};
  const std::vector<double> m1 = {0.019, -0.002, 0.057}, v1 = {0.001009, 0.002038, 0.003087};
  for (bool nesterov : {false, true}) {
    INFO("use_nesterov " << nesterov);
    const std::vector<double> want = nesterov ? std::vector<double>{0.99799241, 2.00113633, 2.9965567}
                                              : std::vector<double>{0.99859246, 2.00010425, 2.99758588};
    auto scalars = [] {
      return std::vector<Tensor>{S<TestType>(0.81), S<TestType>(0.999 * 0.999), S<TestType>(0.01),
                                 S<TestType>(0.9),  S<TestType>(0.999),         S<TestType>(1e-7)};
    };
    Scope s = Scope::NewRootScope();
    auto p = [&] { return ops::Placeholder(s, dt); };
    auto v = [&] { return ops::Variable(s, PartialTensorShape({3}), dt); };
    Output ref = ops::ApplyAdam(s, v(), v(), v(), p(), p(), p(), p(), p(), p(), p(), {false, nesterov});
    REQUIRE(s.ok());
    KernelRunner r;
    auto var = MakeVar<TestType>("var", kVar), m = MakeVar<TestType>("m", m0), vv = MakeVar<TestType>("v", v0);
    std::vector<Tensor> in = {Tensor(), Tensor(), Tensor()};
    for (const Tensor& t : scalars()) in.push_back(t);
    in.push_back(Make<TestType>(kGrad, kTrainShape));
    std::vector<std::shared_ptr<Var>> refs(10);
    refs[0] = var;
    refs[1] = m;
    refs[2] = vv;
    auto out = r.Run(ref, in, refs);
    INFO(out.status());
    REQUIRE(out.ok());
    CheckClose(AsDoubles<TestType>(*var->tensor()), want, tol);
    CheckClose(AsDoubles<TestType>(*m->tensor()), m1, tol);
    CheckClose(AsDoubles<TestType>(*vv->tensor()), v1, tol);

    auto h = [&] { return ops::VarHandleOp(s, dt, PartialTensorShape({3})); };
    Node* res = ops::ResourceApplyAdam(s, h(), h(), h(), p(), p(), p(), p(), p(), p(), p(), {false, nesterov});
    REQUIRE(s.ok());
    KernelRunner rr;
    std::vector<Tensor> rin = {ResourceVar<TestType>(rr, "w", kVar), ResourceVar<TestType>(rr, "m", m0),
                               ResourceVar<TestType>(rr, "v", v0)};
    for (const Tensor& t : scalars()) rin.push_back(t);
    rin.push_back(Make<TestType>(kGrad, kTrainShape));
    // Readers hold w's and m's values (a gradient product still using the weights): those
    // two are updated out of place, v in place, with the same results.
    auto read = [&](int i) {
      return rr.device()->resource_manager()->Lookup<Var>(*rin[i].base<ResourceHandle>()).value()->Read().value();
    };
    const Tensor held_w = read(0), held_m = read(1);
    auto rout = rr.Run(Output(res), rin);
    INFO(rout.status());
    REQUIRE(rout.ok());
    CheckClose(ResourceValue<TestType>(rr, "w"), want, tol);
    CheckClose(ResourceValue<TestType>(rr, "m"), m1, tol);
    CheckClose(ResourceValue<TestType>(rr, "v"), v1, tol);
    CheckClose(AsDoubles<TestType>(held_w), kVar, 0);
    CheckClose(AsDoubles<TestType>(held_m), m0, tol);
  }
}

// half and bfloat16: TensorFlow's expressions in the type, each step rounded to it, give its
// values bit for bit (momentum's Nesterov step is accum * momentum * lr in that order: the
// other order differs in the last place for these inputs in both types).
template <class T>
const std::vector<double>& ByType(const std::vector<double>& half, const std::vector<double>& bfloat16) {
  return std::is_same<T, Eigen::half>::value ? half : bfloat16;
}

TEMPLATE_TEST_CASE("the optimizer updates in half and bfloat16 match TensorFlow bit for bit", "[training]",
                   Eigen::half, Eigen::bfloat16) {
  using T = TestType;
  constexpr DataType dt = DataTypeToEnum<T>::value;
  const std::vector<double> var0 = {-2.933, 0.522, 0.663}, grad = {-0.712, 0.667, -0.025};
  const std::vector<double> accum0 = {0.599, 0.662, 0.205};
  auto scalar = [](double x) { return S<T>(x); };
  Scope s = Scope::NewRootScope();
  auto p = [&] { return ops::Placeholder(s, dt); };
  auto h = [&] { return ops::VarHandleOp(s, dt, PartialTensorShape({3})); };

  Node* gd = ops::ResourceApplyGradientDescent(s, h(), p(), p());
  REQUIRE(s.ok());
  KernelRunner r0;
  REQUIRE(r0.Run(Output(gd), {ResourceVar<T>(r0, "w", var0), scalar(0.1), Make<T>(grad, kTrainShape)}).ok());
  CheckClose(ResourceValue<T>(r0, "w"),
             ByType<T>({-2.86328125, 0.455322265625, 0.66552734375}, {-2.859375, 0.45703125, 0.66796875}), 0);

  for (bool nesterov : {false, true}) {
    INFO("use_nesterov " << nesterov);
    const std::vector<double> accum1 = ByType<T>({-0.1728515625, 1.2626953125, 0.159423828125},
                                                 {-0.17578125, 1.265625, 0.1591796875});
    const std::vector<double> var1 =
        nesterov ? ByType<T>({-2.84765625, 0.341552734375, 0.6513671875}, {-2.84375, 0.341796875, 0.65234375})
                 : ByType<T>({-2.916015625, 0.395751953125, 0.64697265625}, {-2.921875, 0.396484375, 0.6484375});
    // The reference form.
    Output ref = ops::ApplyMomentum(s, ops::Variable(s, PartialTensorShape({3}), dt),
                                    ops::Variable(s, PartialTensorShape({3}), dt), p(), p(), p(), {false, nesterov});
    REQUIRE(s.ok());
    KernelRunner r;
    auto var = MakeVar<T>("var", var0), accum = MakeVar<T>("accum", accum0);
    REQUIRE(r.Run(ref, {Tensor(), Tensor(), scalar(0.1), Make<T>(grad, kTrainShape), scalar(0.9)},
                  {var, accum, nullptr, nullptr, nullptr})
                .ok());
    CheckClose(AsDoubles<T>(*var->tensor()), var1, 0);
    CheckClose(AsDoubles<T>(*accum->tensor()), accum1, 0);

    // Adam, the resource form.
    const std::vector<double> m1 = ByType<T>({-0.017364501953125, 0.1263427734375, 0.0159454345703125},
                                             {-0.018310546875, 0.126953125, 0.015869140625});
    const std::vector<double> v1 = ByType<T>({0.00647735595703125, 0.007045745849609375, 0.002048492431640625},
                                             {0.0059814453125, 0.006622314453125, 0.002044677734375});
    const std::vector<double> w1 =
        nesterov ? ByType<T>({-2.931640625, 0.51708984375, 0.66259765625}, {-2.9375, 0.515625, 0.6640625})
                 : ByType<T>({-2.93359375, 0.5185546875, 0.662109375}, {-2.9375, 0.51953125, 0.6640625});
    Node* adam = ops::ResourceApplyAdam(s, h(), h(), h(), p(), p(), p(), p(), p(), p(), p(), {false, nesterov});
    REQUIRE(s.ok());
    KernelRunner ra;
    std::vector<Tensor> in = {ResourceVar<T>(ra, "w", var0), ResourceVar<T>(ra, "m", {0.0599, 0.0662, 0.0205}),
                              ResourceVar<T>(ra, "v", {0.00599, 0.00662, 0.00205})};
    for (double x : {0.81, 0.999 * 0.999, 0.01, 0.9, 0.999, 1e-3}) in.push_back(scalar(x));
    in.push_back(Make<T>(grad, kTrainShape));
    auto out = ra.Run(Output(adam), in);
    INFO(out.status());
    REQUIRE(out.ok());
    CheckClose(ResourceValue<T>(ra, "w"), w1, 0);
    CheckClose(ResourceValue<T>(ra, "m"), m1, 0);
    CheckClose(ResourceValue<T>(ra, "v"), v1, 0);
  }
}

// A resource variable `name` in the runner's device holding `value`; its handle.
Tensor ResourceVarOf(KernelRunner& r, const std::string& name, const Tensor& value) {
  auto var = r.device()->resource_manager()->LookupOrCreate<Var>("", name, [&]() -> StatusOr<std::shared_ptr<Var>> {
    auto v = std::make_shared<Var>(value.dtype(), name);
    *v->tensor() = value;
    v->is_initialized = true;
    return v;
  });
  REQUIRE(var.ok());
  Tensor h(tf::DT_RESOURCE, TensorShape());
  *h.base<ResourceHandle>() = r.device()->resource_manager()->MakeHandle<Var>("", name);
  return h;
}

template <class T>
std::vector<T> Elements(const Tensor& t) {
  return std::vector<T>(t.base<T>(), t.base<T>() + t.NumElements());
}

Tensor ResourceTensor(KernelRunner& r, const std::string& name) {
  auto var = r.device()->resource_manager()->LookupOrCreate<Var>(
      "", name, [&]() -> StatusOr<std::shared_ptr<Var>> { return errors::NotFound(name); });
  REQUIRE(var.ok());
  auto t = var.value()->Read();
  REQUIRE(t.ok());
  return t.value();
}

TEST_CASE("the optimizer updates in complex64 and complex128, as TensorFlow's", "[training]") {
  using C = std::complex<float>;
  using Z = std::complex<double>;
  auto close = [](auto got, auto want) {
    CHECK(got.real() == Approx(want.real()).epsilon(1e-6).margin(1e-9));
    CHECK(got.imag() == Approx(want.imag()).epsilon(1e-6).margin(1e-9));
  };
  Scope s = Scope::NewRootScope();
  auto p = [&](DataType dt) { return ops::Placeholder(s, dt); };
  auto h = [&](DataType dt) { return ops::VarHandleOp(s, dt, PartialTensorShape({-1})); };

  // complex128: ResourceApplyGradientDescent(var=[1+1j, 2-1j, 0.5j], alpha=0.1+0.2j,
  // delta=[1, 1j, 2-2j]) leaves [0.9+0.8j, 2.2-1.1j, -0.6+0.3j]; then ResourceApplyMomentum
  // (accum=[1+1j, 2-1j, 0.5j], lr=0.1, grad=delta, momentum=0.9, use_nesterov) leaves var
  // [0.629+0.719j, 2.038-1.209j, -0.98+0.6395j], accum [1.9+0.9j, 1.8+0.1j, 2-1.55j].
  const DataType z = tf::DT_COMPLEX128;
  const Tensor delta = Tensor::FromVector<Z>({Z(1, 0), Z(0, 1), Z(2, -2)});
  Node* gd = ops::ResourceApplyGradientDescent(s, h(z), p(z), p(z));
  Node* mom = ops::ResourceApplyMomentum(s, h(z), h(z), p(z), p(z), p(z), {false, true});
  REQUIRE(s.ok());
  KernelRunner r;
  const Tensor w = ResourceVarOf(r, "w", Tensor::FromVector<Z>({Z(1, 1), Z(2, -1), Z(0, 0.5)}));
  REQUIRE(r.Run(Output(gd), {w, Tensor::Scalar<Z>(Z(0.1, 0.2)), delta}).ok());
  std::vector<Z> got = Elements<Z>(ResourceTensor(r, "w"));
  const std::vector<Z> want_gd{Z(0.9, 0.8), Z(2.2, -1.1), Z(-0.6, 0.3)};
  for (int i = 0; i < 3; ++i) close(got[i], want_gd[i]);
  const Tensor a = ResourceVarOf(r, "a", Tensor::FromVector<Z>({Z(1, 1), Z(2, -1), Z(0, 0.5)}));
  REQUIRE(r.Run(Output(mom), {w, a, Tensor::Scalar<Z>(Z(0.1, 0)), delta, Tensor::Scalar<Z>(Z(0.9, 0))}).ok());
  got = Elements<Z>(ResourceTensor(r, "w"));
  const std::vector<Z> want_var{Z(0.629, 0.719), Z(2.038, -1.209), Z(-0.98, 0.6395)};
  for (int i = 0; i < 3; ++i) close(got[i], want_var[i]);
  got = Elements<Z>(ResourceTensor(r, "a"));
  const std::vector<Z> want_accum{Z(1.9, 0.9), Z(1.8, 0.1), Z(2, -1.55)};
  for (int i = 0; i < 3; ++i) close(got[i], want_accum[i]);

  // complex64 Adam of 5 elements (beta1_power 0.81, beta2_power 0.998001, lr 0.01, beta1 0.9,
  // beta2 0.999, epsilon 1e-3): var [1+1j, 2-1j, 0.5j, -1, 3+2j], m [0.1j, 0.2, 0.3, -0.4j, 0.5],
  // v [-3.4e38+20j, 0.5+0.5j, 1, 2j, -3.4e38+20j], grad [2+8j, 1-1j, -0.5j, 0.25, 2+8j].
  // TensorFlow: var [nan+nanj, 1.9993821-0.99944228j, -6.3512044e-04+0.5001176j,
  // -0.99960607+4.5319018e-04j, 3+2j]: the first four in an AVX vector, whose quotient by
  // the infinite root of v's first is NaN, the fifth in the scalar tail, where it is 0;
  // m [0.20000005+0.8900002j, 0.28000003-0.100000024j, 0.27-0.050000012j,
  // 0.025000006-0.35999998j, 0.65000004+0.8000002j]; v[1] 0.49950001+0.49750003j.
  const DataType c = tf::DT_COMPLEX64;
  Node* adam = ops::ResourceApplyAdam(s, h(c), h(c), h(c), p(c), p(c), p(c), p(c), p(c), p(c), p(c), {false, false});
  REQUIRE(s.ok());
  KernelRunner ra;
  std::vector<Tensor> in = {
      ResourceVarOf(ra, "w", Tensor::FromVector<C>({C(1, 1), C(2, -1), C(0, 0.5f), C(-1, 0), C(3, 2)})),
      ResourceVarOf(ra, "m", Tensor::FromVector<C>({C(0, 0.1f), C(0.2f, 0), C(0.3f, 0), C(0, -0.4f), C(0.5f, 0)})),
      ResourceVarOf(ra, "v", Tensor::FromVector<C>({C(-3.4e38f, 20), C(0.5f, 0.5f), C(1, 0), C(0, 2), C(-3.4e38f, 20)}))};
  for (float x : {0.81f, 0.998001f, 0.01f, 0.9f, 0.999f, 1e-3f}) in.push_back(Tensor::Scalar<C>(C(x, 0)));
  in.push_back(Tensor::FromVector<C>({C(2, 8), C(1, -1), C(0, -0.5f), C(0.25f, 0), C(2, 8)}));
  auto out = ra.Run(Output(adam), in);
  INFO(out.status());
  REQUIRE(out.ok());
  std::vector<C> var = Elements<C>(ResourceTensor(ra, "w"));
  CHECK((std::isnan(var[0].real()) && std::isnan(var[0].imag())));
  const std::vector<C> want_w{C(1.9993821f, -0.99944228f), C(-6.3512044e-04f, 0.5001176f),
                              C(-0.99960607f, 4.5319018e-04f), C(3, 2)};
  for (int i = 1; i < 5; ++i) close(var[i], want_w[i - 1]);
  std::vector<C> m = Elements<C>(ResourceTensor(ra, "m"));
  const std::vector<C> want_m{C(0.20000005f, 0.8900002f), C(0.28000003f, -0.100000024f), C(0.27f, -0.050000012f),
                              C(0.025000006f, -0.35999998f), C(0.65000004f, 0.8000002f)};
  for (int i = 0; i < 5; ++i) close(m[i], want_m[i]);
  close(Elements<C>(ResourceTensor(ra, "v"))[1], C(0.49950001f, 0.49750003f));
}

TEST_CASE("optimizer updates refuse wrong shapes, non-scalar rates and uninitialised variables", "[training]") {
  constexpr DataType dt = tf::DT_FLOAT;
  Scope s = Scope::NewRootScope();
  Output ref = ops::ApplyGradientDescent(s, ops::Variable(s, PartialTensorShape({3}), dt), ops::Placeholder(s, dt),
                                         ops::Placeholder(s, dt));
  KernelRunner r;
  REQUIRE(r.Init(ref).ok());
  auto var = MakeVar<float>("var", kVar);
  auto bad_shape = r.Run({Tensor(), S<float>(0.5), Make<float>({1, 2}, TensorShape({2}))}, {var, nullptr, nullptr});
  REQUIRE(bad_shape.status().code() == error::INVALID_ARGUMENT);
  CHECK_THAT(bad_shape.status().message(), Catch::Contains("var and delta do not have the same shape"));
  auto bad_alpha = r.Run({Tensor(), Make<float>({1, 2, 3}, kTrainShape), Make<float>(kGrad, kTrainShape)}, {var, nullptr, nullptr});
  REQUIRE(bad_alpha.status().code() == error::INVALID_ARGUMENT);
  CHECK_THAT(bad_alpha.status().message(), Catch::Contains("alpha is not a scalar: [3]"));
  auto fresh = std::make_shared<Var>(dt, "fresh");
  auto uninit = r.Run({Tensor(), S<float>(0.5), Make<float>(kGrad, kTrainShape)}, {fresh, nullptr, nullptr});
  REQUIRE(uninit.status().code() == error::FAILED_PRECONDITION);
  CHECK_THAT(uninit.status().message(), Catch::Contains("Attempting to use uninitialized value fresh"));

  Node* res = ops::ResourceApplyGradientDescent(s, ops::VarHandleOp(s, dt, PartialTensorShape({3})),
                                                ops::Placeholder(s, dt), ops::Placeholder(s, dt));
  KernelRunner rr;
  Tensor missing(tf::DT_RESOURCE, TensorShape());
  *missing.base<ResourceHandle>() = rr.device()->resource_manager()->MakeHandle<Var>("", "nowhere");
  auto not_found = rr.Run(Output(res), {missing, S<float>(0.5), Make<float>(kGrad, kTrainShape)});
  CHECK(not_found.status().code() == error::FAILED_PRECONDITION);
}

TEST_CASE("optimizer shape functions merge the variable, gradient and scalars", "[training]") {
  constexpr DataType dt = tf::DT_FLOAT;
  Scope s = Scope::NewRootScope();
  Output ok = ops::ApplyGradientDescent(s, ops::Variable(s, PartialTensorShape({3}), dt), 0.5f,
                                        ops::Placeholder(s, dt, PartialTensorShape({-1})));
  REQUIRE(s.ok());
  CHECK(ok.node->output_shape(0).DebugString() == PartialTensorShape({3}).DebugString());
  ops::ResourceApplyGradientDescent(s, ops::VarHandleOp(s, dt, PartialTensorShape({3})), 0.5f,
                                    ops::Placeholder(s, dt, PartialTensorShape({4})));
  CHECK(!s.ok());
}

}  // namespace
}  // namespace tensoract
