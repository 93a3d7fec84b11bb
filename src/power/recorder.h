#pragma once
// Runs a sampler on a background thread at a set interval and keeps its timestamped samples, so a
// measurement can cut them to its own timed window (both use steady_clock seconds: now_s()).
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "power/sampler.h"
#include "power/trace.h"

namespace ridge::power {

// steady_clock now, in seconds: the time base of live samples and of bench's timed window.
double now_s();

class Recorder {
 public:
  // interval_s <= 0: the sampler's default.
  Recorder(std::unique_ptr<Sampler> sampler, std::string source, double interval_s = 0);
  ~Recorder();
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  void start();
  void stop();  // idempotent; the destructor calls it
  double interval_s() const { return interval_s_; }
  // The samples so far (a copy); a sampler that failed on the thread rethrows its error here.
  Trace trace() const;
  // Waits until a sample at or after `time_s` exists (at most a few intervals): the end of a window
  // needs one sample past it to be interpolated.
  void wait_past(double time_s);

 private:
  void loop();
  void check_failure() const;

  std::unique_ptr<Sampler> sampler_;
  double interval_s_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  Trace trace_;
  std::string failure_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace ridge::power
