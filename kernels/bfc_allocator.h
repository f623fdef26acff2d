// BFCAllocator: best-fit with coalescing, over a few large regions (TensorFlow's BFC
// allocator, the one its GPUs use).
//
// Memory comes from a SubAllocator (cudaMalloc, cudaHostAlloc, or plain host memory in
// tests) in regions: the first of `initial_region_bytes`, each later one twice the last,
// never more in all than `memory_limit`. A region is cut into chunks, every chunk a
// multiple of 256 bytes; free chunks sit in bins by size (256 B, 512 B, ... doubling),
// and a request takes the smallest free chunk that fits, searching its own bin and then
// the larger ones, splitting off the remainder. A freed chunk merges with free neighbours
// in its region, so fragments grow back into large blocks. Regions are kept until the
// allocator is destroyed: device memory is slow to take and give back (cudaMalloc
// synchronises the device), and a steady training step reuses the same chunks each step.
//
// AllocateRaw returns nullptr when nothing fits and the limit forbids another region; the
// caller (Tensor::Allocate) then reports ResourceExhausted with GetStats().
//
// Thread-safety: every method may be called from any thread (one mutex). No method calls
// the SubAllocator except AllocateRaw (growth) and the destructor, so DeallocateRaw is
// safe where device API calls are not (CUDA's host callbacks).
#ifndef TENSORACT_KERNELS_BFC_ALLOCATOR_H_
#define TENSORACT_KERNELS_BFC_ALLOCATOR_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "kernels/allocator.h"

namespace tensoract {

// Where a BFCAllocator's regions come from.
class SubAllocator {
 public:
  virtual ~SubAllocator() = default;
  // `bytes` is a multiple of 256; the result must be aligned to 256. nullptr: no memory.
  virtual void* Alloc(size_t bytes) = 0;
  virtual void Free(void* ptr, size_t bytes) = 0;
};

class BFCAllocator : public Allocator {
 public:
  struct Options {
    std::string name = "bfc";
    size_t memory_limit = size_t{1} << 30;
    size_t initial_region_bytes = size_t{64} << 20;
    bool host_memory = false;  // IsHostMemory(): pinned host memory is, a GPU's is not
  };
  static constexpr size_t kMinChunkBytes = 256;

  BFCAllocator(std::unique_ptr<SubAllocator> sub, Options options);
  ~BFCAllocator() override;
  BFCAllocator(const BFCAllocator&) = delete;
  BFCAllocator& operator=(const BFCAllocator&) = delete;

  std::string Name() const override { return options_.name; }
  // `alignment` up to 256 is honoured (every chunk is 256-aligned).
  void* AllocateRaw(size_t alignment, size_t num_bytes) override;
  void DeallocateRaw(void* ptr, size_t num_bytes) override;
  AllocatorStats GetStats() const override;
  bool IsHostMemory() const override { return options_.host_memory; }

  // For tests: the number of chunks (free and in use) and of regions.
  size_t NumChunks() const;
  size_t NumRegions() const;

 private:
  static constexpr int kNumBins = 24;  // 256 B << 23 = 2 GiB; larger chunks share the last bin
  struct Chunk {
    size_t size = 0;
    bool in_use = false;
    int region = 0;
  };
  using FreeSet = std::set<std::pair<size_t, char*>>;  // (size, address): best fit first

  static int BinFor(size_t bytes);
  void* FindChunk(size_t bytes);  // with mu_ held; nullptr: none fits
  bool Grow(size_t bytes);        // with mu_ held: one more region of at least `bytes`
  void InsertFree(char* p, const Chunk& c);
  void EraseFree(char* p, const Chunk& c);

  std::unique_ptr<SubAllocator> sub_;
  const Options options_;
  mutable std::mutex mu_;
  std::vector<std::pair<char*, size_t>> regions_;
  std::map<char*, Chunk> chunks_;  // by address: a chunk's neighbours are next to it
  FreeSet bins_[kNumBins];
  size_t next_region_bytes_;
  size_t reserved_ = 0;
  AllocatorStats stats_;
};

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_BFC_ALLOCATOR_H_
