// TensorFlow Serving's gRPC API over a ServedModel (bootstrap/served_model.h): the routes
// of a GrpcFront (bootstrap/grpc_front.h) for
//   /tensorflow.serving.PredictionService/{Predict, Classify, Regress, GetModelMetadata}
//   /tensorflow.serving.ModelService/GetModelStatus
// with TensorFlow Serving's messages (messages/serving_apis.proto), so that its Python
// client (tensorflow_serving.apis.prediction_service_pb2_grpc.PredictionServiceStub) works
// unchanged. Versions, signatures, checks and error texts are the REST API's: both call the
// same ServedModel. A handler runs the model: give the front handler threads.
#ifndef TENSORACT_BOOTSTRAP_SERVING_GRPC_H_
#define TENSORACT_BOOTSTRAP_SERVING_GRPC_H_

#include <map>
#include <string>

#include "bootstrap/grpc_front.h"
#include "bootstrap/served_model.h"

namespace tensoract {

// `model` must outlive the front.
std::map<std::string, GrpcFront::Handler> ServingRoutes(const ServedModel* model);

}  // namespace tensoract

#endif  // TENSORACT_BOOTSTRAP_SERVING_GRPC_H_
