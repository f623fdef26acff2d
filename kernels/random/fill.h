// Filling an output with a distribution's values from a Philox generator, as TensorFlow's
// random kernels fill theirs (its FillPhiloxRandom): the stateful ops (kernels/cpu/
// random_op.cc) and the stateless ones (kernels/cpu/stateless_random_op*.cc) share it.
//
// The output is cut into groups of Dist::kGroupSize values. Group g comes from the generator
// moved g calls ahead (a distribution drawing one call per group), or g *
// kCallsPerRejectingGroup<T> calls ahead (the truncated normal, which redraws a varying
// number of words), never from where another group's drawing ended. So the device's threads
// fill the groups in any order and any split with TensorFlow's numbers; a last, partial
// group keeps its first values.
//
// The kernels layer compiles with EIGEN_USE_THREADS defined (kernels/CMakeLists.txt).
#ifndef TENSORACT_KERNELS_RANDOM_FILL_H_
#define TENSORACT_KERNELS_RANDOM_FILL_H_

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/random/philox.h"
#include "base/status.h"
#include "kernels/tensor_eigen.h"

namespace tensoract {
namespace random {

// Fills out[0, n) from `base` (Uniform, Normal, UniformInt, UniformFullInt); `args` go to
// Dist::Group before the output (UniformInt's bounds).
template <class Dist, class T, class... Args>
void FillGroups(const Eigen::ThreadPoolDevice& device, const Philox& base, T* out, int64_t n,
                double cycles_per_group, Args... args) {
  constexpr int kGroup = Dist::kGroupSize;
  const int64_t groups = (n + kGroup - 1) / kGroup;
  device.parallelFor(groups, Eigen::TensorOpCost(0, kGroup * sizeof(T), cycles_per_group),
                     [=](Eigen::Index first, Eigen::Index last) {
                       Philox gen = base;
                       gen.Skip(static_cast<uint64_t>(first));
                       T buf[kGroup];
                       for (int64_t g = first; g < last; ++g) {
                         Dist::Group(&gen, args..., buf);
                         const int64_t at = g * kGroup;
                         std::copy(buf, buf + std::min<int64_t>(kGroup, n - at), out + at);
                       }
                     });
}

// Fills out[0, n) with TruncatedNormal<T> from `base`.
template <class T>
void FillTruncatedNormal(const Eigen::ThreadPoolDevice& device, const Philox& base, T* out, int64_t n) {
  using Dist = TruncatedNormal<T>;
  constexpr int kGroup = Dist::kGroupSize;
  const int64_t groups = (n + kGroup - 1) / kGroup;
  device.parallelFor(groups, Eigen::TensorOpCost(0, kGroup * sizeof(T), 300),
                     [=](Eigen::Index first, Eigen::Index last) {
                       T buf[kGroup];
                       for (int64_t g = first; g < last; ++g) {
                         Philox gen = base;
                         gen.Skip(static_cast<uint64_t>(g) * kCallsPerRejectingGroup<T>);
                         SingleSample words(&gen);
                         Dist::Group(&words, buf);
                         const int64_t at = g * kGroup;
                         std::copy(buf, buf + std::min<int64_t>(kGroup, n - at), out + at);
                       }
                     });
}

// A random op's `shape` input: a vector of int32 or int64 sizes, none negative. The
// messages are TensorFlow's; `node` is appended to them.
inline Status ShapeFromShapeTensor(const Tensor& t, const std::string& node, TensorShape* shape) {
  if (t.dims() != 1 || (t.dtype() != tensorflow::DT_INT32 && t.dtype() != tensorflow::DT_INT64)) {
    return errors::InvalidArgument("shape must be a vector of {int32,int64}, got shape ", t.shape().DebugString(),
                                   " (node '", node, "')");
  }
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    const int64_t d = t.dtype() == tensorflow::DT_INT32 ? t.base<int32_t>()[i] : t.base<int64_t>()[i];
    if (d < 0) return errors::InvalidArgument("Dimension ", d, " must be >= 0 (node '", node, "')");
    dims.push_back(d);
  }
  *shape = TensorShape(dims);
  return Status::OK();
}

}  // namespace random
}  // namespace tensoract

#endif  // TENSORACT_KERNELS_RANDOM_FILL_H_
