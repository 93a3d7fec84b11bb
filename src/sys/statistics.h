#pragma once
// Statistics of repeated timings (and the one median every fit's error summary uses), and the stopping rule that
// decides when there are enough.
#include <cstdint>
#include <vector>

namespace ridge::sys {

struct Summary {
  int64_t samples = 0;
  double mean = 0, stddev = 0, min = 0, median = 0, p90 = 0, p99 = 0, max = 0;
  // Standard error of the mean over the mean: how well the mean is known.
  double relative_standard_error = 0;
};

// Percentiles interpolate linearly between order statistics (numpy's default).
Summary summarize(std::vector<double> samples);
// The median alone (the mean of the middle two of an even count); 0 for none.
double median(std::vector<double> samples);

// Mean and variance updated one sample at a time (Welford), so the stopping rule costs O(1).
class RunningStats {
 public:
  void add(double x);
  int64_t count() const { return count_; }
  double mean() const { return mean_; }
  double stddev() const;
  double relative_standard_error() const;

 private:
  int64_t count_ = 0;
  double mean_ = 0, m2_ = 0;
};

// Stop when the mean is known to `target_relative_error` (standard error / mean) after at least
// `min_samples`, or when `max_seconds` of measuring or `max_samples` are spent, whichever first.
struct StoppingCriterion {
  double target_relative_error = 0.01;
  int64_t min_samples = 10;
  int64_t max_samples = 100000;
  double max_seconds = 10;
  double min_seconds = 0;  // go on at least this long (power sensors need several samples per window)

  // Why to stop ("converged", "time budget", "sample limit"), or null to go on.
  const char* stop_reason(const RunningStats& stats, double elapsed_seconds) const;
};

}  // namespace ridge::sys
