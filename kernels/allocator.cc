#include "kernels/allocator.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <string>
#include <unordered_map>

#include <sys/mman.h>

#include "kernels/thread_block_cache.h"

namespace tensoract {
namespace {

void RaiseTo(std::atomic<int64_t>& target, int64_t value) {
  int64_t seen = target.load(std::memory_order_relaxed);
  while (value > seen && !target.compare_exchange_weak(seen, value, std::memory_order_relaxed)) {
  }
}

// Large buffers come back at the same sizes every training step. Given back to glibc, one
// above its mmap threshold (32 MiB at most) returns to the kernel, and the next step pays
// for fresh pages: a batch-512 CNN step took ~45,000 page faults, 180 MB of zeroing. Freed
// blocks of at least kMinCachedBytes (default alignment, sizes rounded up to whole pages)
// wait here for the next request of the same size, up to kMaxCachedBytes in all; the rest
// go back to glibc.
class LargeBlockCache {
 public:
  // Not only the largest: glibc trims the top of its heap once 2x its mmap threshold is
  // free there, and a chain of 256 KiB MatMul outputs (one freed as the next is made) paid
  // for fresh pages every product at 1 MiB here (7,432 -> 1,027 page faults in
  // matmul_gflops 256; an MLP batch-512 step ~90 -> ~8).
  static constexpr size_t kMinCachedBytes = 64 << 10;
  static constexpr size_t kMaxCachedBytes = size_t{1} << 30;
  static constexpr size_t kPage = 4096;

  static size_t Rounded(size_t bytes) { return (bytes + kPage - 1) / kPage * kPage; }

  void* Take(size_t rounded) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = free_.find(rounded);
    if (it == free_.end()) return nullptr;
    void* p = it->second;
    free_.erase(it);
    cached_ -= rounded;
    return p;
  }

  // False when the cache is full: the caller frees the block.
  bool Keep(void* p, size_t rounded) {
    std::lock_guard<std::mutex> lock(mu_);
    if (cached_ + rounded > kMaxCachedBytes) return false;
    free_.emplace(rounded, p);
    cached_ += rounded;
    return true;
  }

 private:
  std::mutex mu_;
  std::unordered_multimap<size_t, void*> free_;
  size_t cached_ = 0;
};

LargeBlockCache& large_blocks() {
  static LargeBlockCache* const kCache = new LargeBlockCache;  // never destroyed, as cpu_allocator()
  return *kCache;
}

// Blocks below the large cache's sizes, by power-of-two class, kept per thread
// (kernels/thread_block_cache.h). A loop body's kernels make and free such tensors every
// iteration (a GRU's [32, 96] gates at batch 32: 12 KiB), and glibc serves an aligned
// request from its slow path (memalign never comes from its per-thread cache), splitting and
// coalescing chunks: 15% of a bidirectional GRU's step.
struct MidBlocks {
  static constexpr int kMinClass = 6;   // 64 bytes
  static constexpr int kMaxClass = 15;  // 32 KiB: above it, the large cache's page-rounded sizes
  static constexpr size_t kKeptBytesPerClass = 256 << 10;  // 2.5 MiB a thread at most

  // The class of a block of `rounded` bytes (a multiple of kAllocatorAlignment), or -1.
  static int ClassOf(size_t rounded) {
    if (rounded > (size_t{1} << kMaxClass)) return -1;
    int c = kMinClass;
    while ((size_t{1} << c) < rounded) ++c;
    return c;
  }
};
using MidBlockCache = ThreadBlockCache<MidBlocks, MidBlocks::kMaxClass + 1>;

// `num_bytes` rounded up to the default alignment (at least one byte).
size_t DefaultAligned(size_t num_bytes) {
  return (std::max<size_t>(num_bytes, 1) + kAllocatorAlignment - 1) / kAllocatorAlignment * kAllocatorAlignment;
}

}  // namespace

void* AlignedHostAlloc(size_t alignment, size_t num_bytes) {
  // Blocks of 2 MiB or more start on a 2 MiB boundary and ask for transparent huge pages
  // (the kernel's default here is "madvise": none unless asked). A batch-512 CNN's tensors
  // are 13-51 MB; on 4 KiB pages the convolutions' passes over them miss the TLB, and
  // TensorFlow's process holds its big tensors on huge pages. TENSORACT_HUGEPAGES=0 opts
  // out (to compare, or where memory is tight: a block's start is rounded to 2 MiB).
  constexpr size_t kHugePage = size_t{2} << 20;
  static const bool huge = [] {
    const char* v = std::getenv("TENSORACT_HUGEPAGES");
    return v == nullptr || v[0] != '0';
  }();
  const bool use_huge = huge && num_bytes >= kHugePage;
  if (use_huge) alignment = std::max(alignment, kHugePage);
  const size_t rounded = (std::max<size_t>(num_bytes, 1) + alignment - 1) / alignment * alignment;
  void* p = std::aligned_alloc(alignment, rounded);
  if (p != nullptr && use_huge) madvise(p, rounded, MADV_HUGEPAGE);  // a hint: failure is harmless
  return p;
}

void* CPUAllocator::AllocateRaw(size_t alignment, size_t num_bytes) {
  alignment = std::max(alignment, kAllocatorAlignment);
  if (num_bytes > SIZE_MAX - alignment) return nullptr;  // the rounding below would wrap
  // aligned_alloc wants a size that is a multiple of the alignment; zero-byte tensors
  // still get a distinct pointer.
  size_t rounded = (std::max<size_t>(num_bytes, 1) + alignment - 1) / alignment * alignment;
  void* p = nullptr;
  if (rounded >= LargeBlockCache::kMinCachedBytes && alignment == kAllocatorAlignment) {
    rounded = LargeBlockCache::Rounded(rounded);
    p = large_blocks().Take(rounded);
  } else if (const int c = MidBlocks::ClassOf(DefaultAligned(num_bytes)); c >= 0) {
    // The whole class, whatever the alignment: DeallocateRaw keeps the block by its class.
    rounded = std::max(rounded, size_t{1} << c);
    MidBlockCache* cache = alignment == kAllocatorAlignment ? MidBlockCache::ForThisThread() : nullptr;
    if (cache != nullptr) p = cache->Take(c);
  }
  if (p == nullptr) p = AlignedHostAlloc(alignment, rounded);
  if (p == nullptr) return nullptr;
  NoteInlineAllocation(num_bytes);
  return p;
}

void CPUAllocator::DeallocateRaw(void* ptr, size_t num_bytes) {
  if (ptr == nullptr) return;
  NoteInlineDeallocation(num_bytes);
  // The same test as AllocateRaw's (at the default alignment): only page-rounded blocks
  // are cached.
  const size_t aligned = DefaultAligned(num_bytes);
  if (aligned >= LargeBlockCache::kMinCachedBytes) {
    if (large_blocks().Keep(ptr, LargeBlockCache::Rounded(aligned))) return;
  } else if (const int c = MidBlocks::ClassOf(aligned); c >= 0) {
    MidBlockCache* cache = MidBlockCache::ForThisThread();
    if (cache != nullptr && cache->Keep(c, ptr, MidBlocks::kKeptBytesPerClass >> c)) return;
  }
  std::free(ptr);
}

void CPUAllocator::NoteInlineAllocation(size_t num_bytes) {
  num_allocs_.fetch_add(1, std::memory_order_relaxed);
  int64_t in_use = bytes_in_use_.fetch_add(static_cast<int64_t>(num_bytes)) + static_cast<int64_t>(num_bytes);
  RaiseTo(peak_bytes_in_use_, in_use);
  RaiseTo(largest_alloc_size_, static_cast<int64_t>(num_bytes));
}

void CPUAllocator::NoteInlineDeallocation(size_t num_bytes) {
  bytes_in_use_.fetch_sub(static_cast<int64_t>(num_bytes));
}

AllocatorStats CPUAllocator::GetStats() const {
  AllocatorStats s;
  s.num_allocs = num_allocs_.load();
  s.bytes_in_use = bytes_in_use_.load();
  s.peak_bytes_in_use = peak_bytes_in_use_.load();
  s.largest_alloc_size = largest_alloc_size_.load();
  return s;
}

std::string AllocatorStatsString(const AllocatorStats& s) {
  std::string out = "in use " + std::to_string(s.bytes_in_use) + " B, peak " + std::to_string(s.peak_bytes_in_use) +
                    " B, " + std::to_string(s.num_allocs) + " allocations";
  if (s.bytes_limit > 0) {
    out += ", limit " + std::to_string(s.bytes_limit) + " B, reserved " + std::to_string(s.bytes_reserved) +
           " B, largest free block " + std::to_string(s.largest_free_block_bytes) + " B";
  }
  return out;
}

Allocator* cpu_allocator() {
  static CPUAllocator* const kAllocator = new CPUAllocator("cpu");  // never destroyed: tensors may outlive main
  return kAllocator;
}

}  // namespace tensoract
