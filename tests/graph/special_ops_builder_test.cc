// The builders of Erf, Sin, Cos, Atan2, TruncateDiv, LeakyRelu(Grad), Selu(Grad) and L2Loss:
// the nodes they make and the shapes their shape functions infer (TensorFlow 2.21's, printed
// by building the same nodes with tf.raw_ops in a tf.Graph).
#include <catch2/catch.hpp>
#include <functional>

#include "graph/builder/math_ops.h"
#include "graph/builder/nn_ops.h"
#include "graph/builder/ops.h"
#include "graph/builder/scope.h"
#include "tests/graph/test_util.h"

namespace tensoract {
namespace {

using testing::Inferred;
using testing::P;

using testing::Shape;

namespace tf = ::tensorflow;
using Catch::Contains;




TEST_CASE("Atan2 and TruncateDiv broadcast; the unary ones keep their input's shape", "[special]") {
  // tf.raw_ops.Atan2(y=placeholder([2,1]), x=placeholder([None,3])): (2, 3)
  CHECK(Inferred([](const Scope& s) { return ops::Atan2(s, P(s, Shape({2, 1})), P(s, Shape({-1, 3}))); }) ==
        "[2,3]");
  CHECK_THAT(Inferred([](const Scope& s) { return ops::TruncateDiv(s, P(s, Shape({2}), tf::DT_INT32),
                                                                    P(s, Shape({3}), tf::DT_INT32)); }),
             Contains("refused"));
  CHECK(Inferred([](const Scope& s) { return ops::Erf(s, P(s, Shape({-1, 4}))); }) == "[?,4]");
  CHECK(Inferred([](const Scope& s) { return ops::Cos(s, ops::Sin(s, P(s, Shape({5})))); }) == "[5]");
  // Integers have no Sin: the OpDef's type list refuses them.
  CHECK_THAT(Inferred([](const Scope& s) { return ops::Sin(s, P(s, Shape({5}), tf::DT_INT32)); }),
             Contains("refused"));
}

TEST_CASE("LeakyRelu carries alpha; the gradient helpers merge their inputs' shapes; L2Loss is a scalar",
          "[special]") {
  Scope root = Scope::NewRootScope();
  Output x = P(root, Shape({-1, 3}));
  Output y = ops::LeakyRelu(root, x, 0.3f);
  REQUIRE(root.ok());
  CHECK(y.node->def().attr().at("alpha").f() == Approx(0.3f));
  CHECK(y.shape().DebugString() == "[?,3]");
  // LeakyReluGrad(gradients=placeholder([2,None]), features=placeholder([None,3])): (2, 3)
  CHECK(ops::LeakyReluGrad(root, P(root, Shape({2, -1})), x).shape().DebugString() == "[2,3]");
  CHECK(ops::SeluGrad(root, P(root, Shape({2, -1})), ops::Selu(root, x)).shape().DebugString() == "[2,3]");
  CHECK(ops::L2Loss(root, x).shape().DebugString() == "[]");
  REQUIRE(root.ok());
  CHECK_THAT(Inferred([](const Scope& s) { return ops::SeluGrad(s, P(s, Shape({2})), P(s, Shape({3}))); }),
             Contains("refused"));
}

}  // namespace
}  // namespace tensoract
