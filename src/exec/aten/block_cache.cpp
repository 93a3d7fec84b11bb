#include "exec/aten/block_cache.h"

#include <c10/core/CPUAllocator.h>

#include <cstdlib>
#include <new>

namespace ridge::exec::aten {

namespace {
constexpr size_t kAlignment = 64;  // as ATen's own CPU allocator
LargeBlockCache* installed = nullptr;
}  // namespace

c10::DataPtr LargeBlockCache::allocate(size_t bytes) const {
  if (bytes < kLargeBytes) return small_blocks_->allocate(bytes);
  void* data = take(bytes);
  if (!data) {
    data = std::aligned_alloc(kAlignment, (bytes + kAlignment - 1) / kAlignment * kAlignment);
    if (!data) throw std::bad_alloc();
    std::lock_guard lock(mutex_);
    live_.emplace(data, bytes);
  }
  // Context = data with a raw deleter: oneDNN's wrapper (ideep) allocates through raw_allocate.
  return {data, data, &LargeBlockCache::release, c10::Device(c10::DeviceType::CPU)};
}

c10::DeleterFnPtr LargeBlockCache::raw_deleter() const { return &LargeBlockCache::release; }

void LargeBlockCache::release(void* data) {
  if (!installed->give_back(data)) installed->small_blocks_->raw_deleter()(data);
}

void* LargeBlockCache::take(size_t bytes) const {
  std::lock_guard lock(mutex_);
  auto it = free_.find(bytes);  // runs repeat their sizes exactly
  if (it == free_.end()) return nullptr;
  void* data = it->second;
  free_.erase(it);
  cached_bytes_ -= bytes;
  live_.emplace(data, bytes);
  return data;
}

bool LargeBlockCache::give_back(void* data) const {
  {
    std::lock_guard lock(mutex_);
    auto it = live_.find(data);
    if (it == live_.end()) return false;  // a small block
    size_t bytes = it->second;
    live_.erase(it);
    if (cached_bytes_ + bytes <= kMaxCachedBytes) {
      free_.emplace(bytes, data);
      cached_bytes_ += bytes;
      return true;
    }
  }
  std::free(data);
  return true;
}

void LargeBlockCache::release_free_blocks() const {
  std::lock_guard lock(mutex_);
  for (auto& [bytes, data] : free_) std::free(data);
  free_.clear();
  cached_bytes_ = 0;
}

size_t LargeBlockCache::cached_bytes() const {
  std::lock_guard lock(mutex_);
  return cached_bytes_;
}

const LargeBlockCache& LargeBlockCache::install() {
  if (!installed) {
    // Never destroyed: tensors may be freed during static destruction.
    installed = new LargeBlockCache(c10::GetDefaultCPUAllocator());
    c10::SetCPUAllocator(installed);
  }
  return *installed;
}

}  // namespace ridge::exec::aten
