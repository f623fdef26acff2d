// TensorFlow Serving's REST API, its JSON half: request bodies to Tensors and Tensors to
// response bodies, read and written as tensorflow_serving/util/json_tensor.cc does, error
// texts included, so that a client written against TensorFlow Serving works unchanged.
//
// Predict. A request names a signature ("signature_name", default "serving_default") and
// gives its inputs in one of two layouts:
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
// Floats are written so that they read back to the same float (six digits when that is
// enough, else 9 for float and 17 for double), whole numbers with ".0", and NaN and the
// infinities as NaN, Infinity and -Infinity, which the reader here takes back. String
// outputs whose key ends in "_bytes" are written as {"b64": ...}.
//
// Classify and regress. {"examples": [{"feature": value or [values], ...}, ...],
// "context": {...}} becomes one serialized tf.Example per example (context features
// merged in, the example's own winning), the string tensor fed to the signature's "inputs".
// A feature's values are all floats (numbers with a fraction or exponent), all integers
// (and true/false) or all strings/b64. Responses: {"results": [[["label", score], ...], ...]}
// and {"results": [value, ...]}.
//
// Every failure is a Status whose message is TensorFlow Serving's; HttpStatusFor maps its
// code to the HTTP status TensorFlow Serving answers with (InvalidArgument: 400,
// NotFound: 404, ...) and ErrorJson writes the {"error": "..."} body.
//
// Thread-safety: everything here is a function of its arguments.
#ifndef TENSORACT_BOOTSTRAP_SERVING_JSON_H_
#define TENSORACT_BOOTSTRAP_SERVING_JSON_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "kernels/tensor.h"
#include "messages/meta_graph.pb.h"

namespace tensoract {
namespace serving {

// A parsed request: members keep the order they were written in, as TensorFlow Serving's
// reader does (the first error it reports is the first in the text).
using Json = nlohmann::ordered_json;

// The deepest nesting a request may have (TensorFlow Serving has no limit; a tensor has at
// most 254 dimensions, and a limit keeps a hostile body from exhausting the stack).
inline constexpr int kMaxJsonDepth = 1000;

// Parses a request body as TensorFlow Serving's reader (RapidJSON) does: NaN, Infinity,
// -Infinity (and Inf, -Inf, -NaN) are numbers, whatever follows the first complete value is
// ignored, strings keep their bytes as written, and the value must be an object. Errors:
// "JSON Parse error: <RapidJSON's text> at offset: N", or "JSON Value: ... Is not object".
StatusOr<Json> ParseRequestJson(std::string_view body);

// The request's "signature_name", "" when it has none.
StatusOr<std::string> RequestSignatureName(const Json& request);

enum class PredictFormat { kRow, kColumnar };

struct PredictInputs {
  PredictFormat format = PredictFormat::kRow;
  std::vector<std::pair<std::string, Tensor>> tensors;  // by input key, sorted
};

// The signature's inputs from a predict request's "instances" or "inputs", with the dtypes
// the signature gives them, and shapes it accepts. `signature_name` is the name the request
// used ("" for the default), for the error texts.
StatusOr<PredictInputs> PredictInputsFromJson(const Json& request, const tensorflow::SignatureDef& signature,
                                              const std::string& signature_name);

// TensorFlow Serving's check that a predict request gives the signature's inputs (a request
// may leave out inputs the signature has defaults for).
Status CheckPredictInputsCount(const tensorflow::SignatureDef& signature,
                               const std::vector<std::pair<std::string, Tensor>>& inputs);

// The response body for a predict request in `format`.
StatusOr<std::string> PredictResponseJson(const std::vector<std::pair<std::string, Tensor>>& outputs,
                                          PredictFormat format);

// A classify or regress request's examples as serialized tf.Examples: a string tensor of
// shape [number of examples].
StatusOr<Tensor> ExamplesFromJson(const Json& request);

// TensorFlow Serving's checks that a signature can classify (regress): with
// `check_method_name` (its --enable_signature_method_name_check) its method name must be
// tensorflow/serving/classify (regress); otherwise, as by default, it must have one input
// "inputs" and outputs "classes" and/or "scores" ("outputs").
Status CheckClassifySignature(const tensorflow::SignatureDef& signature, bool check_method_name);
Status CheckRegressSignature(const tensorflow::SignatureDef& signature, bool check_method_name);

// The classification result of `num_examples` examples: `classes` (string [n, k]) and/or
// `scores` (float [n, k]); either may be null. Checks their shapes and dtypes as
// TensorFlow Serving does.
StatusOr<std::string> ClassifyResponseJson(const Tensor* classes, const Tensor* scores, int64_t num_examples);
// The regression result: `outputs` is float [n] or [n, 1].
StatusOr<std::string> RegressResponseJson(const Tensor& outputs, int64_t num_examples);

// One version's entry in a model status response. `state` is TensorFlow Serving's name
// for it: "START", "LOADING", "AVAILABLE", "UNLOADING" or "END".
struct VersionStatus {
  int64_t version = 0;
  std::string state;
  Status status;  // why a version that failed to load did
};
// {"model_version_status": [{"version": "2", "state": "AVAILABLE", "status":
// {"error_code": "OK", "error_message": ""}}, ...]}, in the order given.
std::string ModelStatusJson(const std::vector<VersionStatus>& versions);

// {"model_spec": {"name", "signature_name": "", "version"}, "metadata": {"signature_def":
// {"signature_def": {key: SignatureDef as protobuf's JSON, ...}}}}: every signature of
// the MetaGraphDef (the init op's too, as TensorFlow Serving lists it).
StatusOr<std::string> ModelMetadataJson(const std::string& model_name, int64_t version,
                                        const tensorflow::MetaGraphDef& meta_graph);

// {"error": "<message>"}.
std::string ErrorJson(const Status& status);
// The HTTP status TensorFlow Serving answers a Status with (http_server.cc).
int HttpStatusFor(const Status& status);

// Pieces, exposed for the tests.
// A float or double as TensorFlow Serving writes it ("0.1", "3.0", "1e-05", "NaN").
std::string FormatJsonFloat(float value);
std::string FormatJsonDouble(double value);
// A value as TensorFlow Serving's error texts quote it (RapidJSON's pretty writer, arrays on
// one line, at most about 256 bytes).
std::string JsonDebugString(const Json& value);
std::string Base64Encode(std::string_view bytes);
// Standard alphabet; padding optional. False for anything else.
bool Base64Decode(std::string_view text, std::string* bytes);

}  // namespace serving
}  // namespace tensoract

#endif  // TENSORACT_BOOTSTRAP_SERVING_JSON_H_
