// Function (client/function.h): tracing, signatures, the variable rule, automatic control
// dependencies, nested calls, gradients through calls and the exported graph.
#include <catch2/catch.hpp>

#include <set>

#include "client/eager_variable.h"
#include "client/function.h"
#include "client/gradient_tape.h"
#include "client/session.h"
#include "graph/builder/array_ops.h"
#include "graph/builder/control_flow.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/ops.h"
#include "tests/client/eager_test_util.h"

namespace tensoract {
namespace {

using testing::Floats;
using testing::NewContext;
using testing::Scalar;

Output Vec(const Scope& s, std::vector<float> v) {
  auto n = static_cast<int64_t>(v.size());
  return FromTensor(s, Tensor::FromVector<float>(v, TensorShape({n})));
}

TEST_CASE("a function traces once per signature and then runs its graph", "[function]") {
  auto ctx = NewContext();
  Scope s = ctx->scope();
  Function square(*ctx, "square", [](const Scope& g, const std::vector<FunctionArg>& args) {
    Output x = std::get<Output>(args[0]);
    CHECK(!x.is_eager());  // a placeholder of the graph being traced
    return std::vector<Output>{ops::Mul(g, x, x)};
  });
  auto y = square(s, {Vec(s, {1, 2, 3})});
  REQUIRE(y.ok());
  CHECK(Floats(y.value()[0]) == std::vector<float>{1, 4, 9});
  CHECK(square.trace_count() == 1);
  CHECK(Floats(square(s, {Vec(s, {4, 5, 6})}).value()[0]) == std::vector<float>{16, 25, 36});
  CHECK(square.trace_count() == 1);  // same dtype and shape
  CHECK(Floats(square(s, {Vec(s, {2, 2})}).value()[0]) == std::vector<float>{4, 4});
  CHECK(square.trace_count() == 2);  // a new shape retraces
  square(s, {ops::Const(s, {3})});
  CHECK(square.trace_count() == 3);  // a new dtype too
}

TEST_CASE("non-tensor arguments are part of the signature", "[function]") {
  auto ctx = NewContext();
  Scope s = ctx->scope();
  Function scale(*ctx, "scale", [](const Scope& g, const std::vector<FunctionArg>& args) {
    Output x = std::get<Output>(args[0]);
    bool twice = std::get<bool>(args[1]);
    return std::vector<Output>{twice ? ops::Mul(g, x, 2.f) : ops::Identity(g, x)};
  });
  Output x = Vec(s, {1, 2});
  CHECK(Floats(scale(s, {x, true}).value()[0]) == std::vector<float>{2, 4});
  CHECK(Floats(scale(s, {x, false}).value()[0]) == std::vector<float>{1, 2});
  CHECK(Floats(scale(s, {x, true}).value()[0]) == std::vector<float>{2, 4});
  CHECK(scale.trace_count() == 2);
}

TEST_CASE("an input signature with unknown dimensions avoids retracing", "[function]") {
  auto ctx = NewContext();
  Scope s = ctx->scope();
  FunctionOptions options;
  options.input_signature = {{tensorflow::DT_FLOAT, PartialTensorShape({-1})}};
  Function total(*ctx, "total",
                 [](const Scope& g, const std::vector<FunctionArg>& args) {
                   return std::vector<Output>{ops::Sum(g, std::get<Output>(args[0]), 0)};
                 },
                 options);
  CHECK(Scalar(total(s, {Vec(s, {1, 2})}).value()[0]) == 3);
  CHECK(Scalar(total(s, {Vec(s, {1, 2, 3, 4})}).value()[0]) == 10);
  CHECK(total.trace_count() == 1);
  auto wrong = total(s, {ops::Const(s, {{1.f}})});
  REQUIRE(!wrong.ok());
  CHECK(wrong.status().message().find("input signature") != std::string::npos);
}

TEST_CASE("variables may be created only during the first trace", "[function]") {
  auto ctx = NewContext();
  Scope s = ctx->scope();
  Variable v;
  Function counter(*ctx, "counter", [&](const Scope& g, const std::vector<FunctionArg>& args) {
    if (v.handle.node == nullptr || std::get<bool>(args[0])) {
      auto made = MakeVariable(g, "count", 10.f);
      if (!made.ok()) {
        g.UpdateStatus(made.status());
        return std::vector<Output>{};
      }
      v = made.value();
    }
    ops::AssignAddVariableOp(g, v.handle, 1.f);
    return std::vector<Output>{v.Read(g)};
  });
  CHECK(Scalar(counter(s, {false}).value()[0]) == 11);
  CHECK(Scalar(counter(s, {false}).value()[0]) == 12);  // the variable outlives the call
  CHECK(Scalar(v.Read(s)) == 12);                       // and is the eager one
  auto again = counter(s, {true});                      // a second trace creating one
  REQUIRE(!again.ok());
  CHECK(again.status().code() == error::FAILED_PRECONDITION);
  CHECK(again.status().message().find("first") != std::string::npos);
}

TEST_CASE("stateful ops keep program order and all run", "[function]") {
  auto ctx = NewContext();
  Scope s = ctx->scope();
  Variable v = MakeVariable(s, "v", 0.f).value();
  Variable log = MakeVariable(s, "log", 0.f).value();
  Function f(*ctx, "f", [&](const Scope& g, const std::vector<FunctionArg>&) {
    ops::AssignVariableOp(g, v.handle, 1.f);
    Output first = v.Read(g);  // 1: after the assignment before it
    ops::AssignAddVariableOp(g, v.handle, 2.f);
    Output second = v.Read(g);  // 3
    ops::AssignVariableOp(g, v.handle, 10.f);
    ops::AssignAddVariableOp(g, log.handle, 1.f);  // nothing reads it, it runs anyway
    return std::vector<Output>{first, second};
  });
  for (int i = 0; i < 5; ++i) {
    auto out = f(s, {});
    REQUIRE(out.ok());
    CHECK(Scalar(out.value()[0]) == 1);
    CHECK(Scalar(out.value()[1]) == 3);
  }
  CHECK(Scalar(v.Read(s)) == 10);
  CHECK(Scalar(log.Read(s)) == 5);
}

TEST_CASE("a function may call another, and conditionals trace with ops::Cond", "[function]") {
  auto ctx = NewContext();
  Scope s = ctx->scope();
  Function inner(*ctx, "inner", [](const Scope& g, const std::vector<FunctionArg>& args) {
    return std::vector<Output>{ops::Add(g, std::get<Output>(args[0]), 1.f)};
  });
  Function outer(*ctx, "outer", [&](const Scope& g, const std::vector<FunctionArg>& args) {
    Output x = std::get<Output>(args[0]);
    std::vector<Output> y = inner(g, {x}).value();
    std::vector<Output> out;
    Status st = ops::Cond(
        g, ops::Greater(g, ops::Sum(g, y[0], 0), 0.f),
        [&](const Scope& b, std::vector<Output>* o) { o->push_back(ops::Mul(b, y[0], 2.f)); return b.status(); },
        [&](const Scope& b, std::vector<Output>* o) { o->push_back(ops::Neg(b, y[0])); return b.status(); }, &out);
    g.UpdateStatus(st);
    return out;
  });
  CHECK(Floats(outer(s, {Vec(s, {1, 2})}).value()[0]) == std::vector<float>{4, 6});
  CHECK(Floats(outer(s, {Vec(s, {-5, -6})}).value()[0]) == std::vector<float>{4, 5});
  CHECK(outer.trace_count() == 1);
  CHECK(inner.trace_count() == 1);  // traced once, into outer's library

  // TensorFlow 2's form: a library function and a StatefulPartitionedCall of it, which a
  // plain Session runs.
  auto def = outer.GraphFor(s, {Vec(s, {1, 2})});
  REQUIRE(def.ok());
  REQUIRE(def.value().library().function_size() == 1);
  CHECK(def.value().library().function(0).signature().name().rfind("__inference_inner_", 0) == 0);
  bool calls = false;
  for (const auto& n : def.value().node()) calls |= n.op() == "StatefulPartitionedCall";
  CHECK(calls);
  auto session = Session::New().value();
  REQUIRE(session->Create(def.value()).ok());
  std::vector<Tensor> out;
  REQUIRE(session->Run({{"args_0", Tensor::FromVector<float>({3, 4})}}, {"output_0"}, {}, &out).ok());
  CHECK(std::vector<float>(out[0].base<float>(), out[0].base<float>() + 2) == std::vector<float>{8, 10});
}

TEST_CASE("gradients flow through a function that calls another", "[function]") {
  auto ctx = NewContext();
  Scope s = ctx->scope();
  Variable w = MakeVariable(s, "w", Vec(s, {2, 3})).value();
  Function inner(*ctx, "inner", [&](const Scope& g, const std::vector<FunctionArg>& args) {
    return std::vector<Output>{ops::Mul(g, std::get<Output>(args[0]), w.Read(g))};
  });
  Function outer(*ctx, "outer", [&](const Scope& g, const std::vector<FunctionArg>& args) {
    Output x = std::get<Output>(args[0]);
    Output y = inner(g, {ops::Mul(g, x, x)}).value()[0];  // w x^2
    return std::vector<Output>{ops::Sum(g, y, 0)};
  });
  Output x = Vec(s, {1, 2});
  GradientTape tape(*ctx);
  tape.Watch(x);
  auto y = outer(s, {x});
  REQUIRE(y.ok());
  CHECK(Scalar(y.value()[0]) == 2 * 1 + 3 * 4);
  auto g = tape.Gradient(y.value()[0], {x, w.handle});
  INFO(g.status().ToString());
  REQUIRE(g.ok());
  CHECK(Floats(g.value()[0]) == std::vector<float>{4, 12});  // 2wx
  CHECK(Floats(g.value()[1]) == std::vector<float>{1, 4});   // x^2
}

TEST_CASE("C++ control flow on a traced tensor is an error naming ops::Cond", "[function]") {
  auto ctx = NewContext();
  Scope s = ctx->scope();
  Function f(*ctx, "branchy", [](const Scope& g, const std::vector<FunctionArg>& args) {
    Output x = std::get<Output>(args[0]);
    auto value = ValueOf(x);
    if (!value.ok()) {
      g.UpdateStatus(value.status());
      return std::vector<Output>{};
    }
    return std::vector<Output>{x};
  });
  auto out = f(s, {Vec(s, {1})});
  REQUIRE(!out.ok());
  CHECK(out.status().message().find("ops::Cond") != std::string::npos);
  CHECK(out.status().message().find("branchy") != std::string::npos);
}

TEST_CASE("captured eager values and gradients through a function call", "[function]") {
  auto ctx = NewContext();
  Scope s = ctx->scope();
  Variable w = MakeVariable(s, "w", Vec(s, {3, 4})).value();
  Output offset = Vec(s, {0.5f, 0.5f});  // captured as a constant
  Function f(*ctx, "f", [&](const Scope& g, const std::vector<FunctionArg>& args) {
    Output x = std::get<Output>(args[0]);
    return std::vector<Output>{ops::Sum(g, ops::Add(g, ops::Mul(g, ops::Mul(g, x, x), w.Read(g)), offset), 0)};
  });
  Output x = Vec(s, {1, 2});
  GradientTape tape(*ctx);
  tape.Watch(x);
  tape.Watch(w);
  auto y = f(s, {x});
  INFO(y.status().ToString());
  REQUIRE(y.ok());
  CHECK(Scalar(y.value()[0]) == 1 * 1 * 3 + 2 * 2 * 4 + 1);
  auto g = tape.Gradient(y.value()[0], {x, w.handle});
  REQUIRE(g.ok());
  CHECK(Floats(g.value()[0]) == std::vector<float>{6, 16});  // 2xw
  CHECK(Floats(g.value()[1]) == std::vector<float>{1, 4});   // x^2
}

TEST_CASE("a traced function's graph runs under a plain Session", "[function]") {
  auto ctx = NewContext();
  Scope s = ctx->scope();
  Function f(*ctx, "affine", [](const Scope& g, const std::vector<FunctionArg>& args) {
    return std::vector<Output>{ops::Add(g, ops::Mul(g, std::get<Output>(args[0]), 3.f), 1.f)};
  });
  auto def = f.GraphFor(s, {Vec(s, {0, 0})});
  REQUIRE(def.ok());
  auto session = Session::New().value();
  REQUIRE(session->Create(def.value()).ok());
  std::vector<Tensor> out;
  REQUIRE(session->Run({{"args_0", Tensor::FromVector<float>({1, 2})}}, {"output_0"}, {}, &out).ok());
  CHECK(std::vector<float>(out[0].base<float>(), out[0].base<float>() + 2) == std::vector<float>{4, 7});
}

TEST_CASE("the RFC's retracing counts: 100 calls of one key, shapes, dtypes, device scopes", "[function]") {
  auto ctx = NewContext();
  Scope s = ctx->scope();
  Function square(*ctx, "square", [](const Scope& g, const std::vector<FunctionArg>& args) {
    Output x = std::get<Output>(args[0]);
    return std::vector<Output>{ops::Mul(g, x, x)};
  });
  Output two = Vec(s, {2});
  for (int i = 0; i < 100; ++i) REQUIRE(square(s, {two}).ok());
  CHECK(square.trace_count() == 1);  // R1
  CHECK(square.call_count() == 100);
  // R12: [2.], [2.,3.], [[2.]], [3.], [4.,5.] make exactly three graphs (with [2.]'s).
  square(s, {Vec(s, {2, 3})});
  square(s, {ops::Const(s, {{2.f}})});
  square(s, {Vec(s, {3})});
  square(s, {Vec(s, {4, 5})});
  CHECK(square.trace_count() == 3);
  // R11: int32 is another graph; R14: so is another device scope.
  square(s, {ops::Const(s, {2})});
  CHECK(square.trace_count() == 4);
  auto on_cpu = square(s.WithDevice("/device:CPU:0"), {two});
  REQUIRE(on_cpu.ok());
  CHECK(square.trace_count() == 5);
  CHECK(Scalar(on_cpu.value()[0]) == 4);
}

TEST_CASE("a traced function gives eager execution's results", "[function]") {  // R3
  auto ctx = NewContext();
  Scope s = ctx->scope();
  auto body = [](const Scope& g, const Output& x, const Output& y) {
    Output a = ops::Add(g, ops::Mul(g, x, y), ops::Square(g, x));
    Output b = ops::Tanh(g, ops::Sub(g, a, ops::Exp(g, ops::Neg(g, y))));
    Output c = ops::MatMul(g, ops::Reshape(g, b, {2, 2}), ops::Reshape(g, y, {2, 2}), {true, false});
    return ops::Mean(g, ops::Maximum(g, c, 0.1f), {1});
  };
  Function f(*ctx, "mixed", [&](const Scope& g, const std::vector<FunctionArg>& args) {
    return std::vector<Output>{body(g, std::get<Output>(args[0]), std::get<Output>(args[1]))};
  });
  Output x = Vec(s, {0.5f, -1.f, 2.f, 0.25f}), y = Vec(s, {1.5f, 0.f, -0.5f, 3.f});
  std::vector<float> eager = Floats(body(s, x, y));
  std::vector<float> traced = Floats(f(s, {x, y}).value()[0]);
  REQUIRE(eager.size() == traced.size());
  for (size_t i = 0; i < eager.size(); ++i) CHECK(traced[i] == Approx(eager[i]).epsilon(1e-6));
}

TEST_CASE("a call after its captured variable is destroyed fails cleanly", "[function]") {  // R10
  auto ctx = NewContext();
  Scope s = ctx->scope();
  Variable v = MakeVariable(s, "v", 1.f).value();
  Function read(*ctx, "read", [&](const Scope& g, const std::vector<FunctionArg>&) {
    return std::vector<Output>{v.Read(g)};
  });
  CHECK(Scalar(read(s, {}).value()[0]) == 1);
  ops::DestroyResourceOp(s, v.handle);
  REQUIRE(s.status().ok());
  auto gone = read(s, {});
  REQUIRE(!gone.ok());
  CHECK(gone.status().code() == error::FAILED_PRECONDITION);
  CHECK(gone.status().message().find("v") != std::string::npos);
}

TEST_CASE("RunOptions and RunMetadata pass through a call", "[function]") {  // R30
  auto ctx = NewContext();
  Scope s = ctx->scope();
  Function f(*ctx, "f", [](const Scope& g, const std::vector<FunctionArg>& args) {
    return std::vector<Output>{ops::Add(g, std::get<Output>(args[0]), 1.f)};
  });
  RunOptions options;
  options.trace_level = RunOptions::FULL_TRACE;
  RunMetadata metadata;
  auto out = f(s, {Vec(s, {1})}, options, &metadata);
  REQUIRE(out.ok());
  REQUIRE(metadata.step_stats.dev_stats_size() >= 1);
  bool add = false;
  for (const auto& dev : metadata.step_stats.dev_stats()) {
    for (const auto& node : dev.node_stats()) add |= node.node_name().find("Add") != std::string::npos;
  }
  CHECK(add);
}

TEST_CASE("list arguments are keyed on their length and each element", "[function]") {  // R15
  auto ctx = NewContext();
  Scope s = ctx->scope();
  Function total(*ctx, "total", [](const Scope& g, const std::vector<FunctionArg>& args) {
    const auto& xs = std::get<std::vector<Output>>(args[0]);
    std::vector<Input> parts(xs.begin(), xs.end());
    return std::vector<Output>{ops::AddN(g, InputList(parts))};
  });
  CHECK(Floats(total(s, {std::vector<Output>{Vec(s, {1, 2}), Vec(s, {3, 4})}}).value()[0]) == std::vector<float>{4, 6});
  CHECK(Floats(total(s, {std::vector<Output>{Vec(s, {5, 6}), Vec(s, {7, 8})}}).value()[0]) == std::vector<float>{12, 14});
  CHECK(total.trace_count() == 1);
  total(s, {std::vector<Output>{Vec(s, {1, 2}), Vec(s, {3, 4}), Vec(s, {5, 6})}});  // a longer list
  CHECK(total.trace_count() == 2);
  total(s, {std::vector<Output>{Vec(s, {1}), Vec(s, {3})}});  // elements of another shape
  CHECK(total.trace_count() == 3);
}

TEST_CASE("a function lists what it captured", "[function]") {  // R4
  auto ctx = NewContext();
  Scope s = ctx->scope();
  Variable w = MakeVariable(s, "W", Vec(s, {2, 2})).value();
  Variable b = MakeVariable(s, "b", Vec(s, {1, 1})).value();
  Variable c = MakeVariable(s, "c", 0.f).value();
  Function f(*ctx, "f", [&](const Scope& g, const std::vector<FunctionArg>& args) {
    ops::AssignAddVariableOp(g, c.handle, 1.f);
    return std::vector<Output>{ops::Add(g, ops::Mul(g, std::get<Output>(args[0]), w.Read(g)), b.Read(g))};
  });
  Output x = Vec(s, {3, 4});
  CHECK(Floats(f(s, {x}).value()[0]) == std::vector<float>{7, 9});
  CHECK(Scalar(c.Read(s)) == 1);
  auto captured = f.Captures(s, {x});
  REQUIRE(captured.ok());
  REQUIRE(captured.value().size() == 3);
  // In the order the body read them; C++ may evaluate W's and b's reads either way.
  std::set<const EagerNode*> got, want = {w.handle.eager.get(), b.handle.eager.get(), c.handle.eager.get()};
  for (const Output& o : captured.value()) got.insert(o.eager.get());
  CHECK(got == want);
  CHECK(captured.value()[0].eager == c.handle.eager);
}

TEST_CASE("a function made from an existing graph runs only what its outputs need", "[function]") {  // R26
  auto ctx = NewContext();
  Scope s = ctx->scope();
  Variable counter = MakeVariable(s, "counter", 0.f).value();
  Scope g = Scope::NewRootScope();
  Output x = ops::Placeholder(g.WithOpName("x"), tensorflow::DT_FLOAT);
  Output sq = ops::Square(g.WithOpName("Square"), x);
  ops::Square(g.WithOpName("Square_1"), sq);
  ops::AssignAddVariableOp(g.WithOpName("bump"), counter.Handle(g), 1.f);  // stateful, off the path
  tensorflow::GraphDef def;
  REQUIRE(g.ToGraphDef(&def).ok());
  auto square = GraphFunction::New(*ctx, def, {"Square:0"}, {"Square_1:0"});
  INFO(square.status().ToString());
  REQUIRE(square.ok());
  auto y = (*square.value())(s, {Vec(s, {2})});
  REQUIRE(y.ok());
  CHECK(Scalar(y.value()[0]) == 4);
  CHECK(Scalar(counter.Read(s)) == 0);  // pruned
}

TEST_CASE("loops inside a function trace with ops::WhileLoop", "[function]") {  // R23's loop
  auto ctx = NewContext();
  Scope s = ctx->scope();
  Variable calls = MakeVariable(s, "calls", 0.f).value();
  Function power(*ctx, "power", [&](const Scope& g, const std::vector<FunctionArg>& args) {
    Output x = std::get<Output>(args[0]), n = std::get<Output>(args[1]);
    ops::AssignAddVariableOp(g, calls.handle, 1.f);  // a side effect beside the loop
    std::vector<Output> r;
    Status st = ops::WhileLoop(
        g, {ops::Const(g, 0), ops::OnesLike(g, x)},
        [&](const Scope& b, const std::vector<Output>& v, Output* pred) {
          *pred = ops::Less(b, v[0], n);
          return b.status();
        },
        [&](const Scope& b, const std::vector<Output>& v, std::vector<Output>* next) {
          *next = {ops::Add(b, v[0], 1), ops::Mul(b, v[1], x)};
          return b.status();
        },
        &r);
    g.UpdateStatus(st);
    return std::vector<Output>{r.size() == 2 ? r[1] : Output()};
  });
  Output x = Vec(s, {2, 3});
  auto cube = power(s, {x, ops::Const(s, 3)});
  INFO(cube.status().ToString());
  REQUIRE(cube.ok());
  CHECK(Floats(cube.value()[0]) == std::vector<float>{8, 27});
  CHECK(Floats(power(s, {x, ops::Const(s, 5)}).value()[0]) == std::vector<float>{32, 243});
  CHECK(power.trace_count() == 1);  // n is a tensor: one graph for every n
  CHECK(Scalar(calls.Read(s)) == 2);
}

}  // namespace
}  // namespace tensoract
