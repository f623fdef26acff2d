// TensorFlow Serving's REST API, classify and regress: a request's examples to serialized
// tf.Examples, the checks a signature must pass to classify or regress, and the results to
// response bodies, as tensorflow_serving/util/json_tensor.cc and its classifier and
// regressor do, error texts included.
//
// A request is {"examples": [{"feature": value or [values], ...}, ...], "context": {...}}
// (and "signature_name", serving_json_dialect.h). Each example becomes one serialized
// tf.Example, the context's features merged in (the example's own winning): together the
// string tensor fed to the signature's "inputs". A feature's values are all floats (numbers
// with a fraction or exponent), all integers (and true/false) or all strings/b64.
// Responses: {"results": [[["label", score], ...], ...]} and {"results": [value, ...]}.
//
// Thread-safety: everything here is a function of its arguments.
#ifndef TENSORACT_BOOTSTRAP_SERVING_EXAMPLES_H_
#define TENSORACT_BOOTSTRAP_SERVING_EXAMPLES_H_

#include <cstdint>
#include <string>

#include "base/status.h"
#include "bootstrap/serving_json_dialect.h"
#include "kernels/tensor.h"
#include "messages/meta_graph.pb.h"

namespace tensoract {
namespace serving {

// A classify or regress request's examples as serialized tf.Examples: a string tensor of
// shape [number of examples].
StatusOr<Tensor> ExamplesFromJson(const rapidjson::Value& request);

// TensorFlow Serving's checks that a signature can classify (regress): with
// `check_method_name` (its --enable_signature_method_name_check) its method name must be
// tensorflow/serving/classify (regress); otherwise, as by default, it must have one input
// "inputs" and outputs "classes" and/or "scores" ("outputs").
Status CheckClassifySignature(const tensorflow::SignatureDef& signature, bool check_method_name);
Status CheckRegressSignature(const tensorflow::SignatureDef& signature, bool check_method_name);

// A classify signature's outputs for `num_examples` examples: `classes` (string [n, k])
// and/or `scores` (float [n, k]); either may be null. Checks their shapes and dtypes as
// TensorFlow Serving does, and gives k.
StatusOr<int64_t> CheckClassifyOutputs(const Tensor* classes, const Tensor* scores, int64_t num_examples);
// A regress signature's: `outputs` is float [n] or [n, 1].
Status CheckRegressOutputs(const Tensor& outputs, int64_t num_examples);

// The REST API's classification and regression results, after those checks.
StatusOr<std::string> ClassifyResponseJson(const Tensor* classes, const Tensor* scores, int64_t num_examples);
StatusOr<std::string> RegressResponseJson(const Tensor& outputs, int64_t num_examples);

}  // namespace serving
}  // namespace tensoract

#endif  // TENSORACT_BOOTSTRAP_SERVING_EXAMPLES_H_
