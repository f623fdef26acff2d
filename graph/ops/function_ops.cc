// The call frame: how a step's feeds enter a graph and its fetches leave it.
//
// When a client runs a graph, each fed tensor is replaced by an _Arg node and each
// fetched tensor gets a _Retval node (graph/subgraph.h), numbered by `index`. The
// executor hands the step's feeds to the _Args and collects the _Retvals. Both are
// stateful so that no pass merges or folds them.
#include "graph/common_shape_fns.h"
#include "graph/op_registry.h"

namespace tensoract {
namespace {

// An argument's shape is whatever is fed, so unknown; unless whoever made the _Arg wrote
// the shape it will have in `_output_shapes`, as TensorFlow does for function arguments.
Status ArgShape(shape_inference::InferenceContext* c) {
  std::vector<PartialTensorShape> shapes;
  if (c->node_def().attr().count("_output_shapes") && c->GetAttr("_output_shapes", &shapes).ok() &&
      shapes.size() == 1) {
    c->set_output(0, shapes[0]);
    return Status::OK();
  }
  return shape_inference::UnknownShape(c);
}

// TensorFlow 2's functional If and While: their outputs have the shapes `output_shapes`
// lists when it lists one per output, else unknown ones. They never run as kernels: the
// graph importer lowers them to Switch/Merge and loop frames (graph/lower_functional_ops.h).
Status FunctionalOutputShapes(shape_inference::InferenceContext* c) {
  std::vector<PartialTensorShape> shapes;
  if (c->GetAttr("output_shapes", &shapes).ok() && static_cast<int>(shapes.size()) == c->num_outputs()) {
    for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, shapes[i]);
    return Status::OK();
  }
  return shape_inference::UnknownShape(c);
}

}  // namespace
}  // namespace tensoract

REGISTER_OP("_Arg")
    .Output("output: T")
    .Attr("T: type")
    .Attr("index: int >= 0")
    .SetIsStateful()
    .SetShapeFn(tensoract::ArgShape)
    .Doc("Argument `index` of the call frame.");

REGISTER_OP("_Retval")
    .Input("input: T")
    .Attr("T: type")
    .Attr("index: int >= 0")
    .SetIsStateful()
    .SetShapeFn(tensoract::shape_inference::NoOutputs)
    .Doc("Return value `index` of the call frame.");

REGISTER_OP("NoOp")
    .SetShapeFn(tensoract::shape_inference::NoOutputs)
    .Doc("Does nothing; useful for control dependencies.");

// A call of a function of the graph's library (TensorFlow 2's tf.function calls). `f`
// names the function; Tin and Tout are its argument and result types.
REGISTER_OP("PartitionedCall")
    .Input("args: Tin")
    .Output("output: Tout")
    .Attr("Tin: list(type) >= 0")
    .Attr("Tout: list(type) >= 0")
    .Attr("f: func")
    .Attr("config: string = ''")
    .Attr("config_proto: string = ''")
    .Attr("executor_type: string = ''")
    .SetShapeFn(tensoract::shape_inference::UnknownShape)
    .Doc("Calls function `f` (stateless: it may be pruned or merged).");

REGISTER_OP("StatefulPartitionedCall")
    .Input("args: Tin")
    .Output("output: Tout")
    .Attr("Tin: list(type) >= 0")
    .Attr("Tout: list(type) >= 0")
    .Attr("f: func")
    .Attr("config: string = ''")
    .Attr("config_proto: string = ''")
    .Attr("executor_type: string = ''")
    .SetIsStateful()
    .SetIsDistributedCommunication()
    .SetShapeFn(tensoract::shape_inference::UnknownShape)
    .Doc("Calls function `f`, which has side effects.");

// TensorFlow 2's control flow (tf.cond and tf.while_loop in a tf.function): the branches,
// cond and body are functions of the graph's library. The Stateless forms promise their
// functions have no side effects.
REGISTER_OP("If")
    .Input("cond: Tcond")
    .Input("input: Tin")
    .Output("output: Tout")
    .Attr("Tcond: type")
    .Attr("Tin: list(type) >= 0")
    .Attr("Tout: list(type) >= 0")
    .Attr("then_branch: func")
    .Attr("else_branch: func")
    .Attr("output_shapes: list(shape) = []")
    .SetIsStateful()
    .SetShapeFn(tensoract::FunctionalOutputShapes)
    .Doc("output = cond ? then_branch(input) : else_branch(input).");

REGISTER_OP("StatelessIf")
    .Input("cond: Tcond")
    .Input("input: Tin")
    .Output("output: Tout")
    .Attr("Tcond: type")
    .Attr("Tin: list(type) >= 0")
    .Attr("Tout: list(type) >= 0")
    .Attr("then_branch: func")
    .Attr("else_branch: func")
    .Attr("output_shapes: list(shape) = []")
    .SetShapeFn(tensoract::FunctionalOutputShapes)
    .Doc("If, with branches that have no side effects.");

// tf.switch_case: branches[branch_index](input), the last branch for an index out of range.
REGISTER_OP("Case")
    .Input("branch_index: int32")
    .Input("input: Tin")
    .Output("output: Tout")
    .Attr("Tin: list(type) >= 0")
    .Attr("Tout: list(type) >= 0")
    .Attr("branches: list(func) >= 1")
    .Attr("output_shapes: list(shape) = []")
    .SetIsStateful()
    .SetShapeFn(tensoract::FunctionalOutputShapes)
    .Doc("output = branches[branch_index](input); an index outside [0, N) runs the last branch.");

REGISTER_OP("StatelessCase")
    .Input("branch_index: int32")
    .Input("input: Tin")
    .Output("output: Tout")
    .Attr("Tin: list(type) >= 0")
    .Attr("Tout: list(type) >= 0")
    .Attr("branches: list(func) >= 1")
    .Attr("output_shapes: list(shape) = []")
    .SetShapeFn(tensoract::FunctionalOutputShapes)
    .Doc("Case, with branches that have no side effects.");

REGISTER_OP("While")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: list(type) >= 0")
    .Attr("cond: func")
    .Attr("body: func")
    .Attr("output_shapes: list(shape) = []")
    .Attr("parallel_iterations: int = 10")
    .SetIsStateful()
    .SetShapeFn(tensoract::FunctionalOutputShapes)
    .Doc("output = input; while cond(output): output = body(output).");

REGISTER_OP("StatelessWhile")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: list(type) >= 0")
    .Attr("cond: func")
    .Attr("body: func")
    .Attr("output_shapes: list(shape) = []")
    .Attr("parallel_iterations: int = 10")
    .SetShapeFn(tensoract::FunctionalOutputShapes)
    .Doc("While, with a cond and body that have no side effects.");
