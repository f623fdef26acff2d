// Ops that make or pass tensors along without arithmetic. Definitions match TensorFlow's,
// so GraphDefs written by TensorFlow validate here unchanged.
#include "graph/op_registry.h"

REGISTER_OP("Const")
    .Output("output: dtype")
    .Attr("value: tensor")
    .Attr("dtype: type")
    .Doc("A constant tensor, the value attr.");

// A Placeholder must be fed; running one that is not fed is an error naming it.
REGISTER_OP("Placeholder")
    .Output("output: dtype")
    .Attr("dtype: type")
    .Attr("shape: shape = { unknown_rank: true }")
    .Doc("A value the client feeds at run time.");

REGISTER_OP("Identity")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .Doc("Its input, unchanged (the same buffer).");
