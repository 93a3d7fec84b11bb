#pragma once
// Power measured around a benchmark (`ridge bench --power`): one recorder running from before the first point to
// the end, the idle power measured first, and each point's energy integrated over its timed window.
#include <functional>
#include <memory>
#include <string>

#include "exec/bench.h"
#include "power/recorder.h"

namespace ridge::power {

struct BenchMeterOptions {
  std::string source;         // a live source: nvml, nvml:INDEX, jetson, tegrastats, rapl, rapl:dram
  double idle_time_s = 1;     // idle power measured before the first point (0: none)
  bool dynamic_only = false;  // subtract the idle power from the energies
  // Called once before the idle measurement (a line of progress), when given.
  std::function<void(const std::string&)> on_progress;
};

class BenchMeter : public exec::EnergyMeter {
 public:
  // Opens and starts the source (a file, or a source that cannot be read, is refused before anything is measured)
  // and measures idle power for idle_time_s seconds. Throws ridge::Error.
  explicit BenchMeter(const BenchMeterOptions& options);

  // Seconds between the source's samples.
  double interval_s() const override { return recorder_->interval_s(); }
  // The energy of a point's timed runs, from the samples of its window; a window too short for an energy, or a
  // source that failed, is a note on the result, never a figure.
  void attach(exec::BenchResult& result) const override;

 private:
  BenchMeterOptions options_;
  std::unique_ptr<Recorder> recorder_;
  double idle_w_ = -1;
};

}  // namespace ridge::power
