#include "bootstrap/graph_runner.h"

#include <sstream>

#include "actors/session.h"
#include "base/proto_io.h"

namespace tensoract {
namespace {

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::stringstream in(s);
  std::string part;
  while (std::getline(in, part, sep)) parts.push_back(part);
  return parts;
}

}  // namespace

StatusOr<Tensor> ParseFeedValue(const std::string& text) {
  std::string values = text, shape_text;
  if (size_t at = text.find('@'); at != std::string::npos) {
    values = text.substr(0, at);
    shape_text = text.substr(at + 1);
  }
  std::vector<float> v;
  for (const std::string& part : Split(values, ',')) {
    try {
      size_t used = 0;
      v.push_back(std::stof(part, &used));
      if (used != part.size()) throw std::invalid_argument(part);
    } catch (...) {
      return errors::InvalidArgument("feed value '", part, "' in '", text, "' is not a number");
    }
  }
  std::vector<int64_t> dims;
  if (shape_text.empty()) {
    dims.push_back(static_cast<int64_t>(v.size()));
  } else {
    for (const std::string& d : Split(shape_text, 'x')) {
      try {
        dims.push_back(std::stoll(d));
      } catch (...) {
        return errors::InvalidArgument("shape '", shape_text, "' in '", text, "' is not like 2x3");
      }
    }
  }
  TA_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::FromDims(dims));
  if (shape.num_elements() != static_cast<int64_t>(v.size())) {
    return errors::InvalidArgument("feed '", text, "' has ", v.size(), " values but shape ", shape.DebugString(),
                                   " holds ", shape.num_elements());
  }
  return Tensor::FromVector(v, shape);
}

StatusOr<GraphRunSpec> ParseGraphRunArgs(const std::vector<std::string>& args) {
  GraphRunSpec spec;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& flag = args[i];
    if (i + 1 >= args.size()) return errors::InvalidArgument("flag '", flag, "' needs a value");
    const std::string& value = args[++i];
    if (flag == "--graph") {
      spec.graph_path = value;
    } else if (flag == "--fetch") {
      spec.fetches.push_back(value);
    } else if (flag == "--target") {
      spec.targets.push_back(value);
    } else if (flag == "--feed") {
      size_t eq = value.find('=');
      if (eq == std::string::npos) return errors::InvalidArgument("--feed '", value, "' is not name=values");
      TA_ASSIGN_OR_RETURN(Tensor t, ParseFeedValue(value.substr(eq + 1)));
      spec.feeds.emplace_back(value.substr(0, eq), t);
    } else {
      return errors::InvalidArgument("unknown flag '", flag, "' (known: --graph --feed --fetch --target)");
    }
  }
  if (spec.graph_path.empty()) return errors::InvalidArgument("--graph is required");
  return spec;
}

Status RunGraphFile(const GraphRunSpec& spec, std::ostream& out) {
  tensorflow::GraphDef graph;
  TA_RETURN_IF_ERROR(ReadProto(spec.graph_path, &graph));
  TA_ASSIGN_OR_RETURN(auto session, Session::New());
  TA_RETURN_IF_ERROR(session->Create(graph));
  std::vector<Tensor> outputs;
  TA_RETURN_IF_ERROR(session->Run(spec.feeds, spec.fetches, spec.targets, &outputs));
  for (size_t i = 0; i < outputs.size(); ++i) {
    out << spec.fetches[i] << " = " << outputs[i].DebugString(100) << "\n";
  }
  return Status::OK();
}

}  // namespace tensoract
