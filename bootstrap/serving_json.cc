#include "bootstrap/serving_json.h"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <set>

#include "base/base64.h"
#include "base/types.h"

namespace tensoract {
namespace serving {
namespace {

using tensorflow::SignatureDef;
using tensorflow::TensorInfo;

// TensorFlow's name, as client/saved_model.h has it: the JSON pieces build and test without
// the client layer.
constexpr char kDefaultSignature[] = "serving_default";

Status TypeError(const rapidjson::Value& val, DataType dtype) {
  return errors::InvalidArgument("JSON Value: ", JsonDebugString(val), " Type: ", JsonTypeString(val),
                                 " is not of expected type: ", DataTypeString(dtype));
}

// RapidJSON classifies a number by its value: only one written without fraction or exponent
// is an integer at all, and then IsInt64 says it fits int64, and so on.
bool IsInt64In(const rapidjson::Value& val, int64_t lo, int64_t hi) {
  return val.IsInt64() && val.GetInt64() >= lo && val.GetInt64() <= hi;
}
bool IsUint64UpTo(const rapidjson::Value& val, uint64_t hi) { return val.IsUint64() && val.GetUint64() <= hi; }

bool IsElementObject(const rapidjson::Value& val) { return val.IsObject() && !IsBase64Object(val); }

std::string ShapeString(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
  return s + "]";
}

// The values of one input as they are read, by kind (TensorProto's typed fields, in
// effect), made into a Tensor of the signature's dtype at the end.
class TensorValues {
 public:
  explicit TensorValues(DataType dtype) : dtype_(dtype) {}

  // One leaf value (not a list).
  Status Add(const rapidjson::Value& val) {
    using namespace tensorflow;  // NOLINT: the DT_ names
    if (val.IsObject()) {
      if (dtype_ != DT_STRING) return TypeError(val, dtype_);
      std::string bytes;
      TA_RETURN_IF_ERROR(DecodeBase64Object(val, &bytes));
      strings_.push_back(std::move(bytes));
      return Status::OK();
    }
    switch (dtype_) {
      case DT_FLOAT:
        if (!val.IsNumber()) return TypeError(val, dtype_);
        floats_.push_back(val.GetFloat());
        break;
      case DT_DOUBLE:
        if (!val.IsNumber()) return TypeError(val, dtype_);
        doubles_.push_back(val.GetDouble());
        break;
      // TensorFlow Serving takes any 32-bit integer for the narrower types and lets the
      // tensor conversion wrap it; a value that does not fit is refused here instead.
      case DT_INT32:
        if (!IsInt64In(val, INT32_MIN, INT32_MAX)) return TypeError(val, dtype_);
        ints_.push_back(val.GetInt64());
        break;
      case DT_INT16:
        if (!IsInt64In(val, INT16_MIN, INT16_MAX)) return TypeError(val, dtype_);
        ints_.push_back(val.GetInt64());
        break;
      case DT_INT8:
        if (!IsInt64In(val, INT8_MIN, INT8_MAX)) return TypeError(val, dtype_);
        ints_.push_back(val.GetInt64());
        break;
      case DT_UINT8:
        if (!IsInt64In(val, 0, UINT8_MAX)) return TypeError(val, dtype_);
        ints_.push_back(val.GetInt64());
        break;
      case DT_INT64:
        if (!val.IsInt64()) return TypeError(val, dtype_);
        ints_.push_back(val.GetInt64());
        break;
      case DT_UINT32:
        if (!IsUint64UpTo(val, UINT32_MAX)) return TypeError(val, dtype_);
        uints_.push_back(val.GetUint64());
        break;
      case DT_UINT64:
        if (!val.IsUint64()) return TypeError(val, dtype_);
        uints_.push_back(val.GetUint64());
        break;
      case DT_BOOL:
        if (!val.IsBool()) return TypeError(val, dtype_);
        bools_.push_back(val.GetBool());
        break;
      case DT_STRING:
        if (!val.IsString()) return TypeError(val, dtype_);
        strings_.push_back(StringValue(val));
        break;
      default:
        return errors::Unimplemented("Conversion of JSON Value: ", JsonDebugString(val),
                                     " to type: ", DataTypeString(dtype_));
    }
    return Status::OK();
  }

  StatusOr<Tensor> ToTensor(const std::vector<int64_t>& dims) const {
    using namespace tensorflow;  // NOLINT: the DT_ names
    TA_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::FromDims(dims));
    TA_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(cpu_allocator(), dtype_, shape));
    const size_t n = static_cast<size_t>(shape.num_elements());
    auto fill = [&](auto* out, const auto& values) -> Status {
      if (values.size() != n) {
        return errors::Internal("request tensor has ", values.size(), " values for shape ", shape.DebugString());
      }
      for (size_t i = 0; i < n; ++i) out[i] = static_cast<std::remove_pointer_t<decltype(out)>>(values[i]);
      return Status::OK();
    };
    switch (dtype_) {
      case DT_FLOAT: TA_RETURN_IF_ERROR(fill(t.base<float>(), floats_)); break;
      case DT_DOUBLE: TA_RETURN_IF_ERROR(fill(t.base<double>(), doubles_)); break;
      case DT_INT32: TA_RETURN_IF_ERROR(fill(t.base<int32_t>(), ints_)); break;
      case DT_INT16: TA_RETURN_IF_ERROR(fill(t.base<int16_t>(), ints_)); break;
      case DT_INT8: TA_RETURN_IF_ERROR(fill(t.base<int8_t>(), ints_)); break;
      case DT_UINT8: TA_RETURN_IF_ERROR(fill(t.base<uint8_t>(), ints_)); break;
      case DT_INT64: TA_RETURN_IF_ERROR(fill(t.base<int64_t>(), ints_)); break;
      case DT_UINT32: TA_RETURN_IF_ERROR(fill(t.base<uint32_t>(), uints_)); break;
      case DT_UINT64: TA_RETURN_IF_ERROR(fill(t.base<uint64_t>(), uints_)); break;
      case DT_BOOL: TA_RETURN_IF_ERROR(fill(t.base<bool>(), bools_)); break;
      case DT_STRING: {
        if (strings_.size() != n) return errors::Internal("request tensor has the wrong number of strings");
        std::string* out = t.base<std::string>();
        for (size_t i = 0; i < n; ++i) out[i] = strings_[i];
        break;
      }
      default:
        if (n != 0) return errors::Unimplemented("Conversion of JSON to type: ", DataTypeString(dtype_));
    }
    return t;
  }

 private:
  DataType dtype_;
  std::vector<float> floats_;
  std::vector<double> doubles_;
  std::vector<int64_t> ints_;
  std::vector<uint64_t> uints_;
  std::vector<uint8_t> bools_;
  std::vector<std::string> strings_;
};

// The shape a value claims: each level's length, following first elements.
std::vector<int64_t> DenseShape(const rapidjson::Value& val) {
  std::vector<int64_t> dims;
  for (const rapidjson::Value* v = &val; v->IsArray(); v = &(*v)[0]) {
    dims.push_back(static_cast<int64_t>(v->Size()));
    if (v->Empty()) break;
  }
  return dims;
}

// Adds every leaf of `val` (which must be as dense as `dims` says), counting them.
Status FillValues(const rapidjson::Value& val, int level, const std::vector<int64_t>& dims, TensorValues* values,
                  int64_t* count) {
  const int rank = static_cast<int>(dims.size());
  if (!val.IsArray()) {
    if (level != rank) {
      return errors::InvalidArgument("JSON Value: ", JsonDebugString(val), " found at incorrect level: ", level + 1,
                                     " in the JSON DOM. Expected at level: ", rank);
    }
    TA_RETURN_IF_ERROR(values->Add(val));
    ++*count;
    return Status::OK();
  }
  if (level >= rank) {
    return errors::InvalidArgument("Encountered list at unexpected level: ", level, " expected < ", rank);
  }
  if (static_cast<int64_t>(val.Size()) != dims[level]) {
    return errors::InvalidArgument("Encountered list at unexpected size: ", val.Size(), " at level: ", level,
                                   " expected size: ", dims[level]);
  }
  for (const rapidjson::Value& v : val.GetArray()) TA_RETURN_IF_ERROR(FillValues(v, level + 1, dims, values, count));
  return Status::OK();
}

// One input being stacked from the "instances" list.
struct StackedInput {
  explicit StackedInput(DataType dtype) : values(dtype) {}
  TensorValues values;
  bool seen = false;
  int64_t size = 0;
  std::vector<int64_t> dims;  // of one instance
};

Status AddInstanceItem(const rapidjson::Value& item, const std::string& name, const SignatureDef& signature,
                       std::map<std::string, StackedInput>* stacked) {
  auto info = signature.inputs().find(name);
  if (info == signature.inputs().end()) {
    return errors::InvalidArgument("JSON object: does not have named input: ", name);
  }
  auto it = stacked->try_emplace(name, info->second.dtype()).first;
  StackedInput& input = it->second;
  const std::vector<int64_t> dims = DenseShape(item);
  int64_t size = 0;
  TA_RETURN_IF_ERROR(FillValues(item, 0, dims, &input.values, &size));
  if (!input.seen) {
    input.seen = true;
    input.size = size;
    input.dims = dims;
  } else if (input.size != size) {
    return errors::InvalidArgument("Expecting tensor size: ", input.size, " but got: ", size);
  } else if (input.dims != dims) {
    return errors::InvalidArgument("Expecting shape ", ShapeString(input.dims), " but got: ", ShapeString(dims));
  }
  return Status::OK();
}

// The signature's input keys, sorted (a protobuf map has no order of its own).
std::vector<std::string> InputKeys(const SignatureDef& signature) {
  std::vector<std::string> keys;
  for (const auto& [key, info] : signature.inputs()) keys.push_back(key);
  std::sort(keys.begin(), keys.end());
  return keys;
}

Status FillFromInstances(const rapidjson::Value& instances, const SignatureDef& signature, PredictInputs* out) {
  const std::vector<std::string> keys = InputKeys(signature);
  if (!instances[0].IsObject() && keys.size() > 1) {
    return errors::InvalidArgument(
        "instances is a plain list, but expecting list of objects as multiple input tensors required as per "
        "tensorinfo_map");
  }
  const bool elements_are_objects = IsElementObject(instances[0]);
  const std::set<std::string> input_names(keys.begin(), keys.end());
  std::map<std::string, StackedInput> stacked;
  int64_t count = 0;
  for (const rapidjson::Value& elem : instances.GetArray()) {
    if (elements_are_objects) {
      if (!IsElementObject(elem)) {
        return errors::InvalidArgument("Expecting object but got list at item ", count, " of input list");
      }
      std::set<std::string> object_keys;
      for (const auto& member : elem.GetObject()) {
        const std::string name = StringValue(member.name);
        // A repeated key counts once, the first (as a lookup finds it); TensorFlow Serving
        // would append both values to one example's tensor.
        if (!object_keys.insert(name).second) continue;
        Status s = AddInstanceItem(member.value, name, signature, &stacked);
        if (!s.ok()) {
          return errors::InvalidArgument("Failed to process element: ", count, " key: ", name,
                                         " of 'instances' list. Error: ", s.ToString());
        }
      }
      if (object_keys != input_names) {
        std::string joined;
        for (const std::string& k : input_names) joined += (joined.empty() ? "" : ",") + k;
        return errors::InvalidArgument("Failed to process element: ", count,
                                       " of 'instances' list. JSON object: ", JsonDebugString(elem),
                                       " keys must be equal to: ", joined);
      }
    } else {
      if (IsElementObject(elem)) {
        return errors::InvalidArgument("Expecting value/list but got object at item ", count, " of input list");
      }
      Status s = AddInstanceItem(elem, keys.front(), signature, &stacked);
      if (!s.ok()) {
        return errors::InvalidArgument("Failed to process element: ", count, " of 'instances' list. Error: ",
                                       s.ToString());
      }
    }
    ++count;
  }
  for (const auto& [name, input] : stacked) {
    std::vector<int64_t> dims = {count};
    dims.insert(dims.end(), input.dims.begin(), input.dims.end());
    TA_ASSIGN_OR_RETURN(Tensor t, input.values.ToTensor(dims));
    out->tensors.emplace_back(name, std::move(t));
  }
  return Status::OK();
}

StatusOr<Tensor> TensorFromValue(const rapidjson::Value& val, DataType dtype) {
  TensorValues values(dtype);
  const std::vector<int64_t> dims = DenseShape(val);
  int64_t unused = 0;
  TA_RETURN_IF_ERROR(FillValues(val, 0, dims, &values, &unused));
  return values.ToTensor(dims);
}

Status FillFromInputs(const rapidjson::Value& val, const SignatureDef& signature, PredictInputs* out) {
  const std::vector<std::string> keys = InputKeys(signature);
  if (!val.IsObject() || IsBase64Object(val)) {
    if (keys.size() > 1) {
      return errors::InvalidArgument(
          "inputs is a plain value/list, but expecting an object as multiple input tensors required as per "
          "tensorinfo_map");
    }
    TA_ASSIGN_OR_RETURN(Tensor t, TensorFromValue(val, signature.inputs().at(keys.front()).dtype()));
    out->tensors.emplace_back(keys.front(), std::move(t));
    return Status::OK();
  }
  for (const std::string& name : keys) {
    auto item = val.FindMember(name);
    if (item == val.MemberEnd()) {
      return errors::InvalidArgument("Missing named input: ", name, " in 'inputs' object.");
    }
    TA_ASSIGN_OR_RETURN(Tensor t, TensorFromValue(item->value, signature.inputs().at(name).dtype()));
    out->tensors.emplace_back(name, std::move(t));
  }
  return Status::OK();
}

// TensorFlow Serving leaves shapes to the graph's kernels, whose errors name a node the
// client never saw; the signature's shape says the same thing before anything runs.
Status CheckShapeFitsSignature(const std::string& key, const Tensor& t, const TensorInfo& info,
                               const std::string& signature_name) {
  if (!info.has_tensor_shape() || info.tensor_shape().unknown_rank()) return Status::OK();
  const auto& want = info.tensor_shape();
  bool fits = want.dim_size() == t.dims();
  for (int d = 0; fits && d < t.dims(); ++d) {
    fits = want.dim(d).size() < 0 || want.dim(d).size() == t.dim_size(d);
  }
  if (fits) return Status::OK();
  std::string wanted = "[";
  for (int d = 0; d < want.dim_size(); ++d) {
    wanted += (d ? "," : "") + (want.dim(d).size() < 0 ? std::string("?") : std::to_string(want.dim(d).size()));
  }
  wanted += "]";
  return errors::InvalidArgument("input '", key, "' has shape ", t.shape().DebugString(), " but signature '",
                                 signature_name.empty() ? kDefaultSignature : signature_name.c_str(), "' wants ",
                                 wanted);
}

// ---------------------------------------------------------------------------------------
// Responses.

bool EndsWith(const std::string& s, const char* suffix) {
  const size_t n = std::char_traits<char>::length(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

Status WriteSingleValue(const Tensor& t, bool string_as_bytes, int64_t* offset, JsonWriter* w) {
  using namespace tensorflow;  // NOLINT: the DT_ names
  const int64_t i = (*offset)++;
  bool ok = false;
  switch (t.dtype()) {
    case DT_FLOAT: ok = WriteJsonDecimal(t.base<float>()[i], w); break;
    case DT_DOUBLE: ok = WriteJsonDecimal(t.base<double>()[i], w); break;
    case DT_INT32: ok = w->Int(t.base<int32_t>()[i]); break;
    case DT_INT16: ok = w->Int(t.base<int16_t>()[i]); break;
    case DT_INT8: ok = w->Int(t.base<int8_t>()[i]); break;
    case DT_UINT8: ok = w->Int(t.base<uint8_t>()[i]); break;
    case DT_INT64: ok = w->Int64(t.base<int64_t>()[i]); break;
    case DT_UINT32: ok = w->Uint(t.base<uint32_t>()[i]); break;
    case DT_UINT64: ok = w->Uint64(t.base<uint64_t>()[i]); break;
    case DT_BOOL: ok = w->Bool(t.base<bool>()[i]); break;
    case DT_STRING: {
      const std::string& s = t.base<std::string>()[i];
      if (string_as_bytes) {
        const std::string base64 = Base64Encode(s);
        w->StartObject();
        w->Key("b64");
        ok = w->String(base64.data(), static_cast<rapidjson::SizeType>(base64.size()));
        w->EndObject();
      } else {
        ok = w->String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
      }
      break;
    }
    default: break;
  }
  if (!ok) return errors::InvalidArgument("Failed to write JSON value for tensor type: ", DataTypeString(t.dtype()));
  return Status::OK();
}

// The values of `t` from dimension `dim` on, starting at element `*offset`.
Status WriteTensorValues(const Tensor& t, bool string_as_bytes, int dim, int64_t* offset, JsonWriter* w) {
  if (dim > t.dims() - 1) return WriteSingleValue(t, string_as_bytes, offset, w);
  w->StartArray();
  for (int64_t i = 0; i < t.dim_size(dim); ++i) {
    if (dim == t.dims() - 1) {
      TA_RETURN_IF_ERROR(WriteSingleValue(t, string_as_bytes, offset, w));
    } else {
      TA_RETURN_IF_ERROR(WriteTensorValues(t, string_as_bytes, dim + 1, offset, w));
    }
  }
  w->EndArray();
  return Status::OK();
}

bool IsNamedTensorBytes(const std::string& name, const Tensor& t) {
  return t.dtype() == tensorflow::DT_STRING && EndsWith(name, "_bytes");
}

StatusOr<std::string> RowFormatJson(const std::vector<std::pair<std::string, Tensor>>& outputs) {
  int64_t batch_size = -1;
  for (const auto& [name, t] : outputs) {
    if (t.dims() == 0) return errors::InvalidArgument("Tensor name: ", name, " has no shape information ");
    if (batch_size >= 0 && batch_size != t.dim_size(0)) {
      return errors::InvalidArgument("Tensor name: ", name, " has inconsistent batch size: ", t.dim_size(0),
                                     " expecting: ", batch_size);
    }
    batch_size = t.dim_size(0);
  }
  std::vector<int64_t> offsets(outputs.size(), 0);
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  w.Key("predictions");
  w.StartArray();
  const bool elements_are_objects = outputs.size() > 1;
  for (int64_t item = 0; item < batch_size; ++item) {
    // Each example on its own line, its values on that line; TensorFlow Serving switches
    // in this order, so an example's object still opens on a new line.
    if (elements_are_objects) w.StartObject();
    w.SetFormatOptions(rapidjson::kFormatSingleLineArray);
    for (size_t i = 0; i < outputs.size(); ++i) {
      const auto& [name, t] = outputs[i];
      if (elements_are_objects) w.Key(name.data(), static_cast<rapidjson::SizeType>(name.size()));
      TA_RETURN_IF_ERROR(WriteTensorValues(t, IsNamedTensorBytes(name, t), 1, &offsets[i], &w));
    }
    w.SetFormatOptions(rapidjson::kFormatDefault);
    if (elements_are_objects) w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

StatusOr<std::string> ColumnarFormatJson(const std::vector<std::pair<std::string, Tensor>>& outputs) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  w.Key("outputs");
  const bool elements_are_objects = outputs.size() > 1;
  if (elements_are_objects) w.StartObject();
  for (const auto& [name, t] : outputs) {
    if (elements_are_objects) w.Key(name.data(), static_cast<rapidjson::SizeType>(name.size()));
    int64_t offset = 0;
    TA_RETURN_IF_ERROR(WriteTensorValues(t, IsNamedTensorBytes(name, t), 0, &offset, &w));
  }
  if (elements_are_objects) w.EndObject();
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace

StatusOr<PredictInputs> PredictInputsFromJson(const rapidjson::Value& request, const SignatureDef& signature,
                                              const std::string& signature_name) {
  if (signature.inputs().empty()) {
    return errors::InvalidArgument("Failed to get input map for signature: ",
                                   signature_name.empty() ? "DEFAULT" : signature_name);
  }
  auto instances = request.FindMember("instances");
  auto inputs = request.FindMember("inputs");
  PredictInputs out;
  if (instances != request.MemberEnd()) {
    if (inputs != request.MemberEnd()) {
      return JsonFormatError(request,
                             "Not formatted correctly expecting only one of 'inputs' or 'instances' keys to exist ");
    }
    if (!instances->value.IsArray()) return JsonFormatError(request, "Expecting 'instances' to be an list/array");
    if (instances->value.Empty()) return JsonFormatError(request, "No values in 'instances' array");
    out.format = PredictFormat::kRow;
    TA_RETURN_IF_ERROR(FillFromInstances(instances->value, signature, &out));
  } else if (inputs != request.MemberEnd()) {
    out.format = PredictFormat::kColumnar;
    TA_RETURN_IF_ERROR(FillFromInputs(inputs->value, signature, &out));
  } else {
    return errors::InvalidArgument("Missing 'inputs' or 'instances' key");
  }
  for (const auto& [key, t] : out.tensors) {
    auto info = signature.inputs().find(key);
    if (info != signature.inputs().end()) {
      TA_RETURN_IF_ERROR(CheckShapeFitsSignature(key, t, info->second, signature_name));
    }
  }
  return out;
}

Status CheckPredictInputsCount(const SignatureDef& signature,
                               const std::vector<std::pair<std::string, Tensor>>& inputs) {
  const size_t want = signature.inputs().size();
  if (inputs.size() > want || (inputs.size() < want && signature.defaults().empty())) {
    std::set<std::string> sent, expected;
    for (const auto& [key, t] : inputs) sent.insert(key);
    for (const auto& [key, info] : signature.inputs()) expected.insert(key);
    auto join = [](const std::set<std::string>& s) {
      std::string out;
      for (const std::string& k : s) out += (out.empty() ? "" : ",") + k;
      return out;
    };
    std::set<std::string> extra, missing;
    std::set_difference(sent.begin(), sent.end(), expected.begin(), expected.end(), std::inserter(extra, extra.end()));
    std::set_difference(expected.begin(), expected.end(), sent.begin(), sent.end(),
                        std::inserter(missing, missing.end()));
    return errors::InvalidArgument("input size does not match signature: ", inputs.size(), "!=", want, " len({",
                                   join(sent), "}) != len({", join(expected), "}). Sent extra: {", join(extra),
                                   "}. Missing but required: {", join(missing), "}.");
  }
  return Status::OK();
}

StatusOr<std::string> PredictResponseJson(const std::vector<std::pair<std::string, Tensor>>& outputs,
                                          PredictFormat format) {
  if (outputs.empty()) return errors::InvalidArgument("Cannot convert empty tensor map to JSON");
  return format == PredictFormat::kRow ? RowFormatJson(outputs) : ColumnarFormatJson(outputs);
}

}  // namespace serving
}  // namespace tensoract
