#include "power/recorder.h"

#include <chrono>

#include "util/error.h"

namespace ridge::power {

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

Recorder::Recorder(std::unique_ptr<Sampler> sampler, std::string source, double interval_s)
    : sampler_(std::move(sampler)), interval_s_(interval_s > 0 ? interval_s : sampler_->default_interval_s()) {
  trace_.source = std::move(source);
  trace_.rails = sampler_->rails();
  trace_.input_rail = sampler_->input_rail();
  trace_.counter_range_j = sampler_->counter_range_j();
}

Recorder::~Recorder() { stop(); }

void Recorder::start() {
  if (thread_.joinable()) return;
  stopping_ = false;
  thread_ = std::thread([this] { loop(); });
}

void Recorder::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Recorder::loop() {
  auto interval = std::chrono::duration<double>(interval_s_);
  auto next = std::chrono::steady_clock::now();
  while (true) {
    Sample sample;
    try {
      auto reading = sampler_->read();
      // A paced source's sample is as old as its line; a polled one is stamped between the reads.
      sample.time_s = now_s();
      sample.power_w = std::move(reading.power_w);
      sample.energy_j = std::move(reading.energy_j);
    } catch (const std::exception& e) {
      std::lock_guard lock(mutex_);
      failure_ = e.what();
      changed_.notify_all();
      return;
    }
    std::unique_lock lock(mutex_);
    trace_.samples.push_back(std::move(sample));
    changed_.notify_all();
    if (stopping_) return;
    if (sampler_->paced()) continue;
    next += std::chrono::duration_cast<std::chrono::steady_clock::duration>(interval);
    // A late read does not make the next ones bunch up: the schedule restarts from now.
    if (next < std::chrono::steady_clock::now()) next = std::chrono::steady_clock::now();
    if (changed_.wait_until(lock, next, [this] { return stopping_; })) return;
  }
}

void Recorder::check_failure() const {
  if (!failure_.empty()) throw Error(failure_);
}

Trace Recorder::trace() const {
  std::lock_guard lock(mutex_);
  check_failure();
  return trace_;
}

void Recorder::wait_past(double time_s) {
  std::unique_lock lock(mutex_);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(4 * interval_s_ + 1.0);
  changed_.wait_until(lock, std::chrono::time_point_cast<std::chrono::steady_clock::duration>(deadline), [&] {
    return !failure_.empty() || stopping_ || (!trace_.samples.empty() && trace_.samples.back().time_s >= time_s);
  });
  check_failure();
}

}  // namespace ridge::power
