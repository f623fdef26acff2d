// The optimizer kernels (kernels/cpu/training_ops.cc) against TensorFlow 2.21: the
// expected values are what tf.raw_ops.ResourceApply{GradientDescent,Momentum,Adam} left in
// the variables for the same inputs. Reference variables update in place and output their
// reference; resource variables copy a buffer a reader still holds before updating.
#include <Eigen/Core>
#include <catch2/catch.hpp>

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

const TensorShape kShape({3});
const std::vector<double> kVar = {1, 2, 3}, kGrad = {0.1, -0.2, 0.3};

template <class T>
std::shared_ptr<Var> MakeVar(const std::string& name, const std::vector<double>& values) {
  auto v = std::make_shared<Var>(DataTypeToEnum<T>::value, name);
  *v->tensor() = Make<T>(values, kShape);
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
  auto out = r.Run(ref, {Tensor(), S<TestType>(0.5), Make<TestType>(kGrad, kShape)}, {var, nullptr, nullptr});
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
  REQUIRE(rr.Run(Output(res), {h, S<TestType>(0.5), Make<TestType>(kGrad, kShape)}).ok());
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
    auto out = r.Run(ref, {Tensor(), Tensor(), S<TestType>(0.1), Make<TestType>(kGrad, kShape), S<TestType>(0.9)},
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
                                     Make<TestType>(kGrad, kShape), S<TestType>(0.9)});
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
    in.push_back(Make<TestType>(kGrad, kShape));
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
    rin.push_back(Make<TestType>(kGrad, kShape));
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
  REQUIRE(r0.Run(Output(gd), {ResourceVar<T>(r0, "w", var0), scalar(0.1), Make<T>(grad, kShape)}).ok());
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
    REQUIRE(r.Run(ref, {Tensor(), Tensor(), scalar(0.1), Make<T>(grad, kShape), scalar(0.9)},
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
    in.push_back(Make<T>(grad, kShape));
    auto out = ra.Run(Output(adam), in);
    INFO(out.status());
    REQUIRE(out.ok());
    CheckClose(ResourceValue<T>(ra, "w"), w1, 0);
    CheckClose(ResourceValue<T>(ra, "m"), m1, 0);
    CheckClose(ResourceValue<T>(ra, "v"), v1, 0);
  }
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
  auto bad_alpha = r.Run({Tensor(), Make<float>({1, 2, 3}, kShape), Make<float>(kGrad, kShape)}, {var, nullptr, nullptr});
  REQUIRE(bad_alpha.status().code() == error::INVALID_ARGUMENT);
  CHECK_THAT(bad_alpha.status().message(), Catch::Contains("alpha is not a scalar: [3]"));
  auto fresh = std::make_shared<Var>(dt, "fresh");
  auto uninit = r.Run({Tensor(), S<float>(0.5), Make<float>(kGrad, kShape)}, {fresh, nullptr, nullptr});
  REQUIRE(uninit.status().code() == error::FAILED_PRECONDITION);
  CHECK_THAT(uninit.status().message(), Catch::Contains("Attempting to use uninitialized value fresh"));

  Node* res = ops::ResourceApplyGradientDescent(s, ops::VarHandleOp(s, dt, PartialTensorShape({3})),
                                                ops::Placeholder(s, dt), ops::Placeholder(s, dt));
  KernelRunner rr;
  Tensor missing(tf::DT_RESOURCE, TensorShape());
  *missing.base<ResourceHandle>() = rr.device()->resource_manager()->MakeHandle<Var>("", "nowhere");
  auto not_found = rr.Run(Output(res), {missing, S<float>(0.5), Make<float>(kGrad, kShape)});
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
