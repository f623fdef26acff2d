// Numeric checks (central differences through a Session, client/gradient_checker.h) of the
// gradients of the array, matrix and extra element-wise ops, in double.
#include <catch2/catch.hpp>

#include "client/gradient_checker.h"
#include "tests/actors/gradient_check_util.h"
#include "graph/builder/array_ops.h"
#include "graph/builder/attr_util.h"
#include "graph/builder/batch_matmul_ops.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/nn_ops.h"
#include "graph/builder/ops.h"
#include "graph/gradients/gradients.h"

namespace tensoract {
namespace {

using testing::kDouble;
using testing::Values;
using testing::kTolerance;


const Tensor kArrayX = Values({1, 2, -3, 0.5, 1.5, -2}, {2, 3});

// y = f(x) with x a [2,3] placeholder of known or unknown shape.
template <class F>
void CheckArrayGradient(const char* what, F f, const Tensor& value = kArrayX, bool known_shape = true,
              double tolerance = kTolerance) {
  INFO(what);
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), kDouble,
                            known_shape ? PartialTensorShape(value.shape().dim_sizes()) : PartialTensorShape());
  testing::CheckGradient(root, {x}, {value}, f(root, x), tolerance);
}

TEST_CASE("slicing gradients: Slice, StridedSlice, Split, SplitV, Unpack", "[gradients]") {
  CheckArrayGradient("Slice", [](const Scope& s, Output x) { return ops::Slice(s, x, {0, 1}, {2, -1}); });
  CheckArrayGradient("StridedSlice", [](const Scope& s, Output x) {
    return ops::StridedSlice(s, x, {1, -1}, {0, 0}, {1, -2}, {/*begin_mask=*/1, /*end_mask=*/2});
  });
  CheckArrayGradient("StridedSlice shrink", [](const Scope& s, Output x) {
    ops::StridedSliceAttrs a;
    a.shrink_axis_mask = 1;
    return ops::StridedSlice(s, x, {1}, {2}, {1}, a);
  }, kArrayX, /*known_shape=*/false);
  CheckArrayGradient("Split", [](const Scope& s, Output x) {
    OutputList parts = ops::Split(s, 1, x, 3);
    return ops::Add(s, ops::Mul(s, parts[0], parts[2]), parts[1]);
  });
  CheckArrayGradient("SplitV", [](const Scope& s, Output x) {
    OutputList parts = ops::SplitV(s, x, {1, 2}, 1, 2);
    return ops::Mul(s, parts[0], ops::Sum(s, parts[1], 1, {true}));
  });
  CheckArrayGradient("Unpack", [](const Scope& s, Output x) {
    OutputList rows = ops::Unstack(s, x, 2, 0);
    return ops::Mul(s, rows[0], rows[1]);
  });
}

TEST_CASE("joining and rearranging gradients: ConcatV2, Pack, Tile, Transpose, Pad, BroadcastTo", "[gradients]") {
  CheckArrayGradient("ConcatV2", [](const Scope& s, Output x) { return ops::Concat(s, {x, ops::Square(s, x)}, -1); }, kArrayX,
           /*known_shape=*/false);
  CheckArrayGradient("Pack", [](const Scope& s, Output x) { return ops::Stack(s, {x, ops::Square(s, x)}, 1); });
  CheckArrayGradient("Tile", [](const Scope& s, Output x) { return ops::Tile(s, x, {2, 2}); });
  CheckArrayGradient("Transpose", [](const Scope& s, Output x) { return ops::Transpose(s, ops::Square(s, x), {1, 0}); });
  CheckArrayGradient("Pad", [](const Scope& s, Output x) { return ops::Pad(s, ops::Square(s, x), {{1, 0}, {2, 1}}); });
  CheckArrayGradient("PadV2", [](const Scope& s, Output x) { return ops::PadV2(s, x, {{0, 1}, {1, 1}}, 3.0); });
  CheckArrayGradient("BroadcastTo", [](const Scope& s, Output x) { return ops::BroadcastTo(s, x, {2, 2, 3}); });
  CheckArrayGradient("BroadcastTo of a column", [](const Scope& s, Output x) {
    return ops::Square(s, ops::BroadcastTo(s, x, {2, 3}));
  }, Values({1, -2}, {2, 1}));
  CheckArrayGradient("ExpandDims and Squeeze", [](const Scope& s, Output x) {
    return ops::Squeeze(s, ops::Square(s, ops::ExpandDims(s, x, 1)), {1});
  });
  CheckArrayGradient("Cast", [](const Scope& s, Output x) {
    return ops::Cast(s, ops::Square(s, ops::Cast(s, x, tensorflow::DT_FLOAT)), kDouble);
  }, kArrayX, true, /*tolerance: float's rounding*/ 1e-2);
}

TEST_CASE("GatherV2's dense gradient adds repeated indices", "[gradients]") {
  CheckArrayGradient("axis 0", [](const Scope& s, Output x) { return ops::GatherV2(s, x, {1, 0, 1}, 0); });
  CheckArrayGradient("axis 1, 2-D indices", [](const Scope& s, Output x) {
    return ops::GatherV2(s, x, {{2, 0}, {2, 2}}, 1);
  });
  CheckArrayGradient("Fill", [](const Scope& s, Output x) {
    return ops::Fill(s, {2, 2}, ops::Sum(s, x, {0, 1}));
  });
  CheckArrayGradient("PlaceholderWithDefault", [](const Scope& s, Output x) {
    return ops::Square(s, ops::PlaceholderWithDefault(s, x, PartialTensorShape({2, 3})));
  });
}

// y = op(x, z) for a binary op, x [2,3] and z [3] (broadcast).
void CheckBinary(const std::string& op, const Tensor& xv, const Tensor& zv) {
  INFO("op " << op);
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), kDouble);
  auto z = ops::Placeholder(root.WithOpName("z"), kDouble);
  testing::CheckGradient(root, {x, z}, {xv, zv}, ops::TypedOp(root.WithOpName("y"), op, {x, z}));
}

TEST_CASE("extra element-wise gradients", "[gradients]") {
  // No ties (Maximum, Minimum) and no integer quotients (FloorMod): both are kinks.
  const Tensor z = Values({0.75, 1.75, -1.25}, {3});
  for (const char* op : {"Maximum", "Minimum", "SquaredDifference", "Div", "FloorMod"}) CheckBinary(op, kArrayX, z);
  CheckBinary("Pow", Values({1, 2, 3, 0.5, 1.5, 2.5}, {2, 3}), z);
  for (const char* op : {"Abs", "Sign", "Reciprocal", "Relu6", "Elu", "Softplus", "LogSoftmax"}) {
    CheckArrayGradient(op, [op](const Scope& s, Output x) { return ops::TypedOp(s, op, {x}); },
             Values({1, 2.5, -3, 0.5, 7.5, -2}, {2, 3}));
  }
  CheckArrayGradient("Log1p", [](const Scope& s, Output x) { return ops::Log1p(s, x); }, Values({1, 2, 3, 0.5, 1.5, 0.25}, {2, 3}));
}

TEST_CASE("Select, SelectV2, Max and Min gradients", "[gradients]") {
  CheckArrayGradient("Select", [](const Scope& s, Output x) {
    return ops::Select(s, {true, false}, x, ops::Square(s, x));
  });
  CheckArrayGradient("SelectV2", [](const Scope& s, Output x) {
    return ops::SelectV2(s, {true, false, true}, x, ops::Sum(s, x, 0, {true}));
  });
  for (const char* op : {"Max", "Min"}) {
    for (bool keep : {false, true}) {
      INFO("keep_dims " << keep);
      CheckArrayGradient(op, [op, keep](const Scope& s, Output x) {
        return keep ? (std::string(op) == "Max" ? ops::Max(s, x, 1, {true}) : ops::Min(s, x, 1, {true}))
                    : (std::string(op) == "Max" ? ops::Max(s, x, {-1, 0}) : ops::Min(s, x, 0));
      }, kArrayX, /*known_shape=*/false);
    }
  }
}

TEST_CASE("Sum and Mean gradients with axes computed at run time and an input of unknown rank", "[gradients]") {
  for (bool keep : {false, true}) {
    INFO("keep_dims " << keep);
    CheckArrayGradient("Sum", [keep](const Scope& s, Output x) {
      return ops::Sum(s, x, ops::Identity(s, Input({1})), {keep});  // Identity: not a Const
    }, kArrayX, /*known_shape=*/false);
    CheckArrayGradient("Mean", [keep](const Scope& s, Output x) {
      return ops::Mean(s, x, ops::Identity(s, Input({0, -1})), {keep});
    }, kArrayX, /*known_shape=*/false);
    CheckArrayGradient("Mean of a known shape", [keep](const Scope& s, Output x) {
      return ops::Mean(s, x, ops::Identity(s, Input({0})), {keep});
    });
  }
}

TEST_CASE("matrix gradients: BatchMatMulV2 with broadcasting, MatrixInverse, MatrixDeterminant", "[gradients]") {
  for (bool ax : {false, true}) {
    for (bool ay : {false, true}) {
      INFO("adj_x " << ax << " adj_y " << ay);
      Scope root = Scope::NewRootScope();
      auto a = ops::Placeholder(root.WithOpName("a"), kDouble);
      auto b = ops::Placeholder(root.WithOpName("b"), kDouble);
      auto y = ops::BatchMatMulV2(root, a, b, {ax, ay});
      Tensor av = Values({1, -2, 3, 0.5, 2, -1, 0.25, 1, -1.5, 2, 0.75, 1.25}, TensorShape({2, ax ? 3 : 2, ax ? 2 : 3}));
      Tensor bv = Values({0.3, 1, -1, 2, 0.7, -0.4}, ay ? TensorShape({1, 2, 3}) : TensorShape({1, 3, 2}));
      testing::CheckGradient(root, {a, b}, {av, bv}, y);
    }
  }
  const Tensor m = Values({2, 1, 0.5, -1, 3, 0.25, 0.5, 1, 4}, {3, 3});
  for (bool adjoint : {false, true}) {
    CheckArrayGradient("MatrixInverse", [adjoint](const Scope& s, Output x) { return ops::MatrixInverse(s, x, adjoint); }, m);
  }
  CheckArrayGradient("MatrixDeterminant", [](const Scope& s, Output x) { return ops::MatrixDeterminant(s, x); }, m);
}

TEST_CASE("matrix gradients: BatchMatMul (v1) and BatchMatMulV3 with broadcasting", "[gradients]") {
  for (bool ax : {false, true}) {
    for (bool ay : {false, true}) {
      INFO("adj_x " << ax << " adj_y " << ay);
      Tensor av = Values({1, -2, 3, 0.5, 2, -1, 0.25, 1, -1.5, 2, 0.75, 1.25}, TensorShape({2, ax ? 3 : 2, ax ? 2 : 3}));
      Tensor bv = Values({0.3, 1, -1, 2, 0.7, -0.4, 1.5, -0.2, 0.9, 1.1, -0.6, 0.8},
                         ay ? TensorShape({2, 2, 3}) : TensorShape({2, 3, 2}));
      {
        Scope root = Scope::NewRootScope();
        auto a = ops::Placeholder(root.WithOpName("a"), kDouble);
        auto b = ops::Placeholder(root.WithOpName("b"), kDouble);
        testing::CheckGradient(root, {a, b}, {av, bv}, ops::BatchMatMul(root, a, b, {ax, ay}));
      }
      Scope root = Scope::NewRootScope();
      auto a = ops::Placeholder(root.WithOpName("a"), kDouble);
      auto b = ops::Placeholder(root.WithOpName("b"), kDouble);
      Tensor b1 = Values({0.3, 1, -1, 2, 0.7, -0.4}, ay ? TensorShape({1, 2, 3}) : TensorShape({1, 3, 2}));
      testing::CheckGradient(root, {a, b}, {av, b1}, ops::BatchMatMulV3(root, a, b, {ax, ay}));
    }
  }
}

TEST_CASE("ops without a gradient say so by name", "[gradients]") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), kDouble, PartialTensorShape({1, 2, 2, 1}));
  // RandomShuffle: no gradient here (nor in TensorFlow).
  auto y = ops::TypedOp(root.WithOpName("y"), "RandomShuffle", {x});
  std::vector<Output> dx;
  Status s = AddSymbolicGradients(root, {y}, {x}, &dx);
  CHECK_FALSE(s.ok());
  CHECK_THAT(s.message(), Catch::Contains("RandomShuffle"));
}

}  // namespace
}  // namespace tensoract
