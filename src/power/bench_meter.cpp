#include "power/bench_meter.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "power/energy.h"
#include "power/source.h"
#include "util/error.h"

namespace ridge::power {

BenchMeter::BenchMeter(const BenchMeterOptions& options) : options_(options) {
  if (options.dynamic_only && !(options.idle_time_s > 0))
    throw Error("--dynamic-only subtracts the idle power: it needs --idle-time above 0");
  if (is_file_source(options.source))
    throw Error(
        fmt::format("--power {}: a file is no live source; integrate a recorded trace with `ridge power "
                    "integrate --source {}`",
                    options.source, options.source));
  recorder_ = std::make_unique<Recorder>(open_sampler(options.source), options.source);
  recorder_->start();
  if (options.idle_time_s <= 0) return;
  if (options.on_progress)
    options.on_progress(fmt::format("idle power from {} for {} s", options.source, options.idle_time_s));
  std::this_thread::sleep_for(std::chrono::duration<double>(options.idle_time_s));
  double end = now_s();
  recorder_->wait_past(end);
  auto trace = recorder_->trace();
  if (trace.samples.size() < 2 || trace.samples.front().time_s >= end)
    throw Error(fmt::format("--power {}: fewer than 2 samples in {} s of idle: raise --idle-time", options.source,
                            options.idle_time_s));
  idle_w_ = integrate(trace, trace.samples.front().time_s, end).mean_w;
}

void BenchMeter::attach(exec::BenchResult& result) const {
  auto& p = result.power;
  p.source = options_.source;
  p.idle_w = idle_w_;
  p.dynamic_only = options_.dynamic_only;
  p.window_s = result.timed_end_s - result.timed_start_s;
  try {
    recorder_->wait_past(result.timed_end_s);
    auto trace = recorder_->trace();
    auto e = integrate(trace, result.timed_start_s, result.timed_end_s);
    p.samples = e.samples;
    if (e.samples < 2) {
      result.notes.push_back(
          fmt::format("power: {} sensor sample(s) in the {:.3f} s timed window: too few for an "
                      "energy, none reported (raise --power-min-time)",
                      e.samples, p.window_s));
      return;
    }
    double idle = options_.dynamic_only ? idle_w_ : 0;
    p.energy_j = e.energy_j - idle * e.duration_s;
    p.mean_w = p.energy_j / e.duration_s;
    p.energy_per_inference_j = p.energy_j / static_cast<double>(std::max<int64_t>(result.latency_ms.samples, 1));
    p.measured = true;
    if (options_.dynamic_only)
      result.notes.push_back(fmt::format("power: dynamic only: idle power {:.3f} W subtracted", idle_w_));
  } catch (const Error& e) {
    result.notes.push_back(fmt::format("power: not measured: {}", e.what()));
  }
}

}  // namespace ridge::power
