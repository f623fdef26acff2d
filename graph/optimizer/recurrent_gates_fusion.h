// The remapper's fusions of the element-wise half of Keras' recurrent cells, each into one
// node (graph/ops/rnn_ops.cc, kernels/cpu/recurrent_gates_op.cc). Keras 3 (its TensorFlow
// backend, the default sigmoid and tanh activations) writes each step of its While loop as
//
//   LSTM: z = x W + h U + b                (the products: _FusedMatMul after the remapper)
//         i, f, g, o = Split(1, z, num_split=4)
//         c = Sigmoid(f) * c_prev + Sigmoid(i) * Tanh(g)
//         h = Sigmoid(o) * Tanh(c)                              -> _FusedLstmGates(z, c_prev)
//   (where z's last step is the bias, BiasAdd(z', b) or z' + b, read by the Split alone,
//    _FusedLstmGates(z', c_prev, b) adds it as it reads each gate)
//
//   GRU (reset_after, Keras 3's default):
//         xz, xr, xn = Split(1, x W + b_x, num_split=3)
//         hz, hr, hn = three StridedSlices of the columns of q = h_prev U + b_h
//         zt = Sigmoid(xz + hz), r = Sigmoid(xr + hr), n = Tanh(xn + r * hn)
//         h = zt * h_prev + (1 - zt) * n                   -> _FusedGruGates(x, q, h_prev)
//
// ten and fifteen nodes on [batch, units] tensors, each a kernel call and a new buffer in
// every iteration (128 a step for a text of 128 tokens), where the fused kernel reads the
// gates where they lie and writes the new state once. Matched on float CPU nodes of one
// device; either operand order of each Mul and Add; every intermediate value read only
// inside the pattern, but the states the loop carries on (c and h). The previous state may
// broadcast into [batch, units] (the kernel reads a row or a column of it where it does),
// never widen it: where its inferred shape would, nothing fuses; where that shape is unknown
// (a loop variable's), the kernel refuses such a state with an error naming both shapes.
// TensorFlow's grappler has no such fusions (its LSTMBlockCell and GRUBlockCell are ops
// users call, with other gate orders).
#ifndef TENSORACT_GRAPH_OPTIMIZER_RECURRENT_GATES_FUSION_H_
#define TENSORACT_GRAPH_OPTIMIZER_RECURRENT_GATES_FUSION_H_

#include "graph/graph.h"

namespace tensoract {

// The LSTM fusion above, from `split` (a Split node): true when it fused.
bool TryFuseLstmGates(Graph* graph, Node* split);

// The GRU fusion above, from `split` (a Split node of x's gates): true when it fused.
bool TryFuseGruGates(Graph* graph, Node* split);

}  // namespace tensoract

#endif  // TENSORACT_GRAPH_OPTIMIZER_RECURRENT_GATES_FUSION_H_
