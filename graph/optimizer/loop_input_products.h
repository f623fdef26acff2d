// Loop input products: a recurrent layer's input projection, computed for every step at
// once before its loop instead of one step at a time inside it.
//
// Keras' LSTM and GRU (and TensorFlow's own while_loop RNNs) unstack their input sequence
// into a TensorList before the loop and, in each iteration, read one step of it and multiply
// it by the layer's input weights:
//
//   xs = TensorListFromTensor(X)                 X: [steps, batch, in], outside the loop
//   loop: x_t = TensorListGetItem(xs, t)         [batch, in]
//         z_t = MatMul(x_t, W)  [+ BiasAdd(b)]   W, b loop invariants
//
// The product does not depend on the loop's state, only on which step it reads, so it can
// be one product over all steps, before the loop:
//
//   zs = TensorListFromTensor(BatchMatMulV2(X, W) [+ BiasAdd(b)])
//   loop: z_t = TensorListGetItem(zs, t)
//
// [steps * batch, in] x [in, out] is one large GEMM (BatchMatMulV2 with a shared right side
// is one product) where the loop made `steps` small ones, and the iteration loses a kernel.
// Each element is the same sum of the same products (the reduction over `in` does not
// depend on the rows around it, though a GEMM of other shapes may add in another order:
// within float rounding). ONNX Runtime's LSTM operator and cuDNN's RNNs compute the input
// projection this way.
//
// Taken where: the MatMul is float, on a CPU device, does not transpose x; its x is a
// TensorListGetItem of a constant Enter of a TensorListFromTensor in the root frame, its W a
// constant Enter of a value of the root frame, both entering the MatMul's own top-level loop;
// the optional BiasAdd is the MatMul's sole consumer, its bias a loop invariant of the root
// frame, in NHWC (the default) format. The list, its Enter and its GetItem go where nothing
// else reads them.
//
// Cost: the products of every step are computed even when the loop stops early (a While
// whose condition ends before the list does) and held at once ([steps, batch, out] floats).
#ifndef TENSORACT_GRAPH_OPTIMIZER_LOOP_INPUT_PRODUCTS_H_
#define TENSORACT_GRAPH_OPTIMIZER_LOOP_INPUT_PRODUCTS_H_

#include "graph/graph.h"

namespace tensoract {

// Moves each loop input product described above before its loop; returns how many.
int HoistLoopInputProducts(Graph* graph);

}  // namespace tensoract

#endif  // TENSORACT_GRAPH_OPTIMIZER_LOOP_INPUT_PRODUCTS_H_
