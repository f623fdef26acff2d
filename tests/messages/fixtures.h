// Message fixtures: every field of every message in messages/*.proto set to something
// other than its default, for the round-trip tests.
#ifndef TENSORACT_TESTS_MESSAGES_FIXTURES_H_
#define TENSORACT_TESTS_MESSAGES_FIXTURES_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <google/protobuf/message.h>

#include "messages/attr_value.pb.h"
#include "messages/device_attributes.pb.h"
#include "messages/full_type.pb.h"
#include "messages/function.pb.h"
#include "messages/graph.pb.h"
#include "messages/graph_debug_info.pb.h"
#include "messages/node_def.pb.h"
#include "messages/op_def.pb.h"
#include "messages/resource_handle.pb.h"
#include "messages/tensor.pb.h"
#include "messages/tensor_shape.pb.h"
#include "messages/types.pb.h"
#include "messages/versions.pb.h"

namespace tensoract {
namespace testing {

namespace tf = ::tensorflow;
using google::protobuf::Message;

// Bytes no printer would leave alone: NUL, high bit, quote, backslash, newline, DEL.
extern const std::string kAwkwardBytes;

tf::TensorShapeProto Shape(std::vector<int64_t> dims);
tf::TensorShapeProto NamedPartialShape();
tf::TensorShapeProto UnknownRankShape();
tf::FullTypeDef FullType();
tf::ResourceHandleProto Handle();
tf::TensorProto FloatTensor();
std::vector<std::pair<std::string, tf::TensorProto>> TypedTensors();
tf::NameAttrList Func();
std::vector<std::pair<std::string, tf::AttrValue>> Attrs();
tf::NodeDef Node();
tf::VersionDef Versions();
tf::OpDef FancyOp();
tf::FunctionDef Function();
tf::FunctionDefLibrary Library();
tf::GraphDebugInfo DebugInfo();
tf::GraphDef Graph();
tf::DeviceAttributes Device();
std::vector<std::pair<std::string, std::shared_ptr<Message>>> AllFixtures();

}  // namespace testing
}  // namespace tensoract

#endif  // TENSORACT_TESTS_MESSAGES_FIXTURES_H_
