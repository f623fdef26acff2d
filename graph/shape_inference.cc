#include "graph/shape_inference.h"

#include <cmath>
#include <cstring>
#include <deque>
#include <functional>
#include <limits>

#include "graph/eval_const_tensor.h"
#include "graph/graph.h"

namespace tensoract {
namespace shape_inference {
namespace {

const PartialTensorShape& UnknownShapeRef() {
  static const PartialTensorShape* const kUnknown = new PartialTensorShape;
  return *kUnknown;
}

// A constant shape argument longer than this is not read: no real shape has a million
// dimensions, and a hostile GraphDef must not make inference allocate without bound.
constexpr int64_t kMaxConstantValues = int64_t{1} << 20;

// How an integer dtype is stored in a TensorProto: its width in tensor_content, and which
// repeated field holds its values otherwise (int_val for every type of 32 bits or fewer).
struct IntLayout {
  size_t width = 0;  // 0: not an integer type
  bool is_signed = true;
};

IntLayout IntLayoutOf(DataType dtype) {
  switch (dtype) {
    case tensorflow::DT_INT8: return {1, true};
    case tensorflow::DT_UINT8: return {1, false};
    case tensorflow::DT_INT16: return {2, true};
    case tensorflow::DT_UINT16: return {2, false};
    case tensorflow::DT_INT32: return {4, true};
    case tensorflow::DT_UINT32: return {4, false};
    case tensorflow::DT_INT64: return {8, true};
    case tensorflow::DT_UINT64: return {8, false};
    default: return {};
  }
}

// Little-endian bytes (tensor_content, as on every host TensorFlow supports) of one value.
int64_t ReadInt(const char* p, IntLayout layout) {
  uint64_t bits = 0;
  std::memcpy(&bits, p, layout.width);
  if (layout.is_signed && layout.width < 8) {
    const int shift = 64 - 8 * static_cast<int>(layout.width);
    return static_cast<int64_t>(bits << shift) >> shift;  // sign-extend
  }
  return static_cast<int64_t>(bits);
}

// Any integer dtype's values as int64 (uint64's above int64's range wrap, as a C++ cast
// does). The int16 `Index` of StridedSlice or `Tidx` of ArgMax is read as TensorFlow does.
Status DecodeInts(const tensorflow::TensorProto& proto, int64_t limit, std::vector<int64_t>* values) {
  const DataType dtype = proto.dtype();
  const IntLayout layout = IntLayoutOf(dtype);
  if (layout.width == 0) {
    return errors::InvalidArgument("a constant of type ", DataTypeString(dtype), " where an integer was expected");
  }
  auto shape = TensorShape::FromProto(proto.tensor_shape());
  if (!shape.ok()) return shape.status().WithContext("a constant's shape");
  const int64_t n = shape->num_elements();
  if (n > limit) {
    return errors::ResourceExhausted("a constant of ", n, " elements is more than the ", limit, " read here");
  }
  values->clear();
  const size_t width = layout.width;
  const std::string& content = proto.tensor_content();
  if (!content.empty()) {
    if (content.size() != static_cast<size_t>(n) * width) {
      return errors::InvalidArgument("a constant of shape ", shape->DebugString(), " and type ", DataTypeString(dtype),
                                     " has ", content.size(), " bytes of tensor_content, not ", n * width);
    }
    values->reserve(n);
    for (int64_t i = 0; i < n; ++i) values->push_back(ReadInt(content.data() + i * width, layout));
    return Status::OK();
  }
  int count = 0;
  std::function<int64_t(int)> at;
  if (dtype == tensorflow::DT_INT64) {
    count = proto.int64_val_size();
    at = [&](int i) -> int64_t { return proto.int64_val(i); };
  } else if (dtype == tensorflow::DT_UINT64) {
    count = proto.uint64_val_size();
    at = [&](int i) { return static_cast<int64_t>(proto.uint64_val(i)); };
  } else if (dtype == tensorflow::DT_UINT32) {
    count = proto.uint32_val_size();
    at = [&](int i) -> int64_t { return proto.uint32_val(i); };
  } else {
    count = proto.int_val_size();
    at = [&](int i) -> int64_t { return proto.int_val(i); };
  }
  if (count > n) {
    return errors::InvalidArgument("a constant of shape ", shape->DebugString(), " has ", count, " values");
  }
  // TensorFlow writes a tensor whose trailing values repeat with the repeated value once;
  // no value at all means zeros.
  for (int64_t i = 0; i < n; ++i) values->push_back(count == 0 ? 0 : at(static_cast<int>(std::min<int64_t>(i, count - 1))));
  return Status::OK();
}

// A half's bits as a float (exact: every half is a float).
double HalfToDouble(uint16_t h) {
  const int sign = h >> 15, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  double v;
  if (exponent == 0) v = std::ldexp(mantissa, -24);
  else if (exponent == 31) v = mantissa ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  else v = std::ldexp(mantissa + 1024, exponent - 25);
  return sign ? -v : v;
}

double BFloat16ToDouble(uint16_t b) {
  const uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// The values of a float, double, half or bfloat16 constant, exactly, as doubles.
Status DecodeReals(const tensorflow::TensorProto& proto, int64_t limit, std::vector<double>* values) {
  const DataType dtype = proto.dtype();
  size_t width = 0;
  switch (dtype) {
    case tensorflow::DT_HALF: case tensorflow::DT_BFLOAT16: width = 2; break;
    case tensorflow::DT_FLOAT: width = 4; break;
    case tensorflow::DT_DOUBLE: width = 8; break;
    default:
      return errors::InvalidArgument("a constant of type ", DataTypeString(dtype),
                                     " where a floating-point number was expected");
  }
  auto shape = TensorShape::FromProto(proto.tensor_shape());
  if (!shape.ok()) return shape.status().WithContext("a constant's shape");
  const int64_t n = shape->num_elements();
  if (n > limit) {
    return errors::ResourceExhausted("a constant of ", n, " elements is more than the ", limit, " read here");
  }
  auto from_bits = [&](uint64_t bits) -> double {
    if (dtype == tensorflow::DT_HALF) return HalfToDouble(static_cast<uint16_t>(bits));
    if (dtype == tensorflow::DT_BFLOAT16) return BFloat16ToDouble(static_cast<uint16_t>(bits));
    if (dtype == tensorflow::DT_FLOAT) {
      float f;
      const uint32_t b = static_cast<uint32_t>(bits);
      std::memcpy(&f, &b, sizeof f);
      return f;
    }
    double d;
    std::memcpy(&d, &bits, sizeof d);
    return d;
  };
  values->clear();
  const std::string& content = proto.tensor_content();
  if (!content.empty()) {
    if (content.size() != static_cast<size_t>(n) * width) {
      return errors::InvalidArgument("a constant of shape ", shape->DebugString(), " and type ", DataTypeString(dtype),
                                     " has ", content.size(), " bytes of tensor_content, not ", n * width);
    }
    for (int64_t i = 0; i < n; ++i) {
      uint64_t bits = 0;
      std::memcpy(&bits, content.data() + i * width, width);
      values->push_back(from_bits(bits));
    }
    return Status::OK();
  }
  int count = 0;
  std::function<double(int)> at;
  if (width == 2) {
    count = proto.half_val_size();  // half and bfloat16 both keep their bits in half_val
    at = [&](int i) { return from_bits(static_cast<uint16_t>(proto.half_val(i))); };
  } else if (width == 4) {
    count = proto.float_val_size();
    at = [&](int i) -> double { return proto.float_val(i); };
  } else {
    count = proto.double_val_size();
    at = [&](int i) { return proto.double_val(i); };
  }
  if (count > n) {
    return errors::InvalidArgument("a constant of shape ", shape->DebugString(), " has ", count, " values");
  }
  for (int64_t i = 0; i < n; ++i) values->push_back(count == 0 ? 0.0 : at(static_cast<int>(std::min<int64_t>(i, count - 1))));
  return Status::OK();
}

// How many inputs (or outputs) each argument of the op stands for on this node.
Status ArgRange(const NodeDef& node, const google::protobuf::RepeatedPtrField<tensorflow::OpDef::ArgDef>& args,
                const std::string& name, const char* kind, int* start, int* end) {
  int index = 0;
  for (const auto& arg : args) {
    int64_t n = 1;
    if (!arg.number_attr().empty()) {
      TA_RETURN_IF_ERROR(GetNodeAttr(node, arg.number_attr(), &n));
    } else if (!arg.type_list_attr().empty()) {
      DataTypeVector types;
      TA_RETURN_IF_ERROR(GetNodeAttr(node, arg.type_list_attr(), &types));
      n = static_cast<int64_t>(types.size());
    }
    if (arg.name() == name) {
      *start = index;
      *end = index + static_cast<int>(n);
      return Status::OK();
    }
    index += static_cast<int>(n);
  }
  return errors::InvalidArgument("op '", node.op(), "' has no ", kind, " argument named '", name, "'");
}

}  // namespace

InferenceContext::InferenceContext(const NodeDef* node_def, const tensorflow::OpDef* op_def, int graph_def_version,
                                   DataTypeVector input_types, DataTypeVector output_types,
                                   std::vector<PartialTensorShape> input_shapes,
                                   std::vector<const tensorflow::TensorProto*> input_tensors,
                                   std::vector<const ShapeAndType*> input_handle_data)
    : node_def_(node_def),
      op_def_(op_def),
      graph_def_version_(graph_def_version),
      input_types_(std::move(input_types)),
      output_types_(std::move(output_types)),
      inputs_(std::move(input_shapes)),
      input_tensors_(std::move(input_tensors)),
      input_handle_data_(std::move(input_handle_data)) {
  inputs_.resize(std::max(inputs_.size(), input_types_.size()));
  input_tensors_.resize(inputs_.size(), nullptr);
  input_tensor_asked_.resize(inputs_.size(), false);
  input_handle_data_.resize(inputs_.size(), nullptr);
  outputs_.resize(output_types_.size());
  output_handle_data_.resize(output_types_.size());
}

void InferenceContext::Misuse(const std::string& what) const {
  if (usage_status_.ok()) {
    usage_status_ = errors::Internal("the shape function of op '", node_def_->op(), "' ", what,
                                     " (a bug in the shape function)");
  }
}

const PartialTensorShape& InferenceContext::input(int i) const {
  if (i < 0 || i >= num_inputs()) {
    Misuse(StrCat("asked for input ", i, " of ", num_inputs()));
    return UnknownShapeRef();
  }
  return inputs_[i];
}

DataType InferenceContext::input_type(int i) const {
  if (i < 0 || i >= static_cast<int>(input_types_.size())) {
    Misuse(StrCat("asked for the type of input ", i, " of ", input_types_.size()));
    return tensorflow::DT_INVALID;
  }
  return input_types_[i];
}

const tensorflow::TensorProto* InferenceContext::input_tensor(int i) const {
  if (i < 0 || i >= num_inputs()) {
    Misuse(StrCat("asked for the value of input ", i, " of ", num_inputs()));
    return nullptr;
  }
  if (input_tensors_[i] == nullptr && input_tensor_fn_ && !input_tensor_asked_[i]) {
    input_tensor_asked_[i] = true;
    input_tensors_[i] = input_tensor_fn_(i);
  }
  return input_tensors_[i];
}

const ShapeAndType* InferenceContext::input_handle_data(int i) const {
  if (i < 0 || i >= num_inputs()) {
    Misuse(StrCat("asked for the handle data of input ", i, " of ", num_inputs()));
    return nullptr;
  }
  const ShapeAndType* data = input_handle_data_[i];
  return data != nullptr && data->dtype != tensorflow::DT_INVALID ? data : nullptr;
}

Status InferenceContext::InputRange(const std::string& arg_name, int* start, int* end) const {
  return ArgRange(*node_def_, op_def_->input_arg(), arg_name, "input", start, end);
}

Status InferenceContext::OutputRange(const std::string& arg_name, int* start, int* end) const {
  return ArgRange(*node_def_, op_def_->output_arg(), arg_name, "output", start, end);
}

Status InferenceContext::input(const std::string& arg_name, std::vector<PartialTensorShape>* shapes) const {
  int start, end;
  TA_RETURN_IF_ERROR(InputRange(arg_name, &start, &end));
  shapes->clear();
  for (int i = start; i < end; ++i) shapes->push_back(input(i));
  return Status::OK();
}

DataType InferenceContext::output_type(int i) const {
  if (i < 0 || i >= num_outputs()) {
    Misuse(StrCat("asked for the type of output ", i, " of ", num_outputs()));
    return tensorflow::DT_INVALID;
  }
  return output_types_[i];
}

void InferenceContext::set_output(int i, PartialTensorShape shape) {
  if (i < 0 || i >= num_outputs()) return Misuse(StrCat("set output ", i, " of ", num_outputs()));
  outputs_[i] = std::move(shape);
}

const PartialTensorShape& InferenceContext::output(int i) const {
  if (i < 0 || i >= num_outputs()) {
    Misuse(StrCat("asked for output ", i, " of ", num_outputs()));
    return UnknownShapeRef();
  }
  return outputs_[i];
}

void InferenceContext::set_output_handle_data(int i, ShapeAndType data) {
  if (i < 0 || i >= num_outputs()) return Misuse(StrCat("set the handle data of output ", i, " of ", num_outputs()));
  output_handle_data_[i] = std::move(data);
}

const ShapeAndType* InferenceContext::output_handle_data(int i) const {
  if (i < 0 || i >= num_outputs()) {
    Misuse(StrCat("asked for the handle data of output ", i, " of ", num_outputs()));
    return nullptr;
  }
  return output_handle_data_[i].dtype == tensorflow::DT_INVALID ? nullptr : &output_handle_data_[i];
}

PartialTensorShape InferenceContext::UnknownShapeOfRank(int rank) {
  if (rank < 0) return PartialTensorShape();
  return PartialTensorShape(std::vector<int64_t>(rank, kUnknownDim));
}

int64_t InferenceContext::Dim(const PartialTensorShape& s, int i) {
  const int rank = s.dims();
  if (rank < 0) return kUnknownDim;
  if (i < 0) i += rank;
  if (i < 0 || i >= rank) return kUnknownDim;
  return s.dim_size(i) < 0 ? kUnknownDim : s.dim_size(i);
}

std::vector<int64_t> InferenceContext::Dims(const PartialTensorShape& s) {
  std::vector<int64_t> dims;
  for (int i = 0; i < s.dims(); ++i) dims.push_back(Dim(s, i));
  return dims;
}

int64_t InferenceContext::NumElements(const PartialTensorShape& s) {
  if (!s.IsFullyDefined()) return kUnknownDim;
  int64_t n = 1;
  for (int i = 0; i < s.dims(); ++i) n = Multiply(n, s.dim_size(i));
  return n;
}

bool InferenceContext::SameShape(const PartialTensorShape& a, const PartialTensorShape& b) {
  return a.dims() == b.dims() && Dims(a) == Dims(b);
}

bool InferenceContext::Compatible(const PartialTensorShape& a, const PartialTensorShape& b) {
  if (a.unknown_rank() || b.unknown_rank()) return true;
  if (a.dims() != b.dims()) return false;
  for (int i = 0; i < a.dims(); ++i) {
    const int64_t x = Dim(a, i), y = Dim(b, i);
    if (x >= 0 && y >= 0 && x != y) return false;
  }
  return true;
}

Status InferenceContext::WithRank(const PartialTensorShape& s, int rank, PartialTensorShape* out) const {
  if (s.unknown_rank()) {
    *out = UnknownShapeOfRank(rank);
    return Status::OK();
  }
  if (s.dims() != rank) {
    return errors::InvalidArgument("shape ", s.DebugString(), " must be rank ", rank, " but is rank ", s.dims());
  }
  *out = s;
  return Status::OK();
}

Status InferenceContext::WithRankAtLeast(const PartialTensorShape& s, int rank, PartialTensorShape* out) const {
  if (!s.unknown_rank() && s.dims() < rank) {
    return errors::InvalidArgument("shape ", s.DebugString(), " must be at least rank ", rank, " but is rank ",
                                   s.dims());
  }
  *out = s;
  return Status::OK();
}

Status InferenceContext::WithRankAtMost(const PartialTensorShape& s, int rank, PartialTensorShape* out) const {
  if (!s.unknown_rank() && s.dims() > rank) {
    return errors::InvalidArgument("shape ", s.DebugString(), " must be at most rank ", rank, " but is rank ",
                                   s.dims());
  }
  *out = s;
  return Status::OK();
}

Status InferenceContext::WithValue(int64_t dim, int64_t value, int64_t* out) const {
  if (ValueKnown(dim) && dim != value) {
    return errors::InvalidArgument("dimension must be ", value, " but is ", dim);
  }
  *out = value;
  return Status::OK();
}

Status InferenceContext::MergeDim(int64_t a, int64_t b, int64_t* out) const {
  if (ValueKnown(a) && ValueKnown(b) && a != b) {
    return errors::InvalidArgument("dimensions must be equal, but are ", a, " and ", b);
  }
  *out = ValueKnown(a) ? a : (ValueKnown(b) ? b : kUnknownDim);
  return Status::OK();
}

Status InferenceContext::Merge(const PartialTensorShape& a, const PartialTensorShape& b,
                               PartialTensorShape* out) const {
  if (a.unknown_rank()) {
    *out = b;
    return Status::OK();
  }
  if (b.unknown_rank()) {
    *out = a;
    return Status::OK();
  }
  if (a.dims() != b.dims()) {
    return errors::InvalidArgument("shapes must be equal rank, but are ", a.dims(), " and ", b.dims(),
                                   ": shapes are ", a.DebugString(), " and ", b.DebugString());
  }
  std::vector<int64_t> dims(a.dims());
  for (int i = 0; i < a.dims(); ++i) {
    if (!MergeDim(Dim(a, i), Dim(b, i), &dims[i]).ok()) {
      return errors::InvalidArgument("dimension ", i, " in both shapes must be equal, but is ", Dim(a, i), " and ",
                                     Dim(b, i), ": shapes are ", a.DebugString(), " and ", b.DebugString());
    }
  }
  *out = PartialTensorShape(std::move(dims));
  return Status::OK();
}

Status InferenceContext::Concatenate(const PartialTensorShape& a, const PartialTensorShape& b,
                                     PartialTensorShape* out) const {
  if (a.unknown_rank() || b.unknown_rank()) {
    *out = UnknownShape();
    return Status::OK();
  }
  std::vector<int64_t> dims = Dims(a);
  for (int64_t d : Dims(b)) dims.push_back(d);
  *out = PartialTensorShape(std::move(dims));
  return Status::OK();
}

Status InferenceContext::Subshape(const PartialTensorShape& s, int64_t start, int64_t end,
                                  PartialTensorShape* out) const {
  if (start == 0 && end == kSliceToEnd) {
    *out = s;
    return Status::OK();
  }
  if (s.unknown_rank()) {
    *out = UnknownShape();
    return Status::OK();
  }
  const int64_t rank = s.dims();
  int64_t b = start, e = end;
  if (b > rank) b = rank;
  if (e > rank) e = rank;
  if (b < 0) b += rank;
  if (e < 0) e += rank;
  if (b < 0 || e < 0 || b > e) {
    return errors::InvalidArgument("cannot take dimensions [", start, ", ", end == kSliceToEnd ? "end" : std::to_string(end),
                                   ") of shape ", s.DebugString(), " of rank ", rank);
  }
  std::vector<int64_t> dims;
  for (int64_t i = b; i < e; ++i) dims.push_back(Dim(s, static_cast<int>(i)));
  *out = PartialTensorShape(std::move(dims));
  return Status::OK();
}

Status InferenceContext::ReplaceDim(const PartialTensorShape& s, int index, int64_t dim,
                                    PartialTensorShape* out) const {
  if (s.unknown_rank()) {
    *out = UnknownShape();
    return Status::OK();
  }
  const int i = index < 0 ? index + s.dims() : index;
  if (i < 0 || i >= s.dims()) {
    return errors::InvalidArgument("dimension ", index, " is out of range for shape ", s.DebugString());
  }
  std::vector<int64_t> dims = Dims(s);
  dims[i] = dim < 0 ? kUnknownDim : dim;
  *out = PartialTensorShape(std::move(dims));
  return Status::OK();
}

int64_t InferenceContext::Add(int64_t a, int64_t b) {
  if (!ValueKnown(a) || !ValueKnown(b) || a > std::numeric_limits<int64_t>::max() - b) return kUnknownDim;
  return a + b;
}

int64_t InferenceContext::Multiply(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  if (!ValueKnown(a) || !ValueKnown(b) || a > std::numeric_limits<int64_t>::max() / b) return kUnknownDim;
  return a * b;
}

Status InferenceContext::Subtract(int64_t a, int64_t b, int64_t* out) const {
  if (!ValueKnown(a) || !ValueKnown(b)) {
    *out = kUnknownDim;
    return Status::OK();
  }
  if (a < b) return errors::InvalidArgument("dimension ", a, " minus ", b, " would be negative");
  *out = a - b;
  return Status::OK();
}

Status InferenceContext::Divide(int64_t a, int64_t b, bool evenly, int64_t* out) const {
  if (b == 0) return errors::InvalidArgument("dimension ", a, " divided by 0");
  if (!ValueKnown(a) || !ValueKnown(b)) {
    *out = kUnknownDim;
    return Status::OK();
  }
  if (evenly && a % b != 0) {
    return errors::InvalidArgument("dimension ", a, " must be evenly divisible by ", b);
  }
  *out = a / b;
  return Status::OK();
}

Status InferenceContext::GetIntValues(int i, std::vector<int64_t>* values, bool* known) const {
  *known = false;
  const tensorflow::TensorProto* value = input_tensor(i);
  if (value == nullptr) return Status::OK();
  Status s = DecodeInts(*value, kMaxConstantValues, values);
  if (errors::IsResourceExhausted(s)) return Status::OK();  // too big to read: treat as unknown
  if (!s.ok()) return s.WithContext(StrCat("input ", i));
  *known = true;
  return Status::OK();
}

Status InferenceContext::GetRealValues(int i, std::vector<double>* values, bool* known) const {
  *known = false;
  const tensorflow::TensorProto* value = input_tensor(i);
  if (value == nullptr) return Status::OK();
  Status s = DecodeReals(*value, kMaxConstantValues, values);
  if (errors::IsResourceExhausted(s)) return Status::OK();  // too big to read: treat as unknown
  if (!s.ok()) return s.WithContext(StrCat("input ", i));
  *known = true;
  return Status::OK();
}

Status InferenceContext::MakeShapeFromShapeTensor(int i, PartialTensorShape* out) const {
  PartialTensorShape vector;
  Status s = WithRank(input(i), 1, &vector);
  if (!s.ok()) return s.WithContext(StrCat("input ", i, ", a shape, must be a vector"));
  std::vector<int64_t> values;
  bool known = false;
  TA_RETURN_IF_ERROR(GetIntValues(i, &values, &known));
  if (!known) {
    PartialTensorShape partial;
    if (input_partial_shape_fn_ && input_partial_shape_fn_(i, &partial) &&
        (Dim(vector, 0) < 0 || Dim(vector, 0) == partial.dims())) {
      *out = std::move(partial);
      return Status::OK();
    }
    *out = UnknownShapeOfRank(static_cast<int>(Dim(vector, 0)));  // unknown rank if the length is
    return Status::OK();
  }
  for (int64_t v : values) {
    if (v < -1) return errors::InvalidArgument("input ", i, ", a shape, has the size ", v, "; only -1 means unknown");
  }
  *out = PartialTensorShape(std::move(values));
  return Status::OK();
}

std::string InferenceContext::InputShapesString() const {
  std::string out;
  for (int i = 0; i < num_inputs(); ++i) out += (i ? ", " : "") + inputs_[i].DebugString();
  return out;
}

Status TensorProtoToInt64s(const tensorflow::TensorProto& proto, std::vector<int64_t>* values) {
  return DecodeInts(proto, std::numeric_limits<int64_t>::max(), values);
}

namespace {

// The int32 or int64 values of a constant `proto`, or false.
bool ConstantInts(const tensorflow::TensorProto* proto, std::vector<int64_t>* values) {
  return proto != nullptr && TensorProtoToInt64s(*proto, values).ok();
}

// What the shape-valued vector output `port` of `node` holds, element by element where it is
// known (-1 elsewhere): a constant; Shape(x), x's inferred shape; a Pack of scalars; a
// ConcatV2 of such vectors along axis 0; a GatherV2 of one by constant indices. False when
// not even its length is known this way. TensorFlow's ShapeRefiner::ConstantPartialShape, for
// the cases graphs built by Keras and tf.function write.
bool PartialShapeValue(const Node& node, int port, std::deque<tensorflow::TensorProto>* values, int depth,
                       PartialTensorShape* out) {
  std::vector<int64_t> ints;
  if (ConstantInts(EvaluateConstantTensor(node, port, values), &ints)) {
    for (int64_t v : ints) {
      if (v < -1) return false;
    }
    *out = PartialTensorShape(std::move(ints));
    return true;
  }
  if (depth > 8) return false;
  std::vector<const Edge*> in(node.num_inputs(), nullptr);
  for (const Edge* e : node.in_edges()) {
    if (!e->IsControlEdge() && e->dst_input >= 0 && e->dst_input < node.num_inputs()) in[e->dst_input] = e;
  }
  for (const Edge* e : in) {
    if (e == nullptr) return false;
  }
  const std::string& op = node.type_string();
  if (op == "Shape" && port == 0) {
    const PartialTensorShape& shape = in[0]->src->output_shape(in[0]->src_output);
    if (shape.unknown_rank()) return false;
    *out = shape;
    return true;
  }
  if (op == "Pack" && port == 0) {
    std::vector<int64_t> dims;
    for (const Edge* e : in) {
      if (ConstantInts(EvaluateConstantTensor(*e->src, e->src_output, values), &ints) && ints.size() == 1) {
        dims.push_back(ints[0] < 0 ? -1 : ints[0]);
      } else {
        dims.push_back(-1);
      }
    }
    *out = PartialTensorShape(std::move(dims));
    return true;
  }
  if (op == "ConcatV2" && port == 0) {
    const Edge* axis = in.back();
    if (!ConstantInts(EvaluateConstantTensor(*axis->src, axis->src_output, values), &ints) || ints.size() != 1 ||
        (ints[0] != 0 && ints[0] != -1)) {
      return false;
    }
    std::vector<int64_t> dims;
    for (size_t k = 0; k + 1 < in.size(); ++k) {
      PartialTensorShape part;
      if (!PartialShapeValue(*in[k]->src, in[k]->src_output, values, depth + 1, &part)) {
        // Unknown values of a known length (a fed part).
        const PartialTensorShape& shape = in[k]->src->output_shape(in[k]->src_output);
        if (shape.unknown_rank() || shape.dims() != 1 || shape.dim_size(0) < 0) return false;
        part = PartialTensorShape(std::vector<int64_t>(shape.dim_size(0), -1));
      }
      for (int d = 0; d < part.dims(); ++d) dims.push_back(part.dim_size(d));
    }
    *out = PartialTensorShape(std::move(dims));
    return true;
  }
  if (op == "GatherV2" && port == 0) {
    std::vector<int64_t> indices, axis;
    PartialTensorShape params;
    if (!ConstantInts(EvaluateConstantTensor(*in[2]->src, in[2]->src_output, values), &axis) || axis.size() != 1 ||
        axis[0] != 0 || !ConstantInts(EvaluateConstantTensor(*in[1]->src, in[1]->src_output, values), &indices) ||
        !PartialShapeValue(*in[0]->src, in[0]->src_output, values, depth + 1, &params)) {
      return false;
    }
    std::vector<int64_t> dims;
    for (int64_t i : indices) {
      if (i < 0 || i >= params.dims()) return false;
      dims.push_back(params.dim_size(static_cast<int>(i)));
    }
    *out = PartialTensorShape(std::move(dims));
    return true;
  }
  return false;
}

}  // namespace

Status InferNodeShapes(const Graph& graph, Node* node) {
  const int n = node->num_inputs();
  std::vector<PartialTensorShape> shapes(n);
  std::vector<const ShapeAndType*> handles(n, nullptr);
  std::vector<const Edge*> edges(n, nullptr);
  for (const Edge* e : node->in_edges()) {
    if (e->IsControlEdge() || e->dst_input < 0 || e->dst_input >= n) continue;
    shapes[e->dst_input] = e->src->output_shape(e->src_output);
    handles[e->dst_input] = e->src->output_handle_data(e->src_output);
    edges[e->dst_input] = e;
  }
  for (int i = 0; i < node->num_outputs(); ++i) {
    node->set_output_shape(i, PartialTensorShape());
    node->set_output_handle_data(i, ShapeAndType());
  }
  if (node->shape_fn() == nullptr) return Status::OK();  // unknown is always allowed
  InferenceContext c(&node->def(), &node->op_def(), graph.versions().producer(), node->input_types(),
                     node->output_types(), std::move(shapes), {}, std::move(handles));
  // Values are found only for the inputs the function asks about: evaluating a constant
  // subgraph costs kernel runs. They live in `values` until the function is done.
  std::deque<tensorflow::TensorProto> values;
  c.set_input_tensor_fn([&edges, &values](int i) -> const tensorflow::TensorProto* {
    const Edge* e = edges[i];
    return e == nullptr ? nullptr : EvaluateConstantTensor(*e->src, e->src_output, &values);
  });
  c.set_input_partial_shape_fn([&edges, &values](int i, PartialTensorShape* out) {
    const Edge* e = edges[i];
    return e != nullptr && PartialShapeValue(*e->src, e->src_output, &values, 0, out);
  });
  Status s = (*node->shape_fn())(&c);
  if (s.ok()) s = c.usage_status();
  if (!s.ok()) {
    std::string where = StrCat("node '", node->name(), "' (op '", node->type_string(), "')");
    if (n > 0) where += StrCat(" with input shapes ", c.InputShapesString());
    return Status(s.code(), StrCat(where, ": ", s.message()));
  }
  for (int i = 0; i < node->num_outputs(); ++i) {
    node->set_output_shape(i, c.output(i));
    if (const ShapeAndType* data = c.output_handle_data(i)) node->set_output_handle_data(i, *data);
  }
  return Status::OK();
}

Status InferGraphShapes(Graph* graph) {
  std::vector<Node*> order;
  TA_RETURN_IF_ERROR(TopologicalOrder(*graph, &order));
  for (Node* node : order) {
    if (node->IsOp()) TA_RETURN_IF_ERROR(InferNodeShapes(*graph, node));
  }
  return Status::OK();
}

}  // namespace shape_inference
}  // namespace tensoract
