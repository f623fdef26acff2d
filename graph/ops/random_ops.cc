// Stateful random ops: each node draws from its own generator, seeded from its seed and
// seed2 attrs (both 0: from a random device). Definitions and shape functions are
// TensorFlow 2.21's.
#include "graph/common_shape_fns.h"
#include "graph/op_registry.h"

namespace tensoract {
namespace {

using shape_inference::InferenceContext;

Status RandomUniformIntShape(InferenceContext* c) {
  PartialTensorShape unused;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, &unused));
  TA_RETURN_IF_ERROR(c->WithRank(c->input(2), 0, &unused));
  return shape_inference::ShapeFromShapeInput(c);
}

// (shape, rate) -> shape followed by rate's shape: one sample per rate per shape position.
Status RandomPoissonShape(InferenceContext* c) {
  PartialTensorShape out;
  TA_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(0, &out));
  TA_RETURN_IF_ERROR(c->Concatenate(out, c->input(1), &out));
  c->set_output(0, out);
  return Status::OK();
}

}  // namespace
}  // namespace tensoract

REGISTER_OP("RandomUniform")
    .Input("shape: T").Output("output: dtype")
    .Attr("seed: int = 0").Attr("seed2: int = 0")
    .Attr("dtype: {half, bfloat16, float, double}")
    .Attr("T: {int32, int64}")
    .SetIsStateful()
    .SetShapeFn(tensoract::shape_inference::ShapeFromShapeInput)
    .Doc("Uniform values in [0, 1).");

REGISTER_OP("RandomUniformInt")
    .Input("shape: T").Input("minval: Tout").Input("maxval: Tout").Output("output: Tout")
    .Attr("seed: int = 0").Attr("seed2: int = 0")
    .Attr("Tout: {int32, int64}")
    .Attr("T: {int32, int64}")
    .SetIsStateful()
    .SetShapeFn(tensoract::RandomUniformIntShape)
    .Doc("Uniform integers in [minval, maxval).");

REGISTER_OP("RandomStandardNormal")
    .Input("shape: T").Output("output: dtype")
    .Attr("seed: int = 0").Attr("seed2: int = 0")
    .Attr("dtype: {half, bfloat16, float, double}")
    .Attr("T: {int32, int64}")
    .SetIsStateful()
    .SetShapeFn(tensoract::shape_inference::ShapeFromShapeInput)
    .Doc("Normal values with mean 0 and standard deviation 1.");

REGISTER_OP("TruncatedNormal")
    .Input("shape: T").Output("output: dtype")
    .Attr("seed: int = 0").Attr("seed2: int = 0")
    .Attr("dtype: {half, bfloat16, float, double}")
    .Attr("T: {int32, int64}")
    .SetIsStateful()
    .SetShapeFn(tensoract::shape_inference::ShapeFromShapeInput)
    .Doc("Standard normal values, redrawn when more than 2 standard deviations from 0.");

REGISTER_OP("RandomShuffle")
    .Input("value: T").Output("output: T")
    .Attr("seed: int = 0").Attr("seed2: int = 0")
    .Attr("T: type")
    .SetIsStateful()
    .SetShapeFn(tensoract::shape_inference::UnchangedShape)
    .Doc("value with its first dimension randomly permuted.");

// TensorFlow registers no gradient for it (nor for StatelessRandomPoisson).
REGISTER_OP("RandomPoissonV2")
    .Input("shape: S").Input("rate: R").Output("output: dtype")
    .Attr("seed: int = 0").Attr("seed2: int = 0")
    .Attr("S: {int32, int64}")
    .Attr("R: {half, float, double, int32, int64} = DT_DOUBLE")
    .Attr("dtype: {half, float, double, int32, int64} = DT_INT64")
    .SetIsStateful()
    .SetShapeFn(tensoract::RandomPoissonShape)
    .Doc("Poisson samples, shape + rate.shape: output[i..., j...] drawn with rate[j...].");
