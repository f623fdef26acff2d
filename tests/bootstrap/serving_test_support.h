// What the tests of TensorFlow Serving's JSON side share: signatures written in one line,
// request bodies parsed as the server parses them, and RapidJSON values read back.
#ifndef TENSORACT_TESTS_BOOTSTRAP_SERVING_TEST_SUPPORT_H_
#define TENSORACT_TESTS_BOOTSTRAP_SERVING_TEST_SUPPORT_H_

#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "bootstrap/serving_json_dialect.h"
#include "kernels/tensor.h"
#include "messages/meta_graph.pb.h"

namespace tensoract {
namespace serving {
namespace testing {

using tensorflow::DT_BOOL;
using tensorflow::DT_DOUBLE;
using tensorflow::DT_FLOAT;
using tensorflow::DT_HALF;
using tensorflow::DT_INT32;
using tensorflow::DT_INT64;
using tensorflow::DT_INT8;
using tensorflow::DT_INVALID;
using tensorflow::DT_STRING;
using tensorflow::DT_UINT64;
using tensorflow::DT_UINT8;

inline constexpr int kUnknownRank = -2;

// A signature input: dtype and shape (-1 unknown dimension; {kUnknownRank}: unknown rank).
struct In {
  std::string key;
  DataType dtype;
  std::vector<int64_t> dims;
};

inline tensorflow::SignatureDef Signature(const std::vector<In>& inputs, const std::vector<In>& outputs = {},
                                          const std::string& method = "tensorflow/serving/predict") {
  tensorflow::SignatureDef sig;
  auto fill = [](const In& in, tensorflow::TensorInfo* info) {
    info->set_name(in.key + ":0");
    info->set_dtype(in.dtype);
    if (in.dims.size() == 1 && in.dims[0] == kUnknownRank) {
      info->mutable_tensor_shape()->set_unknown_rank(true);
    } else {
      for (int64_t d : in.dims) info->mutable_tensor_shape()->add_dim()->set_size(d);
    }
  };
  for (const In& in : inputs) fill(in, &(*sig.mutable_inputs())[in.key]);
  for (const In& out : outputs) fill(out, &(*sig.mutable_outputs())[out.key]);
  sig.set_method_name(method);
  return sig;
}

// A body as the server reads it (which must succeed).
inline Json Parse(const std::string& body) {
  auto doc = ParseRequestJson(body);
  INFO(body);
  REQUIRE(doc.ok());
  return std::move(doc).value();
}

// Any JSON text (not only an object), for comparing with what was written.
inline Json JsonOf(const std::string& text) {
  Json doc;
  doc.Parse<rapidjson::kParseNanAndInfFlag>(text.data(), text.size());
  INFO(text);
  REQUIRE_FALSE(doc.HasParseError());
  return doc;
}

template <class T>
std::vector<T> Values(const Tensor& t) {
  return std::vector<T>(t.base<T>(), t.base<T>() + t.NumElements());
}

}  // namespace testing
}  // namespace serving
}  // namespace tensoract

#endif  // TENSORACT_TESTS_BOOTSTRAP_SERVING_TEST_SUPPORT_H_
