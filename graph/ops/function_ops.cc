// The call frame: how a step's feeds enter a graph and its fetches leave it.
//
// When a client runs a graph, each fed tensor is replaced by an _Arg node and each
// fetched tensor gets a _Retval node (graph/subgraph.h), numbered by `index`. The
// executor hands the step's feeds to the _Args and collects the _Retvals. Both are
// stateful so that no pass merges or folds them.
#include "graph/op_registry.h"

REGISTER_OP("_Arg")
    .Output("output: T")
    .Attr("T: type")
    .Attr("index: int >= 0")
    .SetIsStateful()
    .Doc("Argument `index` of the call frame.");

REGISTER_OP("_Retval")
    .Input("input: T")
    .Attr("T: type")
    .Attr("index: int >= 0")
    .SetIsStateful()
    .Doc("Return value `index` of the call frame.");

REGISTER_OP("NoOp").Doc("Does nothing; useful for control dependencies.");
