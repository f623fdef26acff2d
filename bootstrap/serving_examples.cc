#include "bootstrap/serving_examples.h"

#include <utility>
#include <vector>

#include "messages/example.pb.h"

namespace tensoract {
namespace serving {
namespace {

using tensorflow::Feature;
using tensorflow::SignatureDef;

// TensorFlow's names, as client/saved_model.h has them: the JSON pieces build and test
// without the client layer.
constexpr char kClassifyMethod[] = "tensorflow/serving/classify";
constexpr char kRegressMethod[] = "tensorflow/serving/regress";

Status FeatureKindError(const std::string& name, const Feature& feature) {
  const char* kind = "UNKNOWN";
  switch (feature.kind_case()) {
    case Feature::kBytesList: kind = "bytes"; break;
    case Feature::kFloatList: kind = "float"; break;
    case Feature::kInt64List: kind = "int64"; break;
    default: break;
  }
  return errors::InvalidArgument("Unexpected element type in feature: ", name, " expecting type: ", kind);
}

// A feature's values are all of one kind: the first value decides.
bool IsFeatureOfKind(const Feature& feature, Feature::KindCase kind) {
  return feature.kind_case() == Feature::KIND_NOT_SET || feature.kind_case() == kind;
}

Status AddValueToFeature(const rapidjson::Value& val, const std::string& name, Feature* feature) {
  auto unexpected = [&] {
    return errors::InvalidArgument("Feature: ", name, " has element with unexpected JSON type: ", JsonTypeString(val));
  };
  switch (val.GetType()) {
    case rapidjson::kFalseType:
    case rapidjson::kTrueType:
      if (!IsFeatureOfKind(*feature, Feature::kInt64List)) return FeatureKindError(name, *feature);
      feature->mutable_int64_list()->add_value(val.GetBool() ? 1 : 0);
      return Status::OK();
    case rapidjson::kObjectType:
      if (!IsBase64Object(val)) return unexpected();
      if (!IsFeatureOfKind(*feature, Feature::kBytesList)) return FeatureKindError(name, *feature);
      return DecodeBase64Object(val, feature->mutable_bytes_list()->add_value());
    case rapidjson::kStringType:
      if (!IsFeatureOfKind(*feature, Feature::kBytesList)) return FeatureKindError(name, *feature);
      feature->mutable_bytes_list()->add_value(StringValue(val));
      return Status::OK();
    case rapidjson::kNumberType:
      if (val.IsDouble()) {
        if (!IsFeatureOfKind(*feature, Feature::kFloatList)) return FeatureKindError(name, *feature);
        feature->mutable_float_list()->add_value(val.GetFloat());
        return Status::OK();
      }
      if (!IsFeatureOfKind(*feature, Feature::kInt64List)) return FeatureKindError(name, *feature);
      if (!val.IsInt64()) {
        return errors::InvalidArgument("Feature: ", name, " has uint64_t element. Only int64_t is supported.");
      }
      feature->mutable_int64_list()->add_value(val.GetInt64());
      return Status::OK();
    default:  // null, a nested list
      return unexpected();
  }
}

// A repeated feature name: the last one counts, as TensorFlow Serving assigns each in turn.
Status MakeExample(const rapidjson::Value& val, tensorflow::Example* example) {
  if (!val.IsObject()) {
    return errors::InvalidArgument("Example must be JSON object but got JSON ", JsonTypeString(val));
  }
  for (const auto& member : val.GetObject()) {
    const std::string name = StringValue(member.name);
    const rapidjson::Value& content = member.value;
    Feature feature;
    if (content.IsArray()) {
      for (const rapidjson::Value& v : content.GetArray()) TA_RETURN_IF_ERROR(AddValueToFeature(v, name, &feature));
    } else {
      TA_RETURN_IF_ERROR(AddValueToFeature(content, name, &feature));
    }
    (*example->mutable_features()->mutable_feature())[name] = std::move(feature);
  }
  return Status::OK();
}

}  // namespace

StatusOr<Tensor> ExamplesFromJson(const rapidjson::Value& request) {
  std::string context;
  bool has_context = false;
  auto ctx = request.FindMember("context");
  if (ctx != request.MemberEnd()) {
    tensorflow::Example example;
    TA_RETURN_IF_ERROR(MakeExample(ctx->value, &example));
    context = example.SerializeAsString();
    has_context = true;
  }
  auto examples = request.FindMember("examples");
  if (examples == request.MemberEnd()) {
    // TensorFlow Serving says "classify" for regress requests as well.
    return JsonFormatError(request, "When method is classify, key 'examples' is expected and was not found");
  }
  if (!examples->value.IsArray()) return JsonFormatError(request, "Expecting 'examples' value to be an list/array");
  if (examples->value.Empty()) return JsonFormatError(request, "'examples' value is an empty array");
  std::vector<std::string> serialized;
  for (const rapidjson::Value& e : examples->value.GetArray()) {
    tensorflow::Example example;
    TA_RETURN_IF_ERROR(MakeExample(e, &example));
    // The context's features followed by the example's: parsing the concatenation merges
    // them, the example's own value winning (what TensorFlow Serving feeds).
    serialized.push_back(has_context ? context + example.SerializeAsString() : example.SerializeAsString());
  }
  Tensor t(tensorflow::DT_STRING, TensorShape({static_cast<int64_t>(serialized.size())}));
  for (size_t i = 0; i < serialized.size(); ++i) t.base<std::string>()[i] = std::move(serialized[i]);
  return t;
}

Status CheckClassifySignature(const SignatureDef& signature, bool check_method_name) {
  if (check_method_name && signature.method_name() != kClassifyMethod) {
    return errors::InvalidArgument("Expected classification signature method_name to be ", kClassifyMethod,
                                   ". Was: ", signature.method_name());
  }
  if (signature.inputs().size() != 1) return errors::InvalidArgument("Expected one input Tensor.");
  if (signature.outputs().size() != 1 && signature.outputs().size() != 2) {
    return errors::InvalidArgument("Expected one or two output Tensors, found ", signature.outputs().size());
  }
  if (!signature.inputs().count("inputs")) {
    return errors::InvalidArgument("No classification inputs found in SignatureDef: ", signature.DebugString());
  }
  if (!signature.outputs().count("classes") && !signature.outputs().count("scores")) {
    return errors::InvalidArgument(
        "Expected classification signature outputs to contain at least one of \"classes\" or \"scores\". "
        "Signature was: ",
        signature.DebugString());
  }
  return Status::OK();
}

Status CheckRegressSignature(const SignatureDef& signature, bool check_method_name) {
  if (check_method_name && signature.method_name() != kRegressMethod) {
    return errors::InvalidArgument("Expected regression signature method_name to be ", kRegressMethod,
                                   ". Was: ", signature.method_name());
  }
  if (signature.inputs().size() != 1) return errors::InvalidArgument("Expected one input Tensor.");
  if (signature.outputs().size() != 1) return errors::InvalidArgument("Expected one output Tensor.");
  if (!signature.inputs().count("inputs")) {
    return errors::InvalidArgument("No regression inputs found in SignatureDef: ", signature.DebugString());
  }
  if (!signature.outputs().count("outputs")) {
    return errors::InvalidArgument("No regression outputs found in SignatureDef: ", signature.DebugString());
  }
  return Status::OK();
}

StatusOr<int64_t> CheckClassifyOutputs(const Tensor* classes, const Tensor* scores, int64_t num_examples) {
  auto check = [num_examples](const Tensor* t, DataType dtype, const char* what) -> Status {
    if (t == nullptr) return Status::OK();
    if (t->dims() != 2) {
      return errors::InvalidArgument("Expected Tensor shape: [batch_size num_classes] but got ",
                                     t->shape().DebugString());
    }
    if (t->dtype() != dtype) {
      return errors::InvalidArgument("Expected ", what, " Tensor of ", tensorflow::DataType_Name(dtype),
                                     ". Got: ", tensorflow::DataType_Name(t->dtype()));
    }
    if (t->dim_size(0) != num_examples) {
      return errors::InvalidArgument("Expected ", what, " output batch size of ", num_examples, ". Got: ",
                                     t->dim_size(0));
    }
    return Status::OK();
  };
  TA_RETURN_IF_ERROR(check(classes, tensorflow::DT_STRING, "classes"));
  TA_RETURN_IF_ERROR(check(scores, tensorflow::DT_FLOAT, "scores"));
  int64_t num_classes = 0;
  if (classes && scores) {
    if (classes->dim_size(1) != scores->dim_size(1)) {
      return errors::InvalidArgument("Tensors class and score should match in dim_size(1). Got ",
                                     classes->dim_size(1), " vs. ", scores->dim_size(1));
    }
    num_classes = classes->dim_size(1);
  } else if (classes) {
    num_classes = classes->dim_size(1);
  } else if (scores) {
    num_classes = scores->dim_size(1);
  }
  return num_classes;
}

StatusOr<std::string> ClassifyResponseJson(const Tensor* classes, const Tensor* scores, int64_t num_examples) {
  TA_ASSIGN_OR_RETURN(const int64_t num_classes, CheckClassifyOutputs(classes, scores, num_examples));
  if (num_examples == 0) return errors::InvalidArgument("Cannot convert empty ClassificationResults to JSON");
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  w.Key("results");
  w.StartArray();
  for (int64_t i = 0; i < num_examples; ++i) {
    // One line per example.
    w.SetFormatOptions(rapidjson::kFormatSingleLineArray);
    w.StartArray();
    for (int64_t c = 0; c < num_classes; ++c) {
      const int64_t at = i * num_classes + c;
      w.StartArray();
      if (classes) {
        const std::string& label = classes->base<std::string>()[at];
        w.String(label.data(), static_cast<rapidjson::SizeType>(label.size()));
      } else {
        w.String("");
      }
      WriteJsonDecimal(scores ? scores->base<float>()[at] : 0.0f, &w);
      w.EndArray();
    }
    w.EndArray();
    w.SetFormatOptions(rapidjson::kFormatDefault);
  }
  w.EndArray();
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

Status CheckRegressOutputs(const Tensor& outputs, int64_t num_examples) {
  if (!(outputs.dims() == 1 || (outputs.dims() == 2 && outputs.dim_size(1) == 1))) {
    return errors::InvalidArgument("Expected output Tensor shape to be either [batch_size] or [batch_size, 1] but got ",
                                   outputs.shape().DebugString());
  }
  if (num_examples != outputs.dim_size(0)) {
    return errors::InvalidArgument("Input batch size did not match output batch size: ", num_examples, " vs. ",
                                   outputs.dim_size(0));
  }
  if (outputs.dtype() != tensorflow::DT_FLOAT) {
    return errors::InvalidArgument("Expected output Tensor of DT_FLOAT.  Got: ",
                                   tensorflow::DataType_Name(outputs.dtype()));
  }
  if (outputs.NumElements() != num_examples) {
    return errors::InvalidArgument("Expected output batch size to be ", num_examples,
                                   ".  Got: ", outputs.NumElements());
  }
  return Status::OK();
}

StatusOr<std::string> RegressResponseJson(const Tensor& outputs, int64_t num_examples) {
  TA_RETURN_IF_ERROR(CheckRegressOutputs(outputs, num_examples));
  if (num_examples == 0) return errors::InvalidArgument("Cannot convert empty RegressionResults to JSON");
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  w.Key("results");
  w.SetFormatOptions(rapidjson::kFormatSingleLineArray);
  w.StartArray();
  for (int64_t i = 0; i < num_examples; ++i) WriteJsonDecimal(outputs.base<float>()[i], &w);
  w.EndArray();
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace serving
}  // namespace tensoract
