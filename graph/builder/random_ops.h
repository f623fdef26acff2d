/// @file
/// Builder functions for the stateful random ops (graph/ops/random_ops.cc). `shape` is an
/// int32 or int64 vector (T follows it). Seeds as in TensorFlow: both 0 draws them from a
/// random device; otherwise the node's numbers are the same every time the graph is made.
/// Conventions as in graph/builder/ops.h.
#ifndef TENSORACT_GRAPH_BUILDER_RANDOM_OPS_H_
#define TENSORACT_GRAPH_BUILDER_RANDOM_OPS_H_

#include <cstdint>

#include "graph/builder/scope.h"

namespace tensoract {
namespace ops {

/// The seeds of a stateful random op (see the file's description).
struct RandomAttrs {
  /// The graph-level seed (tf.random.set_seed's); 0 with seed2 0: a random seed.
  int64_t seed = 0;
  /// The op-level seed; 0 with seed 0: a random seed.
  int64_t seed2 = 0;
};

/// Uniform in [0, 1).
Output RandomUniform(const Scope& scope, const Input& shape, DataType dtype, RandomAttrs attrs = {});
/// Uniform integers in [minval, maxval); Tout follows minval.
Output RandomUniformInt(const Scope& scope, const Input& shape, const Input& minval, const Input& maxval,
                        RandomAttrs attrs = {});
/// Normal values of `dtype` (half, bfloat16, float or double) with mean 0 and standard deviation 1.
Output RandomStandardNormal(const Scope& scope, const Input& shape, DataType dtype, RandomAttrs attrs = {});
/// Standard normal, redrawn beyond 2 standard deviations.
Output TruncatedNormal(const Scope& scope, const Input& shape, DataType dtype, RandomAttrs attrs = {});
/// `value` with its first dimension permuted.
Output RandomShuffle(const Scope& scope, const Input& value, RandomAttrs attrs = {});
/// Poisson samples of each of `rate`'s values (half, float, double, int32 or int64): shape
/// followed by rate's shape.
Output RandomPoissonV2(const Scope& scope, const Input& shape, const Input& rate, DataType dtype = tensorflow::DT_INT64,
                       RandomAttrs attrs = {});

// Stateless random ops (graph/ops/stateless_random_ops.cc): the numbers are a function of
// `seed` (an int32 or int64 vector [2]) or of a Philox `key` (uint64 [1]), `counter` (uint64
// [2]) and `alg` (int32 scalar, 1 = Philox), the same in every run; TensorFlow's numbers.
/// Uniform values of `dtype` in [0, 1), a function of `seed` (an int32 or int64 vector [2]) only,
/// the same in every run: TensorFlow's numbers for that seed.
Output StatelessRandomUniform(const Scope& scope, const Input& shape, const Input& seed,
                              DataType dtype = tensorflow::DT_FLOAT);
/// Normal values of `dtype` with mean 0 and standard deviation 1, a function of `seed` (an int32 or
/// int64 vector [2]) only, the same in every run: TensorFlow's numbers for that seed.
Output StatelessRandomNormal(const Scope& scope, const Input& shape, const Input& seed,
                             DataType dtype = tensorflow::DT_FLOAT);
/// Standard normal values of `dtype`, redrawn beyond 2 standard deviations, a function of `seed` (an
/// int32 or int64 vector [2]) only, the same in every run: TensorFlow's numbers for that seed.
Output StatelessTruncatedNormal(const Scope& scope, const Input& shape, const Input& seed,
                                DataType dtype = tensorflow::DT_FLOAT);
/// Integers in [minval, maxval); dtype follows minval. A function of `seed` (an int32 or int64
/// vector [2]) only.
Output StatelessRandomUniformInt(const Scope& scope, const Input& shape, const Input& seed, const Input& minval,
                                 const Input& maxval);
/// Integers over dtype's whole range, a function of `seed` (an int32 or int64 vector [2]) only.
Output StatelessRandomUniformFullInt(const Scope& scope, const Input& shape, const Input& seed,
                                     DataType dtype = tensorflow::DT_UINT64);

/// num_samples class indices per row of `logits` ([batch, classes], unnormalised
/// log-probabilities), a [batch, num_samples] tensor that is a function of `seed` only.
Output StatelessMultinomial(const Scope& scope, const Input& logits, const Input& num_samples, const Input& seed,
                            DataType output_dtype = tensorflow::DT_INT64);

/// Poisson samples of `lam` (half, float, double, int32 or int64); shape must end with lam's.
/// A function of `seed` only.
Output StatelessRandomPoisson(const Scope& scope, const Input& shape, const Input& seed, const Input& lam,
                              DataType dtype);

/// The Philox key, counter and algorithm the V2 stateless ops take.
struct KeyCounterAlg {
  /// The key (uint64 [1]), the counter (uint64 [2]) and the algorithm (an int32 scalar, 1 = Philox).
  ///@{
  Output key, counter, alg;  ///< alg: null from StatelessRandomGetKeyCounter
  ///@}
};
/// What the V2 ops take to draw what the V1 ops draw from `seed`.
KeyCounterAlg StatelessRandomGetKeyCounter(const Scope& scope, const Input& seed);
/// The key, counter and algorithm (Philox) the V2 ops take to draw what the V1 ops draw from `seed`.
KeyCounterAlg StatelessRandomGetKeyCounterAlg(const Scope& scope, const Input& seed);
/// The algorithm id (an int32 scalar) the V2 ops use on this device: 1, Philox.
Output StatelessRandomGetAlg(const Scope& scope);

/// Uniform values of `dtype` in [0, 1), a function of the Philox `key`, `counter` and `alg` only.
Output StatelessRandomUniformV2(const Scope& scope, const Input& shape, const Input& key, const Input& counter,
                                const Input& alg, DataType dtype = tensorflow::DT_FLOAT);
/// Standard normal values of `dtype`, a function of the Philox `key`, `counter` and `alg` only.
Output StatelessRandomNormalV2(const Scope& scope, const Input& shape, const Input& key, const Input& counter,
                               const Input& alg, DataType dtype = tensorflow::DT_FLOAT);
/// Standard normal values of `dtype` redrawn beyond 2 standard deviations, a function of the Philox
/// `key`, `counter` and `alg` only.
Output StatelessTruncatedNormalV2(const Scope& scope, const Input& shape, const Input& key, const Input& counter,
                                  const Input& alg, DataType dtype = tensorflow::DT_FLOAT);
/// Integers in [minval, maxval) from the Philox `key`, `counter` and `alg`; dtype follows minval.
Output StatelessRandomUniformIntV2(const Scope& scope, const Input& shape, const Input& key, const Input& counter,
                                   const Input& alg, const Input& minval, const Input& maxval);
/// Integers over `dtype`'s whole range (int32, int64, uint32 or uint64), from the Philox `key`,
/// `counter` and `alg`.
Output StatelessRandomUniformFullIntV2(const Scope& scope, const Input& shape, const Input& key,
                                       const Input& counter, const Input& alg,
                                       DataType dtype = tensorflow::DT_UINT64);

}  // namespace ops
}  // namespace tensoract

#endif  // TENSORACT_GRAPH_BUILDER_RANDOM_OPS_H_
