#include "bootstrap/served_model.h"

#include "bootstrap/serving_examples.h"
#include "bootstrap/serving_json.h"
#include "client/saved_model.h"

namespace tensoract {
namespace {

std::string ServableRequestString(const std::string& name, std::optional<int64_t> version) {
  return version ? StrCat("Specific(", name, ", ", *version, ")") : StrCat("Latest(", name, ")");
}

SessionOptions SessionOptionsFor(const ServedModelOptions& options) {
  SessionOptions session;
  session.optimizer.bfloat16_products = options.bfloat16_products;
  session.optimizer.bfloat16_activations = options.bfloat16_activations;
  session.optimizer.int8_products = options.int8_products;
  return session;
}

// "a,b,c": a signature's output aliases, for an error.
std::string OutputAliases(const tensorflow::SignatureDef& signature) {
  std::string names;
  for (const auto& [alias, info] : signature.outputs()) names += StrCat(names.empty() ? "" : ",", alias);
  return names;
}

RunOptions RequestRunOptions(const ServedModelOptions& options) {
  RunOptions run_options;
  run_options.timeout_ms = options.timeout_ms;
  return run_options;
}

}  // namespace

ServedModel::ServedModel(ServedModelOptions options)
    : options_(std::move(options)),
      versions_(options_.model_name, options_.model_base_path, SessionOptionsFor(options_)) {}

StatusOr<std::shared_ptr<Servable>> ServedModel::Find(const std::string& name, std::optional<int64_t> version,
                                                      const std::optional<std::string>& label) const {
  // Labels name versions in a model config file; one model from a base path has none.
  if (label) return errors::InvalidArgument("Unrecognized servable version label: ", *label);
  std::shared_ptr<Servable> servable;
  if (name == options_.model_name) servable = versions_.Serving(version);
  if (!servable) return errors::NotFound("Servable not found for request: ", ServableRequestString(name, version));
  return servable;
}

StatusOr<ServedModel::Signature> ServedModel::PredictSignature(const std::string& name,
                                                               std::optional<int64_t> version,
                                                               const std::optional<std::string>& label,
                                                               const std::string& signature_name) const {
  Signature signature;
  TA_ASSIGN_OR_RETURN(signature.servable, Find(name, version, label));
  signature.key = signature_name.empty() ? kDefaultServingSignatureDefKey : signature_name;
  const auto& signatures = signature.servable->bundle->meta_graph_def().signature_def();
  auto found = signatures.find(signature.key);
  if (found == signatures.end()) {
    return errors::InvalidArgument("Serving signature name: \"", signature.key, "\" not found in signature def");
  }
  signature.def = &found->second;
  return signature;
}

Status ServedModel::Predict(const Signature& signature, const std::vector<std::pair<std::string, Tensor>>& inputs,
                            const std::vector<std::string>& output_filter,
                            std::vector<std::pair<std::string, Tensor>>* outputs) const {
  const std::string& method = signature.def->method_name();
  if (options_.enable_signature_method_name_check && method != kPredictMethodName && method != kClassifyMethodName &&
      method != kRegressMethodName) {
    return errors::Internal("Expected prediction signature method_name to be one of {", kPredictMethodName, ", ",
                            kClassifyMethodName, ", ", kRegressMethodName, "}. Was: ", method);
  }
  TA_RETURN_IF_ERROR(serving::CheckPredictInputsCount(*signature.def, inputs));
  for (const std::string& alias : output_filter) {
    if (!signature.def->outputs().count(alias)) {
      // TensorFlow Serving's words (predict_util.cc).
      return errors::InvalidArgument("output tensor alias not found in signature: ", alias,
                                     " Outputs expected to be in the set {", OutputAliases(*signature.def), "}.");
    }
  }
  return signature.servable->bundle->Run(signature.key, inputs, outputs, output_filter,
                                         RequestRunOptions(options_));
}

StatusOr<ServedModel::Signature> ServedModel::ExamplesSignature(const std::string& name,
                                                                std::optional<int64_t> version,
                                                                const std::optional<std::string>& label,
                                                                const std::string& signature_name,
                                                                bool classify) const {
  Signature signature;
  TA_ASSIGN_OR_RETURN(signature.servable, Find(name, version, label));
  signature.key = signature_name.empty() ? kDefaultServingSignatureDefKey : signature_name;
  const auto& signatures = signature.servable->bundle->meta_graph_def().signature_def();
  auto found = signatures.find(signature.key);
  if (found == signatures.end()) return errors::InvalidArgument("No signature was found with the name: ", signature.key);
  const bool check = options_.enable_signature_method_name_check;
  TA_RETURN_IF_ERROR(classify ? serving::CheckClassifySignature(found->second, check)
                              : serving::CheckRegressSignature(found->second, check));
  signature.def = &found->second;
  return signature;
}

Status ServedModel::ClassifyOrRegress(const Signature& signature, const Tensor& examples, bool classify,
                                      ExampleResults* results) const {
  std::vector<std::string> fetch;
  if (classify) {
    for (const char* k : {kClassifyOutputClasses, kClassifyOutputScores}) {
      if (signature.def->outputs().count(k)) fetch.push_back(k);
    }
  } else {
    fetch.push_back(kRegressOutputs);
  }
  std::vector<std::pair<std::string, Tensor>> outputs;
  TA_RETURN_IF_ERROR(signature.servable->bundle->Run(signature.key, {{kClassifyInputs, examples}}, &outputs, fetch,
                                                     RequestRunOptions(options_)));
  for (auto& [name, t] : outputs) {
    if (name == kClassifyOutputClasses) results->classes = std::move(t);
    if (name == kClassifyOutputScores) results->scores = std::move(t);
    if (name == kRegressOutputs) results->values = std::move(t);
  }
  if (!classify && !results->values) {
    return errors::InvalidArgument("Could not find output tensor '", kRegressOutputs, "'");
  }
  return Status::OK();
}

StatusOr<std::vector<serving::VersionStatus>> ServedModel::Statuses(const std::string& name,
                                                                    std::optional<int64_t> version) const {
  if (name.empty()) return errors::InvalidArgument("Missing model name in request.");
  std::vector<serving::VersionStatus> list;
  if (name == options_.model_name) list = versions_.Statuses(version);
  if (list.empty()) {
    if (version) return errors::NotFound("Could not find version ", *version, " of model ", name);
    return errors::NotFound("Could not find any versions of model ", name);
  }
  return list;
}

}  // namespace tensoract
