// Index tuples into a tensor, as GatherNd, ScatterNd, TensorScatter* and SparseToDense read
// them: the last dimension of `indices` holds tuples of depth K, each addressing a slice of
// shape[K:]. One place for the offsets, the bad_indices_policy attr and how a tuple is
// printed in their errors.
#ifndef TENSORACT_KERNELS_CPU_ND_INDEX_H_
#define TENSORACT_KERNELS_CPU_ND_INDEX_H_

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/kernel_registry.h"

namespace tensoract {

// Whether a bad index is skipped (IGNORE) rather than an error ("", DEFAULT, ERROR).
Status ReadBadIndicesPolicy(OpKernelConstruction* ctx, bool* ignore);

// "[2, 0]": tuple i of the flattened tuples `idx` of depth `depth`, as the errors print it.
std::string TupleString(const std::vector<int64_t>& idx, int64_t i, int64_t depth);

// The flat offset of tuple i's slice in a tensor of `shape` (slices of `slice` elements),
// or -1 when the tuple is out of range.
int64_t SliceOffset(const std::vector<int64_t>& idx, int64_t i, int64_t depth, const TensorShape& shape,
                    int64_t slice);

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_CPU_ND_INDEX_H_
