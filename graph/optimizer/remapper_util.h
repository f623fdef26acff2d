// What the remapper's fusions (graph/optimizer/remapper.cc, layer_norm_fusion.cc, ...) share:
// reading a node's device, type and attrs, walking its consumers and inputs, and replacing
// a set of nodes by one fused node with their inputs, consumers and control edges.
#ifndef TENSORACT_GRAPH_OPTIMIZER_REMAPPER_UTIL_H_
#define TENSORACT_GRAPH_OPTIMIZER_REMAPPER_UTIL_H_

#include <string>
#include <vector>

#include "graph/graph.h"

namespace tensoract {
namespace remapper {

// Placed on a CPU device.
bool OnCpu(const Node& n);

// The string attr `name` of `n`, or `fallback` where it has none.
std::string AttrString(const Node& n, const std::string& name, const std::string& fallback);

// Its attr T is float or double.
bool FloatingT(const Node& n);

// The only consumer of output 0 of `n`, when there is exactly one data edge out and no
// control edge; else nullptr.
const Edge* SoleConsumer(const Node& n);

// Both on the same CPU device with the same floating T.
bool SameCpuFloat(const Node& a, const Node& b);

// SoleConsumer(n)'s node when it is of type `op` (AddV2 also matching Add) and
// SameCpuFloat as `n`; else nullptr.
Node* SoleConsumerOfType(const Node& n, const std::string& op);

// A data input of the fused node: output `port` of `node`.
struct Source {
  Node* node;
  int port;
};

// The input name that reads `s`: "node", or "node:port" past port 0.
std::string InputName(const Source& s);

// Replaces `nodes` by one node made from `def` (its op and attrs; name, device and inputs
// are filled here): its data inputs are `data`, its control inputs everyone's from outside
// `nodes`; output i of it takes over the consumers outside `nodes` and the inferred shape of
// output 0 of `outputs[i]`, and it takes the name `name`, or outputs[0]'s where that is
// empty. Returns it; nullptr when nothing changed.
Node* ReplaceNodes(Graph* graph, const std::vector<Node*>& nodes, const std::vector<Node*>& outputs,
                   const std::vector<Source>& data, NodeDef def, const std::string& name = "");

// A chain of nodes, each the sole consumer of the one before, replaced by one node that
// takes over the last one's output.
bool ReplaceChain(Graph* graph, const std::vector<Node*>& chain, const std::vector<Source>& data, NodeDef def);

// Data input `input` of `n`; {nullptr, 0} when unconnected.
Source DataInput(const Node& n, int input);

// The input of two-input `n` other than output `port` of `from`; {nullptr, 0} if neither is.
Source OtherInput(const Node& n, const Node& from, int port = 0);

// The same output of the same node.
bool SameSource(const Source& a, const Source& b);

// Attr `name` of `n` (its T, Tparams, ...) is the type `want`.
bool TypeIs(const Node& n, const char* name, tensorflow::DataType want);

// `s`, or what the constant Enter (a loop invariant) `s` passes into its loop: a loop body's
// constants, once the loop-invariant motion moved them out.
Source ThroughConstantEnter(Source s);

// Copies the attrs `names` that `from` has into `def`.
void CopyAttrs(const Node& from, const std::vector<std::string>& names, NodeDef* def);

// Calls try_fuse(graph, node) for each node of one of `ops` the graph holds now, but for
// those an earlier fusion of the loop removed; returns how many it fused.
int FuseEach(Graph* graph, const std::vector<std::string>& ops, bool (*try_fuse)(Graph*, Node*));

// Every consumer of output 0 of `n` when nothing else reads it (no control edge out, no
// other output used); empty otherwise.
std::vector<const Edge*> ConsumersOfOutput0(const Node& n);

// A scalar float Const of value `want` (Keras' swish writes x * sigmoid(beta * x), beta 1;
// exact GELU multiplies by 0.5 and by 1 / sqrt 2).
bool IsScalarConst(const Source& s, float want);

// A value of one element per output channel of a product with `channels` (known) channels:
// [channels] or [1, ..., 1, channels] of known shape, no wider than the product's output.
bool IsChannelVector(const Source& s, int64_t channels, int max_rank);

// One per-channel step of an epilogue (kernels/cpu/fused_epilogue.h) and its args.
struct ChannelStep {
  std::string op;  // BiasAdd, ChannelMul or FusedBatchNorm
  std::vector<Source> args;
};

// What `n`, reading the chain's value at input `input`, does to it per channel, if anything:
// a BiasAdd (NHWC), or an Add or Mul of a channel vector (IsChannelVector, at most `rank`
// dimensions) either side, or an inference FusedBatchNorm whose statistics go unused.
bool AsChannelStep(const Node& n, int input, int64_t channels, int rank, ChannelStep* step);

// The values of an int32 or int64 Const (of any shape), in *values; false for anything else.
bool ConstInts(const Source& s, std::vector<int64_t>* values);

// The axis of a ConcatV2 (its last input, a one-value Const), in *axis; false where it is not
// known.
bool ConcatAxis(const Node& concat, int64_t* axis);

// The value of a scalar float Const, in *value; false for anything else.
bool ScalarConstValue(const Source& s, float* value);

// The shape of data input `input` of `n` (a filter's) when it is known whole and of rank 4,
// in *dims.
bool KnownShape4(const Node& n, int input, std::vector<int64_t>* dims);
// A float NHWC convolution node without dilation, and without a fused residual Add unless
// `add_allowed`.
bool PlainConvolution(const Node& n, bool add_allowed = false);
// Its fused_ops add a tensor (a residual's "Add").
bool FusesAdd(const Node& n);
// A 1x1 convolution of stride 1 (its filter's shape known) taking `depth` channels, or any
// number where depth < 0.
bool PointwiseConvolution(const Node& n, int64_t depth);
// A fused node's num_args (0 where it has none).
int64_t NumArgs(const Node& n);
// Copies the attrs of `from` that belong to its op (not the runtime's, starting with '_')
// into `def`, each name after `prefix`: a fused node that keeps its parts' attrs.
void CopyAttrsPrefixed(const Node& from, const std::string& prefix, NodeDef* def);
}  // namespace remapper
}  // namespace tensoract

#endif  // TENSORACT_GRAPH_OPTIMIZER_REMAPPER_UTIL_H_
