#pragma once
// One interface for every live power source: a sampler reads, at a moment, the power of each rail
// (and its energy counter where the source has one). A Recorder (power/recorder.h) calls it on a
// background thread; file sources (tegrastats logs, CSV traces) are read whole by power/source.h.
#include <memory>
#include <string>
#include <vector>

namespace ridge::power {

struct Reading {
  std::vector<double> power_w;   // one per rail
  std::vector<double> energy_j;  // one per rail where the source counts energy; else empty
};

class Sampler {
 public:
  virtual ~Sampler() = default;
  virtual std::vector<std::string> rails() const = 0;
  // The rail that is the board's input (its total), or -1 when the total sums the rails.
  virtual int input_rail() const { return -1; }
  // Per rail, where its energy counter wraps to zero (0: never); empty without counters.
  virtual std::vector<double> counter_range_j() const { return {}; }
  // The interval to poll at when none is given: what the sensor can resolve.
  virtual double default_interval_s() const { return 0.05; }
  // True when read() itself waits for the next sample (a tool that prints at its own pace).
  virtual bool paced() const { return false; }
  // Reads every rail now; throws ridge::Error with one line naming what could not be read.
  virtual Reading read() = 0;
};

}  // namespace ridge::power
