#include "bootstrap/serving_status.h"

#include <google/protobuf/util/json_util.h>

#include <algorithm>

#include "bootstrap/serving_json_dialect.h"

namespace tensoract {
namespace serving {
namespace {

// TensorFlow Serving prints these responses with protobuf's JSON printer and its
// add_whitespace option, which indents by one space.
void IndentAsProtobuf(JsonWriter* w) { w->SetIndent(' ', 1); }

void WriteString(const std::string& s, JsonWriter* w) {
  w->String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

std::string Text(const rapidjson::StringBuffer& buffer) { return std::string(buffer.GetString(), buffer.GetSize()); }

}  // namespace

std::string ModelStatusJson(const std::vector<VersionStatus>& versions) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  IndentAsProtobuf(&w);
  w.StartObject();
  w.Key("model_version_status");
  w.StartArray();
  for (const VersionStatus& v : versions) {
    w.StartObject();
    w.Key("version");
    WriteString(std::to_string(v.version), &w);  // protobuf's JSON writes int64 as a string
    w.Key("state");
    WriteString(v.state, &w);
    w.Key("status");
    w.StartObject();
    w.Key("error_code");
    WriteString(ErrorCodeName(v.status.code()), &w);
    w.Key("error_message");
    WriteString(v.status.message(), &w);
    w.EndObject();
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return Text(buffer);
}

StatusOr<std::string> ModelMetadataJson(const std::string& model_name, int64_t version,
                                        const tensorflow::MetaGraphDef& meta_graph) {
  google::protobuf::util::JsonPrintOptions options;
  options.always_print_primitive_fields = true;
  options.preserve_proto_field_names = true;
  std::vector<std::string> keys;
  for (const auto& [key, sig] : meta_graph.signature_def()) keys.push_back(key);
  std::sort(keys.begin(), keys.end());

  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  IndentAsProtobuf(&w);
  w.StartObject();
  w.Key("model_spec");
  w.StartObject();
  w.Key("name");
  WriteString(model_name, &w);
  w.Key("signature_name");
  w.String("");
  w.Key("version");
  WriteString(std::to_string(version), &w);
  w.EndObject();
  w.Key("metadata");
  w.StartObject();
  w.Key("signature_def");
  w.StartObject();
  w.Key("signature_def");
  w.StartObject();
  for (const std::string& key : keys) {
    std::string text;
    auto status = google::protobuf::util::MessageToJsonString(meta_graph.signature_def().at(key), &text, options);
    if (!status.ok()) {
      return errors::Internal("Failed to convert signature def proto to json. Error: ", status.ToString());
    }
    // Read back and written again, so that it is indented with the rest.
    rapidjson::Document signature;
    if (signature.Parse(text.data(), text.size()).HasParseError()) {
      return errors::Internal("Failed to convert signature def '", key, "' to json");
    }
    w.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
    signature.Accept(w);
  }
  w.EndObject();
  w.EndObject();
  w.EndObject();
  w.EndObject();
  return Text(buffer);
}

std::string ErrorJson(const Status& status) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  w.Key("error");
  WriteString(status.message(), &w);
  w.EndObject();
  return Text(buffer);
}

int HttpStatusFor(const Status& status) {
  switch (status.code()) {
    case error::OK: return 200;
    case error::CANCELLED: return 499;
    case error::INVALID_ARGUMENT: return 400;
    case error::DEADLINE_EXCEEDED: return 504;
    case error::NOT_FOUND: return 404;
    case error::ALREADY_EXISTS: return 409;
    case error::PERMISSION_DENIED: return 403;
    case error::RESOURCE_EXHAUSTED: return 429;
    case error::FAILED_PRECONDITION: return 400;
    case error::ABORTED: return 409;
    case error::OUT_OF_RANGE: return 400;
    case error::UNIMPLEMENTED: return 501;
    case error::UNAVAILABLE: return 503;
    case error::UNAUTHENTICATED: return 401;
    default: return 500;  // UNKNOWN, INTERNAL, DATA_LOSS
  }
}

}  // namespace serving
}  // namespace tensoract
