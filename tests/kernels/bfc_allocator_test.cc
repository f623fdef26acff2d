// Tests for BFCAllocator (kernels/bfc_allocator.h) over plain host memory: best fit,
// splitting, coalescing, growth by regions up to the limit, statistics.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdlib>
#include <random>
#include <vector>

#include "kernels/bfc_allocator.h"

namespace tensoract {
namespace {

// Host memory, counting what is outstanding.
class HostSubAllocator : public SubAllocator {
 public:
  explicit HostSubAllocator(int* outstanding) : outstanding_(outstanding) {}
  void* Alloc(size_t bytes) override {
    ++*outstanding_;
    return std::aligned_alloc(256, bytes);
  }
  void Free(void* p, size_t) override {
    --*outstanding_;
    std::free(p);
  }

 private:
  int* outstanding_;
};

BFCAllocator::Options Small(size_t limit, size_t initial) {
  BFCAllocator::Options o;
  o.name = "test_bfc";
  o.memory_limit = limit;
  o.initial_region_bytes = initial;
  return o;
}

TEST_CASE("BFCAllocator rounds to 256 bytes, splits, and coalesces on free", "[bfc]") {
  int regions = 0;
  {
    BFCAllocator a(std::make_unique<HostSubAllocator>(&regions), Small(1 << 20, 1 << 20));
    void* p1 = a.AllocateRaw(64, 1);
    void* p2 = a.AllocateRaw(64, 300);
    REQUIRE(p1 != nullptr);
    REQUIRE(p2 != nullptr);
    CHECK(reinterpret_cast<uintptr_t>(p1) % 256 == 0);
    CHECK(static_cast<char*>(p2) - static_cast<char*>(p1) == 256);  // 1 byte takes one 256-byte chunk
    CHECK(a.GetStats().bytes_in_use == 256 + 512);
    CHECK(a.NumChunks() == 3);  // two in use and the rest of the region
    a.DeallocateRaw(p1, 1);
    a.DeallocateRaw(p2, 300);
    CHECK(a.NumChunks() == 1);  // all merged back into one block
    AllocatorStats s = a.GetStats();
    CHECK(s.bytes_in_use == 0);
    CHECK(s.peak_bytes_in_use == 768);
    CHECK(s.largest_free_block_bytes == (1 << 20));
    CHECK(s.num_allocs == 2);
  }
  CHECK(regions == 0);  // the destructor gives the regions back
}

TEST_CASE("BFCAllocator takes the best-fitting free chunk", "[bfc]") {
  int regions = 0;
  BFCAllocator a(std::make_unique<HostSubAllocator>(&regions), Small(1 << 20, 1 << 20));
  // Holes of 4 KiB and 1 KiB, separated by chunks kept in use.
  void* big = a.AllocateRaw(64, 4096);
  void* sep1 = a.AllocateRaw(64, 256);
  void* small = a.AllocateRaw(64, 1024);
  void* sep2 = a.AllocateRaw(64, 256);
  a.DeallocateRaw(big, 4096);
  a.DeallocateRaw(small, 1024);
  CHECK(a.AllocateRaw(64, 1000) == small);  // the 1 KiB hole, not the 4 KiB one
  CHECK(a.AllocateRaw(64, 4000) == big);
  (void)sep1;
  (void)sep2;
}

TEST_CASE("BFCAllocator grows by regions and stops at its limit", "[bfc]") {
  int regions = 0;
  BFCAllocator a(std::make_unique<HostSubAllocator>(&regions), Small(1 << 20, 1 << 16));
  std::vector<void*> held;
  for (int i = 0; i < 3; ++i) held.push_back(a.AllocateRaw(64, 60 << 10));  // 60 KiB each
  CHECK(a.NumRegions() >= 2);
  // More than what is left of the limit: nullptr, not a crash, and nothing changes.
  const AllocatorStats before = a.GetStats();
  CHECK(a.AllocateRaw(64, 1 << 20) == nullptr);
  CHECK(a.AllocateRaw(64, (2 << 20)) == nullptr);
  CHECK(a.GetStats().bytes_in_use == before.bytes_in_use);
  CHECK(a.GetStats().bytes_reserved <= (1 << 20));
  CHECK(a.GetStats().bytes_limit == (1 << 20));
  for (void* p : held) a.DeallocateRaw(p, 60 << 10);
  CHECK(a.GetStats().bytes_in_use == 0);
  CHECK(a.NumChunks() == a.NumRegions());  // each region one free block again
}

TEST_CASE("BFCAllocator survives random allocation and free without losing memory", "[bfc]") {
  int regions = 0;
  BFCAllocator a(std::make_unique<HostSubAllocator>(&regions), Small(64 << 20, 1 << 20));
  std::mt19937 rng(7);
  std::vector<std::pair<char*, size_t>> live;
  for (int i = 0; i < 20000; ++i) {
    if (live.empty() || rng() % 3 != 0) {
      const size_t n = 1 + rng() % (rng() % 8 == 0 ? (1 << 20) : 4096);
      char* p = static_cast<char*>(a.AllocateRaw(64, n));
      if (p == nullptr) continue;
      // No two live blocks overlap.
      for (size_t k = 0; k < live.size() && k < 8; ++k) {
        const auto& [q, m] = live[live.size() - 1 - k];
        REQUIRE((p + n <= q || q + m <= p));
      }
      live.emplace_back(p, n);
    } else {
      const size_t k = rng() % live.size();
      a.DeallocateRaw(live[k].first, live[k].second);
      live[k] = live.back();
      live.pop_back();
    }
  }
  for (auto& [p, n] : live) a.DeallocateRaw(p, n);
  CHECK(a.GetStats().bytes_in_use == 0);
  CHECK(a.NumChunks() == a.NumRegions());
}

}  // namespace
}  // namespace tensoract
