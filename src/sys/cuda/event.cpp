#include "sys/cuda/event.h"

#include "sys/cuda/check.h"

namespace ridge::sys::cuda {

Event::Event() { check(cudaEventCreate(&event_), "cudaEventCreate"); }

Event::~Event() {
  if (event_) cudaEventDestroy(event_);
}

void Event::record(cudaStream_t stream) { check(cudaEventRecord(event_, stream), "cudaEventRecord"); }

void Event::wait() { check(cudaEventSynchronize(event_), "cudaEventSynchronize"); }

double Event::since(const Event& start) const {
  float ms = 0;
  check(cudaEventElapsedTime(&ms, start.event_, event_), "cudaEventElapsedTime");
  return ms;
}

}  // namespace ridge::sys::cuda
