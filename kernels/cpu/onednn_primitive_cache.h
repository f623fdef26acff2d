// The oneDNN primitives a kernel has made, one per shape, kept for the next call: what
// OnednnConv, OnednnMatMul and the convolution gradients (kernels/cpu/onednn_*.h) share.
// Free of oneDNN's headers, so a kernel's header can hold one whether or not oneDNN is built
// in; Get is only instantiated where it is (with the Entry complete).
//
//   struct Entry { bool unsupported = false; dnnl::..._forward::primitive_desc pd; ... };
//   OnednnPrimitiveCache<Key, Entry> cache_;
//   auto entry = cache_.Get(key, [&](Entry* made) { ... made->pd = ...; });  // throws dnnl::error
//   if (entry->unsupported) ... our own kernel ...
//
// `make` throws dnnl::error where oneDNN has no implementation (or only its reference
// loops): that entry is kept as unsupported, so the shape is not tried again. Thread-safe:
// two threads may make the same entry at once; the first one stored wins.
#ifndef TENSORACT_KERNELS_CPU_ONEDNN_PRIMITIVE_CACHE_H_
#define TENSORACT_KERNELS_CPU_ONEDNN_PRIMITIVE_CACHE_H_

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>

namespace tensoract {

// Sets the calling thread's OpenMP team to one thread (kernels/cpu/onednn_util.cc). oneDNN's
// kernels fix their thread count when their primitive is made, not when it runs: one made on
// a thread that had never run a piece (two OpenMP threads by default, one per core) started
// an OpenMP team of two inside every piece, whose second thread then spun for a core the
// device's other threads held.
void OnednnOneThread();

// Whether this build targets AVX-512, where oneDNN's float kernels beat ours on shapes ours
// won on an AVX2 Zen 3: Keras' Conv1D (OnednnConv::Suits) and dense layers by constant
// weights (kernels/cpu/matmul_op.cc), measured on a Zen 4. AVX2 builds keep our kernels.
#if defined(__AVX512F__)
inline constexpr bool kOnednnFloatOverOurs = true;
#else
inline constexpr bool kOnednnFloatOverOurs = false;
#endif

template <class Key, class Entry>
class OnednnPrimitiveCache {
 public:
  template <class Make>
  std::shared_ptr<Entry> Get(const Key& key, const Make& make) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = entries_.find(key);
      if (it != entries_.end()) return it->second;
    }
    auto made = std::make_shared<Entry>();
    OnednnOneThread();
    try {
      make(made.get());
    } catch (const std::exception&) {  // dnnl::error: oneDNN has no kernel for this shape
      made = std::make_shared<Entry>();
      made->unsupported = true;
    }
    std::lock_guard<std::mutex> lock(mu_);
    if (entries_.size() >= kMaxShapes) entries_.clear();  // a model fed ever new shapes
    return entries_.emplace(key, made).first->second;      // another thread's, if it was first
  }

 private:
  // Shapes kept per kernel; a model fed ever new shapes starts over past this.
  static constexpr size_t kMaxShapes = 64;
  std::mutex mu_;
  std::map<Key, std::shared_ptr<Entry>> entries_;  // under mu_
};

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_CPU_ONEDNN_PRIMITIVE_CACHE_H_
