#pragma once
// ATen's CPU allocator with large blocks kept for reuse. Every run frees its activations and
// allocates the same sizes again; glibc hands blocks above its mmap threshold (32 MB at most)
// back to the OS on free, and the next run page-faults them in again: MobileNetV2's first
// 38 MB activation at batch 8 took 11 ms to write that way, against 1.5 ms for its neighbours.
// ONNX Runtime's arena keeps its blocks the same way. Smaller blocks stay in glibc's heap
// (entry.cpp turns its trimming off).
#include <c10/core/Allocator.h>

#include <cstddef>
#include <map>
#include <mutex>
#include <unordered_map>

namespace ridge::exec::aten {

class LargeBlockCache final : public c10::Allocator {
 public:
  static constexpr size_t kLargeBytes = size_t{32} << 20;
  // Free blocks kept at most; beyond, freed blocks go back to the OS.
  static constexpr size_t kMaxCachedBytes = size_t{4} << 30;

  explicit LargeBlockCache(c10::Allocator* small_blocks) : small_blocks_(small_blocks) {}
  c10::DataPtr allocate(size_t bytes) const override;
  c10::DeleterFnPtr raw_deleter() const override;
  // Installs one process-wide instance as ATen's CPU allocator (idempotent), and returns it.
  static const LargeBlockCache& install();
  size_t cached_bytes() const;
  // Returns every kept block to the OS: between measured points (another batch size allocates
  // other sizes), so memory kept for one point never counts against the next.
  void release_free_blocks() const;

 private:
  static void release(void* data);
  void* take(size_t bytes) const;
  bool give_back(void* data) const;  // false for a block of small_blocks_

  c10::Allocator* small_blocks_;
  mutable std::mutex mutex_;
  mutable std::multimap<size_t, void*> free_;
  mutable std::unordered_map<void*, size_t> live_;
  mutable size_t cached_bytes_ = 0;
};

}  // namespace ridge::exec::aten
