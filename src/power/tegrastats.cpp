#include "power/tegrastats.h"

#include <fmt/format.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "power/calendar.h"
#include "power/jetson_rails.h"
#include "util/error.h"

extern char** environ;

namespace ridge::power {
namespace {

std::vector<std::string_view> tokens(std::string_view line) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    size_t start = i;
    while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

bool all_digits(std::string_view s) {
  if (s.empty() || s.size() > 12) return false;  // 12 digits of mW is already a terawatt
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

// "3150mW/2971mW", "3150mW/2971mW/3200mW" or "3962/3962": the first value in mW.
std::optional<double> rail_value_mw(std::string_view token) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t slash = token.find('/', start);
    parts.push_back(token.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start));
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  if (parts.size() < 2 || parts.size() > 3) return std::nullopt;
  bool with_unit = parts[0].size() > 2 && parts[0].substr(parts[0].size() - 2) == "mW";
  for (auto p : parts) {
    if (with_unit) {
      if (p.size() < 3 || p.substr(p.size() - 2) != "mW") return std::nullopt;
      p.remove_suffix(2);
    }
    if (!all_digits(p)) return std::nullopt;
  }
  auto first = with_unit ? parts[0].substr(0, parts[0].size() - 2) : parts[0];
  double mw = 0;
  for (char c : first) mw = mw * 10 + (c - '0');
  return mw;
}

bool rail_name(std::string_view s) {
  bool letter = false;
  for (char c : s) {
    if (std::isalpha(static_cast<unsigned char>(c)))
      letter = true;
    else if (!std::isdigit(static_cast<unsigned char>(c)) && c != '_')
      return false;
  }
  return letter && s != "RAM" && s != "SWAP" && s != "IRAM";
}

// "11-21-2025" "08:49:48" as civil seconds.
std::optional<double> timestamp(std::string_view date, std::string_view time) {
  auto field = [](std::string_view s, size_t at, size_t n, int64_t& out) {
    if (at + n > s.size()) return false;
    out = 0;
    for (size_t i = at; i < at + n; ++i) {
      if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
      out = out * 10 + (s[i] - '0');
    }
    return true;
  };
  int64_t month = 0, day = 0, year = 0, hour = 0, minute = 0, second = 0;
  if (date.size() != 10 || date[2] != '-' || date[5] != '-' || time.size() != 8 || time[2] != ':' || time[5] != ':')
    return std::nullopt;
  if (!field(date, 0, 2, month) || !field(date, 3, 2, day) || !field(date, 6, 4, year) || !field(time, 0, 2, hour) ||
      !field(time, 3, 2, minute) || !field(time, 6, 2, second))
    return std::nullopt;
  return civil_seconds(year, month, day, hour, minute, static_cast<double>(second));
}

}  // namespace

std::optional<TegrastatsLine> parse_tegrastats_line(std::string_view line) {
  while (!line.empty() && (line.back() == '\r' || line.back() == '\n')) line.remove_suffix(1);
  auto t = tokens(line);
  // Every tegrastats line starts (after its optional timestamp) with `RAM USED/TOTALMB`.
  size_t ram = 0;
  TegrastatsLine out;
  if (t.size() >= 2 && t[0].size() == 10 && t[0][2] == '-') {
    out.clock_s = timestamp(t[0], t[1]);
    if (!out.clock_s) return std::nullopt;
    ram = 2;
  }
  if (t.size() < ram + 2 || t[ram] != "RAM" || t[ram + 1].size() < 3 ||
      t[ram + 1].substr(t[ram + 1].size() - 2) != "MB")
    return std::nullopt;
  for (size_t i = ram + 2; i + 1 < t.size(); ++i) {
    if (!rail_name(t[i])) continue;
    if (auto mw = rail_value_mw(t[i + 1])) {
      out.rails_w.emplace_back(std::string(t[i]), *mw / 1e3);
      ++i;
    }
  }
  return out;
}

Trace parse_tegrastats(const std::string& text, const std::string& source, double interval_s) {
  if (!(interval_s > 0)) throw Error("tegrastats: the interval must be positive");
  Trace trace;
  trace.source = source;
  std::vector<TegrastatsLine> lines;
  size_t start = 0, number = 0;
  int64_t without_rails = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    ++number;
    auto parsed = parse_tegrastats_line(std::string_view(text).substr(start, end - start));
    start = end + 1;
    if (!parsed) {
      ++trace.skipped_lines;
      continue;
    }
    if (parsed->rails_w.empty()) {
      ++without_rails;
      continue;
    }
    if (trace.rails.empty())
      for (const auto& [name, w] : parsed->rails_w) trace.rails.push_back(name);
    bool same = parsed->rails_w.size() == trace.rails.size();
    for (size_t r = 0; same && r < trace.rails.size(); ++r) same = parsed->rails_w[r].first == trace.rails[r];
    if (!same)
      throw Error(fmt::format("{}: line {} has other rails than the first line ({})", source, number,
                              fmt::join(trace.rails, ", ")));
    lines.push_back(std::move(*parsed));
  }
  if (lines.empty() && without_rails > 0)
    throw Error(fmt::format("{}: no power rails: run tegrastats as root (sudo tegrastats) to get them", source));
  if (lines.empty())
    throw Error(
        fmt::format("{}: no tegrastats lines (a line starts with `RAM USED/TOTALMB`, after an optional "
                    "timestamp)",
                    source));
  for (size_t r = 0; r < trace.rails.size(); ++r)
    if (is_input_rail(trace.rails[r])) trace.input_rail = static_cast<int>(r);
  // Lines sharing one timestamp second are spread over it by the interval (at most evenly).
  size_t i = 0;
  while (i < lines.size()) {
    size_t j = i + 1;
    if (lines[i].clock_s)
      while (j < lines.size() && lines[j].clock_s == lines[i].clock_s) ++j;
    double step = std::min(interval_s, 1.0 / static_cast<double>(j - i));
    for (size_t k = i; k < j; ++k) {
      Sample s;
      if (lines[k].clock_s)
        s.time_s = *lines[k].clock_s - *lines.front().clock_s + static_cast<double>(k - i) * step;
      else
        s.time_s = trace.samples.empty() ? 0 : trace.samples.back().time_s + interval_s;
      for (const auto& [name, w] : lines[k].rails_w) s.power_w.push_back(w);
      trace.samples.push_back(std::move(s));
    }
    i = j;
  }
  // A log mixing lines with and without timestamps has no single clock.
  bool stamped = lines.front().clock_s.has_value();
  for (const auto& l : lines)
    if (l.clock_s.has_value() != stamped)
      throw Error(fmt::format("{}: some lines have a timestamp and some do not", source));
  return trace;
}

namespace {

// Reads tegrastats' stdout through a pipe; the child is ended (by its pid) when the sampler goes.
class TegrastatsSampler : public Sampler {
 public:
  explicit TegrastatsSampler(double interval_s) : interval_s_(interval_s) {
    int fds[2];
    if (pipe(fds) != 0) throw Error(fmt::format("tegrastats: cannot make a pipe: {}", std::strerror(errno)));
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&actions, fds[0]);
    posix_spawn_file_actions_addclose(&actions, fds[1]);
    std::string interval = std::to_string(static_cast<int64_t>(interval_s * 1e3 + 0.5));
    std::vector<std::string> args{"tegrastats", "--interval", interval};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    int rc = posix_spawnp(&pid_, "tegrastats", &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    close(fds[1]);
    if (rc != 0) {
      close(fds[0]);
      pid_ = -1;
      throw Error(rc == ENOENT ? "tegrastats: not found on PATH (it comes with JetPack on Jetson boards)"
                               : fmt::format("tegrastats: cannot start it: {}", std::strerror(rc)));
    }
    out_ = fdopen(fds[0], "r");
    first_ = next_line();  // rails and whether it runs as root are known before recording starts
    for (const auto& [name, w] : first_.rails_w) rails_.push_back(name);
    for (size_t r = 0; r < rails_.size(); ++r)
      if (is_input_rail(rails_[r])) input_ = static_cast<int>(r);
  }
  ~TegrastatsSampler() override {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      waitpid(pid_, nullptr, 0);
    }
    if (out_) fclose(out_);
  }
  std::vector<std::string> rails() const override { return rails_; }
  int input_rail() const override { return input_; }
  double default_interval_s() const override { return interval_s_; }
  bool paced() const override { return true; }
  Reading read() override {
    Reading r;
    auto line = have_first_ ? std::exchange(first_, {}) : next_line();
    have_first_ = false;
    if (line.rails_w.size() != rails_.size()) throw Error("tegrastats: its rails changed while recording");
    for (const auto& [name, w] : line.rails_w) r.power_w.push_back(w);
    return r;
  }

 private:
  TegrastatsLine next_line() {
    char buffer[8192];
    while (out_ && std::fgets(buffer, sizeof buffer, out_)) {
      auto line = parse_tegrastats_line(buffer);
      if (!line) continue;
      if (line->rails_w.empty()) throw Error("tegrastats: no power rails: run tegrastats (and ridge) as root");
      return *line;
    }
    throw Error("tegrastats: it stopped printing (exited or closed its output)");
  }

  double interval_s_;
  pid_t pid_ = -1;
  FILE* out_ = nullptr;
  TegrastatsLine first_;
  bool have_first_ = true;
  std::vector<std::string> rails_;
  int input_ = -1;
};

}  // namespace

std::unique_ptr<Sampler> tegrastats_sampler(double interval_s) {
  return std::make_unique<TegrastatsSampler>(interval_s > 0 ? interval_s : 1.0);
}

}  // namespace ridge::power
