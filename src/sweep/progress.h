#pragma once
// Progress of a sweep on stderr: on a terminal, one bar redrawn in place (cell in flight, cells
// done / failed / left, ETA); otherwise one plain line per finished cell, for logs and SLURM.
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

namespace ridge::sweep {

class Progress {
 public:
  // `costs`: the analytical cost of every cell to run, in order (sweep/cost.h).
  Progress(std::vector<double> costs, bool terminal, std::FILE* out = stderr);
  void started(size_t i, const std::string& label);
  void finished(size_t i, bool ok, const std::string& detail);
  void close();

  // Seconds left: the time per unit of cost so far, times the cost left. Negative before any cell
  // has finished.
  double eta_s() const;
  static std::string clock_text(double seconds);  // "3m20s", "1h02m", "45s"

 private:
  void draw(const std::string& label);
  std::vector<double> costs_;
  bool terminal_;
  std::FILE* out_;
  size_t done_ = 0, failed_ = 0;
  double cost_done_ = 0, cost_left_ = 0;
  std::chrono::steady_clock::time_point start_;
  double busy_s_ = 0;  // time in finished cells
  std::chrono::steady_clock::time_point cell_start_;
};

}  // namespace ridge::sweep
