// Gradients of the TensorList ops (TensorFlow 2's TensorArray), checked against central
// differences through a real Session (client/gradient_checker.h): unstacking, reading,
// writing, pushing, popping and stacking, gathering and scattering, splitting and
// concatenating, and a TensorArray written in a while loop, as an RNN keeps its outputs.
#include <catch2/catch.hpp>

#include "client/gradient_checker.h"
#include "tests/actors/gradient_check_util.h"
#include "graph/builder/array_ops.h"
#include "graph/builder/control_flow.h"
#include "graph/builder/list_ops.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/ops.h"
#include "tests/actors/test_util.h"

namespace tensoract {
namespace {

using testing::kDouble;
using testing::Values;



TEST_CASE("gradients flow through a list's unstack, reads, writes, push, pop and stack", "[gradients][list]") {
  Scope root = Scope::NewRootScope();
  auto xs = ops::Placeholder(root.WithOpName("xs"), kDouble, PartialTensorShape({4, 3}));
  auto w = ops::Placeholder(root.WithOpName("w"), kDouble, PartialTensorShape({3}));
  Output rows = ops::TensorListFromTensor(root, xs, {3});
  Output r = ops::Mul(root, ops::TensorListGetItem(root, rows, 1, {3}, kDouble), w);
  Output out = ops::TensorListReserve(root, {3}, 3, kDouble);  // element 2 stays unset
  out = ops::TensorListSetItem(root, out, 0, r);
  out = ops::TensorListSetItem(root, out, 1, ops::Add(root, ops::TensorListGetItem(root, rows, 3, {3}, kDouble), r));
  out = ops::TensorListSetItem(root, out, 0, ops::Mul(root, r, r));  // overwrites: r's first use drops out
  OutputList popped = ops::TensorListPopBack(root, ops::TensorListPushBack(root, out, ops::Tanh(root, r)), {3}, kDouble);
  REQUIRE(popped.size() == 2);
  Output stacked = ops::TensorListStack(root, popped[0], {3}, kDouble, 3);
  Output loss = ops::Add(root, ops::Sum(root, ops::Mul(root, stacked, stacked), {0, 1}),
                         ops::Sum(root, ops::Mul(root, popped[1], w), {0}));
  testing::CheckGradient(root, {xs, w},
        {Values({0.5, -1, 0.2, 0.3, -0.7, 0.9, 1.1, 0.4, -0.2, -0.6, 0.8, 0.1}, {4, 3}), Values({0.3, -0.5, 1.2}, {3})},
        loss);
}

TEST_CASE("gradients flow through a list's gather, scatter and resize", "[gradients][list]") {
  Scope root = Scope::NewRootScope();
  auto xs = ops::Placeholder(root.WithOpName("xs"), kDouble, PartialTensorShape({4, 3}));
  auto ys = ops::Placeholder(root.WithOpName("ys"), kDouble, PartialTensorShape({2, 3}));
  Output list = ops::TensorListResize(root, ops::TensorListFromTensor(root, xs, {3}), 5);
  list = ops::TensorListScatterIntoExistingList(root, list, ops::Tanh(root, ys), {0, 4});  // overwrites row 0
  Output picked = ops::TensorListGather(root, list, {4, 1, 1, 0, 2}, {3}, kDouble);
  Output loss = ops::Sum(root, ops::Mul(root, picked, picked), {0, 1});
  testing::CheckGradient(root, {xs, ys},
        {Values({0.5, -1, 0.2, 0.3, -0.7, 0.9, 1.1, 0.4, -0.2, -0.6, 0.8, 0.1}, {4, 3}),
         Values({0.2, -0.4, 0.6, -0.1, 0.3, 0.7}, {2, 3})},
        loss);
}

TEST_CASE("gradients flow through a list's split, concat, a set that grows it and a new scatter", "[gradients][list]") {
  Scope root = Scope::NewRootScope();
  auto xs = ops::Placeholder(root.WithOpName("xs"), kDouble, PartialTensorShape({4, 3}));
  auto ys = ops::Placeholder(root.WithOpName("ys"), kDouble, PartialTensorShape({2, 3}));
  // xs's rows as two elements, [1, 3] and [3, 3]; a third set past the end (element 2 unset).
  Output list = ops::TensorListSplit(root, xs, {-1, 3}, std::initializer_list<int64_t>{1, 3});
  list = ops::TensorListSetItem(root, list, 3, ops::Tanh(root, ys), /*resize_if_index_out_of_bounds=*/true);
  // Joined again, the unset element as one row of zeros: [1 + 3 + 1 + 2, 3].
  OutputList joined = ops::TensorListConcat(root, list, {-1, 3}, std::initializer_list<int64_t>{0, 0, 1, 0}, kDouble);
  REQUIRE(joined.size() == 2);
  Output scattered = ops::TensorListScatter(root, ops::Mul(root, xs, xs), {3, 0, 5, 1}, {3}, -1);
  Output picked = ops::TensorListGather(root, scattered, {5, 0, 3}, {3}, kDouble);
  Output loss = ops::Add(root, ops::Sum(root, ops::Mul(root, joined[0], joined[0]), {0, 1}),
                         ops::Sum(root, ops::Mul(root, picked, ops::Const(root, {{1.0, 2.0, 3.0}})), {0, 1}));
  testing::CheckGradient(root, {xs, ys},
        {Values({0.5, -1, 0.2, 0.3, -0.7, 0.9, 1.1, 0.4, -0.2, -0.6, 0.8, 0.1}, {4, 3}),
         Values({0.2, -0.4, 0.6, -0.1, 0.3, 0.7}, {2, 3})},
        loss);
}

TEST_CASE("a TensorArray written in a while loop gets each iteration's gradient", "[gradients][list][control_flow]") {
  // h_t = tanh(W h_{t-1} + x_t) for t < 4, x_t read from a list of xs's rows; each h_t
  // written to an output list, stacked after the loop.
  Scope root = Scope::NewRootScope();
  auto xs = ops::Placeholder(root.WithOpName("xs"), kDouble, PartialTensorShape({4, 3}));
  auto W = ops::Placeholder(root.WithOpName("W"), kDouble, PartialTensorShape({3, 3}));
  Output inputs = ops::TensorListFromTensor(root, xs, {3});
  Output outputs = ops::TensorListReserve(root, {3}, 4, kDouble);
  std::vector<Output> r;
  REQUIRE(ops::WhileLoop(
              root, {ops::Const(root, 0), ops::Const(root, {{0.1, 0.2, -0.1}}), outputs},
              [](const Scope& s, const std::vector<Output>& v, Output* pred) {
                *pred = ops::Less(s, v[0], 4);
                return s.status();
              },
              [&](const Scope& s, const std::vector<Output>& v, std::vector<Output>* next) {
                Output x_t = ops::Reshape(s, ops::TensorListGetItem(s, inputs, v[0], {3}, kDouble), {1, 3});
                Output h = ops::Tanh(s, ops::Add(s, ops::MatMul(s, v[1], W), x_t));
                *next = {ops::Add(s, v[0], 1), h, ops::TensorListSetItem(s, v[2], v[0], ops::Reshape(s, h, {3}))};
                return s.status();
              },
              &r)
              .ok());
  Output ys = ops::TensorListStack(root, r[2], {3}, kDouble);
  Output loss = ops::Add(root, ops::Sum(root, ops::Mul(root, ys, ys), {0, 1}), ops::Sum(root, r[1], {0, 1}));
  testing::CheckGradient(root, {xs, W},
        {Values({0.5, -1, 0.2, 0.3, -0.7, 0.9, 1.1, 0.4, -0.2, -0.6, 0.8, 0.1}, {4, 3}),
         Values({0.1, -0.3, 0.2, 0.4, 0.05, -0.2, -0.1, 0.3, 0.25}, {3, 3})},
        loss);
}

}  // namespace
}  // namespace tensoract
