// Stateless random ops: the numbers are a function of the seed (V1: a [2] seed input) or of
// a Philox key and counter (V2: key [1] and counter [2] uint64 inputs and an `alg` id, which
// StatelessRandomGetKeyCounter(Alg) make from a seed), not of a generator's state, so the
// same inputs give the same numbers in every run, session and process. Definitions and
// shape functions are TensorFlow 2.21's; TensorFlow registers no gradient for any of them.
#include <vector>

#include "graph/common_shape_fns.h"
#include "graph/op_registry.h"

namespace tensoract {
namespace {

using shape_inference::InferenceContext;

constexpr int64_t kRngKeySize = 1;         // uint64 words of a key
constexpr int64_t kRngMaxCounterSize = 2;  // uint64 words of the longest counter (Philox's)

// Input `i` is a seed pair: a vector of 2.
Status SeedShape(InferenceContext* c, int i) {
  PartialTensorShape seed;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(i), 1, &seed));
  int64_t unused;
  return c->WithValue(InferenceContext::Dim(seed, 0), 2, &unused);
}

// (shape, seed) -> a tensor of that shape.
Status StatelessShape(InferenceContext* c) {
  TA_RETURN_IF_ERROR(SeedShape(c, 1));
  return shape_inference::ShapeFromShapeInput(c);
}

// (shape, key, counter, alg) -> a tensor of that shape. The counter's length depends on alg,
// which the kernel checks.
Status StatelessShapeV2(InferenceContext* c) {
  PartialTensorShape key, counter, unused;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &key));
  TA_RETURN_IF_ERROR(c->WithRank(c->input(2), 1, &counter));
  TA_RETURN_IF_ERROR(c->WithRank(c->input(3), 0, &unused));
  int64_t unused_dim;
  TA_RETURN_IF_ERROR(c->WithValue(InferenceContext::Dim(key, 0), kRngKeySize, &unused_dim));
  return shape_inference::ShapeFromShapeInput(c);
}

// minval and maxval (inputs `first` and `first` + 1) are scalars, then `rest`.
template <Status (*rest)(InferenceContext*), int first>
Status BoundsThen(InferenceContext* c) {
  PartialTensorShape unused;
  const char* names[] = {"minval", "maxval"};
  for (int k = 0; k < 2; ++k) {
    if (!c->WithRank(c->input(first + k), 0, &unused).ok()) {
      return errors::InvalidArgument(names[k], " must be a scalar; got a tensor of shape ",
                                     c->input(first + k).DebugString());
    }
  }
  return rest(c);
}

// (logits [batch, classes], num_samples scalar, seed) -> [batch, num_samples].
Status MultinomialShape(InferenceContext* c) {
  TA_RETURN_IF_ERROR(SeedShape(c, 2));
  PartialTensorShape logits, unused;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(0), 2, &logits));
  TA_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, &unused));
  std::vector<int64_t> num_samples;
  bool known = false;
  TA_RETURN_IF_ERROR(c->GetIntValues(1, &num_samples, &known));
  int64_t samples = -1;
  if (known) {
    samples = num_samples[0];
    if (samples < 0) {
      return errors::InvalidArgument("Dimension size, given by scalar input 1, must be non-negative but is ",
                                     samples);
    }
  }
  c->set_output(0, InferenceContext::Matrix(InferenceContext::Dim(logits, 0), samples));
  return Status::OK();
}

Status KeyCounterShape(InferenceContext* c) {
  TA_RETURN_IF_ERROR(SeedShape(c, 0));
  c->set_output(0, InferenceContext::Vector(kRngKeySize));
  c->set_output(1, InferenceContext::Vector(kRngMaxCounterSize));
  if (c->num_outputs() == 3) c->set_output(2, InferenceContext::Scalar());
  return Status::OK();
}

}  // namespace
}  // namespace tensoract

#define TA_STATELESS_OP(name)                                    \
  REGISTER_OP(name)                                              \
      .Input("shape: T").Input("seed: Tseed").Output("output: dtype") \
      .Attr("dtype: {half, bfloat16, float, double} = DT_FLOAT")  \
      .Attr("T: {int32, int64} = DT_INT32")                      \
      .Attr("Tseed: {int32, int64} = DT_INT64")                  \
      .SetShapeFn(tensoract::StatelessShape)
TA_STATELESS_OP("StatelessRandomUniform").Doc("Uniform values in [0, 1), a function of the seed.");
TA_STATELESS_OP("StatelessRandomNormal").Doc("Standard normal values, a function of the seed.");
TA_STATELESS_OP("StatelessTruncatedNormal")
    .Doc("Standard normal values within 2 standard deviations of 0, a function of the seed.");
#undef TA_STATELESS_OP

REGISTER_OP("StatelessRandomUniformInt")
    .Input("shape: T").Input("seed: Tseed").Input("minval: dtype").Input("maxval: dtype").Output("output: dtype")
    .Attr("dtype: {int32, int64}")
    .Attr("T: {int32, int64}")
    .Attr("Tseed: {int32, int64} = DT_INT64")
    .SetShapeFn(tensoract::BoundsThen<tensoract::StatelessShape, 2>)
    .Doc("Uniform integers in [minval, maxval), a function of the seed.");

// Tseed admits uint32 and uint64, which the kernel refuses (as TensorFlow's does).
REGISTER_OP("StatelessRandomUniformFullInt")
    .Input("shape: T").Input("seed: Tseed").Output("output: dtype")
    .Attr("dtype: {int32, int64, uint32, uint64} = DT_UINT64")
    .Attr("T: {int32, int64} = DT_INT32")
    .Attr("Tseed: {int32, int64, uint32, uint64} = DT_INT64")
    .SetShapeFn(tensoract::StatelessShape)
    .Doc("Integers over the whole range of dtype, a function of the seed.");

#define TA_STATELESS_V2_OP(name)                                                                         \
  REGISTER_OP(name)                                                                                      \
      .Input("shape: Tshape").Input("key: uint64").Input("counter: uint64").Input("alg: int32")          \
      .Output("output: dtype")                                                                           \
      .Attr("dtype: {half, bfloat16, float, double} = DT_FLOAT")                                         \
      .Attr("Tshape: {int32, int64} = DT_INT32")                                                         \
      .SetShapeFn(tensoract::StatelessShapeV2)
TA_STATELESS_V2_OP("StatelessRandomUniformV2").Doc("Uniform values in [0, 1) from a key and counter.");
TA_STATELESS_V2_OP("StatelessRandomNormalV2").Doc("Standard normal values from a key and counter.");
TA_STATELESS_V2_OP("StatelessTruncatedNormalV2")
    .Doc("Standard normal values within 2 standard deviations of 0, from a key and counter.");
#undef TA_STATELESS_V2_OP

REGISTER_OP("StatelessRandomUniformIntV2")
    .Input("shape: Tshape").Input("key: uint64").Input("counter: uint64").Input("alg: int32")
    .Input("minval: dtype").Input("maxval: dtype").Output("output: dtype")
    .Attr("dtype: {int32, int64, uint32, uint64}")
    .Attr("Tshape: {int32, int64} = DT_INT32")
    .SetShapeFn(tensoract::BoundsThen<tensoract::StatelessShapeV2, 4>)
    .Doc("Uniform integers in [minval, maxval) from a key and counter.");

REGISTER_OP("StatelessRandomUniformFullIntV2")
    .Input("shape: Tshape").Input("key: uint64").Input("counter: uint64").Input("alg: int32")
    .Output("output: dtype")
    .Attr("dtype: {int32, int64, uint32, uint64} = DT_UINT64")
    .Attr("Tshape: {int32, int64} = DT_INT32")
    .SetShapeFn(tensoract::StatelessShapeV2)
    .Doc("Integers over the whole range of dtype, from a key and counter.");

REGISTER_OP("StatelessRandomPoisson")
    .Input("shape: T").Input("seed: Tseed").Input("lam: Rtype").Output("output: dtype")
    .Attr("Rtype: {half, float, double, int32, int64}")
    .Attr("dtype: {half, float, double, int32, int64}")
    .Attr("T: {int32, int64}")
    .Attr("Tseed: {int32, int64} = DT_INT64")
    .SetShapeFn(tensoract::StatelessShape)
    .Doc("Poisson samples of the given shape, which must end with lam's shape.");

REGISTER_OP("StatelessMultinomial")
    .Input("logits: T").Input("num_samples: int32").Input("seed: Tseed").Output("output: output_dtype")
    .Attr("T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64}")
    .Attr("Tseed: {int32, int64} = DT_INT64")
    .Attr("output_dtype: {int32, int64} = DT_INT64")
    .SetShapeFn(tensoract::MultinomialShape)
    .Doc("num_samples class indices per row of logits (unnormalised log-probabilities), a "
         "function of the seed.");

REGISTER_OP("StatelessRandomGetKeyCounterAlg")
    .Input("seed: Tseed").Output("key: uint64").Output("counter: uint64").Output("alg: int32")
    .Attr("Tseed: {int32, int64} = DT_INT64")
    .SetShapeFn(tensoract::KeyCounterShape)
    .Doc("The key, counter and algorithm (Philox) the V2 ops take for a seed pair.");

REGISTER_OP("StatelessRandomGetKeyCounter")
    .Input("seed: Tseed").Output("key: uint64").Output("counter: uint64")
    .Attr("Tseed: {int32, int64} = DT_INT64")
    .SetShapeFn(tensoract::KeyCounterShape)
    .Doc("The key and counter the V2 ops take for a seed pair.");

// Stateful in TensorFlow (the algorithm could depend on the device), so never folded.
REGISTER_OP("StatelessRandomGetAlg")
    .Output("alg: int32")
    .SetIsStateful()
    .SetShapeFn(tensoract::shape_inference::ScalarShape)
    .Doc("The algorithm id the V2 ops use on this device: Philox.");
