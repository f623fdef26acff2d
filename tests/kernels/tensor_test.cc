// Tests for Tensor (kernels/tensor.h) and its TensorProto conversion (kernels/tensor_proto.cc).
//
// The TensorProto cases pin TensorFlow's encoding. The rules marked "TF 2.21" were checked
// against TensorFlow 2.21 itself: protos built by hand were read by its C++ Tensor::FromProto
// (tf.io.parse_tensor, and Const nodes for the dtypes parse_tensor has no kernel for), and
// tf.io.serialize_tensor showed what it writes. The optional last test reads files that
// TensorFlow wrote (tests/kernels/write_tf_tensors.py).
#include <limits>

#include <catch2/catch.hpp>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <Eigen/Core>

#include "kernels/dtype_dispatch.h"
#include "kernels/tensor.h"
#include "kernels/resource_handle.h"
#include "kernels/tensor_eigen.h"

namespace tensoract {
namespace {

using tensorflow::TensorProto;

// Every dtype a Tensor can hold (all of TA_SWITCH_ALL_TYPES), with the TensorProto field that
// TensorFlow puts its values in when it does not use tensor_content.
struct DtypeCase {
  DataType dtype;
  const char* field;
};
const std::vector<DtypeCase>& AllDtypes() {
  static const std::vector<DtypeCase> cases = {
      {tensorflow::DT_FLOAT, "float_val"},
      {tensorflow::DT_DOUBLE, "double_val"},
      {tensorflow::DT_INT32, "int_val"},
      {tensorflow::DT_UINT32, "uint32_val"},
      {tensorflow::DT_UINT8, "int_val"},
      {tensorflow::DT_UINT16, "int_val"},
      {tensorflow::DT_INT16, "int_val"},
      {tensorflow::DT_INT8, "int_val"},
      {tensorflow::DT_COMPLEX64, "scomplex_val"},
      {tensorflow::DT_COMPLEX128, "dcomplex_val"},
      {tensorflow::DT_INT64, "int64_val"},
      {tensorflow::DT_UINT64, "uint64_val"},
      {tensorflow::DT_BOOL, "bool_val"},
      {tensorflow::DT_QINT8, "int_val"},
      {tensorflow::DT_QUINT8, "int_val"},
      {tensorflow::DT_QINT16, "int_val"},
      {tensorflow::DT_QUINT16, "int_val"},
      {tensorflow::DT_QINT32, "int_val"},
      {tensorflow::DT_HALF, "half_val"},
      {tensorflow::DT_BFLOAT16, "half_val"},
      {tensorflow::DT_FLOAT8_E5M2, "float8_val"},
      {tensorflow::DT_FLOAT8_E4M3FN, "float8_val"},
      {tensorflow::DT_FLOAT8_E4M3FNUZ, "float8_val"},
      {tensorflow::DT_FLOAT8_E4M3B11FNUZ, "float8_val"},
      {tensorflow::DT_FLOAT8_E5M2FNUZ, "float8_val"},
      {tensorflow::DT_FLOAT4_E2M1FN, "float8_val"},
      {tensorflow::DT_INT4, "int_val"},
      {tensorflow::DT_UINT4, "int_val"},
      {tensorflow::DT_INT2, "int_val"},
      {tensorflow::DT_UINT2, "int_val"},
      {tensorflow::DT_STRING, "string_val"},
  };
  return cases;
}

// Six element bit patterns per one-byte-storage type: valid values of the type, non-zero and
// distinct where the type has six of them. int4 and int2 lie in memory sign-extended.
const std::vector<uint8_t>& ByteSamples(DataType dtype) {
  static const std::vector<uint8_t> int4 = {0x01, 0xfe, 0x07, 0xf8, 0x03, 0xfd};    // 1 -2 7 -8 3 -3
  static const std::vector<uint8_t> uint4 = {0x01, 0x02, 0x0f, 0x08, 0x03, 0x0e};
  static const std::vector<uint8_t> int2 = {0x01, 0xfe, 0xff, 0x01, 0xfe, 0xff};    // 1 -2 -1 ...
  static const std::vector<uint8_t> uint2 = {0x01, 0x02, 0x03, 0x01, 0x02, 0x03};
  static const std::vector<uint8_t> fp4 = {0x01, 0x02, 0x09, 0x0f, 0x07, 0x03};
  static const std::vector<uint8_t> fp8 = {0x3c, 0xbc, 0x40, 0x01, 0x7b, 0x44};  // no 0x80 (NaN in fnuz)
  static const std::vector<uint8_t> bytes = {0x01, 0xff, 0x80, 0x7f, 0x10, 0xc3};
  switch (dtype) {
    case tensorflow::DT_INT4: return int4;
    case tensorflow::DT_UINT4: return uint4;
    case tensorflow::DT_INT2: return int2;
    case tensorflow::DT_UINT2: return uint2;
    case tensorflow::DT_FLOAT4_E2M1FN: return fp4;
    case tensorflow::DT_FLOAT8_E5M2:
    case tensorflow::DT_FLOAT8_E4M3FN:
    case tensorflow::DT_FLOAT8_E4M3FNUZ:
    case tensorflow::DT_FLOAT8_E4M3B11FNUZ:
    case tensorflow::DT_FLOAT8_E5M2FNUZ: return fp8;
    default: return bytes;
  }
}

// The i-th sample of type T: non-zero, mostly distinct, including each type's extremes
// (65535 for uint16 must not come back as -1 through the int32 field).
template <class T>
T Sample(DataType dtype, int i) {
  const double sign = i % 2 ? -1.0 : 1.0;
  if constexpr (std::is_same_v<T, std::string>) {
    static const char* kStrings[] = {"a", "", "bc", "with\0nul", "\xff\xfe", "last"};
    return i == 3 ? std::string("with\0nul", 8) : std::string(kStrings[i]);
  } else if constexpr (std::is_same_v<T, bool>) {
    return i % 3 != 1;
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(sign * (i + 1) * 1.25);
  } else if constexpr (std::is_same_v<T, Eigen::half> || std::is_same_v<T, Eigen::bfloat16>) {
    return T(static_cast<float>(sign * (i + 1) * 0.75));
  } else if constexpr (std::is_same_v<T, complex64> || std::is_same_v<T, complex128>) {
    return T(i + 1.5, -(i + 2.25));
  } else if constexpr (std::is_integral_v<T>) {
    if (i == 0) return std::numeric_limits<T>::max();
    if (i == 1) return std::numeric_limits<T>::min() + (std::is_signed_v<T> ? 0 : 1);
    return static_cast<T>(std::is_signed_v<T> ? -3 * i : 3 * i);
  } else if constexpr (sizeof(T) == 1) {  // one-byte Stored types: a bit pattern
    T v;
    std::memcpy(&v, &ByteSamples(dtype)[i], 1);
    return v;
  } else {  // qint16, quint16, qint32
    using Rep = decltype(T::value);
    return T{i == 0 ? std::numeric_limits<Rep>::max()
                    : static_cast<Rep>(std::is_signed_v<Rep> ? -7 * i : 7 * i)};
  }
}

// A tensor of `shape` whose element i is Sample(i % 6).
Tensor SampleTensor(DataType dtype, const TensorShape& shape) {
  Tensor t(dtype, shape);
  TA_SWITCH_ALL_TYPES(dtype, FAIL("no sample for " << DataTypeString(dtype)), {
    T* p = t.base<T>();
    for (int64_t i = 0; i < t.NumElements(); ++i) p[i] = Sample<T>(dtype, static_cast<int>(i % 6));
  });
  return t;
}

// Same dtype, shape and elements (bit for bit; strings by value).
void RequireSameTensor(const Tensor& a, const Tensor& b) {
  REQUIRE(DataTypeString(a.dtype()) == DataTypeString(b.dtype()));
  REQUIRE(a.shape() == b.shape());
  if (a.dtype() == tensorflow::DT_STRING) {
    for (int64_t i = 0; i < a.NumElements(); ++i) {
      INFO("element " << i);
      CHECK(a.base<std::string>()[i] == b.base<std::string>()[i]);
    }
  } else {
    REQUIRE(a.TotalBytes() == b.TotalBytes());
    CHECK(std::memcmp(a.data(), b.data(), a.TotalBytes()) == 0);
  }
}

// Serializes to bytes and parses back, as a proto crossing a process would.
TensorProto ThroughWire(const TensorProto& proto) {
  std::string bytes;
  REQUIRE(proto.SerializeToString(&bytes));
  TensorProto parsed;
  REQUIRE(parsed.ParseFromString(bytes));
  return parsed;
}

// Names of the fields set besides dtype and tensor_shape.
std::vector<std::string> ValueFields(const TensorProto& proto) {
  std::vector<const google::protobuf::FieldDescriptor*> fields;
  proto.GetReflection()->ListFields(proto, &fields);
  std::vector<std::string> names;
  for (const auto* f : fields) {
    if (f->name() != "dtype" && f->name() != "tensor_shape") names.push_back(f->name());
  }
  return names;
}

TensorProto MakeProto(DataType dtype, std::vector<int64_t> dims) {
  TensorProto p;
  p.set_dtype(dtype);
  for (int64_t d : dims) p.mutable_tensor_shape()->add_dim()->set_size(d);
  return p;
}

std::string Hex(const Tensor& t) {
  std::string out;
  const auto* p = static_cast<const uint8_t*>(t.data());
  for (size_t i = 0; i < t.TotalBytes(); ++i) {
    static const char kDigits[] = "0123456789abcdef";
    out += kDigits[p[i] >> 4];
    out += kDigits[p[i] & 15];
  }
  return out;
}

Tensor ReadOk(const TensorProto& proto) {
  auto t = Tensor::FromProto(proto);
  INFO(t.status());
  REQUIRE(t.ok());
  return *t;
}

Status ReadError(const TensorProto& proto) {
  auto t = Tensor::FromProto(proto);
  REQUIRE_FALSE(t.ok());
  CHECK(errors::IsInvalidArgument(t.status()));
  return t.status();
}

TEST_CASE("every dtype survives TensorProto through the wire", "[tensor][proto]") {
  const DtypeCase c = GENERATE(from_range(AllDtypes()));
  INFO("dtype " << DataTypeString(c.dtype));
  const Tensor t = SampleTensor(c.dtype, TensorShape({2, 3}));

  SECTION("AsProtoField writes the typed field TensorFlow uses, one value per element") {
    TensorProto proto;
    t.AsProtoField(&proto);
    CHECK(proto.dtype() == c.dtype);
    CHECK(ValueFields(proto) == std::vector<std::string>{c.field});
    RequireSameTensor(ReadOk(ThroughWire(proto)), t);
  }
  SECTION("AsProtoTensorContent writes raw bytes (strings: string_val)") {
    TensorProto proto;
    t.AsProtoTensorContent(&proto);
    if (c.dtype == tensorflow::DT_STRING) {
      CHECK(ValueFields(proto) == std::vector<std::string>{"string_val"});
    } else {
      CHECK(ValueFields(proto) == std::vector<std::string>{"tensor_content"});
      CHECK(proto.tensor_content().size() == 6 * static_cast<size_t>(DataTypeSize(c.dtype)));
    }
    RequireSameTensor(ReadOk(ThroughWire(proto)), t);
  }
  SECTION("a scalar and an empty tensor round-trip too") {
    for (const TensorShape& shape : {TensorShape(), TensorShape({0}), TensorShape({3, 0})}) {
      INFO("shape " << shape.DebugString());
      const Tensor s = SampleTensor(c.dtype, shape);
      TensorProto field, content;
      s.AsProtoField(&field);
      s.AsProtoTensorContent(&content);
      RequireSameTensor(ReadOk(ThroughWire(field)), s);
      RequireSameTensor(ReadOk(ThroughWire(content)), s);
    }
  }
}

TEST_CASE("typed fields encode values the way TensorFlow does", "[tensor][proto]") {
  TensorProto p;
  SECTION("half and bfloat16: the 16 raw bits in half_val, as an unsigned int") {
    Tensor::FromVector<Eigen::half>({Eigen::half(1.0f), Eigen::half(-1.0f)}).AsProtoField(&p);
    CHECK(std::vector<int>(p.half_val().begin(), p.half_val().end()) == std::vector<int>{0x3c00, 0xbc00});
    Tensor::FromVector<Eigen::bfloat16>({Eigen::bfloat16(1.0f), Eigen::bfloat16(-2.0f)}).AsProtoField(&p);
    CHECK(std::vector<int>(p.half_val().begin(), p.half_val().end()) == std::vector<int>{0x3f80, 0xc000});
  }
  SECTION("narrow integers widen into int_val by value") {
    Tensor::FromVector<uint16_t>({65535, 1}).AsProtoField(&p);
    CHECK(std::vector<int>(p.int_val().begin(), p.int_val().end()) == std::vector<int>{65535, 1});
    Tensor::FromVector<int4>({int4{-3}, int4{7}}).AsProtoField(&p);
    CHECK(std::vector<int>(p.int_val().begin(), p.int_val().end()) == std::vector<int>{-3, 7});
  }
  SECTION("complex numbers: real then imaginary") {
    Tensor::FromVector<complex64>({{1, 2}, {3, 4}}).AsProtoField(&p);
    CHECK(std::vector<float>(p.scomplex_val().begin(), p.scomplex_val().end()) ==
          std::vector<float>{1, 2, 3, 4});
  }
  SECTION("tensor_content is the little-endian memory, as tf.io.serialize_tensor writes it") {
    Tensor::FromVector<float>({1, -1}).AsProtoTensorContent(&p);
    CHECK(p.tensor_content() == std::string("\x00\x00\x80\x3f\x00\x00\x80\xbf", 8));
    Tensor::FromVector<Eigen::bfloat16>({Eigen::bfloat16(1.0f), Eigen::bfloat16(-1.0f)})
        .AsProtoTensorContent(&p);
    CHECK(p.tensor_content() == std::string("\x80\x3f\x80\xbf", 4));
  }
}

TEST_CASE("FromProto fills short typed fields like TensorFlow", "[tensor][proto]") {
  SECTION("no values: all zero") {
    Tensor t = ReadOk(MakeProto(tensorflow::DT_FLOAT, {3}));
    CHECK(std::vector<float>(t.base<float>(), t.base<float>() + 3) == std::vector<float>{0, 0, 0});
    Tensor s = ReadOk(MakeProto(tensorflow::DT_STRING, {2}));
    CHECK(s.base<std::string>()[0].empty());
    CHECK(s.base<std::string>()[1].empty());
  }
  SECTION("k values: the rest repeat the last one (TF 2.21)") {
    TensorProto p = MakeProto(tensorflow::DT_FLOAT, {2, 2});
    p.add_float_val(1);
    p.add_float_val(2);
    Tensor t = ReadOk(p);
    CHECK(std::vector<float>(t.base<float>(), t.base<float>() + 4) == std::vector<float>{1, 2, 2, 2});

    TensorProto s = MakeProto(tensorflow::DT_STRING, {3});
    s.add_string_val("x");
    s.add_string_val("y");
    Tensor st = ReadOk(s);
    CHECK(st.base<std::string>()[2] == "y");

    TensorProto h = MakeProto(tensorflow::DT_HALF, {3});  // TF 2.21: [1, 2, 2]
    h.add_half_val(0x3c00);
    h.add_half_val(0x4000);
    CHECK(Hex(ReadOk(h)) == "003c00400040");

    TensorProto b = MakeProto(tensorflow::DT_BOOL, {3});  // TF 2.21: [True, False, False]
    b.add_bool_val(true);
    b.add_bool_val(false);
    CHECK(Hex(ReadOk(b)) == "010000");
  }
  SECTION("one value fills a whole tensor, as tf.constant(5.0, shape=[...]) writes it") {
    TensorProto p = MakeProto(tensorflow::DT_INT64, {1000});
    p.add_int64_val(5);
    Tensor t = ReadOk(p);
    CHECK(t.base<int64_t>()[999] == 5);
  }
}

TEST_CASE("FromProto reads exotic encodings exactly as TensorFlow 2.21 does", "[tensor][proto]") {
  SECTION("int4/uint4/int2/uint2 from int_val, one byte each, sign-extended") {
    TensorProto p = MakeProto(tensorflow::DT_INT4, {4});
    p.add_int_val(-3);
    p.add_int_val(7);
    CHECK(Hex(ReadOk(p)) == "fd070707");
    TensorProto u = MakeProto(tensorflow::DT_UINT4, {3});
    u.add_int_val(15);
    u.add_int_val(3);
    CHECK(Hex(ReadOk(u)) == "0f0303");
    TensorProto i2 = MakeProto(tensorflow::DT_INT2, {3});
    i2.add_int_val(-2);
    i2.add_int_val(1);
    CHECK(Hex(ReadOk(i2)) == "fe0101");
  }
  SECTION("int4 tensor_content is one unpacked byte per element") {
    TensorProto p = MakeProto(tensorflow::DT_INT4, {2});
    p.set_tensor_content(std::string("\xfd\x07", 2));
    CHECK(Hex(ReadOk(p)) == "fd07");
    p.set_tensor_content(std::string("\x7d", 1));  // packed nibbles: TF rejects these too
    ReadError(p);
  }
  SECTION("float8 and float4 types from the bytes of float8_val") {
    TensorProto p = MakeProto(tensorflow::DT_FLOAT8_E5M2, {3});
    p.set_float8_val(std::string("\x3c\x40", 2));
    CHECK(Hex(ReadOk(p)) == "3c4040");
    TensorProto f4 = MakeProto(tensorflow::DT_FLOAT4_E2M1FN, {3});
    f4.set_float8_val(std::string("\x02\x03", 2));
    CHECK(Hex(ReadOk(f4)) == "020303");
  }
  SECTION("int_val narrows like a C++ cast: int8 300 -> 44, -200 -> 56") {
    TensorProto p = MakeProto(tensorflow::DT_INT8, {2});
    p.add_int_val(300);
    p.add_int_val(-200);
    Tensor t = ReadOk(p);
    CHECK(t.base<int8_t>()[0] == 44);
    CHECK(t.base<int8_t>()[1] == 56);
  }
  SECTION("complex pairs: an odd trailing value is ignored") {
    TensorProto p = MakeProto(tensorflow::DT_COMPLEX64, {2});
    for (float v : {1.f, 2.f, 3.f}) p.add_scomplex_val(v);
    Tensor t = ReadOk(p);
    CHECK(t.base<complex64>()[0] == complex64(1, 2));
    CHECK(t.base<complex64>()[1] == complex64(1, 2));
  }
  SECTION("only the dtype's own field counts") {
    TensorProto p = MakeProto(tensorflow::DT_BOOL, {2});
    p.add_int_val(1);
    CHECK(Hex(ReadOk(p)) == "0000");
    TensorProto q = MakeProto(tensorflow::DT_INT32, {2});
    q.add_int64_val(1);
    CHECK(Hex(ReadOk(q)) == "0000000000000000");
  }
  SECTION("tensor_content wins over a typed field") {
    TensorProto p = MakeProto(tensorflow::DT_FLOAT, {2});
    const float values[] = {5, 6};
    p.set_tensor_content(std::string(reinterpret_cast<const char*>(values), sizeof(values)));
    p.add_float_val(1);
    Tensor t = ReadOk(p);
    CHECK(t.base<float>()[0] == 5);
    CHECK(t.base<float>()[1] == 6);
  }
  SECTION("an empty tensor reads no values at all") {
    TensorProto p = MakeProto(tensorflow::DT_FLOAT, {0});
    p.set_tensor_content(std::string(7, '\0'));
    for (int i = 0; i < 3; ++i) p.add_float_val(1);
    Tensor t = ReadOk(p);
    CHECK(t.NumElements() == 0);
  }
  SECTION("strings in tensor_content: varint32 lengths, then the bytes") {
    TensorProto p = MakeProto(tensorflow::DT_STRING, {2});
    p.set_tensor_content(std::string("\x01\x02" "abc", 5));
    Tensor t = ReadOk(p);
    CHECK(t.base<std::string>()[0] == "a");
    CHECK(t.base<std::string>()[1] == "bc");
    p.set_tensor_content(std::string("\x01\x05" "abc", 5));
    CHECK_THAT(ReadError(p).message(), Catch::Contains("3 bytes after the lengths") &&
                                            Catch::Contains("add up to 6"));
    p.set_tensor_content(std::string("\x01", 1));
    CHECK_THAT(ReadError(p).message(), Catch::Contains("length of string 1 of 2"));
  }
  SECTION("a bool byte other than 0/1 in tensor_content reads as true") {
    TensorProto p = MakeProto(tensorflow::DT_BOOL, {2});
    p.set_tensor_content(std::string("\x00\x02", 2));
    CHECK(Hex(ReadOk(p)) == "0001");
  }
}

TEST_CASE("one request's TensorProtos may expand no more in all than one may", "[tensor][proto]") {
  const uint64_t limit = MaxExpandedTensorBytes();
  // A float tensor of `elements` elements from one value: about 4 * elements bytes expanded.
  auto announcing = [](int64_t elements) {
    TensorProto p = MakeProto(tensorflow::DT_FLOAT, {elements});
    p.add_float_val(1.f);
    return p;
  };
  CHECK(ExpandedBytes(announcing(1000)) > 3900);
  CHECK(ExpandedBytes(announcing(1000)) < 4000);
  TensorProto full = MakeProto(tensorflow::DT_FLOAT, {3});
  for (float v : {1.f, 2.f, 3.f}) full.add_float_val(v);
  CHECK(ExpandedBytes(full) == 0);  // every value present
  TensorProto content = MakeProto(tensorflow::DT_FLOAT, {2});
  content.set_tensor_content(std::string(8, '\0'));
  CHECK(ExpandedBytes(content) == 0);
  CHECK(ExpandedBytes(MakeProto(tensorflow::DT_FLOAT, {int64_t{1} << 40, int64_t{1} << 40})) ==
        std::numeric_limits<uint64_t>::max());

  const int64_t third = static_cast<int64_t>(limit / 4 / 3);
  ExpansionBudget budget;
  CHECK(budget.Charge(announcing(third), "a request").ok());
  CHECK(budget.Charge(announcing(third), "a request").ok());
  CHECK(budget.Charge(full, "a request").ok());
  Status over = budget.Charge(announcing(third + 1000), "RunStep feed 'x:0'");
  CHECK(over.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(over.message(), Catch::Contains("RunStep feed 'x:0'") && Catch::Contains("in all") &&
                                 Catch::Contains(std::to_string((third + 1000) * 4) + " bytes"));
  ExpansionBudget huge;
  CHECK_FALSE(huge.Charge(MakeProto(tensorflow::DT_FLOAT, {int64_t{1} << 40, int64_t{1} << 40}), "x").ok());
}

TEST_CASE("FromProto names what is wrong with a bad TensorProto", "[tensor][proto]") {
  SECTION("tensor_content of the wrong size") {
    TensorProto p = MakeProto(tensorflow::DT_FLOAT, {2});
    p.set_tensor_content(std::string(7, '\0'));
    CHECK_THAT(ReadError(p).message(),
               Catch::Contains("has 7 bytes") && Catch::Contains("needs 8 bytes") &&
                   Catch::Contains("float") && Catch::Contains("[2]"));
  }
  SECTION("a negative dimension") {
    TensorProto p = MakeProto(tensorflow::DT_FLOAT, {2, -1});
    CHECK_THAT(ReadError(p).message(), Catch::Contains("dimension 1") && Catch::Contains("-1"));
  }
  SECTION("unknown rank") {
    TensorProto p = MakeProto(tensorflow::DT_FLOAT, {});
    p.mutable_tensor_shape()->set_unknown_rank(true);
    CHECK_THAT(ReadError(p).message(), Catch::Contains("unknown rank"));
  }
  SECTION("dtypes a tensor cannot hold") {
    CHECK_THAT(ReadError(MakeProto(tensorflow::DT_INVALID, {1})).message(),
               Catch::Contains("dtype INVALID"));
    CHECK_THAT(ReadError(MakeProto(tensorflow::DT_FLOAT_REF, {1})).message(),
               Catch::Contains("dtype float_ref"));
    CHECK_THAT(ReadError(MakeProto(tensorflow::DT_RESOURCE, {1})).message(),
               Catch::Contains("0 handles in resource_handle_val"));
    CHECK_THAT(ReadError(MakeProto(tensorflow::DT_VARIANT, {1})).message(),
               Catch::Contains("0 values in variant_val"));
    CHECK_THAT(ReadError(MakeProto(static_cast<DataType>(77), {1})).message(),
               Catch::Contains("77"));
  }
  SECTION("more values than elements") {
    TensorProto p = MakeProto(tensorflow::DT_FLOAT, {2});
    for (float v : {1.f, 2.f, 3.f}) p.add_float_val(v);
    CHECK_THAT(ReadError(p).message(), Catch::Contains("3 values in float_val") &&
                                           Catch::Contains("[2]") &&
                                           Catch::Contains("only 2 elements"));
    TensorProto s = MakeProto(tensorflow::DT_STRING, {});
    s.add_string_val("a");
    s.add_string_val("b");
    CHECK_THAT(ReadError(s).message(), Catch::Contains("2 values in string_val"));
  }
  SECTION("a 20-byte TensorProto announcing 32 GiB is refused before anything is allocated") {
    TensorProto p = MakeProto(tensorflow::DT_FLOAT, {int64_t{1} << 33});
    p.add_float_val(1);
    REQUIRE(p.ByteSizeLong() <= 20);
    CHECK_THAT(ReadError(p).message(), Catch::Contains("34359738368 bytes") && Catch::Contains("at most 1073741824") &&
                                           Catch::Contains("TENSORACT_MAX_EXPANDED_TENSOR_BYTES"));
    // Below the limit the expansion is TensorFlow's: the one value repeated.
    TensorProto small = MakeProto(tensorflow::DT_FLOAT, {1000});
    small.add_float_val(2.5f);
    auto t = Tensor::FromProto(small);
    REQUIRE(t.ok());
    CHECK(t->base<float>()[999] == 2.5f);
  }
  SECTION("a tensor_content of 4 bytes announcing 32 GiB is refused before anything is allocated") {
    // Found by fuzzing: the content's size was checked after the allocation.
    TensorProto p = MakeProto(tensorflow::DT_FLOAT, {int64_t{1} << 33});
    p.set_tensor_content(std::string("\x00\x00\x80\x3f", 4));
    CHECK_THAT(ReadError(p).message(), Catch::Contains("has 4 bytes") && Catch::Contains("needs 34359738368 bytes"));
    TensorProto s = MakeProto(tensorflow::DT_STRING, {int64_t{1} << 30});
    s.set_tensor_content(std::string("\x01a", 2));
    CHECK_THAT(ReadError(s).message(), Catch::Contains("at least one per string"));
  }
  SECTION("a shape too large to allocate is refused before its size wraps around") {
    TensorProto p = MakeProto(tensorflow::DT_FLOAT, {int64_t{1} << 61, 2});
    p.add_float_val(1);
    CHECK_THAT(ReadError(p).message(), Catch::Contains("too many elements"));
  }
}

TEST_CASE("DebugString", "[tensor]") {
  CHECK(Tensor::FromVector<float>({1, 2, 3, 4}, TensorShape({2, 2})).DebugString() ==
        "Tensor<type: float shape: [2,2] values: [[1 2][3 4]]>");
  CHECK(Tensor::FromVector<std::string>({"a", "bc"}).DebugString() ==
        "Tensor<type: string shape: [2] values: [\"a\" \"bc\"]>");
  CHECK(Tensor::Scalar<float>(3.5f).DebugString() == "Tensor<type: float shape: [] values: 3.5>");
  CHECK(Tensor::Scalar<int32_t>(-7).DebugString() == "Tensor<type: int32 shape: [] values: -7>");
}

TEST_CASE("Eigen views see and write the tensor's own buffer", "[tensor]") {
  Tensor t = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3}));
  auto flat = t.flat<float>();
  CHECK(flat.data() == t.base<float>());
  CHECK(flat.size() == 6);
  CHECK(flat(4) == 5);
  flat(0) = 10;
  CHECK(t.base<float>()[0] == 10);

  auto m = t.matrix<float>();
  CHECK(m.dimension(0) == 2);
  CHECK(m.dimension(1) == 3);
  CHECK(m(1, 0) == 4);  // row-major, like TensorFlow
  m(1, 2) = 60;
  CHECK(t.base<float>()[5] == 60);
  CHECK(flat(5) == 60);

  auto t2 = t.tensor<float, 2>();
  CHECK(t2(0, 1) == 2);
  Tensor s = Tensor::Scalar<int32_t>(7);
  CHECK(s.scalar<int32_t>()() == 7);
  s.scalar<int32_t>()() = 8;
  CHECK(*s.base<int32_t>() == 8);

  Tensor sum(tensorflow::DT_FLOAT, TensorShape({2, 3}));
  sum.flat<float>() = t.flat<float>() * 2.0f;  // an expression writes through the view
  CHECK(sum.base<float>()[5] == 120);
}

TEST_CASE("copies share the buffer; DeepCopy does not", "[tensor]") {
  Tensor a = Tensor::FromVector<int32_t>({1, 2, 3});
  Tensor b = a;
  CHECK(b.SharesBufferWith(a));
  b.base<int32_t>()[0] = 100;
  CHECK(a.base<int32_t>()[0] == 100);

  Tensor c = a.DeepCopy();
  CHECK_FALSE(c.SharesBufferWith(a));
  RequireSameTensor(c, a);
  c.base<int32_t>()[1] = 200;
  CHECK(a.base<int32_t>()[1] == 2);

  Tensor s = Tensor::FromVector<std::string>({"x", "yz"});
  Tensor sc = s.DeepCopy();
  sc.base<std::string>()[0] = "changed";
  CHECK(s.base<std::string>()[0] == "x");
}

TEST_CASE("Reshaped keeps the buffer and checks the element count", "[tensor]") {
  Tensor t = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6});
  auto r = t.Reshaped(TensorShape({3, 2}));
  REQUIRE(r.ok());
  CHECK(r->shape() == TensorShape({3, 2}));
  CHECK(r->SharesBufferWith(t));
  CHECK(r->matrix<float>()(2, 1) == 6);

  auto bad = t.Reshaped(TensorShape({4, 2}));
  REQUIRE_FALSE(bad.ok());
  CHECK(errors::IsInvalidArgument(bad.status()));
  CHECK_THAT(bad.status().message(), Catch::Contains("6 elements") && Catch::Contains("8 elements"));
}

TEST_CASE("a View shares its rows' bytes, is never updated in place, and refuses what it cannot be", "[tensor]") {
  std::vector<float> values(4 * 16);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i);
  Tensor t = Tensor::FromVector<float>(values, TensorShape({4, 16}));
  auto row = t.View(32, TensorShape({16}));  // row 2: 128 bytes in, aligned
  REQUIRE(row.ok());
  CHECK(row->shape() == TensorShape({16}));
  CHECK(row->base<float>() == t.base<float>() + 32);
  CHECK(row->base<float>()[3] == 35);
  // The only holder of the view, but not of its bytes: kernels must not write into it.
  CHECK_FALSE(row->RefCountIsOne());
  CHECK(row->buffer_allocator() == t.buffer_allocator());
  // The view keeps the whole alive.
  const float* bytes = t.base<float>();
  t = Tensor();
  CHECK(row->base<float>() == bytes + 32);
  CHECK(row->base<float>()[15] == 47);

  Tensor u = Tensor::FromVector<float>(values, TensorShape({4, 16}));
  auto misaligned = u.View(3, TensorShape({16}));
  REQUIRE_FALSE(misaligned.ok());
  CHECK_THAT(misaligned.status().message(), Catch::Contains("aligned"));
  auto beyond = u.View(48, TensorShape({32}));
  REQUIRE_FALSE(beyond.ok());
  CHECK(errors::IsInvalidArgument(beyond.status()));
  CHECK_THAT(beyond.status().message(), Catch::Contains("[48, 80)") && Catch::Contains("[4,16]"));
  auto strings = Tensor::FromVector<std::string>({"a", "b"}).View(0, TensorShape({1}));
  REQUIRE_FALSE(strings.ok());
  CHECK(errors::IsUnimplemented(strings.status()));
}

TEST_CASE("a freed buffer of 64 KiB or more is handed out again for the same size", "[tensor]") {
  // Each training step asks for the same sizes again; fresh pages from the kernel cost a
  // page fault per 4 KiB (kernels/allocator.cc).
  CPUAllocator alloc("test");
  for (size_t bytes : {size_t{64} << 10, size_t{256} << 10, size_t{3} << 20}) {
    void* first = alloc.AllocateRaw(kAllocatorAlignment, bytes);
    REQUIRE(first != nullptr);
    std::memset(first, 1, bytes);
    alloc.DeallocateRaw(first, bytes);
    void* again = alloc.AllocateRaw(kAllocatorAlignment, bytes);
    CHECK(again == first);
    CHECK(reinterpret_cast<uintptr_t>(again) % kAllocatorAlignment == 0);
    alloc.DeallocateRaw(again, bytes);
  }
  CHECK(alloc.GetStats().bytes_in_use == 0);
}

// A thread_local made before the thread's first small tensor is destroyed after the
// thread's cache of small blocks (reverse order of construction), as a static Tensor is
// after the main thread's thread_locals at exit. Its block must go to free(), not into the
// destroyed cache: before the fix AddressSanitizer reported a heap-use-after-free here.
struct LateHolder {
  std::vector<Tensor> tensors;
};

TEST_CASE("a small tensor outliving its thread's block cache is freed cleanly", "[tensor]") {
  std::thread worker([] {
    thread_local LateHolder holder;  // constructed first, destroyed last
    holder.tensors.push_back(Tensor::FromVector<float>({1, 2, 3}));
    holder.tensors.push_back(Tensor::FromVector<float>({4, 5}));
    CHECK(holder.tensors[1].base<float>()[1] == 5);
  });
  worker.join();
  // The thread is gone; this thread's blocks still work.
  Tensor t = Tensor::FromVector<float>({7});
  CHECK(t.base<float>()[0] == 7);
}

TEST_CASE("allocator statistics go up with tensors and back down when they go", "[tensor]") {
  CPUAllocator alloc("test");
  {
    Tensor a(&alloc, tensorflow::DT_FLOAT, TensorShape({4, 4}));
    CHECK(alloc.GetStats().bytes_in_use == 64);
    CHECK(alloc.GetStats().num_allocs == 1);
    Tensor copy = a;  // a reference, not an allocation
    CHECK(alloc.GetStats().num_allocs == 1);
    Tensor deep = a.DeepCopy(&alloc);
    CHECK(alloc.GetStats().bytes_in_use == 128);
    CHECK(alloc.GetStats().peak_bytes_in_use == 128);

    TensorProto p;
    a.AsProtoTensorContent(&p);
    auto read = Tensor::FromProto(p, &alloc);
    REQUIRE(read.ok());
    CHECK(alloc.GetStats().bytes_in_use == 192);
  }
  CHECK(alloc.GetStats().bytes_in_use == 0);
  CHECK(alloc.GetStats().peak_bytes_in_use == 192);
  CHECK(alloc.GetStats().largest_alloc_size == 64);

  // A proto that fails after its tensor was allocated gives the memory back.
  TensorProto bad = MakeProto(tensorflow::DT_STRING, {1});
  bad.add_string_val("a");
  bad.add_string_val("b");
  CHECK_FALSE(Tensor::FromProto(bad, &alloc).ok());
  CHECK(alloc.GetStats().bytes_in_use == 0);
}

// Optional: protos that TensorFlow itself wrote, read back here. Run
//   python3 tests/kernels/write_tf_tensors.py DIR
// with TensorFlow installed, then this test with TENSORACT_TF_TENSOR_DIR=DIR. The script
// lists its cases in DIR/index.txt; each NAME.pb was written by TensorFlow, and
// NAME.expected.pb holds the same values as numpy's raw bytes in tensor_content (strings in
// string_val), which FromProto must read to the same tensor.
TEST_CASE("FromProto reads what TensorFlow wrote", "[tensor][proto][tensorflow]") {
  const char* dir = std::getenv("TENSORACT_TF_TENSOR_DIR");
  if (dir == nullptr || *dir == '\0') {
    WARN("skipped: TENSORACT_TF_TENSOR_DIR is not set (see tests/kernels/write_tf_tensors.py)");
    return;
  }
  auto read_proto = [&](const std::string& name) {
    std::ifstream in(std::string(dir) + "/" + name, std::ios::binary);
    INFO("file " << dir << "/" << name);
    REQUIRE(in);
    std::stringstream bytes;
    bytes << in.rdbuf();
    TensorProto p;
    REQUIRE(p.ParseFromString(bytes.str()));
    return p;
  };
  std::ifstream index(std::string(dir) + "/index.txt");
  REQUIRE(index);
  int cases = 0;
  for (std::string name; std::getline(index, name);) {
    if (name.empty()) continue;
    INFO("case " << name);
    const Tensor from_tf = ReadOk(read_proto(name + ".pb"));
    const Tensor expected = ReadOk(read_proto(name + ".expected.pb"));
    RequireSameTensor(from_tf, expected);
    ++cases;
  }
  CHECK(cases > 0);
}

TEST_CASE("resource tensors hold handles and round-trip through resource_handle_val") {
  Tensor t(tensorflow::DT_RESOURCE, TensorShape({2}));
  t.base<ResourceHandle>()[0] = ResourceHandle("/job:a/replica:0/task:0/device:CPU:0", "c", "v", 42, "Var");
  t.base<ResourceHandle>()[1] = ResourceHandle("/job:a/replica:0/task:0/device:CPU:0", "localhost", "w", 42, "Var");
  TensorProto p;
  t.AsProtoTensorContent(&p);
  REQUIRE(p.resource_handle_val_size() == 2);
  CHECK(p.resource_handle_val(0).name() == "v");
  auto back = Tensor::FromProto(p);
  REQUIRE(back.ok());
  CHECK(back.value().base<ResourceHandle>()[1].container() == "localhost");
  CHECK(back.value().base<ResourceHandle>()[0].hash_code() == 42);
  CHECK_THAT(t.DebugString(), Catch::Contains("name=\"v\""));
  Tensor copy = t.DeepCopy();
  CHECK(copy.base<ResourceHandle>()[1].name() == "w");
}

}  // namespace
}  // namespace tensoract
