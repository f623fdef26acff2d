#include "kernels/bfc_allocator.h"

#include <algorithm>

namespace tensoract {
namespace {

size_t RoundUp(size_t bytes) {
  const size_t b = std::max<size_t>(bytes, 1);
  return (b + BFCAllocator::kMinChunkBytes - 1) / BFCAllocator::kMinChunkBytes * BFCAllocator::kMinChunkBytes;
}

}  // namespace

BFCAllocator::BFCAllocator(std::unique_ptr<SubAllocator> sub, Options options)
    : sub_(std::move(sub)), options_(std::move(options)),
      next_region_bytes_(RoundUp(std::min(options_.initial_region_bytes, options_.memory_limit))) {
  stats_.bytes_limit = static_cast<int64_t>(options_.memory_limit);
}

BFCAllocator::~BFCAllocator() {
  for (auto& [base, bytes] : regions_) sub_->Free(base, bytes);
}

int BFCAllocator::BinFor(size_t bytes) {
  int bin = 0;
  for (size_t b = bytes / kMinChunkBytes; b > 1 && bin < kNumBins - 1; b >>= 1) ++bin;
  return bin;
}

void BFCAllocator::InsertFree(char* p, const Chunk& c) { bins_[BinFor(c.size)].insert({c.size, p}); }
void BFCAllocator::EraseFree(char* p, const Chunk& c) { bins_[BinFor(c.size)].erase({c.size, p}); }

void* BFCAllocator::FindChunk(size_t bytes) {
  for (int bin = BinFor(bytes); bin < kNumBins; ++bin) {
    auto it = bins_[bin].lower_bound({bytes, nullptr});
    if (it == bins_[bin].end()) continue;
    char* p = it->second;
    bins_[bin].erase(it);
    Chunk& c = chunks_[p];
    // Split off what is left when it is worth a chunk of its own.
    if (c.size - bytes >= kMinChunkBytes) {
      Chunk rest{c.size - bytes, false, c.region};
      c.size = bytes;
      chunks_[p + bytes] = rest;
      InsertFree(p + bytes, rest);
    }
    c.in_use = true;
    return p;
  }
  return nullptr;
}

bool BFCAllocator::Grow(size_t bytes) {
  if (reserved_ >= options_.memory_limit) return false;
  const size_t room = options_.memory_limit - reserved_;
  size_t want = std::max(next_region_bytes_, bytes);
  if (want > room) want = room / kMinChunkBytes * kMinChunkBytes;
  if (want < bytes) return false;
  void* base = sub_->Alloc(want);
  // A first try at the doubled size may fail where the request itself fits.
  if (base == nullptr && want > bytes) {
    want = bytes;
    base = sub_->Alloc(want);
  }
  if (base == nullptr) return false;
  const int region = static_cast<int>(regions_.size());
  regions_.emplace_back(static_cast<char*>(base), want);
  reserved_ += want;
  next_region_bytes_ = std::min(next_region_bytes_ * 2, options_.memory_limit);
  Chunk c{want, false, region};
  chunks_[static_cast<char*>(base)] = c;
  InsertFree(static_cast<char*>(base), c);
  return true;
}

void* BFCAllocator::AllocateRaw(size_t alignment, size_t num_bytes) {
  if (alignment > kMinChunkBytes || num_bytes > options_.memory_limit) return nullptr;
  const size_t bytes = RoundUp(num_bytes);
  std::lock_guard<std::mutex> lock(mu_);
  void* p = FindChunk(bytes);
  if (p == nullptr && Grow(bytes)) p = FindChunk(bytes);
  if (p == nullptr) return nullptr;
  ++stats_.num_allocs;
  stats_.bytes_in_use += static_cast<int64_t>(bytes);
  stats_.peak_bytes_in_use = std::max(stats_.peak_bytes_in_use, stats_.bytes_in_use);
  stats_.largest_alloc_size = std::max(stats_.largest_alloc_size, static_cast<int64_t>(bytes));
  return p;
}

void BFCAllocator::DeallocateRaw(void* ptr, size_t /*num_bytes*/) {
  if (ptr == nullptr) return;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = chunks_.find(static_cast<char*>(ptr));
  if (it == chunks_.end() || !it->second.in_use) return;  // not ours, or freed twice: ignore
  it->second.in_use = false;
  stats_.bytes_in_use -= static_cast<int64_t>(it->second.size);
  // Merge with the next chunk, then with the previous one, when free and in the same region.
  auto next = std::next(it);
  if (next != chunks_.end() && !next->second.in_use && next->second.region == it->second.region &&
      it->first + it->second.size == next->first) {
    EraseFree(next->first, next->second);
    it->second.size += next->second.size;
    chunks_.erase(next);
  }
  if (it != chunks_.begin()) {
    auto prev = std::prev(it);
    if (!prev->second.in_use && prev->second.region == it->second.region &&
        prev->first + prev->second.size == it->first) {
      EraseFree(prev->first, prev->second);
      prev->second.size += it->second.size;
      chunks_.erase(it);
      it = prev;
    }
  }
  InsertFree(it->first, it->second);
}

AllocatorStats BFCAllocator::GetStats() const {
  std::lock_guard<std::mutex> lock(mu_);
  AllocatorStats s = stats_;
  s.bytes_reserved = static_cast<int64_t>(reserved_);
  for (int bin = kNumBins - 1; bin >= 0; --bin) {
    if (!bins_[bin].empty()) {
      s.largest_free_block_bytes = static_cast<int64_t>(bins_[bin].rbegin()->first);
      break;
    }
  }
  return s;
}

size_t BFCAllocator::NumChunks() const {
  std::lock_guard<std::mutex> lock(mu_);
  return chunks_.size();
}

size_t BFCAllocator::NumRegions() const {
  std::lock_guard<std::mutex> lock(mu_);
  return regions_.size();
}

}  // namespace tensoract
