// TensorFlow Serving's REST API, predict: request bodies to Tensors and Tensors to response
// bodies, read and written as tensorflow_serving/util/json_tensor.cc does, error texts
// included, so that a client written against TensorFlow Serving works unchanged. The JSON
// itself (parsing, quoting, numbers, bytes) is serving_json_dialect.h's; classify and
// regress are serving_examples.h's; model status, metadata and errors serving_status.h's.
//
// A request names a signature ("signature_name", default "serving_default") and gives its
// inputs in one of two layouts:
//
//   row       {"instances": [{"x": [1, 2], "k": "a"}, {"x": [3, 4], "k": "b"}]}
//             one element per example, stacked along a new first (batch) dimension; with
//             one input each element is just its value: {"instances": [[1, 2], [3, 4]]}.
//             Every element must have the same shape.
//   columnar  {"inputs": {"x": [[1, 2], [3, 4]], "k": ["a", "b"]}}, or {"inputs": value}
//             with one input; each value is the whole tensor.
//
// A value is a number, true/false, a string, {"b64": "..."} (bytes, for a string input),
// or nested lists of them, as dense as the tensor. Its dtype is the signature's: a float
// input takes any number, an integer input only numbers written without fraction or
// exponent that fit (TensorFlow Serving rejects 1.0 for an int32 as well), a bool input
// only true/false. The response mirrors the request:
//
//   row       {"predictions": [...]}  one entry per example: its value with one output,
//             an object by output key with several
//   columnar  {"outputs": value}  or  {"outputs": {"key": value, ...}}
//
// String outputs whose key ends in "_bytes" are written as {"b64": ...}.
//
// Thread-safety: everything here is a function of its arguments.
#ifndef TENSORACT_BOOTSTRAP_SERVING_JSON_H_
#define TENSORACT_BOOTSTRAP_SERVING_JSON_H_

#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "bootstrap/serving_json_dialect.h"
#include "kernels/tensor.h"
#include "messages/meta_graph.pb.h"

namespace tensoract {
namespace serving {

enum class PredictFormat { kRow, kColumnar };

struct PredictInputs {
  PredictFormat format = PredictFormat::kRow;
  std::vector<std::pair<std::string, Tensor>> tensors;  // by input key, sorted
};

// The signature's inputs from a predict request's "instances" or "inputs", with the dtypes
// the signature gives them, and shapes it accepts. `signature_name` is the name the request
// used ("" for the default), for the error texts.
StatusOr<PredictInputs> PredictInputsFromJson(const rapidjson::Value& request,
                                              const tensorflow::SignatureDef& signature,
                                              const std::string& signature_name);

// TensorFlow Serving's check that a predict request gives the signature's inputs (a request
// may leave out inputs the signature has defaults for).
Status CheckPredictInputsCount(const tensorflow::SignatureDef& signature,
                               const std::vector<std::pair<std::string, Tensor>>& inputs);

// The response body for a predict request in `format`.
StatusOr<std::string> PredictResponseJson(const std::vector<std::pair<std::string, Tensor>>& outputs,
                                          PredictFormat format);

}  // namespace serving
}  // namespace tensoract

#endif  // TENSORACT_BOOTSTRAP_SERVING_JSON_H_
