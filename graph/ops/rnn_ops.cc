// The ops of recurrent cells. _FusedLstmGates and _FusedGruGates are tensoract's own: only the
// remapper makes them (graph/optimizer/recurrent_gates_fusion.h), from the element-wise half
// of a Keras LSTM or GRU cell.
#include "graph/op_registry.h"
#include "graph/shape_inference.h"

namespace tensoract {
namespace {

using shape_inference::InferenceContext;
using shape_inference::kUnknownDim;

// gates [batch, 4 * units] and c_prev [batch, units] (and a bias [4 * units]) give c and h of
// [batch, units].
Status FusedLstmGatesShape(InferenceContext* c) {
  PartialTensorShape gates, c_prev;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(0), 2, &gates));
  TA_RETURN_IF_ERROR(c->WithRank(c->input(1), 2, &c_prev));
  int64_t batch = kUnknownDim, units = InferenceContext::Dim(c_prev, 1);
  TA_RETURN_IF_ERROR(c->MergeDim(InferenceContext::Dim(gates, 0), InferenceContext::Dim(c_prev, 0), &batch));
  const int64_t gate_width = InferenceContext::Dim(gates, 1);
  if (gate_width != kUnknownDim) {
    if (gate_width % 4 != 0) {
      return errors::InvalidArgument("_FusedLstmGates: gates have ", gate_width,
                                     " columns, not 4 gates of the same width");
    }
    TA_RETURN_IF_ERROR(c->MergeDim(units, gate_width / 4, &units));
  }
  if (c->num_inputs() > 2) {
    PartialTensorShape bias;
    TA_RETURN_IF_ERROR(c->WithRank(c->input(2), 1, &bias));
    int64_t width = kUnknownDim;
    TA_RETURN_IF_ERROR(c->MergeDim(gate_width, InferenceContext::Dim(bias, 0), &width));
  }
  c->set_output(0, InferenceContext::Matrix(batch, units));
  c->set_output(1, InferenceContext::Matrix(batch, units));
  return Status::OK();
}

// x_gates and h_gates [batch, 3 * units] and h_prev [batch, units] give h of [batch, units].
Status FusedGruGatesShape(InferenceContext* c) {
  PartialTensorShape x_gates, h_gates;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(0), 2, &x_gates));
  TA_RETURN_IF_ERROR(c->WithRank(c->input(1), 2, &h_gates));
  PartialTensorShape gates;
  TA_RETURN_IF_ERROR(c->Merge(x_gates, h_gates, &gates));
  const int64_t width = InferenceContext::Dim(gates, 1);
  if (width != kUnknownDim && width % 3 != 0) {
    return errors::InvalidArgument("_FusedGruGates: gates have ", width, " columns, not 3 gates of the same width");
  }
  c->set_output(0, InferenceContext::Matrix(InferenceContext::Dim(gates, 0), width == kUnknownDim ? width : width / 3));
  return Status::OK();
}

}  // namespace
}  // namespace tensoract

// Keras' LSTM cell after its products: the gates z = x W + h U + b, four blocks of columns
// (input, forget, cell, output), and the cell state before the step give
//   c = sigmoid(z_f) * c_prev + sigmoid(z_i) * tanh(z_c),   h = sigmoid(z_o) * tanh(c).
// With num_bias 1, `gates` is z without its bias, `bias` the vector [4 * units] added first.
REGISTER_OP("_FusedLstmGates")
    .Input("gates: T").Input("c_prev: T").Input("bias: num_bias * T")
    .Output("c: T").Output("h: T")
    .Attr("T: {float}")
    .Attr("num_bias: int >= 0 = 0")
    .SetShapeFn(tensoract::FusedLstmGatesShape)
    .Doc("A Keras LSTM cell's gate activations and state update, from its gates' pre-activations.");

// Keras' GRU cell (reset_after, its default) after its products: x's gates x W + b_x and the
// recurrent ones h_prev U + b_h, three blocks of columns each (update, reset, candidate),
// and the state before the step give
//   z = sigmoid(x_z + h_z), r = sigmoid(x_r + h_r), n = tanh(x_n + r * h_n),
//   h = z * h_prev + (1 - z) * n.
REGISTER_OP("_FusedGruGates")
    .Input("x_gates: T").Input("h_gates: T").Input("h_prev: T")
    .Output("h: T")
    .Attr("T: {float}")
    .SetShapeFn(tensoract::FusedGruGatesShape)
    .Doc("A Keras GRU cell's gate activations and state update, from its gates' pre-activations.");
