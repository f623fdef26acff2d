#include "bootstrap/tf_config.h"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

namespace tensoract {
namespace {

Status Bad(const std::string& field, const std::string& why) {
  return errors::InvalidArgument("TF_CONFIG: ", field, ": ", why);
}

// The cluster spec's one-line form ("chief=h:1;worker=h:2,h:3"), to be parsed (and its
// addresses checked) by ClusterSpec::Parse.
StatusOr<std::string> SpecText(const rapidjson::Value& cluster) {
  if (!cluster.IsObject()) return Bad("cluster", "must be an object of job name -> list of \"host:port\"");
  if (cluster.MemberCount() == 0) return Bad("cluster", "has no jobs");
  std::string text;
  for (const auto& job : cluster.GetObject()) {
    const std::string name = job.name.GetString();
    const std::string field = "cluster." + name;
    if (name.empty() || name.find_first_of("=;, \t/:") != std::string::npos) {
      return Bad(field, "'" + name + "' is not a job name");
    }
    if (job.value.IsObject()) {
      return Bad(field, "sparse jobs (an object of task index -> address) are not supported; list every task");
    }
    if (!job.value.IsArray() || job.value.Empty()) return Bad(field, "must be a non-empty list of \"host:port\"");
    text += (text.empty() ? "" : ";") + name + "=";
    for (rapidjson::SizeType i = 0; i < job.value.Size(); ++i) {
      const rapidjson::Value& address = job.value[i];
      if (!address.IsString()) return Bad(StrCat(field, "[", i, "]"), "must be a \"host:port\" string");
      const std::string a = address.GetString();
      if (a.find_first_of(",;=") != std::string::npos) return Bad(StrCat(field, "[", i, "]"), "'" + a + "' is not host:port");
      text += (i ? "," : "") + a;
    }
  }
  return text;
}

}  // namespace

StatusOr<TfConfig> ParseTfConfig(std::string_view json) {
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError()) {
    return errors::InvalidArgument("TF_CONFIG: not JSON: ", rapidjson::GetParseError_En(doc.GetParseError()),
                                   " at offset ", doc.GetErrorOffset());
  }
  if (!doc.IsObject()) return Bad("(top level)", "must be an object with \"cluster\" and \"task\"");
  auto cluster = doc.FindMember("cluster");
  if (cluster == doc.MemberEnd()) return Bad("cluster", "missing");
  auto task = doc.FindMember("task");
  if (task == doc.MemberEnd()) return Bad("task", "missing");
  if (!task->value.IsObject()) return Bad("task", "must be an object {\"type\": job, \"index\": n}");
  auto type = task->value.FindMember("type");
  if (type == task->value.MemberEnd() || !type->value.IsString() || type->value.GetStringLength() == 0) {
    return Bad("task.type", "missing or not a job name");
  }
  auto index = task->value.FindMember("index");
  if (index == task->value.MemberEnd() || !index->value.IsInt() || index->value.GetInt() < 0) {
    return Bad("task.index", "missing or not a whole number of at least 0");
  }

  TfConfig config;
  TA_ASSIGN_OR_RETURN(std::string spec, SpecText(cluster->value));
  auto parsed = ClusterSpec::Parse(spec);
  if (!parsed.ok()) return Bad("cluster", parsed.status().message());
  config.cluster = std::move(parsed).value();
  config.job = type->value.GetString();
  config.task = index->value.GetInt();
  if (config.job == "evaluator" && config.cluster.num_tasks("evaluator") == 0) {
    return Bad("task.type", "an evaluator runs outside the cluster (as in TensorFlow); tensoract-node runs "
                            "the cluster's tasks only");
  }
  auto address = config.cluster.Task(config.job, config.task);
  if (!address.ok()) return Bad("task", address.status().message());
  return config;
}

}  // namespace tensoract
