#include "graph/cost_model.h"

#include <algorithm>
#include <set>
#include <vector>

#include "graph/device_name.h"

namespace tensoract {
namespace {

using tensorflow::DT_RESOURCE;
using tensorflow::DT_STRING;
using tensorflow::DT_VARIANT;

// Ops that hand a buffer along or make one the runtime already holds: no kernel work.
// (Transfers between devices are counted on the edges, by TransferMicros.)
const std::set<std::string>& FreeOps() {
  static const std::set<std::string> ops = {
      "Const", "Placeholder", "PlaceholderWithDefault", "Identity", "IdentityN", "NoOp", "Shape", "ShapeN",
      "Size", "Rank", "Reshape", "Squeeze", "ExpandDims", "StopGradient", "PreventGradient", "VarHandleOp",
      "VariableV2", "Variable", "_Arg", "_Retval", "VarIsInitializedOp", "IsVariableInitialized", "_Send",
      "_Recv", "_HostSend", "_HostRecv", "DestroyResourceOp"};
  return ops;
}

const std::set<std::string>& ReductionOps() {
  static const std::set<std::string> ops = {"Sum", "Mean", "Prod", "Max", "Min", "All", "Any", "ArgMax", "ArgMin"};
  return ops;
}

// Element-wise ops that evaluate an exponential or a logarithm per element: several times
// the work of an add.
const std::set<std::string>& TranscendentalOps() {
  static const std::set<std::string> ops = {"Softmax", "LogSoftmax", "SoftmaxCrossEntropyWithLogits",
                                            "SparseSoftmaxCrossEntropyWithLogits", "Elu", "EluGrad", "Softplus",
                                            "SoftplusGrad", "Exp", "Log", "Tanh", "Sigmoid"};
  return ops;
}

double DimGuess(int64_t d) { return d < 0 ? static_cast<double>(CostModel::kUnknownDimGuess) : static_cast<double>(d); }

double NumElementsGuess(const PartialTensorShape& shape) {
  if (shape.unknown_rank()) return DimGuess(-1) * DimGuess(-1);
  double n = 1;
  for (int d = 0; d < shape.dims(); ++d) n *= DimGuess(shape.dim_size(d));
  return n;
}

// Dimension `d` of `shape`, counting from the end when negative; a guess when unknown.
double DimOf(const PartialTensorShape& shape, int d) {
  if (shape.unknown_rank()) return DimGuess(-1);
  if (d < 0) d += shape.dims();
  if (d < 0 || d >= shape.dims()) return DimGuess(-1);
  return DimGuess(shape.dim_size(d));
}

double BytesOf(DataType dtype, const PartialTensorShape& shape) {
  dtype = BaseType(dtype);
  double per_element = DataTypeSize(dtype);
  if (dtype == DT_STRING) per_element = 64;
  if (dtype == DT_RESOURCE || dtype == DT_VARIANT) return 16;
  return per_element * NumElementsGuess(shape);
}

// The shape that arrives at input `i`: its producer's output shape, or unknown.
PartialTensorShape InputShape(const Node& node, int i) {
  const Edge* e = node.input_edge(i);
  if (e == nullptr) return PartialTensorShape();
  return e->src->output_shape(e->src_output);
}

// Bytes the kernel touches through input `i`. A resource input is a variable: what the
// kernel reads or updates is the variable's value, whose dtype and shape the handle carries.
double InputBytes(const Node& node, int i) {
  const Edge* e = node.input_edge(i);
  if (e == nullptr) return 0;
  if (node.input_type(i) == DT_RESOURCE) {
    const shape_inference::ShapeAndType* data = e->src->output_handle_data(e->src_output);
    if (data == nullptr || data->dtype == tensorflow::DT_INVALID) return 16;
    return BytesOf(data->dtype, data->shape);
  }
  return BytesOf(e->src->output_type(e->src_output), e->src->output_shape(e->src_output));
}

bool BoolAttr(const Node& node, const char* name) {
  bool v = false;
  GetNodeAttr(node.def(), name, &v).IgnoreError();  // absent means the op's default, false
  return v;
}

double OutputElements(const Node& node) {
  double n = 0;
  for (int o = 0; o < node.num_outputs(); ++o) n += NumElementsGuess(node.output_shape(o));
  return n;
}

// kh * kw * in_depth of a [kh, kw, in_depth, out_depth] filter.
double FilterWindow(const PartialTensorShape& filter) {
  return DimOf(filter, 0) * DimOf(filter, 1) * DimOf(filter, 2);
}

double PoolWindow(const Node& node) {
  std::vector<int64_t> ksize;
  if (!GetNodeAttr(node.def(), "ksize", &ksize).ok()) return 1;
  double w = 1;
  for (int64_t k : ksize) w *= static_cast<double>(std::max<int64_t>(k, 1));
  return w;
}

}  // namespace

CostModel::CostModel() {
  // A core running Eigen's matrix product at ~100 GFLOP/s, ~10 GB/s of memory traffic
  // per kernel, about a microsecond to dispatch one.
  speeds_["CPU"] = DeviceSpeed{1e5, 1e4, 1.0};
  // A mid-range GPU: ~10 TFLOP/s, ~500 GB/s, ~5 us per kernel launch.
  speeds_["GPU"] = DeviceSpeed{1e7, 5e5, 5.0};
  // Within a process: a rendezvous hand-off, or a PCIe copy at ~10 GB/s. Across
  // processes: the data plane's TCP stream, a few GB/s after a ~100 us round trip.
  within_task_ = LinkSpeed{10.0, 1e4};
  across_tasks_ = LinkSpeed{100.0, 2.5e3};
}

void CostModel::SetDeviceSpeed(const std::string& device_type, const DeviceSpeed& speed) {
  speeds_[device_type] = speed;
}

const CostModel::DeviceSpeed& CostModel::GetDeviceSpeed(const std::string& device_type) const {
  auto it = speeds_.find(device_type);
  return it != speeds_.end() ? it->second : speeds_.at("CPU");
}

void CostModel::SetLinkSpeeds(const LinkSpeed& within_task, const LinkSpeed& across_tasks) {
  within_task_ = within_task;
  across_tasks_ = across_tasks;
}

int64_t CostModel::OutputBytes(const Node& node, int output) const {
  if (output < 0 || output >= node.num_outputs()) return 0;
  return static_cast<int64_t>(BytesOf(node.output_type(output), node.output_shape(output)));
}

CostModel::Work CostModel::EstimateWork(const Node& node) const {
  Work w;
  const std::string& op = node.type_string();
  if (!node.IsOp() || FreeOps().count(op)) return w;

  for (int i = 0; i < node.num_inputs(); ++i) w.bytes += InputBytes(node, i);
  for (int o = 0; o < node.num_outputs(); ++o) w.bytes += static_cast<double>(OutputBytes(node, o));

  const double out_elements = OutputElements(node);
  if (op == "MatMul") {
    const PartialTensorShape a = InputShape(node, 0);
    const double k = BoolAttr(node, "transpose_a") ? DimOf(a, 0) : DimOf(a, 1);
    w.flops = 2 * out_elements * k;
  } else if (op == "BatchMatMulV2") {
    const PartialTensorShape a = InputShape(node, 0);
    const double k = BoolAttr(node, "adj_x") ? DimOf(a, -2) : DimOf(a, -1);
    w.flops = 2 * out_elements * k;
  } else if (op == "Conv2D") {
    w.flops = 2 * out_elements * FilterWindow(InputShape(node, 1));
  } else if (op == "Conv2DBackpropInput") {
    // The same multiply-adds as the forward convolution whose output gradient is input 2.
    w.flops = 2 * NumElementsGuess(InputShape(node, 2)) * FilterWindow(InputShape(node, 1));
  } else if (op == "Conv2DBackpropFilter") {
    w.flops = 2 * NumElementsGuess(InputShape(node, 2)) * FilterWindow(node.output_shape(0));
  } else if (op == "MaxPool" || op == "AvgPool") {
    w.flops = out_elements * PoolWindow(node);
  } else if (op == "MaxPoolGrad" || op == "AvgPoolGrad") {
    w.flops = NumElementsGuess(InputShape(node, op == "MaxPoolGrad" ? 0 : 1)) * PoolWindow(node);
  } else if (ReductionOps().count(op)) {
    w.flops = NumElementsGuess(InputShape(node, 0));
  } else {
    // Element-wise and everything else: one operation per element of the larger side.
    double in_elements = 0;
    for (int i = 0; i < node.num_inputs(); ++i) {
      if (node.input_type(i) != DT_RESOURCE) in_elements = std::max(in_elements, NumElementsGuess(InputShape(node, i)));
    }
    w.flops = std::max(out_elements, in_elements) * (TranscendentalOps().count(op) ? 10.0 : 1.0);
  }
  return w;
}

double CostModel::StaticComputeMicros(const Node& node, const std::string& device_type) const {
  const Work w = EstimateWork(node);
  if (w.flops <= 0 && w.bytes <= 0) return 0;
  const DeviceSpeed& s = GetDeviceSpeed(device_type);
  return s.overhead_us + std::max(w.flops / s.flops_per_us, w.bytes / s.bytes_per_us);
}

double CostModel::TransferMicros(int64_t bytes, const std::string& src_device, const std::string& dst_device) const {
  if (src_device == dst_device) return 0;
  ParsedDeviceName src, dst;
  if (ParseDeviceName(src_device, &src) && ParseDeviceName(dst_device, &dst)) {
    if (src == dst) return 0;  // two spellings of one device
    if (IsSameTask(src, dst)) return within_task_.latency_us + static_cast<double>(bytes) / within_task_.bytes_per_us;
  }
  return across_tasks_.latency_us + static_cast<double>(bytes) / across_tasks_.bytes_per_us;
}

void CostModel::RecordStepStats(const tensorflow::StepStats& stats) {
  for (const tensorflow::DeviceStepStats& dev : stats.dev_stats()) {
    ParsedDeviceName parsed;
    std::string type;
    if (ParseDeviceName(dev.device(), &parsed) && parsed.has_type) type = parsed.type;
    for (const tensorflow::NodeExecStats& ns : dev.node_stats()) {
      if (ns.node_name().empty()) continue;
      double us;
      if (ns.op_end_rel_nanos() > ns.op_start_rel_nanos()) {
        us = static_cast<double>(ns.op_end_rel_nanos() - ns.op_start_rel_nanos()) / 1000.0;
      } else if (ns.op_end_rel_micros() > ns.op_start_rel_micros()) {
        us = static_cast<double>(ns.op_end_rel_micros() - ns.op_start_rel_micros());
      } else {
        us = static_cast<double>(std::max<int64_t>(ns.all_end_rel_micros(), 0));
      }
      Average& avg = measured_[ns.node_name()][type];
      avg.sum_us += us;
      ++avg.count;
    }
  }
}

double CostModel::ComputeMicros(const Node& node, const std::string& device_type) const {
  auto it = measured_.find(node.name());
  if (it == measured_.end() || it->second.empty()) return StaticComputeMicros(node, device_type);
  const auto& by_type = it->second;
  auto exact = by_type.find(device_type);
  if (exact != by_type.end()) return exact->second.mean();
  // Measured elsewhere only: the static model says how the two device types compare.
  const auto& [other_type, avg] = *by_type.begin();
  if (other_type.empty()) return avg.mean();
  const double here = StaticComputeMicros(node, device_type);
  const double there = StaticComputeMicros(node, other_type);
  if (there <= 0) return avg.mean();
  return avg.mean() * here / there;
}

bool CostModel::HasMeasurement(const std::string& node_name) const { return measured_.count(node_name) > 0; }

}  // namespace tensoract
