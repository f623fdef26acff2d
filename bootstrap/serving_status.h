// TensorFlow Serving's REST API, what the server says about its model and about failures:
// the model status and metadata bodies (protobuf's JSON in TensorFlow Serving, with its
// field names and one-space indent), the {"error": "..."} body, and the HTTP status each
// error code is answered with.
//
// Every failure anywhere in the API is a Status whose message is TensorFlow Serving's;
// HttpStatusFor maps its code to TensorFlow Serving's HTTP status (InvalidArgument: 400,
// NotFound: 404, ...) and ErrorJson writes the body.
//
// Thread-safety: everything here is a function of its arguments.
#ifndef TENSORACT_BOOTSTRAP_SERVING_STATUS_H_
#define TENSORACT_BOOTSTRAP_SERVING_STATUS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "messages/meta_graph.pb.h"

namespace tensoract {
namespace serving {

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
// the MetaGraphDef (the init op's too, as TensorFlow Serving lists it), by key.
StatusOr<std::string> ModelMetadataJson(const std::string& model_name, int64_t version,
                                        const tensorflow::MetaGraphDef& meta_graph);

// {"error": "<message>"}.
std::string ErrorJson(const Status& status);
// The HTTP status TensorFlow Serving answers a Status with (http_server.cc).
int HttpStatusFor(const Status& status);

}  // namespace serving
}  // namespace tensoract

#endif  // TENSORACT_BOOTSTRAP_SERVING_STATUS_H_
