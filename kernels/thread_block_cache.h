// Freed memory blocks kept per thread by size class, for the next request of that class on
// the same thread: a pop and a push where glibc's malloc and free split and coalesce chunks
// (blocks past its fast bins, and any memalign'd block, which never comes from its per-thread
// cache). What the small tensors' buffer objects (kernels/tensor.cc) and CPUAllocator's
// blocks of 64 B to 32 KiB (kernels/allocator.cc) share; each says which class a size is in
// and how many blocks a class keeps. A block freed on one thread is kept by that thread.
// The blocks come from malloc or aligned_alloc; the ones not kept go back with free().
#ifndef TENSORACT_KERNELS_THREAD_BLOCK_CACHE_H_
#define TENSORACT_KERNELS_THREAD_BLOCK_CACHE_H_

#include <cstddef>
#include <cstdlib>
#include <vector>

namespace tensoract {

// `Tag` gives each user a cache of its own; it has `kClasses` classes, numbered from 0.
template <class Tag, int kClasses>
class ThreadBlockCache {
 public:
  // This thread's cache, or null once it was destroyed: a Tensor can outlive it (a static
  // one is destroyed by exit() after the main thread's thread_locals), and its block then
  // goes straight back to free().
  static ThreadBlockCache* ForThisThread() {
    if (destroyed_) return nullptr;
    thread_local ThreadBlockCache cache;
    return &cache;
  }

  // A kept block of class `c`, or null where none is kept.
  void* Take(int c) {
    std::vector<void*>& kept = blocks_[c];
    if (kept.empty()) return nullptr;
    void* block = kept.back();
    kept.pop_back();
    return block;
  }

  // Keeps `block`, of class `c`, where the class holds fewer than `max_kept`; false where
  // the caller is to free it.
  bool Keep(int c, void* block, size_t max_kept) {
    if (blocks_[c].size() >= max_kept) return false;
    blocks_[c].push_back(block);
    return true;
  }

  ~ThreadBlockCache() {
    destroyed_ = true;
    for (auto& kept : blocks_) {
      for (void* block : kept) std::free(block);
    }
  }

 private:
  ThreadBlockCache() = default;

  // A plain bool, constant-initialized: readable until the thread is gone.
  static inline thread_local bool destroyed_ = false;
  std::vector<void*> blocks_[kClasses];
};

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_THREAD_BLOCK_CACHE_H_
