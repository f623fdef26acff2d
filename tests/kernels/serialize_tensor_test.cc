// SerializeTensor and ParseTensor (kernels/cpu/serialize_tensor_ops.cc): tf.io.serialize_tensor
// and tf.io.parse_tensor. The expected bytes and messages were printed by TensorFlow 2.21
// (python3: tf.io.serialize_tensor(x).numpy(), and the errors of tf.io.parse_tensor); the
// variant cases (TensorLists, optionals) are in list_optional_ops_test.cc.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "tests/kernels/kernel_test_util.h"

namespace tensoract {
namespace {

namespace tf = ::tensorflow;

using Catch::Matchers::Contains;
using testing::Run;
using testing::RunOp;
using testing::TypeA;

std::string Serialized(const Tensor& t) {
  Run r = RunOp("SerializeTensor", {t}, {{"T", TypeA(t.dtype())}});
  INFO(r.status);
  REQUIRE(r.status.ok());
  REQUIRE(r.outputs[0].dims() == 0);
  return *r.outputs[0].base<std::string>();
}

Run Parse(const std::string& bytes, DataType out_type) {
  return RunOp("ParseTensor", {Tensor::Scalar<std::string>(bytes)}, {{"out_type", TypeA(out_type)}});
}

TEST_CASE("SerializeTensor writes the bytes tf.io.serialize_tensor writes", "[serialize]") {
  Tensor floats(tf::DT_FLOAT, TensorShape({2, 2}));
  const float values[] = {1.5f, 2, 3, 4};
  std::copy(values, values + 4, floats.base<float>());
  CHECK(Serialized(floats) ==
        std::string("\x08\x01\x12\x08\x12\x02\x08\x02\x12\x02\x08\x02\x22\x10\x00\x00\xc0\x3f\x00\x00\x00\x40\x00\x00"
                    "\x40\x40\x00\x00\x80\x40",
                    30));
  Tensor strings(tf::DT_STRING, TensorShape({2}));
  strings.base<std::string>()[0] = "a";
  strings.base<std::string>()[1] = "bc";
  CHECK(Serialized(strings) == std::string("\x08\x07\x12\x04\x12\x02\x08\x02\x42\x01\x61\x42\x02\x62\x63", 15));
  CHECK(Serialized(Tensor::Scalar<int32_t>(7)) == std::string("\x08\x03\x12\x00\x22\x04\x07\x00\x00\x00", 10));
  CHECK(Serialized(Tensor(tf::DT_INT64, TensorShape({0, 3}))) ==
        std::string("\x08\x09\x12\x06\x12\x00\x12\x02\x08\x03", 10));
}

TEST_CASE("ParseTensor reads back what SerializeTensor wrote, of every kind", "[serialize]") {
  Tensor doubles(tf::DT_DOUBLE, TensorShape({3, 1}));
  for (int i = 0; i < 3; ++i) doubles.base<double>()[i] = i - 0.25;
  Tensor strings(tf::DT_STRING, TensorShape({1, 2}));
  strings.base<std::string>()[0] = std::string("\0x", 2);
  strings.base<std::string>()[1] = "";
  for (const Tensor& t : {doubles, strings, Tensor::Scalar<bool>(true), Tensor(tf::DT_HALF, TensorShape({0}))}) {
    INFO(t.DebugString());
    Run back = Parse(Serialized(t), t.dtype());
    INFO(back.status);
    REQUIRE(back.status.ok());
    CHECK(back.outputs[0].DebugString() == t.DebugString());
  }
}

TEST_CASE("ParseTensor refuses another dtype, bytes that are no TensorProto and a batch, as TensorFlow",
          "[serialize]") {
  Run wrong = Parse(Serialized(Tensor::FromVector<float>({1})), tf::DT_INT32);
  CHECK(wrong.status.code() == tf::error::INVALID_ARGUMENT);
  CHECK(wrong.status.message() == "Type mismatch between parsed tensor (float) and dtype (int32)");

  Run garbage = Parse("\xff\xff\xff", tf::DT_FLOAT);
  CHECK(garbage.status.code() == tf::error::INVALID_ARGUMENT);
  CHECK(garbage.status.message() == "Could not parse `serialized` as TensorProto, base64: ////");
  // Megabytes of garbage are quoted by their start only.
  Run long_garbage = Parse(std::string(1 << 20, '\xff'), tf::DT_FLOAT);
  CHECK_THAT(long_garbage.status.message(), Contains("... (1048576 bytes)"));
  CHECK(long_garbage.status.message().size() < 8192);

  // A TensorProto whose content does not fit its shape: FromProto's checks apply.
  tf::TensorProto short_content;
  short_content.set_dtype(tf::DT_FLOAT);
  short_content.mutable_tensor_shape()->add_dim()->set_size(4);
  short_content.set_tensor_content(std::string(8, '\0'));
  Run bad = Parse(short_content.SerializeAsString(), tf::DT_FLOAT);
  CHECK(bad.status.code() == tf::error::INVALID_ARGUMENT);
  CHECK_THAT(bad.status.message(), Contains("Could not parse `serialized` as TensorProto: "));

  Tensor batch(tf::DT_STRING, TensorShape({1}));
  batch.base<std::string>()[0] = Serialized(Tensor::Scalar<float>(1));
  Run batched = RunOp("ParseTensor", {batch}, {{"out_type", TypeA(tf::DT_FLOAT)}});
  CHECK(batched.status.message() == "Expected `serialized` to be a scalar, got shape: [1]");
}

TEST_CASE("SerializeTensor's output is a scalar string, ParseTensor's of unknown shape", "[serialize]") {
  std::vector<PartialTensorShape> out;
  REQUIRE(testing::InferShapes("SerializeTensor", {{"T", TypeA(tf::DT_FLOAT)}},
                               {PartialTensorShape(std::vector<int64_t>{2, 3})}, &out)
              .ok());
  CHECK(out[0].DebugString() == "[]");
  REQUIRE(testing::InferShapes("ParseTensor", {{"out_type", TypeA(tf::DT_FLOAT)}},
                               {PartialTensorShape(std::vector<int64_t>{})}, &out)
              .ok());
  CHECK(out[0].unknown_rank());
}

}  // namespace
}  // namespace tensoract
