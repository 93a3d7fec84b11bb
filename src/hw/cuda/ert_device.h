#pragma once
// What the GPU ert's steps share: device memory and events that free themselves, timing on one
// stream, the repetition plan, progress lines.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "hw/ert/gpu_ert.h"
#include "sys/cuda/check.h"
#include "sys/cuda/event.h"

namespace ridge::hw::cuda {

// cudaMalloc'd memory of `bytes`, freed with the object. `what` names it in an out-of-memory error.
class DeviceMemory {
 public:
  DeviceMemory(size_t bytes, const std::string& what);
  ~DeviceMemory();
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;

  template <typename T>
  T* as() const {
    return static_cast<T*>(data_);
  }
  size_t bytes() const { return bytes_; }

 private:
  void* data_ = nullptr;
  size_t bytes_ = 0;
};

// Times work enqueued on one stream with a pair of CUDA events.
class EventTimer {
 public:
  explicit EventTimer(cudaStream_t stream) : stream_(stream) {}

  // Seconds between the events recorded before and after `enqueue` (which only enqueues), after
  // waiting for the stream.
  double seconds(const std::function<void()>& enqueue);

 private:
  cudaStream_t stream_;
  sys::cuda::Event start_, stop_;
};

struct Run {
  const ert::GpuErtOptions& options;
  ert::GpuProperties gpu;
  const ert::SmRates* rates = nullptr;  // null: a compute capability ridge's table lacks
  cudaStream_t stream = nullptr;
  int repetitions = 7;
  double min_seconds = 0.05;  // per timed repetition

  void say(const std::string& line) const {
    if (options.progress) options.progress(line);
  }
};

// Doubles `size` from `start` (at most to `limit`) until one timed run of `time(size)` seconds takes
// at least half of `run.min_seconds`; returns the size.
long long size_for(const Run& run, long long start, long long limit, const std::function<double(long long)>& time);

// The rate of each repetition: amount(size) / time(size).
std::vector<double> rates(const Run& run, long long size, const std::function<double(long long)>& time,
                          const std::function<double(long long)>& amount);

// "61.2 TFLOP/s (91.5% of 66.9 TFLOP/s)" with the above-theoretical flag where it applies.
std::string rate_text(double rate, double theoretical, const char* unit);

// The cuBLASLt matrix products (ert_gemm.cpp): fp16, bf16, tf32, int8.
std::vector<ert::GpuPeak> measure_tensor_peaks(const Run& run);

}  // namespace ridge::hw::cuda
