#include "power/measure.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "power/recorder.h"
#include "power/source.h"

namespace ridge::power {
namespace {

Trace pick_rail(const Trace& trace, const std::string& rail) { return rail.empty() ? trace : only_rail(trace, rail); }

}  // namespace

Trace sample(const MeasureRequest& r, const std::function<void(double elapsed_s)>& progress) {
  SourceOptions options{r.interval_ms / 1e3};
  Recorder recorder(open_sampler(r.source, options), r.source, r.interval_ms / 1e3);
  auto start = now_s();
  recorder.start();
  // Wakes at least once a second, so progress keeps up with long samples.
  while (now_s() - start < r.duration_s) {
    double left = r.duration_s - (now_s() - start);
    std::this_thread::sleep_for(std::chrono::duration<double>(std::min(1.0, std::max(left, 0.0))));
    if (progress) progress(std::min(now_s() - start, r.duration_s));
  }
  recorder.stop();
  return pick_rail(recorder.trace(), r.rail);
}

Trace read_recorded(const MeasureRequest& r) {
  return pick_rail(read_trace_file(r.source, {r.interval_ms / 1e3}), r.rail);
}

}  // namespace ridge::power
