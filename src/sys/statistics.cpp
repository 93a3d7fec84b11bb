#include "sys/statistics.h"

#include <algorithm>
#include <cmath>

namespace ridge::sys {

namespace {

double percentile(const std::vector<double>& sorted, double p) {
  double rank = p * static_cast<double>(sorted.size() - 1);
  auto below = static_cast<size_t>(std::floor(rank));
  size_t above = std::min(below + 1, sorted.size() - 1);
  double fraction = rank - static_cast<double>(below);
  return sorted[below] + fraction * (sorted[above] - sorted[below]);
}

}  // namespace

double median(std::vector<double> samples) {
  if (samples.empty()) return 0;
  std::sort(samples.begin(), samples.end());
  return percentile(samples, 0.5);
}

Summary summarize(std::vector<double> samples) {
  Summary s;
  s.samples = static_cast<int64_t>(samples.size());
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  double sum = 0;
  for (double x : samples) sum += x;
  s.mean = sum / static_cast<double>(samples.size());
  double squares = 0;
  for (double x : samples) squares += (x - s.mean) * (x - s.mean);
  // Sample standard deviation (n - 1); zero for one sample.
  s.stddev = samples.size() > 1 ? std::sqrt(squares / static_cast<double>(samples.size() - 1)) : 0;
  s.min = samples.front();
  s.max = samples.back();
  s.median = percentile(samples, 0.5);
  s.p90 = percentile(samples, 0.9);
  s.p99 = percentile(samples, 0.99);
  s.relative_standard_error = s.mean > 0 ? s.stddev / std::sqrt(static_cast<double>(samples.size())) / s.mean : 0;
  return s;
}

void RunningStats::add(double x) {
  ++count_;
  double delta = x - mean_;
  mean_ += delta / static_cast<double>(count_);
  m2_ += delta * (x - mean_);
}

double RunningStats::stddev() const { return count_ > 1 ? std::sqrt(m2_ / static_cast<double>(count_ - 1)) : 0; }

double RunningStats::relative_standard_error() const {
  return mean_ > 0 ? stddev() / std::sqrt(static_cast<double>(count_)) / mean_ : 0;
}

const char* StoppingCriterion::stop_reason(const RunningStats& stats, double elapsed_seconds) const {
  if (stats.count() >= max_samples) return "sample limit";
  if (elapsed_seconds < min_seconds) return nullptr;
  if (stats.count() >= std::max<int64_t>(min_samples, 2) && stats.relative_standard_error() <= target_relative_error)
    return "converged";
  if (elapsed_seconds >= max_seconds && stats.count() >= 1) return "time budget";
  return nullptr;
}

}  // namespace ridge::sys
