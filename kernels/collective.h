// CollectiveExecutor: where a collective op's kernel (CollectiveReduceV2, GatherV2,
// BcastSendV2, BcastRecvV2) hands its work, and the element-wise arithmetic every
// implementation of it shares.
//
// A collective joins every member of a group: one device on each of group_size places,
// each running the same op with the same group_key and instance_key. The kernel knows only
// its own member; the runtime's executor (actors/collective_executor.h) finds the others,
// moves the data and calls `done` once with the result or an error naming the member or
// peer that failed. Run never blocks.
//
// Thread-safety: every method may be called from any thread.
#ifndef TENSORACT_KERNELS_COLLECTIVE_H_
#define TENSORACT_KERNELS_COLLECTIVE_H_

#include <cstdint>
#include <functional>
#include <string>

#include "base/status.h"
#include "kernels/tensor.h"

namespace tensoract {

enum class CollectiveKind { kAllReduce, kGather, kBroadcastSend, kBroadcastRecv };
enum class MergeOp { kAdd, kMul, kMin, kMax };
enum class FinalOp { kId, kDiv };

struct CollectiveParams {
  CollectiveKind kind = CollectiveKind::kAllReduce;
  int group_size = 0;
  int group_key = 0;
  int instance_key = 0;
  MergeOp merge_op = MergeOp::kAdd;  // all-reduce only
  FinalOp final_op = FinalOp::kId;   // all-reduce only
  DataType dtype = tensorflow::DT_FLOAT;
  TensorShape shape;          // a broadcast receiver's expected shape (the others: the input's)
  std::string device;         // this member: the device the kernel runs on
  std::string node;           // the kernel's node, for error messages
  double timeout_seconds = 0;  // 0: the runtime's own deadline
  bool force_ring = false;     // communication_hint "ring": never the small-tensor algorithm
};

class CollectiveExecutor {
 public:
  using Done = std::function<void(const Status& status, const Tensor& result)>;
  virtual ~CollectiveExecutor() = default;
  // Starts this member's part; `input` is unused by a broadcast receiver.
  virtual void Run(const CollectiveParams& params, const Tensor& input, Done done) = 0;
  // The step running this member's op ended: its op, if still running, ends with `why`
  // (and the group's other ops with it: a group whose member left cannot finish).
  virtual void Cancel(const CollectiveParams& params, const Status& why) = 0;
};

// acc[i] = merge(acc[i], other[i]) for i in [0, n); both of `dtype` (a CollectiveReduceV2
// type). Merges commute bit-exactly (IEEE addition, multiplication, min and max), so every
// member computing merge(a, b) or merge(b, a) gets the same bits.
void MergeElements(DataType dtype, MergeOp op, void* acc, const void* other, int64_t n);
// x[i] /= divisor (FinalOp kDiv) for i in [0, n).
void DivideElements(DataType dtype, void* x, int64_t n, int divisor);

StatusOr<MergeOp> ParseMergeOp(const std::string& name);
StatusOr<FinalOp> ParseFinalOp(const std::string& name);

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_COLLECTIVE_H_
