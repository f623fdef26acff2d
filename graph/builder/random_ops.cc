#include "graph/builder/random_ops.h"

#include "graph/builder/attr_util.h"

namespace tensoract {
namespace ops {
namespace {

Attrs SeedAttrs(const RandomAttrs& attrs) { return {{"seed", IntAttr(attrs.seed)}, {"seed2", IntAttr(attrs.seed2)}}; }

Output Random(const Scope& scope, const char* op, const Input& shape, DataType dtype, const RandomAttrs& attrs) {
  Attrs a = SeedAttrs(attrs);
  a["dtype"] = TypeAttr(dtype);
  return TypedOp(scope, op, {shape}, a);
}

}  // namespace

Output RandomUniform(const Scope& scope, const Input& shape, DataType dtype, RandomAttrs attrs) {
  return Random(scope, "RandomUniform", shape, dtype, attrs);
}

Output RandomUniformInt(const Scope& scope, const Input& shape, const Input& minval, const Input& maxval,
                        RandomAttrs attrs) {
  Attrs a = SeedAttrs(attrs);
  a["Tout"] = TypeAttr(TypeOf(minval));
  return TypedOp(scope, "RandomUniformInt", {shape, minval, maxval}, a);
}

Output RandomStandardNormal(const Scope& scope, const Input& shape, DataType dtype, RandomAttrs attrs) {
  return Random(scope, "RandomStandardNormal", shape, dtype, attrs);
}

Output TruncatedNormal(const Scope& scope, const Input& shape, DataType dtype, RandomAttrs attrs) {
  return Random(scope, "TruncatedNormal", shape, dtype, attrs);
}

Output RandomShuffle(const Scope& scope, const Input& value, RandomAttrs attrs) {
  return TypedOp(scope, "RandomShuffle", {value}, SeedAttrs(attrs));
}

Output RandomPoissonV2(const Scope& scope, const Input& shape, const Input& rate, DataType dtype, RandomAttrs attrs) {
  Attrs a = SeedAttrs(attrs);
  a["S"] = TypeAttr(TypeOf(shape));
  a["R"] = TypeAttr(TypeOf(rate));
  a["dtype"] = TypeAttr(dtype);
  return Output(scope.AddOp("RandomPoissonV2", "RandomPoissonV2", {shape, rate}, a), 0);
}

namespace {

Output StatelessV1(const Scope& scope, const char* op, const std::vector<Input>& inputs, DataType dtype) {
  return TypedOp(scope, op, inputs, {{"Tseed", TypeAttr(TypeOf(inputs[1]))}, {"dtype", TypeAttr(dtype)}});
}

Output StatelessV2(const Scope& scope, const char* op, const std::vector<Input>& inputs, DataType dtype) {
  return Output(scope.AddOp(op, op, inputs, {{"Tshape", TypeAttr(TypeOf(inputs[0]))}, {"dtype", TypeAttr(dtype)}}),
                0);
}

KeyCounterAlg KeyCounterOp(const Scope& scope, const char* op, const Input& seed, bool with_alg) {
  Node* n = scope.AddOp(op, op, {seed}, {{"Tseed", TypeAttr(TypeOf(seed))}});
  if (n == nullptr) return {};
  return {Output(n, 0), Output(n, 1), with_alg ? Output(n, 2) : Output()};
}

}  // namespace

Output StatelessRandomUniform(const Scope& scope, const Input& shape, const Input& seed, DataType dtype) {
  return StatelessV1(scope, "StatelessRandomUniform", {shape, seed}, dtype);
}

Output StatelessRandomNormal(const Scope& scope, const Input& shape, const Input& seed, DataType dtype) {
  return StatelessV1(scope, "StatelessRandomNormal", {shape, seed}, dtype);
}

Output StatelessTruncatedNormal(const Scope& scope, const Input& shape, const Input& seed, DataType dtype) {
  return StatelessV1(scope, "StatelessTruncatedNormal", {shape, seed}, dtype);
}

Output StatelessRandomUniformInt(const Scope& scope, const Input& shape, const Input& seed, const Input& minval,
                                 const Input& maxval) {
  return StatelessV1(scope, "StatelessRandomUniformInt", {shape, seed, minval, maxval}, TypeOf(minval));
}

Output StatelessRandomUniformFullInt(const Scope& scope, const Input& shape, const Input& seed, DataType dtype) {
  return StatelessV1(scope, "StatelessRandomUniformFullInt", {shape, seed}, dtype);
}

Output StatelessMultinomial(const Scope& scope, const Input& logits, const Input& num_samples, const Input& seed,
                            DataType output_dtype) {
  return TypedOp(scope, "StatelessMultinomial", {logits, num_samples, seed},
                 {{"Tseed", TypeAttr(TypeOf(seed))}, {"output_dtype", TypeAttr(output_dtype)}});
}

Output StatelessRandomPoisson(const Scope& scope, const Input& shape, const Input& seed, const Input& lam,
                              DataType dtype) {
  return TypedOp(scope, "StatelessRandomPoisson", {shape, seed, lam},
                 {{"Tseed", TypeAttr(TypeOf(seed))}, {"Rtype", TypeAttr(TypeOf(lam))}, {"dtype", TypeAttr(dtype)}});
}

KeyCounterAlg StatelessRandomGetKeyCounter(const Scope& scope, const Input& seed) {
  return KeyCounterOp(scope, "StatelessRandomGetKeyCounter", seed, false);
}

KeyCounterAlg StatelessRandomGetKeyCounterAlg(const Scope& scope, const Input& seed) {
  return KeyCounterOp(scope, "StatelessRandomGetKeyCounterAlg", seed, true);
}

Output StatelessRandomGetAlg(const Scope& scope) {
  return Output(scope.AddOp("StatelessRandomGetAlg", "StatelessRandomGetAlg", {}, {}), 0);
}

Output StatelessRandomUniformV2(const Scope& scope, const Input& shape, const Input& key, const Input& counter,
                                const Input& alg, DataType dtype) {
  return StatelessV2(scope, "StatelessRandomUniformV2", {shape, key, counter, alg}, dtype);
}

Output StatelessRandomNormalV2(const Scope& scope, const Input& shape, const Input& key, const Input& counter,
                               const Input& alg, DataType dtype) {
  return StatelessV2(scope, "StatelessRandomNormalV2", {shape, key, counter, alg}, dtype);
}

Output StatelessTruncatedNormalV2(const Scope& scope, const Input& shape, const Input& key, const Input& counter,
                                  const Input& alg, DataType dtype) {
  return StatelessV2(scope, "StatelessTruncatedNormalV2", {shape, key, counter, alg}, dtype);
}

Output StatelessRandomUniformIntV2(const Scope& scope, const Input& shape, const Input& key, const Input& counter,
                                   const Input& alg, const Input& minval, const Input& maxval) {
  return StatelessV2(scope, "StatelessRandomUniformIntV2", {shape, key, counter, alg, minval, maxval},
                     TypeOf(minval));
}

Output StatelessRandomUniformFullIntV2(const Scope& scope, const Input& shape, const Input& key,
                                       const Input& counter, const Input& alg, DataType dtype) {
  return StatelessV2(scope, "StatelessRandomUniformFullIntV2", {shape, key, counter, alg}, dtype);
}

}  // namespace ops
}  // namespace tensoract
