// The executor's CPU allocator (exec/aten/block_cache.h), through ATen: large blocks come back
// from the cache instead of the OS, small ones and oneDNN's raw allocations still work.
#include <ATen/ATen.h>
#include <c10/core/CPUAllocator.h>
#include <gtest/gtest.h>

#include "exec/aten/block_cache.h"

namespace ridge::test {
namespace {

using exec::aten::LargeBlockCache;

TEST(LargeBlockCache, KeepsFreedLargeBlocksForTheNextAllocationOfTheSameSize) {
  const auto& cache = LargeBlockCache::install();
  const size_t bytes = LargeBlockCache::kLargeBytes + 4096;
  size_t before = cache.cached_bytes();
  void* first = nullptr;
  {
    auto t = at::empty({static_cast<int64_t>(bytes / sizeof(float))});
    first = t.data_ptr();
    EXPECT_EQ(cache.cached_bytes(), before);
  }
  EXPECT_EQ(cache.cached_bytes(), before + bytes);  // kept, not returned to the OS
  {
    auto again = at::empty({static_cast<int64_t>(bytes / sizeof(float))});
    EXPECT_EQ(again.data_ptr(), first);
    EXPECT_EQ(cache.cached_bytes(), before);
    auto second = at::empty({static_cast<int64_t>(bytes / sizeof(float))});  // none left: a new block
    EXPECT_NE(second.data_ptr(), first);
    second.fill_(1.0f);
    EXPECT_EQ(second.sum().item<double>(), static_cast<double>(bytes / sizeof(float)));
  }
  EXPECT_EQ(cache.cached_bytes(), before + 2 * bytes);
  cache.release_free_blocks();  // between measured points
  EXPECT_EQ(cache.cached_bytes(), 0u);
  auto fresh = at::empty({static_cast<int64_t>(bytes / sizeof(float))});
  EXPECT_EQ(cache.cached_bytes(), 0u);
}

TEST(LargeBlockCache, SmallBlocksAndRawAllocationsPassThrough) {
  const auto& cache = LargeBlockCache::install();
  size_t before = cache.cached_bytes();
  {
    auto small = at::ones({256});
    EXPECT_EQ(small.sum().item<double>(), 256.0);
  }
  EXPECT_EQ(cache.cached_bytes(), before);
  // oneDNN's wrapper allocates with raw_allocate and frees with raw_deallocate.
  auto* allocator = c10::GetCPUAllocator();
  void* large = allocator->raw_allocate(LargeBlockCache::kLargeBytes);
  void* small = allocator->raw_allocate(100);
  ASSERT_NE(large, nullptr);
  ASSERT_NE(small, nullptr);
  allocator->raw_deallocate(small);
  allocator->raw_deallocate(large);
  EXPECT_EQ(cache.cached_bytes(), before + LargeBlockCache::kLargeBytes);
}

}  // namespace
}  // namespace ridge::test
