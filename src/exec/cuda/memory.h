#pragma once
// Device memory for the GPU executor: blocks are kept for reuse after they are freed (cudaMalloc and
// cudaFree synchronize the device and cost tens of microseconds, so an allocator that called them per
// node would time itself), with the bytes in use, their peak and the bytes reserved counted for the
// bench's memory figures.
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>

namespace ridge::exec::cuda {

class Allocator {
 public:
  ~Allocator();
  // A block of at least `bytes` (rounded up to 512 B), freed back to the cache when the last owner
  // drops it. Throws ridge::Error naming the request and the free memory when the device is out.
  std::shared_ptr<void> allocate(size_t bytes);
  // Returns every cached block to the driver.
  void release_cached();

  int64_t in_use_bytes() const { return in_use_; }
  int64_t peak_bytes() const { return peak_; }
  int64_t reserved_bytes() const { return reserved_; }
  void reset_peak() { peak_ = in_use_; }

  static size_t rounded(size_t bytes) { return (bytes + 511) / 512 * 512; }

 private:
  void give_back(void* pointer, size_t bytes);
  std::multimap<size_t, void*> free_;  // size -> block
  int64_t in_use_ = 0, peak_ = 0, reserved_ = 0;
};

}  // namespace ridge::exec::cuda
