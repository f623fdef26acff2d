#include "base/proto_io.h"

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace tensoract {
namespace {

// Keeps the first parse error of a text proto, with its position.
class FirstError : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, int column, const std::string& message) override {
    if (error_.empty()) error_ = StrCat("line ", line + 1, " column ", column + 1, ": ", message);
  }
  const std::string& error() const { return error_; }

 private:
  std::string error_;
};

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

Status ParseBinaryProto(const std::string& bytes, google::protobuf::Message* message) {
  if (!message->ParseFromString(bytes)) {
    return errors::InvalidArgument("could not parse a ", message->GetTypeName(), " from ", bytes.size(),
                                   " bytes: they are truncated or not a serialized ", message->GetTypeName());
  }
  return Status::OK();
}

Status ParseTextProto(const std::string& text, google::protobuf::Message* message) {
  google::protobuf::TextFormat::Parser parser;
  FirstError errors;
  parser.RecordErrorsTo(&errors);
  if (!parser.ParseFromString(text, message)) {
    return errors::InvalidArgument("could not parse a ", message->GetTypeName(), " from text: ", errors.error());
  }
  return Status::OK();
}

std::string ToTextProto(const google::protobuf::Message& message) {
  std::string out;
  google::protobuf::TextFormat::PrintToString(message, &out);
  return out;
}

Status ReadFileToString(const std::string& path, std::string* contents) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return errors::NotFound("cannot open '", path, "': ", std::strerror(errno));
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) return errors::DataLoss("error reading '", path, "'");
  *contents = buf.str();
  return Status::OK();
}

Status WriteStringToFile(const std::string& path, const std::string& contents) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return errors::PermissionDenied("cannot write '", path, "': ", std::strerror(errno));
  out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
  out.close();
  if (!out) return errors::DataLoss("error writing '", path, "'");
  return Status::OK();
}

Status ReadBinaryProto(const std::string& path, google::protobuf::Message* message) {
  std::string bytes;
  TA_RETURN_IF_ERROR(ReadFileToString(path, &bytes));
  return ParseBinaryProto(bytes, message).WithContext(path);
}

Status ReadTextProto(const std::string& path, google::protobuf::Message* message) {
  std::string text;
  TA_RETURN_IF_ERROR(ReadFileToString(path, &text));
  return ParseTextProto(text, message).WithContext(path);
}

bool IsTextProtoPath(const std::string& path) { return EndsWith(path, ".pbtxt") || EndsWith(path, ".txt"); }

Status ReadProto(const std::string& path, google::protobuf::Message* message) {
  if (IsTextProtoPath(path)) return ReadTextProto(path, message);
  return ReadBinaryProto(path, message);
}

Status WriteBinaryProto(const std::string& path, const google::protobuf::Message& message) {
  std::string bytes;
  if (!message.SerializeToString(&bytes)) {
    return errors::Internal("could not serialize a ", message.GetTypeName(), " for '", path, "'");
  }
  return WriteStringToFile(path, bytes);
}

Status WriteTextProto(const std::string& path, const google::protobuf::Message& message) {
  return WriteStringToFile(path, ToTextProto(message));
}

}  // namespace tensoract
