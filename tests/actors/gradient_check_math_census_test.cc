// CumulativeLogsumexp's gradient (TensorFlow's, built from two log-domain running sums the
// other way round) checked against central differences through a real Session
// (client/gradient_checker.h), in double, for every exclusive and reverse.
#include <catch2/catch.hpp>

#include <cmath>

#include "client/gradient_checker.h"
#include "graph/builder/attr_util.h"
#include "graph/builder/ops.h"
#include "tests/actors/gradient_check_util.h"

namespace tensoract {
namespace {

TEST_CASE("CumulativeLogsumexp's gradient along either axis, exclusive and reverse", "[gradients][scan]") {
  std::vector<double> v(12);
  for (size_t i = 0; i < v.size(); ++i) v[i] = 2.0 * std::sin(0.9 * static_cast<double>(i) + 0.4);
  const Tensor value = Tensor::FromVector<double>(v, TensorShape({3, 4}));
  for (int axis : {0, 1}) {
    for (bool exclusive : {false, true}) {
      for (bool reverse : {false, true}) {
        INFO("axis " << axis << " exclusive " << exclusive << " reverse " << reverse);
        Scope root = Scope::NewRootScope();
        auto x = ops::Placeholder(root.WithOpName("x"), tensorflow::DT_DOUBLE);
        auto y = ops::TypedOp(root.WithOpName("y"), "CumulativeLogsumexp", {x, ops::Const(root, axis)},
                              {{"Tidx", ops::TypeAttr(tensorflow::DT_INT32)},
                               {"exclusive", ops::BoolAttr(exclusive)},
                               {"reverse", ops::BoolAttr(reverse)}});
        testing::CheckGradient(root, {x}, {value}, y);
      }
    }
  }
}

}  // namespace
}  // namespace tensoract
