#include "tests/messages/round_trip_util.h"

#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/util/message_differencer.h>

#include <catch2/catch.hpp>
#include <memory>

#include "base/proto_io.h"
#include "base/status.h"

namespace tensoract {
namespace testing {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::util::MessageDifferencer;

void RequireRoundTrips(const Message& original) {
  INFO("message type " << original.GetTypeName());
  REQUIRE(original.ByteSizeLong() > 0);  // a default message would prove nothing
  std::string bytes;
  REQUIRE(original.SerializeToString(&bytes));
  std::unique_ptr<Message> from_bytes(original.New());
  Status binary = ParseBinaryProto(bytes, from_bytes.get());
  INFO(binary);
  REQUIRE(binary.ok());
  CHECK(MessageDifferencer::Equals(original, *from_bytes));
  CHECK(from_bytes->GetReflection()->GetUnknownFields(*from_bytes).empty());
  std::string again;
  REQUIRE(from_bytes->SerializeToString(&again));
  CHECK(again.size() == bytes.size());

  std::string text = ToTextProto(original);
  std::unique_ptr<Message> from_text(original.New());
  Status parsed = ParseTextProto(text, from_text.get());
  INFO("text form:\n" << text << "\n" << parsed);
  REQUIRE(parsed.ok());
  CHECK(MessageDifferencer::Equals(original, *from_text));
}

void CollectSetFields(const Message& m, std::set<std::string>* seen) {
  const auto* reflection = m.GetReflection();
  std::vector<const FieldDescriptor*> fields;
  reflection->ListFields(m, &fields);
  for (const FieldDescriptor* f : fields) {
    seen->insert(f->full_name());
    if (f->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) continue;
    if (f->is_repeated()) {
      for (int i = 0; i < reflection->FieldSize(m, f); ++i) {
        CollectSetFields(reflection->GetRepeatedMessage(m, f, i), seen);
      }
    } else {
      CollectSetFields(reflection->GetMessage(m, f), seen);
    }
  }
}

void CollectDeclaredFields(const Descriptor* d, std::vector<std::string>* out) {
  if (d->options().map_entry()) return;
  for (int i = 0; i < d->field_count(); ++i) out->push_back(d->field(i)->full_name());
  for (int i = 0; i < d->nested_type_count(); ++i) CollectDeclaredFields(d->nested_type(i), out);
}

}  // namespace testing
}  // namespace tensoract
