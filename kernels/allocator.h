// Allocator: where a device's tensor memory comes from, with statistics.
//
// Each device owns one allocator; tensors remember theirs and give the memory back to it
// when the last reference goes. The CPU allocator aligns every buffer to 64 bytes, so
// Eigen's AVX-512 code can use aligned loads on any tensor.
//
// Thread-safety: AllocateRaw, DeallocateRaw and GetStats may be called from any thread.
#ifndef TENSORACT_KERNELS_ALLOCATOR_H_
#define TENSORACT_KERNELS_ALLOCATOR_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

namespace tensoract {

constexpr size_t kAllocatorAlignment = 64;

struct AllocatorStats {
  int64_t num_allocs = 0;
  int64_t bytes_in_use = 0;
  int64_t peak_bytes_in_use = 0;
  int64_t largest_alloc_size = 0;
  // Allocators with a fixed budget (the GPU's BFC allocator); 0 where memory is the host's.
  int64_t bytes_limit = 0;
  int64_t bytes_reserved = 0;            // taken from the system in regions
  int64_t largest_free_block_bytes = 0;  // the largest request that fits without growing
};

// "in use 1.2 MB, peak 3 MB, 12 allocations" (+ ", limit ..., largest free block ...").
std::string AllocatorStatsString(const AllocatorStats& stats);

class Allocator {
 public:
  virtual ~Allocator() = default;
  virtual std::string Name() const = 0;
  // Returns nullptr when the memory cannot be had.
  virtual void* AllocateRaw(size_t alignment, size_t num_bytes) = 0;
  // `num_bytes` is what was asked of AllocateRaw for this pointer.
  virtual void DeallocateRaw(void* ptr, size_t num_bytes) = 0;
  virtual AllocatorStats GetStats() const = 0;
  // False for memory the host cannot touch (a GPU's): such tensors never keep their bytes
  // inline, and only the device's kernels and copies read them.
  virtual bool IsHostMemory() const { return true; }
  // Small tensors keep their bytes inside their buffer object rather than asking
  // AllocateRaw; they report them here so the statistics still count every tensor.
  virtual void NoteInlineAllocation(size_t num_bytes) {}
  virtual void NoteInlineDeallocation(size_t num_bytes) {}
};

// Host memory, aligned to kAllocatorAlignment, counted.
class CPUAllocator : public Allocator {
 public:
  explicit CPUAllocator(std::string name = "cpu") : name_(std::move(name)) {}
  std::string Name() const override { return name_; }
  void* AllocateRaw(size_t alignment, size_t num_bytes) override;
  void DeallocateRaw(void* ptr, size_t num_bytes) override;
  AllocatorStats GetStats() const override;
  void NoteInlineAllocation(size_t num_bytes) override;
  void NoteInlineDeallocation(size_t num_bytes) override;

 private:
  std::string name_;
  std::atomic<int64_t> num_allocs_{0};
  std::atomic<int64_t> bytes_in_use_{0};
  std::atomic<int64_t> peak_bytes_in_use_{0};
  std::atomic<int64_t> largest_alloc_size_{0};
};

// aligned_alloc for host buffers (tensors, kernels' scratch): blocks of 2 MiB or more are
// aligned to 2 MiB and backed by transparent huge pages where the kernel allows. Free with
// std::free.
void* AlignedHostAlloc(size_t alignment, size_t num_bytes);

// The process-wide host allocator, for tensors made outside any device (a client's feeds).
Allocator* cpu_allocator();

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_ALLOCATOR_H_
