// Convolutions and pooling (cuDNN) and the array kernels on the GPU against the CPU's,
// with the same harness as gpu_kernels_test.cc (gpu_test_util.h).
#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

#include "graph/builder/array_ops.h"
#include "graph/builder/nn_ops.h"
#include "tests/gpu/gpu_test_util.h"

namespace tensoract {
namespace {

using testing::CompareWithCpu;
using testing::RandomTensor;

// cuDNN runs float convolutions on TF32 tensor cores (10-bit mantissas), as PyTorch and
// TensorFlow do by default: errors near 1e-3 of the largest value.
TEST_CASE("Conv2D and its two gradients on the GPU agree with the CPU's", "[gpu][conv]") {
  std::mt19937 rng(7);
  struct Case {
    TensorShape input, filter;
    std::vector<int64_t> strides;
    const char* padding;
  };
  const std::vector<Case> cases = {{{2, 28, 28, 1}, {5, 5, 1, 32}, {1, 1, 1, 1}, "SAME"},
                                   {{3, 14, 14, 32}, {5, 5, 32, 64}, {1, 1, 1, 1}, "SAME"},
                                   {{2, 9, 11, 3}, {3, 3, 3, 4}, {1, 2, 2, 1}, "VALID"},
                                   {{1, 7, 7, 2}, {3, 3, 2, 5}, {1, 1, 1, 1}, "SAME"}};
  for (const Case& c : cases) {
    const std::string where = c.input.DebugString() + " * " + c.filter.DebugString() + " " + c.padding;
    CompareWithCpu("conv " + where, {RandomTensor(tensorflow::DT_FLOAT, c.input, &rng), RandomTensor(tensorflow::DT_FLOAT, c.filter, &rng)},
                   [&](const Scope& s, const std::vector<Output>& in) {
                     Output y = ops::Conv2D(s, in[0], in[1], c.strides, c.padding);
                     Output dy = ops::Mul(s, y, 0.5f);
                     Output dx = ops::Conv2DBackpropInput(s, ops::Shape(s, in[0]), in[1], dy, c.strides, c.padding);
                     Output dw = ops::Conv2DBackpropFilter(s, in[0], ops::Shape(s, in[1]), dy, c.strides, c.padding);
                     return std::vector<Output>{y, dx, dw};
                   },
                   2e-3, /*scale_by_max=*/true);
  }
}

TEST_CASE("MaxPool, AvgPool and their gradients on the GPU agree with the CPU's", "[gpu][pool]") {
  std::mt19937 rng(8);
  struct PoolCase {
    TensorShape shape;
    const char* padding;
    int64_t window, stride;
  };
  // SAME on odd sizes pads one more after than before; 3x3 windows at stride 1 and 2 overlap.
  for (const PoolCase& c : std::vector<PoolCase>{{{2, 28, 28, 32}, "VALID", 2, 2},
                                                 {{3, 14, 14, 64}, "SAME", 2, 2},
                                                 {{1, 5, 7, 3}, "VALID", 2, 2},
                                                 {{2, 7, 7, 3}, "SAME", 2, 2},
                                                 {{2, 9, 8, 5}, "SAME", 3, 2},
                                                 {{1, 6, 5, 4}, "SAME", 3, 1},
                                                 {{2, 10, 11, 3}, "VALID", 3, 2},
                                                 {{0, 4, 4, 3}, "SAME", 2, 2}}) {
    CompareWithCpu("pooling " + c.shape.DebugString() + " " + c.padding + " window " + std::to_string(c.window) +
                       " stride " + std::to_string(c.stride),
                   {RandomTensor(tensorflow::DT_FLOAT, c.shape, &rng)},
                   [c](const Scope& s, const std::vector<Output>& in) {
                     const std::vector<int64_t> k = {1, c.window, c.window, 1}, st = {1, c.stride, c.stride, 1};
                     Output mx = ops::MaxPool(s, in[0], k, st, c.padding);
                     Output av = ops::AvgPool(s, in[0], k, st, c.padding);
                     Output gmx = ops::MaxPoolGrad(s, in[0], mx, ops::Mul(s, mx, 2.f), k, st, c.padding);
                     Output gav = ops::AvgPoolGrad(s, ops::Shape(s, in[0]), ops::Mul(s, av, 2.f), k, st, c.padding);
                     return std::vector<Output>{mx, av, gmx, gav};
                   },
                   1e-5);
  }
}

TEST_CASE("array kernels on the GPU move the same elements as the CPU's", "[gpu][array]") {
  std::mt19937 rng(9);
  const TensorShape shape({4, 5, 6});
  CompareWithCpu("transpose, slice, strided slice, pad, tile, concat, split, unstack",
                 {RandomTensor(tensorflow::DT_FLOAT, shape, &rng), RandomTensor(tensorflow::DT_FLOAT, TensorShape({4, 2, 6}), &rng)},
                 [](const Scope& s, const std::vector<Output>& in) {
                   std::vector<Output> out = {
                       ops::Transpose(s, in[0], ops::Const(s, {2, 0, 1})),
                       ops::Transpose(s, in[0], ops::Const(s, {-1, 0, -2})),  // counted from the end
                       ops::Slice(s, in[0], ops::Const(s, {1, 0, 2}), ops::Const(s, {2, -1, 3})),
                       ops::StridedSlice(s, in[0], ops::Const(s, {3, 0, 1}), ops::Const(s, {0, 5, 6}), ops::Const(s, {-1, 2, 2})),
                       ops::Pad(s, in[0], ops::Const(s, {{1, 0}, {0, 2}, {3, 1}})),
                       ops::PadV2(s, in[1], ops::Const(s, {{0, 1}, {1, 1}, {0, 0}}), 7.f),
                       ops::Tile(s, in[1], ops::Const(s, {2, 1, 3})),
                       ops::Concat(s, {in[0], in[1], in[0]}, ops::Const(s, 1)),
                       ops::BroadcastTo(s, ops::Const(s, {1.f, 2.f, 3.f}), ops::Const(s, {2, 3}))};
                   for (const Output& o : ops::Unstack(s, in[1], 4, 0)) out.push_back(o);
                   return out;
                 },
                 0);
}

}  // namespace
}  // namespace tensoract
