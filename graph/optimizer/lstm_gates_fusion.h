// The remapper's fusion of a Keras LSTM cell's element-wise half into one _FusedLstmGates
// node (graph/ops/rnn_ops.cc, kernels/cpu/lstm_gates_op.cc). Keras 3's LSTM (its TensorFlow
// backend, the default sigmoid and tanh activations) writes each step of its While loop as
//
//   z = x W + h U + b                     (the products: _FusedMatMul after the remapper)
//   i, f, g, o = Split(1, z, num_split=4)
//   c = Sigmoid(f) * c_prev + Sigmoid(i) * Tanh(g)
//   h = Sigmoid(o) * Tanh(c)
//
// ten nodes on [batch, units] tensors, each a kernel call and a new buffer in every
// iteration (128 a step for a text of 128 tokens), where the fused kernel reads z and c_prev
// once and writes c and h. Matched on float CPU nodes of one device; either operand order of
// each Mul and Add; every intermediate value read only inside the pattern, but c and h, which
// the loop carries on. c_prev may broadcast into [batch, units] (the kernel reads a row or a
// column of it where it does), never widen it: where its inferred shape would, nothing fuses;
// where that shape is unknown (a loop variable's), the kernel refuses such a c_prev with an
// error naming both shapes. TensorFlow's grappler has no such fusion (its LSTMBlockCell is an op users
// call, with another gate order).
#ifndef TENSORACT_GRAPH_OPTIMIZER_LSTM_GATES_FUSION_H_
#define TENSORACT_GRAPH_OPTIMIZER_LSTM_GATES_FUSION_H_

#include "graph/graph.h"

namespace tensoract {

// The fusion above, from `split` (a Split node): true when it fused.
bool TryFuseLstmGates(Graph* graph, Node* split);

}  // namespace tensoract

#endif  // TENSORACT_GRAPH_OPTIMIZER_LSTM_GATES_FUSION_H_
