#include "bootstrap/serving_grpc.h"

#include <optional>
#include <utility>
#include <vector>

#include "bootstrap/serving_examples.h"
#include "client/saved_model.h"
#include "messages/serving_apis.pb.h"

namespace tensoract {
namespace {

namespace tfs = tensorflow::serving;

template <class Proto>
Status Parse(const std::string& bytes, Proto* proto, const char* what) {
  if (!proto->ParseFromString(bytes)) return errors::InvalidArgument("cannot parse the ", what);
  return Status::OK();
}

// What a ModelSpec asks for.
struct Spec {
  std::string name;
  std::optional<int64_t> version;
  std::optional<std::string> label;
  std::string signature_name;
};
Spec SpecOf(const tfs::ModelSpec& spec) {
  Spec out{spec.name(), std::nullopt, std::nullopt, spec.signature_name()};
  if (spec.has_version()) out.version = spec.version().value();
  if (spec.version_choice_case() == tfs::ModelSpec::kVersionLabel) out.label = spec.version_label();
  return out;
}

// The spec a response names: the model, the version that answered and the signature.
void SetSpec(const std::string& name, int64_t version, const std::string& signature, tfs::ModelSpec* spec) {
  spec->set_name(name);
  spec->mutable_version()->set_value(version);
  if (!signature.empty()) spec->set_signature_name(signature);
}

Status Predict(const ServedModel& model, const std::string& bytes, std::string* out) {
  tfs::PredictRequest request;
  TA_RETURN_IF_ERROR(Parse(bytes, &request, "PredictRequest"));
  const Spec spec = SpecOf(request.model_spec());
  TA_ASSIGN_OR_RETURN(ServedModel::Signature signature,
                      model.PredictSignature(spec.name, spec.version, spec.label, spec.signature_name));
  std::vector<std::pair<std::string, Tensor>> inputs;
  ExpansionBudget budget;
  for (const auto& [alias, proto] : request.inputs()) {
    TA_RETURN_IF_ERROR(budget.Charge(proto, StrCat("input '", alias, "'")));
    auto tensor = Tensor::FromProto(proto);
    if (!tensor.ok()) return errors::InvalidArgument("input '", alias, "': ", tensor.status().message());
    inputs.emplace_back(alias, std::move(tensor).value());
  }
  const std::vector<std::string> filter(request.output_filter().begin(), request.output_filter().end());
  std::vector<std::pair<std::string, Tensor>> outputs;
  TA_RETURN_IF_ERROR(model.Predict(signature, inputs, filter, &outputs));
  tfs::PredictResponse response;
  SetSpec(spec.name, signature.servable->version, signature.key, response.mutable_model_spec());
  for (const auto& [alias, tensor] : outputs) tensor.AsProtoTensorContent(&(*response.mutable_outputs())[alias]);
  *out = response.SerializeAsString();
  return Status::OK();
}

// The examples of a classify or regress request, serialized: a string tensor [n]. Shared
// context features go in front of each example's (parsing the concatenation merges them,
// the example's own winning), as the REST API does.
StatusOr<Tensor> ExamplesOf(const tfs::Input& input) {
  std::vector<std::string> serialized;
  if (input.kind_case() == tfs::Input::kExampleList) {
    for (const auto& example : input.example_list().examples()) serialized.push_back(example.SerializeAsString());
  } else if (input.kind_case() == tfs::Input::kExampleListWithContext) {
    const std::string context = input.example_list_with_context().context().SerializeAsString();
    for (const auto& example : input.example_list_with_context().examples()) {
      serialized.push_back(context + example.SerializeAsString());
    }
  }
  // TensorFlow Serving's words.
  if (serialized.empty()) return errors::InvalidArgument("Input is empty");
  return Tensor::FromVector<std::string>(serialized);
}

Status ClassifyOrRegress(const ServedModel& model, const std::string& bytes, bool classify, std::string* out) {
  tfs::ClassificationRequest classification;
  tfs::RegressionRequest regression;
  if (classify) {
    TA_RETURN_IF_ERROR(Parse(bytes, &classification, "ClassificationRequest"));
  } else {
    TA_RETURN_IF_ERROR(Parse(bytes, &regression, "RegressionRequest"));
  }
  const Spec spec = SpecOf(classify ? classification.model_spec() : regression.model_spec());
  TA_ASSIGN_OR_RETURN(Tensor examples, ExamplesOf(classify ? classification.input() : regression.input()));
  TA_ASSIGN_OR_RETURN(ServedModel::Signature signature,
                      model.ExamplesSignature(spec.name, spec.version, spec.label, spec.signature_name, classify));
  ServedModel::ExampleResults results;
  TA_RETURN_IF_ERROR(model.ClassifyOrRegress(signature, examples, classify, &results));
  const int64_t n = examples.NumElements();
  if (!classify) {
    TA_RETURN_IF_ERROR(serving::CheckRegressOutputs(*results.values, n));
    tfs::RegressionResponse response;
    SetSpec(spec.name, signature.servable->version, signature.key, response.mutable_model_spec());
    for (int64_t i = 0; i < n; ++i) response.mutable_result()->add_regressions()->set_value(results.values->base<float>()[i]);
    *out = response.SerializeAsString();
    return Status::OK();
  }
  const Tensor* classes = results.classes ? &*results.classes : nullptr;
  const Tensor* scores = results.scores ? &*results.scores : nullptr;
  TA_ASSIGN_OR_RETURN(const int64_t k, serving::CheckClassifyOutputs(classes, scores, n));
  tfs::ClassificationResponse response;
  SetSpec(spec.name, signature.servable->version, signature.key, response.mutable_model_spec());
  for (int64_t i = 0; i < n; ++i) {
    tfs::Classifications* row = response.mutable_result()->add_classifications();
    for (int64_t j = 0; j < k; ++j) {
      tfs::Class* c = row->add_classes();
      if (classes) c->set_label(classes->base<std::string>()[i * k + j]);
      if (scores) c->set_score(scores->base<float>()[i * k + j]);
    }
  }
  *out = response.SerializeAsString();
  return Status::OK();
}

Status Metadata(const ServedModel& model, const std::string& bytes, std::string* out) {
  tfs::GetModelMetadataRequest request;
  TA_RETURN_IF_ERROR(Parse(bytes, &request, "GetModelMetadataRequest"));
  const Spec spec = SpecOf(request.model_spec());
  if (spec.name.empty()) return errors::InvalidArgument("Missing model name in request.");
  // TensorFlow Serving's words (get_model_metadata_impl.cc).
  if (request.metadata_field_size() == 0) {
    return errors::InvalidArgument("GetModelMetadataRequest must specify at least one metadata_field");
  }
  for (const std::string& field : request.metadata_field()) {
    if (field != "signature_def") return errors::InvalidArgument("Metadata field ", field, " is not supported");
  }
  TA_ASSIGN_OR_RETURN(std::shared_ptr<Servable> servable, model.Find(spec.name, spec.version, spec.label));
  tfs::SignatureDefMap signatures;
  for (const auto& [key, def] : servable->bundle->meta_graph_def().signature_def()) {
    (*signatures.mutable_signature_def())[key] = def;
  }
  tfs::GetModelMetadataResponse response;
  SetSpec(spec.name, servable->version, "", response.mutable_model_spec());
  (*response.mutable_metadata())["signature_def"].PackFrom(signatures);
  *out = response.SerializeAsString();
  return Status::OK();
}

Status ModelStatus(const ServedModel& model, const std::string& bytes, std::string* out) {
  tfs::GetModelStatusRequest request;
  TA_RETURN_IF_ERROR(Parse(bytes, &request, "GetModelStatusRequest"));
  const Spec spec = SpecOf(request.model_spec());
  TA_ASSIGN_OR_RETURN(std::vector<serving::VersionStatus> list, model.Statuses(spec.name, spec.version));
  tfs::GetModelStatusResponse response;
  for (const serving::VersionStatus& v : list) {
    tfs::ModelVersionStatus* status = response.add_model_version_status();
    status->set_version(v.version);
    tfs::ModelVersionStatus::State state = tfs::ModelVersionStatus::UNKNOWN;
    tfs::ModelVersionStatus::State_Parse(v.state, &state);
    status->set_state(state);
    status->mutable_status()->set_error_code(static_cast<tensorflow::error::Code>(v.status.code()));
    status->mutable_status()->set_error_message(v.status.message());
  }
  *out = response.SerializeAsString();
  return Status::OK();
}

// A route answering at once with what `method` makes of the request.
GrpcFront::Handler Route(const ServedModel* model,
                         Status (*method)(const ServedModel&, const std::string&, std::string*)) {
  return [model, method](std::string request, GrpcFront::Reply reply) {
    std::string response;
    Status status;
    try {
      status = method(*model, request, &response);
    } catch (const std::bad_alloc&) {
      status = errors::ResourceExhausted("out of memory answering a request");
    }
    reply(status, std::move(response));
  };
}

}  // namespace

std::map<std::string, GrpcFront::Handler> ServingRoutes(const ServedModel* model) {
  std::map<std::string, GrpcFront::Handler> routes;
  routes["/tensorflow.serving.PredictionService/Predict"] = Route(model, Predict);
  routes["/tensorflow.serving.PredictionService/Classify"] =
      Route(model, [](const ServedModel& m, const std::string& b, std::string* o) {
        return ClassifyOrRegress(m, b, true, o);
      });
  routes["/tensorflow.serving.PredictionService/Regress"] =
      Route(model, [](const ServedModel& m, const std::string& b, std::string* o) {
        return ClassifyOrRegress(m, b, false, o);
      });
  routes["/tensorflow.serving.PredictionService/GetModelMetadata"] = Route(model, Metadata);
  routes["/tensorflow.serving.ModelService/GetModelStatus"] = Route(model, ModelStatus);
  return routes;
}

}  // namespace tensoract
