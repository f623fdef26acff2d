// FusedBatchNormV3 and FusedBatchNormGradV3 on the CPU (and the older versions, which
// TensorFlow 1 graphs hold, against them). Expected values were printed by
// TensorFlow 2.21 (tf.raw_ops.FusedBatchNormV3 / FusedBatchNormGradV3 on the inputs below:
// x = (arange(24).reshape(2,2,3,2) * 0.25 - 2)^2 * 0.1, scale [1.5,-0.5], offset
// [0.25,1], mean [0.5,1], variance [2,0.5], epsilon 0.001, dy = sin(arange(24))).
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "tests/kernels/kernel_test_util.h"

namespace tensoract {
namespace {

namespace tf = ::tensorflow;

using testing::BoolA;
using testing::Run;
using testing::RunOp;
using testing::TypeA;
using testing::FloatA;
using testing::Values;

tf::AttrValue StringA(const std::string& s) {
  tf::AttrValue v;
  v.set_s(s);
  return v;
}

Tensor X() {
  std::vector<float> v(24);
  for (int i = 0; i < 24; ++i) {
    float t = i * 0.25f - 2.0f;
    v[i] = t * t * 0.1f;
  }
  return Tensor::FromVector<float>(v, TensorShape({2, 2, 3, 2}));
}
// X() as NCHW: [2,2,2,3].
Tensor XNchw() {
  Tensor x = X(), t(tf::DT_FLOAT, TensorShape({2, 2, 2, 3}));
  for (int n = 0; n < 2; ++n)
    for (int h = 0; h < 2; ++h)
      for (int w = 0; w < 3; ++w)
        for (int c = 0; c < 2; ++c) t.base<float>()[((n * 2 + c) * 2 + h) * 3 + w] = x.base<float>()[((n * 2 + h) * 3 + w) * 2 + c];
  return t;
}
Tensor Vec(std::vector<float> v) { return Tensor::FromVector<float>(v, TensorShape({static_cast<int64_t>(v.size())})); }

std::map<std::string, tf::AttrValue> Attrs(bool training, const char* format = "NHWC", float factor = 1.0f) {
  return {{"T", TypeA(tf::DT_FLOAT)}, {"U", TypeA(tf::DT_FLOAT)}, {"epsilon", FloatA(0.001f)},
          {"exponential_avg_factor", FloatA(factor)}, {"data_format", StringA(format)}, {"is_training", BoolA(training)}};
}

void Near(const Tensor& t, const std::vector<float>& want) {
  std::vector<float> got = Values<float>(t);
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    INFO("element " << i);
    CHECK(got[i] == Approx(want[i]).epsilon(2e-6).margin(2e-6));
  }
}

std::vector<Tensor> Inputs(const Tensor& x) {
  return {x, Vec({1.5f, -0.5f}), Vec({0.25f, 1.0f}), Vec({0.5f, 1.0f}), Vec({2.0f, 0.5f})};
}

TEST_CASE("FusedBatchNormV3 training: y, running statistics and reserve spaces as TensorFlow's", "[batch_norm]") {
  Run r = RunOp("FusedBatchNormV3", Inputs(X()), Attrs(true));
  REQUIRE(r.status.ok());
  Near(r.outputs[0], {0.4353746f, 1.1052374f, -0.27241904f, 1.277444f, -0.77798605f, 1.3922484f, -1.0813261f, 1.4496506f,
                      -1.1824394f, 1.4496506f, -1.0813261f, 1.3922484f, -0.77798605f, 1.277444f, -0.27241904f, 1.1052374f,
                      0.4353746f, 0.87562853f, 1.345395f, 0.5886175f, 2.457642f, 0.24420434f, 3.7721162f, -0.15761113f});
  Near(r.outputs[1], {0.35416666f, 0.39791667f});
  Near(r.outputs[2], {0.14895834f, 0.20583336f});  // corrected by n/(n-1)
  Near(r.outputs[3], {0.35416666f, 0.39791667f});
  Near(r.outputs[4], {0.13654514f, 0.18868057f});  // uncorrected
  CHECK(r.outputs[5].shape() == TensorShape({}));  // a scalar zero, as TensorFlow 2.21's CPU kernel (the harness)
  // NCHW gives the same statistics.
  Run c = RunOp("FusedBatchNormV3", Inputs(XNchw()), Attrs(true, "NCHW"));
  REQUIRE(c.status.ok());
  Near(c.outputs[2], {0.14895834f, 0.20583336f});
  CHECK(Values<float>(c.outputs[0])[1] == Approx(Values<float>(r.outputs[0])[2]).epsilon(1e-6));  // n0 c0 h0 w1
  // exponential_avg_factor 0.25 mixes the running statistics with the inputs.
  r = RunOp("FusedBatchNormV3", Inputs(X()), Attrs(true, "NHWC", 0.25f));
  REQUIRE(r.status.ok());
  Near(r.outputs[1], {0.46354166f, 0.8494792f});
  Near(r.outputs[2], {1.5372396f, 0.42645833f});
}

TEST_CASE("FusedBatchNormV3 inference normalises with the given statistics and returns them", "[batch_norm]") {
  Run r = RunOp("FusedBatchNormV3", Inputs(X()), Attrs(false));
  REQUIRE(r.status.ok());
  Near(r.outputs[0], {0.14396049f, 1.4900656f, -0.04160863f, 1.5960257f, -0.17415807f, 1.6666658f, -0.25368768f,
                      1.7019857f, -0.28019756f, 1.7019857f, -0.25368768f, 1.6666658f, -0.17415807f, 1.5960257f,
                      -0.04160863f, 1.4900656f, 0.14396049f, 1.3487854f, 0.3825494f, 1.1721852f, 0.6741581f, 0.960265f,
                      1.0187864f, 0.71302474f});
  Near(r.outputs[1], {0.5f, 1.0f});
  Near(r.outputs[2], {2.0f, 0.5f});
  Near(r.outputs[3], {0.5f, 1.0f});
  Near(r.outputs[4], {2.0f, 0.5f});
}

TEST_CASE("FusedBatchNormGradV3 in training and inference as TensorFlow's", "[batch_norm]") {
  std::vector<float> g(24);
  for (int i = 0; i < 24; ++i) g[i] = std::sin(static_cast<float>(i));
  Tensor dy = Tensor::FromVector<float>(g, TensorShape({2, 2, 3, 2}));
  Run f = RunOp("FusedBatchNormV3", Inputs(X()), Attrs(true));
  REQUIRE(f.status.ok());
  auto grad_attrs = [](bool training) {
    auto a = Attrs(training);
    a.erase("exponential_avg_factor");
    return a;
  };
  Run r = RunOp("FusedBatchNormGradV3", {dy, X(), Vec({1.5f, -0.5f}), f.outputs[3], f.outputs[4], f.outputs[5]},
                grad_attrs(true));
  REQUIRE(r.status.ok());
  Near(r.outputs[0], {-0.24614039f, -0.91598594f, 3.5507576f, -0.083600186f, -3.10269f, 1.1982005f, -1.1207902f,
                      -0.6474859f, 4.02784f, -0.3663665f, -2.190997f, 1.245346f, -2.2119637f, -0.40395853f, 3.8796186f,
                      -0.6964993f, -1.4105756f, 1.1159841f, -3.4368083f, -0.2070614f, 3.105691f, -1.0522171f,
                      -0.843943f, 0.8136444f});
  Near(r.outputs[1], {0.74958366f, -0.8604483f});
  Near(r.outputs[2], {0.6376544f, 0.34215152f});
  CHECK(r.outputs[3].shape() == TensorShape({0}));  // empty, as TensorFlow 2.21's CPU kernel (the harness)
  CHECK(r.outputs[4].shape() == TensorShape({0}));
  r = RunOp("FusedBatchNormGradV3", {dy, X(), Vec({1.5f, -0.5f}), Vec({0.5f, 1.0f}), Vec({2.0f, 0.5f}), f.outputs[5]},
            grad_attrs(false));
  REQUIRE(r.status.ok());
  Near(r.outputs[0], {0.f, -0.5944158f, 0.96421456f, -0.09968728f, -0.80250967f, 0.67738485f, -0.2962908f,
                      -0.46409583f, 1.0491107f, -0.2911208f, -0.5768773f, 0.70639384f, -0.5689793f, -0.29680634f,
                      1.0504352f, -0.45936385f, -0.3052913f, 0.67913187f, -0.7963432f, -0.10587337f, 0.9680827f,
                      -0.59101415f, -0.009385886f, 0.5977707f});
  Near(r.outputs[1], {0.13078736f, -0.820483f});
  Near(r.outputs[2], {0.6376544f, 0.34215152f});
}

// FusedBatchNorm (v1, attr T only) and FusedBatchNormV2 are V3 without reserve_space_3, and
// FusedBatchNormGrad and GradV2 are GradV3 without its reserve_space_3 input: same numbers.
TEST_CASE("a TensorFlow 1 graph's FusedBatchNorm and V2 and their gradients give V3's results", "[batch_norm]") {
  std::vector<float> g(24);
  for (int i = 0; i < 24; ++i) g[i] = std::sin(static_cast<float>(i));
  Tensor dy = Tensor::FromVector<float>(g, TensorShape({2, 2, 3, 2}));
  for (bool training : {true, false}) {
    INFO((training ? "training" : "inference"));
    Run v3 = RunOp("FusedBatchNormV3", Inputs(X()), Attrs(training, "NHWC", 0.25f));
    REQUIRE(v3.status.ok());
    auto v1_attrs = Attrs(training, "NHWC", 0.25f);
    v1_attrs.erase("U");
    for (auto [op, attrs] :
         {std::pair{"FusedBatchNorm", v1_attrs}, std::pair{"FusedBatchNormV2", Attrs(training, "NHWC", 0.25f)}}) {
      INFO(op);
      Run r = RunOp(op, Inputs(X()), attrs);
      REQUIRE(r.status.ok());
      REQUIRE(r.outputs.size() == 5);
      for (int k = 0; k < 5; ++k) Near(r.outputs[k], Values<float>(v3.outputs[k]));
    }
    auto grad_attrs = Attrs(training);
    grad_attrs.erase("exponential_avg_factor");
    Run g3 = RunOp("FusedBatchNormGradV3",
                   {dy, X(), Vec({1.5f, -0.5f}), v3.outputs[3], v3.outputs[4], v3.outputs[5]}, grad_attrs);
    REQUIRE(g3.status.ok());
    auto g1_attrs = grad_attrs;
    g1_attrs.erase("U");
    for (auto [op, attrs] : {std::pair{"FusedBatchNormGrad", g1_attrs}, std::pair{"FusedBatchNormGradV2", grad_attrs}}) {
      INFO(op);
      Run r = RunOp(op, {dy, X(), Vec({1.5f, -0.5f}), v3.outputs[3], v3.outputs[4]}, attrs);
      REQUIRE(r.status.ok());
      REQUIRE(r.outputs.size() == 5);
      for (int k = 0; k < 3; ++k) Near(r.outputs[k], Values<float>(g3.outputs[k]));
      CHECK(r.outputs[3].shape() == TensorShape({0}));  // empty, as TensorFlow 2.21's CPU kernel
      CHECK(r.outputs[4].shape() == TensorShape({0}));
    }
  }
  // v1 is float only: a double x finds no kernel.
  auto a = Attrs(true);
  a.erase("U");
  a["T"] = TypeA(tf::DT_DOUBLE);
  Tensor xd = Tensor::FromVector<double>(std::vector<double>(24, 1.0), TensorShape({2, 2, 3, 2}));
  auto vd = [](std::vector<double> v) { return Tensor::FromVector<double>(v, TensorShape({2})); };
  Run d = testing::RunMaybe("FusedBatchNorm", {xd, vd({1, 1}), vd({0, 0}), vd({0, 0}), vd({1, 1})}, a);
  CHECK(d.status.code() == error::NOT_FOUND);
}

// TensorFlow's inference gradient forms dy * (x - mean) in float before summing: with x at
// -FLT_MAX and dy 1.25 that is -inf, and so is scale_backprop, though times rsqrt(2) the
// exact value is finite (ours summed the products in double and returned -3.0e38; the
// harness's edge case found it).
TEST_CASE("FusedBatchNormGrad in inference overflows dy * (x - mean) as TensorFlow's", "[batch_norm]") {
  Tensor x = Tensor::FromVector<float>({1.0f, 2.0f, -3.4028235e38f, 0.5f}, TensorShape({1, 1, 2, 2}));
  Tensor dy = Tensor::FromVector<float>({1.25f, 1.25f, 1.25f, 1.25f}, TensorShape({1, 1, 2, 2}));
  auto a = Attrs(false);
  a.erase("U");
  a.erase("exponential_avg_factor");
  Run r = RunOp("FusedBatchNormGrad", {dy, x, Vec({1.0f, 1.0f}), Vec({1.0f, 1.0f}), Vec({2.0f, 1.0f})}, a);
  REQUIRE(r.status.ok());
  CHECK(Values<float>(r.outputs[1])[0] == -INFINITY);
  CHECK(Values<float>(r.outputs[1])[1] == Approx(0.62468773f));
  Near(r.outputs[2], {2.5f, 2.5f});
}

// TensorFlow's CPU kernels have no channels-first inference gradient: refused, not computed.
TEST_CASE("FusedBatchNormGrad in inference refuses NCHW as TensorFlow's CPU kernel", "[batch_norm]") {
  auto a = Attrs(false, "NCHW");
  a.erase("exponential_avg_factor");
  Run r = testing::RunMaybe("FusedBatchNormGradV2", {XNchw(), XNchw(), Vec({1.0f, 1.0f}), Vec({1.0f, 1.0f}),
                                                     Vec({2.0f, 1.0f})}, a);
  CHECK(r.status.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(r.status.message(), Catch::Contains("NCHW"));
}

}  // namespace
}  // namespace tensoract
