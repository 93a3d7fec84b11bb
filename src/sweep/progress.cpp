#include "sweep/progress.h"

#include <fmt/format.h>

#include <numeric>

namespace ridge::sweep {

Progress::Progress(std::vector<double> costs, bool terminal, std::FILE* out)
    : costs_(std::move(costs)), terminal_(terminal), out_(out), start_(std::chrono::steady_clock::now()) {
  cost_left_ = std::accumulate(costs_.begin(), costs_.end(), 0.0);
}

std::string Progress::clock_text(double s) {
  if (s < 0) return "?";
  auto total = static_cast<long long>(s + 0.5);
  if (total >= 3600) return fmt::format("{}h{:02}m", total / 3600, total % 3600 / 60);
  if (total >= 60) return fmt::format("{}m{:02}s", total / 60, total % 60);
  return fmt::format("{}s", total);
}

double Progress::eta_s() const {
  if (cost_done_ <= 0) return -1;
  return busy_s_ / cost_done_ * cost_left_;
}

void Progress::draw(const std::string& label) {
  size_t total = costs_.size();
  size_t finished = done_ + failed_;
  constexpr int kWidth = 24;
  int filled = total ? static_cast<int>(kWidth * finished / total) : kWidth;
  std::string bar(static_cast<size_t>(filled), '#');
  bar.resize(kWidth, '.');
  auto line = fmt::format("[{}] {}/{} done, {} failed, {} left, ETA {} | {}", bar, done_, total, failed_,
                          total - finished, clock_text(eta_s()), label);
  if (line.size() > 150) line = line.substr(0, 147) + "...";
  // \33[K clears what a longer previous line left.
  fmt::print(out_, "\r{}\33[K", line);
  std::fflush(out_);
}

void Progress::started(size_t i, const std::string& label) {
  cell_start_ = std::chrono::steady_clock::now();
  (void)i;
  if (terminal_) draw(label);
}

void Progress::finished(size_t i, bool ok, const std::string& detail) {
  busy_s_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - cell_start_).count();
  ok ? ++done_ : ++failed_;
  if (i < costs_.size()) cost_done_ += costs_[i], cost_left_ -= costs_[i];
  if (terminal_) {
    if (!ok) fmt::print(out_, "\r\33[Kfailed: {}\n", detail);
    draw(ok ? "" : "");
    return;
  }
  fmt::print(out_, "sweep: [{}/{}] {} {} (done {}, failed {}, left {}, ETA {})\n", done_ + failed_, costs_.size(),
             ok ? "ok" : "FAILED", detail, done_, failed_, costs_.size() - done_ - failed_, clock_text(eta_s()));
  std::fflush(out_);
}

void Progress::close() {
  if (terminal_) {
    fmt::print(out_, "\r\33[K");
    std::fflush(out_);
  }
}

}  // namespace ridge::sweep
