// CostModel: how long a node takes on a kind of device, and how long a tensor takes to move.
//
// The placer (graph/placer.h) simulates a step with these numbers to choose devices, as
// section 3.2.1 of the TensorFlow whitepaper describes: "estimates of the sizes of the input
// and output tensors for each graph node, along with estimates of the computation time ...
// either statically estimated based on heuristics associated with different operation
// types, or measured ... for earlier executions of the graph." Both are here:
//
//  * Static estimates. From the op and the shapes inference left on the graph, a node's
//    work is counted as floating-point operations (2*m*k*n for a MatMul, 2*out*kh*kw*cin
//    for a Conv2D and its backprops, one per element for element-wise ops and reductions)
//    and bytes read and written. A per-device-type speed (FLOP/us, bytes/us, and a fixed
//    per-kernel overhead) turns that into microseconds, as a roofline: whichever of the
//    compute and memory times is longer. Ops that only pass a buffer along (Const,
//    Identity, Reshape, placeholders, variable handles, NoOp) count as free. Unknown
//    dimensions count as kUnknownDimGuess, so a graph with a batch of -1 still has costs.
//  * Measured times. RecordStepStats reads the NodeExecStats of a finished step and keeps,
//    per node name and device type, the average time its kernel ran. ComputeMicros prefers
//    a measurement on the asked device type; one from another type is scaled by the ratio
//    of the static estimates on the two types; only without either does it use the static
//    estimate.
//
// The numbers are estimates for ranking devices, not predictions to the microsecond; the
// defaults are what was measured on our machines (DESIGN.md): a CPU running a matrix
// product at ~100 GFLOP/s, tensors moving between processes at a few GB/s.
//
// Thread-safety: none. A CostModel is filled and read by one thread at a time (the master
// owns one per session and reads it while placing); readers that share one must lock.
#ifndef TENSORACT_GRAPH_COST_MODEL_H_
#define TENSORACT_GRAPH_COST_MODEL_H_

#include <cstdint>
#include <map>
#include <string>

#include "graph/graph.h"
#include "messages/step_stats.pb.h"

namespace tensoract {

class CostModel {
 public:
  // An unknown dimension (-1 in an inferred shape) is taken to be this big: a typical
  // batch. An unknown rank is taken to be a matrix of such dimensions.
  static constexpr int64_t kUnknownDimGuess = 32;

  // How fast one device type computes. Micros for a kernel = overhead_us + max(flops /
  // flops_per_us, bytes / bytes_per_us); a kernel doing no work costs nothing.
  struct DeviceSpeed {
    double flops_per_us;
    double bytes_per_us;
    double overhead_us;
  };
  // How fast a tensor moves between two devices: latency_us + bytes / bytes_per_us.
  struct LinkSpeed {
    double latency_us;
    double bytes_per_us;
  };
  // The work of one kernel run, as the static model counts it.
  struct Work {
    double flops = 0;
    double bytes = 0;  // read and written
  };

  // Speeds for "CPU" and "GPU"; any other type runs at the CPU's speed until told.
  CostModel();

  void SetDeviceSpeed(const std::string& device_type, const DeviceSpeed& speed);
  const DeviceSpeed& GetDeviceSpeed(const std::string& device_type) const;
  // Between devices of one task (one process), and between tasks.
  void SetLinkSpeeds(const LinkSpeed& within_task, const LinkSpeed& across_tasks);

  // Bytes of output `output` of `node`, from its inferred shape and dtype. Unknown
  // dimensions count as kUnknownDimGuess; a resource handle or variant counts as 16
  // bytes, a string element as 64.
  int64_t OutputBytes(const Node& node, int output) const;

  // The static count of the node's work (see the header comment).
  Work EstimateWork(const Node& node) const;

  // The static estimate of one run of `node` on `device_type`, in microseconds.
  double StaticComputeMicros(const Node& node, const std::string& device_type) const;

  // Microseconds to move `bytes` from device `src_device` to `dst_device` (full names):
  // 0 when they are the same device, the within-task link between two devices of one
  // task, the across-tasks link otherwise (also when a name does not parse).
  double TransferMicros(int64_t bytes, const std::string& src_device, const std::string& dst_device) const;

  // Adds the kernel times of a finished step: per NodeExecStats, op_end_rel - op_start_rel
  // (in nanoseconds where those are set, for precision), or all_end_rel when the op times
  // are missing, under the node's name and the type of the DeviceStepStats' device.
  void RecordStepStats(const tensorflow::StepStats& stats);

  // Measured (averaged) time of `node` on `device_type` when there is one, else the static
  // estimate. See the header comment for measurements on another device type.
  double ComputeMicros(const Node& node, const std::string& device_type) const;

  // Whether RecordStepStats has seen the node (on any device type).
  bool HasMeasurement(const std::string& node_name) const;

 private:
  struct Average {
    double sum_us = 0;
    int64_t count = 0;
    double mean() const { return sum_us / static_cast<double>(count); }
  };

  std::map<std::string, DeviceSpeed> speeds_;
  LinkSpeed within_task_;
  LinkSpeed across_tasks_;
  // node name -> device type ("" when the stats named no parsable device) -> times.
  std::map<std::string, std::map<std::string, Average>> measured_;
};

}  // namespace tensoract

#endif  // TENSORACT_GRAPH_COST_MODEL_H_
