// Device names and partial specifications as TensorFlow writes them: parsed, written back
// in canonical form, matched as constraints and merged.
#include <catch2/catch.hpp>
#include <string>

#include "graph/device_name.h"

namespace tensoract {
namespace {

using Catch::Matchers::Contains;

ParsedDeviceName Parse(const std::string& s) {
  ParsedDeviceName p;
  INFO(s);
  REQUIRE(ParseDeviceName(s, &p));
  return p;
}

TEST_CASE("a full device name parses into all five parts and is complete", "[device_name]") {
  ParsedDeviceName p = Parse("/job:worker/replica:0/task:1/device:CPU:0");
  CHECK(p.has_job);
  CHECK(p.job == "worker");
  CHECK(p.has_replica);
  CHECK(p.replica == 0);
  CHECK(p.has_task);
  CHECK(p.task == 1);
  CHECK(p.has_type);
  CHECK(p.type == "CPU");
  CHECK(p.has_id);
  CHECK(p.id == 0);
  CHECK(IsCompleteName(p));
  CHECK(DeviceNameString(p) == "/job:worker/replica:0/task:1/device:CPU:0");
}

TEST_CASE("partial names are constraints with only the parts given", "[device_name]") {
  ParsedDeviceName ps = Parse("/job:ps");
  CHECK(ps.has_job);
  CHECK_FALSE(ps.has_task);
  CHECK_FALSE(ps.has_type);
  CHECK_FALSE(IsCompleteName(ps));
  CHECK(DeviceNameString(ps) == "/job:ps");

  ParsedDeviceName any_gpu = Parse("/device:GPU:*");
  CHECK(any_gpu.has_type);
  CHECK(any_gpu.type == "GPU");
  CHECK_FALSE(any_gpu.has_id);
  CHECK(DeviceNameString(any_gpu) == "/device:GPU:*");

  ParsedDeviceName just_type = Parse("/device:GPU");
  CHECK(just_type == any_gpu);

  ParsedDeviceName any_task = Parse("/job:worker/task:*");
  CHECK(any_task.has_job);
  CHECK_FALSE(any_task.has_task);

  ParsedDeviceName id_only = Parse("/device:*:3");
  CHECK_FALSE(id_only.has_type);
  CHECK(id_only.has_id);
  CHECK(DeviceNameString(id_only) == "/device:*:3");
}

TEST_CASE("the empty name constrains nothing", "[device_name]") {
  ParsedDeviceName p = Parse("");
  CHECK(p.IsEmpty());
  CHECK(DeviceNameString(p) == "");
  CHECK(Parse("/").IsEmpty());
}

TEST_CASE("legacy /cpu:0 and /gpu:1 and lowercase types read as CPU and GPU", "[device_name]") {
  CHECK(DeviceNameString(Parse("/cpu:0")) == "/device:CPU:0");
  CHECK(DeviceNameString(Parse("/gpu:1")) == "/device:GPU:1");
  CHECK(DeviceNameString(Parse("/GPU:*")) == "/device:GPU:*");
  CHECK(DeviceNameString(Parse("/job:localhost/replica:0/task:0/cpu:0")) ==
        "/job:localhost/replica:0/task:0/device:CPU:0");
  CHECK(DeviceNameString(Parse("/device:gpu:2")) == "/device:GPU:2");
  // Other device types keep their spelling.
  CHECK(DeviceNameString(Parse("/device:XLA_CPU:0")) == "/device:XLA_CPU:0");
}

TEST_CASE("parts in another order parse and print in canonical order", "[device_name]") {
  CHECK(DeviceNameString(Parse("/device:CPU:0/task:2/job:w")) == "/job:w/task:2/device:CPU:0");
}

TEST_CASE("malformed names do not parse and the error quotes them", "[device_name]") {
  for (const char* bad : {"cpu:0", "/job:", "/job:1abc", "/replica:x", "/task:-1", "/device:CPU:0:1", "/gpu",
                          "/device:", "/job:w//task:0", "/foo:0", "/device:CPU:a", "/task:99999999999"}) {
    ParsedDeviceName p;
    INFO(bad);
    CHECK_FALSE(ParseDeviceName(bad, &p));
    Status s = ParseDeviceSpec(bad, &p);
    CHECK(s.code() == error::INVALID_ARGUMENT);
    CHECK_THAT(s.message(), Contains(std::string("'") + bad + "'"));
  }
}

TEST_CASE("a full name matches the partial specs it satisfies", "[device_name]") {
  ParsedDeviceName dev = Parse("/job:worker/replica:0/task:1/device:GPU:0");
  CHECK(IsSpecification(Parse(""), dev));
  CHECK(IsSpecification(Parse("/job:worker"), dev));
  CHECK(IsSpecification(Parse("/device:GPU:*"), dev));
  CHECK(IsSpecification(Parse("/gpu:0"), dev));
  CHECK(IsSpecification(Parse("/job:worker/task:1/device:GPU:0"), dev));
  CHECK(IsSpecification(dev, dev));
  CHECK_FALSE(IsSpecification(Parse("/job:ps"), dev));
  CHECK_FALSE(IsSpecification(Parse("/device:CPU:*"), dev));
  CHECK_FALSE(IsSpecification(Parse("/gpu:1"), dev));
  CHECK_FALSE(IsSpecification(Parse("/task:0"), dev));
  // A pattern part the name lacks is not satisfied.
  CHECK_FALSE(IsSpecification(Parse("/task:1"), Parse("/job:worker")));
}

TEST_CASE("IsSameTask compares job, replica and task", "[device_name]") {
  CHECK(IsSameTask(Parse("/job:w/replica:0/task:1/device:CPU:0"), Parse("/job:w/replica:0/task:1/device:GPU:0")));
  CHECK_FALSE(IsSameTask(Parse("/job:w/replica:0/task:1/device:CPU:0"), Parse("/job:w/replica:0/task:2/device:CPU:0")));
  CHECK_FALSE(IsSameTask(Parse("/device:CPU:0"), Parse("/device:CPU:1")));
}

TEST_CASE("merging specs combines compatible parts", "[device_name]") {
  ParsedDeviceName t = Parse("/job:worker");
  REQUIRE(MergeDeviceNames(&t, Parse("/device:GPU:*"), false).ok());
  REQUIRE(MergeDeviceNames(&t, Parse("/task:3"), false).ok());
  REQUIRE(MergeDeviceNames(&t, Parse("/gpu:1"), false).ok());
  CHECK(DeviceNameString(t) == "/job:worker/task:3/device:GPU:1");
  // Merging what is already there changes nothing.
  REQUIRE(MergeDeviceNames(&t, Parse("/job:worker/device:GPU:1"), false).ok());
  CHECK(DeviceNameString(t) == "/job:worker/task:3/device:GPU:1");
}

TEST_CASE("merging conflicting specs is an InvalidArgument naming both", "[device_name]") {
  ParsedDeviceName t = Parse("/device:CPU:0");
  Status s = MergeDeviceNames(&t, Parse("/device:CPU:1"), false);
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Contains("/device:CPU:0"));
  CHECK_THAT(s.message(), Contains("/device:CPU:1"));

  ParsedDeviceName j = Parse("/job:ps");
  CHECK(MergeDeviceNames(&j, Parse("/job:worker"), false).code() == error::INVALID_ARGUMENT);
  ParsedDeviceName ty = Parse("/device:GPU:0");
  CHECK(MergeDeviceNames(&ty, Parse("/device:CPU:0"), false).code() == error::INVALID_ARGUMENT);
}

TEST_CASE("with soft placement a conflicting type or id is dropped, a conflicting job is not", "[device_name]") {
  ParsedDeviceName ids = Parse("/job:w/device:CPU:0");
  REQUIRE(MergeDeviceNames(&ids, Parse("/device:CPU:1"), true).ok());
  CHECK(DeviceNameString(ids) == "/job:w/device:CPU:*");

  ParsedDeviceName types = Parse("/job:w/device:GPU:0");
  REQUIRE(MergeDeviceNames(&types, Parse("/device:CPU:0"), true).ok());
  CHECK(DeviceNameString(types) == "/job:w");

  ParsedDeviceName jobs = Parse("/job:ps");
  CHECK(MergeDeviceNames(&jobs, Parse("/job:worker"), true).code() == error::INVALID_ARGUMENT);
}

}  // namespace
}  // namespace tensoract
