#pragma once
// A CUDA event that destroys itself: GPU time between two points of a stream, as the executor's bench
// and the GPU roofline measure it.
#include <cuda_runtime_api.h>

namespace ridge::sys::cuda {

class Event {
 public:
  Event();
  ~Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  Event(Event&& other) noexcept : event_(other.event_) { other.event_ = nullptr; }

  void record(cudaStream_t stream);
  void wait();  // until the work before it is done
  // Milliseconds from `start` to this event (both recorded and complete).
  double since(const Event& start) const;

 private:
  cudaEvent_t event_ = nullptr;
};

}  // namespace ridge::sys::cuda
