// Base64 (base/base64.h): what TensorFlow Serving's JSON and TensorFlow's messages use.
#include <catch2/catch.hpp>

#include <string>

#include "base/base64.h"

namespace tensoract {
namespace {

TEST_CASE("base64 both ways, padding optional and whitespace skipped as absl does") {
  CHECK(Base64Encode("") == "");
  CHECK(Base64Encode("f") == "Zg==");
  CHECK(Base64Encode("fo") == "Zm8=");
  CHECK(Base64Encode("foo") == "Zm9v");
  CHECK(Base64Encode(std::string("\0\xff\xfe", 3)) == "AP/+");
  std::string out;
  CHECK(Base64Decode("Zm9vYg==", &out));
  CHECK(out == "foob");
  CHECK(Base64Decode("Zm9vYg", &out));
  CHECK(out == "foob");
  CHECK(Base64Decode("Zm9v\nYmE=", &out));
  CHECK(out == "fooba");
  CHECK_FALSE(Base64Decode("Zm9vY", &out));
  CHECK_FALSE(Base64Decode("Zm9v*", &out));
  CHECK_FALSE(Base64Decode("Zg==Zg==", &out));
  CHECK_FALSE(Base64Decode("Zg=", &out));
  std::string all;
  for (int i = 0; i < 256; ++i) all.push_back(static_cast<char>(i));
  CHECK(Base64Decode(Base64Encode(all), &out));
  CHECK(out == all);
}

}  // namespace
}  // namespace tensoract
