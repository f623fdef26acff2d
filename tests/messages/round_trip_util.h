// Checks shared by the message tests: a message survives bytes and text unchanged, and
// which fields a message sets or its type declares (to prove the fixtures set them all).
#ifndef TENSORACT_TESTS_MESSAGES_ROUND_TRIP_UTIL_H_
#define TENSORACT_TESTS_MESSAGES_ROUND_TRIP_UTIL_H_

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>

#include <set>
#include <string>
#include <vector>

namespace tensoract {
namespace testing {

// Bytes and text of `original` parse back into messages equal to it, field for field, with
// no unknown fields (every byte meant something to the schema) and the same byte size.
void RequireRoundTrips(const google::protobuf::Message& original);

// Every field set anywhere inside `m`, as "tensorflow.Message.field".
void CollectSetFields(const google::protobuf::Message& m, std::set<std::string>* seen);

// Every field `d` and its nested types declare (map entries' key and value are covered by
// the map field itself).
void CollectDeclaredFields(const google::protobuf::Descriptor* d, std::vector<std::string>* out);

}  // namespace testing
}  // namespace tensoract

#endif  // TENSORACT_TESTS_MESSAGES_ROUND_TRIP_UTIL_H_
