// The syntax of an Einsum equation, shared by its shape function (graph/ops/einsum_ops.cc)
// and its kernel (kernels/cpu/einsum_op.cc): "ij,jk->ik" is one or two input subscripts,
// one "->" and an output subscript. Every character but '.' is a label (TensorFlow does not
// restrict them to letters); "..." stands for broadcast dimensions. The checks and messages
// are TensorFlow 2.21's.
#ifndef TENSORACT_GRAPH_EINSUM_EQUATION_H_
#define TENSORACT_GRAPH_EINSUM_EQUATION_H_

#include <string>
#include <vector>

#include "base/status.h"

namespace tensoract {

// The input subscripts and the output subscript of `equation`: exactly one "->", and one or
// two comma-separated inputs.
Status SplitEinsumEquation(const std::string& equation, std::vector<std::string>* inputs, std::string* output);

// Whether `subscript` holds an ellipsis: at most one, and no period outside it.
Status ValidateEinsumEllipsis(const std::string& subscript, bool* has_ellipsis);

}  // namespace tensoract

#endif  // TENSORACT_GRAPH_EINSUM_EQUATION_H_
