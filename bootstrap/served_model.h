// ServedModel: one model's versions (bootstrap/servable_versions.h) and what TensorFlow
// Serving's requests do with them, whatever they came over. The REST API
// (bootstrap/model_server.h) and the gRPC API (bootstrap/serving_grpc.h) both call it, so
// they find versions and signatures, check them and word their errors alike.
//
// Thread-safe: every method may be called from any number of threads at once.
#ifndef TENSORACT_BOOTSTRAP_SERVED_MODEL_H_
#define TENSORACT_BOOTSTRAP_SERVED_MODEL_H_

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "bootstrap/servable_versions.h"
#include "bootstrap/serving_status.h"
#include "kernels/tensor.h"
#include "messages/meta_graph.pb.h"

namespace tensoract {

struct ServedModelOptions {
  std::string model_name;
  std::string model_base_path;
  int64_t timeout_ms = 30000;  // each request's step deadline; 0: none
  // TensorFlow Serving's --enable_signature_method_name_check: classify and regress want
  // signatures of those methods (by default: of that shape); predict wants one of the three.
  bool enable_signature_method_name_check = false;
  bool bfloat16_products = false;     // GraphOptimizerOptions::bfloat16_products
  bool bfloat16_activations = false;  // GraphOptimizerOptions::bfloat16_activations
  bool int8_products = false;         // GraphOptimizerOptions::int8_products
};

class ServedModel {
 public:
  explicit ServedModel(ServedModelOptions options);
  const std::string& name() const { return options_.model_name; }
  ServableVersions& versions() { return versions_; }
  const ServableVersions& versions() const { return versions_; }

  // The version a request names (the newest when none), or NotFound in TensorFlow
  // Serving's words. A version label is refused: one model from a base path has none.
  StatusOr<std::shared_ptr<Servable>> Find(const std::string& name, std::optional<int64_t> version,
                                           const std::optional<std::string>& label) const;

  // A signature of the version a request names: "" is serving_default.
  struct Signature {
    std::shared_ptr<Servable> servable;
    std::string key;
    const tensorflow::SignatureDef* def = nullptr;  // the servable's
  };
  StatusOr<Signature> PredictSignature(const std::string& name, std::optional<int64_t> version,
                                       const std::optional<std::string>& label,
                                       const std::string& signature_name) const;
  // Runs it on `inputs` (by input alias) for the aliases in `output_filter` (empty: every
  // output), after the method name check and the inputs' count.
  Status Predict(const Signature& signature, const std::vector<std::pair<std::string, Tensor>>& inputs,
                 const std::vector<std::string>& output_filter,
                 std::vector<std::pair<std::string, Tensor>>* outputs) const;

  // Classify and regress: a signature over serialized tf.Examples.
  StatusOr<Signature> ExamplesSignature(const std::string& name, std::optional<int64_t> version,
                                        const std::optional<std::string>& label, const std::string& signature_name,
                                        bool classify) const;
  struct ExampleResults {
    std::optional<Tensor> classes, scores;  // classify: what the signature has of them
    std::optional<Tensor> values;           // regress
  };
  Status ClassifyOrRegress(const Signature& signature, const Tensor& examples, bool classify,
                           ExampleResults* results) const;

  // The versions' states (one version's, when given), or NotFound.
  StatusOr<std::vector<serving::VersionStatus>> Statuses(const std::string& name,
                                                         std::optional<int64_t> version) const;

 private:
  const ServedModelOptions options_;
  ServableVersions versions_;
};

}  // namespace tensoract

#endif  // TENSORACT_BOOTSTRAP_SERVED_MODEL_H_
