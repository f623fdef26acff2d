// Reading and writing protocol buffers as bytes, text (pbtxt) and files, with errors that
// say which message, which file and where the text went wrong.
#ifndef TENSORACT_BASE_PROTO_IO_H_
#define TENSORACT_BASE_PROTO_IO_H_

#include <string>

#include <google/protobuf/message.h>

#include "base/status.h"

namespace tensoract {

// InvalidArgument naming the message type when the bytes are truncated or not that message.
Status ParseBinaryProto(const std::string& bytes, google::protobuf::Message* message);
// InvalidArgument with the line and column of the first error.
Status ParseTextProto(const std::string& text, google::protobuf::Message* message);
std::string ToTextProto(const google::protobuf::Message& message);

Status ReadFileToString(const std::string& path, std::string* contents);
Status WriteStringToFile(const std::string& path, const std::string& contents);

Status ReadBinaryProto(const std::string& path, google::protobuf::Message* message);
Status ReadTextProto(const std::string& path, google::protobuf::Message* message);
// Whether a path names a text-format proto: it ends in .pbtxt or .txt (TensorFlow's rule).
bool IsTextProtoPath(const std::string& path);
// Text when IsTextProtoPath, binary otherwise.
Status ReadProto(const std::string& path, google::protobuf::Message* message);
Status WriteBinaryProto(const std::string& path, const google::protobuf::Message& message);
Status WriteTextProto(const std::string& path, const google::protobuf::Message& message);

}  // namespace tensoract

#endif  // TENSORACT_BASE_PROTO_IO_H_
