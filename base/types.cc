#include "base/types.h"

#include <algorithm>
#include <cctype>

namespace tensoract {
namespace {

constexpr int kRefOffset = 100;  // TensorFlow numbers DT_X_REF as DT_X + 100.

}  // namespace

bool IsRefType(DataType dt) { return dt > kRefOffset; }
DataType BaseType(DataType dt) { return IsRefType(dt) ? DataType(dt - kRefOffset) : dt; }
DataType MakeRefType(DataType dt) { return IsRefType(dt) ? dt : DataType(dt + kRefOffset); }

std::string DataTypeString(DataType dt) {
  if (IsRefType(dt)) {
    // One level only: a value off the wire may be any int32 (a proto3 enum keeps unknown
    // values), and "ref of ref of ..." would recurse once per 100 of it.
    const DataType base = BaseType(dt);
    if (IsRefType(base) || !tensorflow::DataType_IsValid(base)) {
      return "unknown dtype " + std::to_string(static_cast<int>(dt));
    }
    return DataTypeString(base) + "_ref";
  }
  switch (dt) {
    case tensorflow::DT_INVALID: return "INVALID";
    case tensorflow::DT_BFLOAT16: return "bfloat16";
    case tensorflow::DT_COMPLEX64: return "complex64";
    case tensorflow::DT_COMPLEX128: return "complex128";
    default: break;
  }
  // The rest follow one rule: DT_FLOAT -> "float", DT_QINT8 -> "qint8".
  const std::string& enum_name = tensorflow::DataType_Name(dt);
  if (enum_name.size() <= 3) return "unknown dtype " + std::to_string(static_cast<int>(dt));
  std::string name = enum_name.substr(3);
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return name;
}

bool DataTypeFromString(const std::string& name, DataType* dt) {
  if (tensorflow::DataType_Parse(name, dt)) return true;
  std::string base = name;
  bool ref = false;
  if (base.size() > 4 && base.compare(base.size() - 4, 4, "_ref") == 0) {
    base.resize(base.size() - 4);
    ref = true;
  }
  std::string upper = "DT_";
  for (unsigned char c : base) upper += static_cast<char>(std::toupper(c));
  DataType parsed;
  if (!tensorflow::DataType_Parse(upper, &parsed) || parsed == tensorflow::DT_INVALID) return false;
  *dt = ref ? MakeRefType(parsed) : parsed;
  return true;
}

int DataTypeSize(DataType dt) {
  switch (BaseType(dt)) {
    case tensorflow::DT_FLOAT: return 4;
    case tensorflow::DT_DOUBLE: return 8;
    case tensorflow::DT_INT32: return 4;
    case tensorflow::DT_UINT32: return 4;
    case tensorflow::DT_UINT8: return 1;
    case tensorflow::DT_UINT16: return 2;
    case tensorflow::DT_INT16: return 2;
    case tensorflow::DT_INT8: return 1;
    case tensorflow::DT_COMPLEX64: return 8;
    case tensorflow::DT_COMPLEX128: return 16;
    case tensorflow::DT_INT64: return 8;
    case tensorflow::DT_UINT64: return 8;
    case tensorflow::DT_BOOL: return 1;
    case tensorflow::DT_QINT8: return 1;
    case tensorflow::DT_QUINT8: return 1;
    case tensorflow::DT_QINT16: return 2;
    case tensorflow::DT_QUINT16: return 2;
    case tensorflow::DT_QINT32: return 4;
    case tensorflow::DT_BFLOAT16: return 2;
    case tensorflow::DT_HALF: return 2;
    // The narrow float and integer types take one byte per element in memory, as in
    // TensorFlow (and NumPy's ml_dtypes); packing happens only in serialized forms.
    case tensorflow::DT_FLOAT8_E5M2:
    case tensorflow::DT_FLOAT8_E4M3FN:
    case tensorflow::DT_FLOAT8_E4M3FNUZ:
    case tensorflow::DT_FLOAT8_E4M3B11FNUZ:
    case tensorflow::DT_FLOAT8_E5M2FNUZ:
    case tensorflow::DT_FLOAT4_E2M1FN:
    case tensorflow::DT_INT4:
    case tensorflow::DT_UINT4:
    case tensorflow::DT_INT2:
    case tensorflow::DT_UINT2: return 1;
    default: return 0;  // string, resource, variant, invalid
  }
}

bool DataTypeIsFixedSize(DataType dt) { return DataTypeSize(dt) > 0; }

std::string DataTypeVectorString(const DataTypeVector& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += ", ";
    out += DataTypeString(v[i]);
  }
  return out + "]";
}

}  // namespace tensoract
