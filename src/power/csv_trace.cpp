#include "power/csv_trace.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

#include "power/calendar.h"
#include "util/csv.h"
#include "util/error.h"

namespace ridge::power {
namespace {

std::string trim(std::string s) {
  auto space = [](unsigned char c) { return std::isspace(c) != 0; };
  s.erase(s.begin(), std::find_if_not(s.begin(), s.end(), space));
  s.erase(std::find_if_not(s.rbegin(), s.rend(), space).base(), s.end());
  return s;
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::optional<double> number(const std::string& text) {
  double v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || text.empty() || !std::isfinite(v)) return std::nullopt;
  // A unit after the number (nvidia-smi writes "55.23 W") is allowed, nothing else.
  std::string rest = trim(std::string(end, text.data() + text.size()));
  if (!rest.empty() && lower(rest) != "w" && lower(rest) != "mw" && lower(rest) != "s") return std::nullopt;
  return v;
}

}  // namespace

Trace parse_power_csv(const std::string& text, const std::string& source) {
  Trace trace;
  trace.source = source;
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    auto line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
    start = end + 1;
  }
  size_t header_at = 0;
  while (header_at < lines.size() && trim(lines[header_at]).empty()) ++header_at;
  if (header_at == lines.size())
    throw Error(fmt::format("{}: empty CSV (a header with a timestamp and a watts column)", source));
  auto header = split_csv_line(lines[header_at]);
  int time_column = -1, power_column = -1;
  double scale = 1;
  for (size_t c = 0; c < header.size(); ++c) {
    auto name = lower(trim(header[c]));
    if (time_column < 0 && (name == "timestamp" || name == "time" || name == "time_s" || name == "timestamp_s" ||
                            name == "t" || name == "seconds" || name == "elapsed_s"))
      time_column = static_cast<int>(c);
    if (power_column >= 0) continue;
    if (name == "power_w" || name == "watts" || name == "power" || name == "w" || name == "power.draw [w]" ||
        name == "power_watts") {
      power_column = static_cast<int>(c);
    } else if (name == "power_mw" || name == "milliwatts" || name == "mw") {
      power_column = static_cast<int>(c);
      scale = 1e-3;
    }
  }
  if (time_column < 0)
    throw Error(
        fmt::format("{}: no timestamp column (timestamp, time, time_s) in the header '{}'", source, lines[header_at]));
  if (power_column < 0)
    throw Error(
        fmt::format("{}: no watts column (power_w, watts, power, W, or power_mw in milliwatts) in the "
                    "header '{}'",
                    source, lines[header_at]));
  trace.rails = {trim(header[static_cast<size_t>(power_column)])};
  std::optional<double> first_s;
  for (size_t i = header_at + 1; i < lines.size(); ++i) {
    if (trim(lines[i]).empty()) continue;
    auto fields = split_csv_line(lines[i]);
    size_t needed = static_cast<size_t>(std::max(time_column, power_column));
    if (fields.size() <= needed)
      throw Error(fmt::format("{}: line {} has {} fields, the header {}", source, i + 1, fields.size(), header.size()));
    auto when = trim(fields[static_cast<size_t>(time_column)]);
    auto t = parse_iso8601_s(when);
    if (!t) t = number(when);
    if (!t) throw Error(fmt::format("{}: line {}: '{}' is neither an ISO 8601 time nor seconds", source, i + 1, when));
    auto w = number(trim(fields[static_cast<size_t>(power_column)]));
    if (!w)
      throw Error(fmt::format("{}: line {}: '{}' is not a power", source, i + 1,
                              trim(fields[static_cast<size_t>(power_column)])));
    if (!first_s) first_s = *t;
    trace.samples.push_back({*t - *first_s, {*w * scale}, {}});
  }
  if (trace.samples.empty()) throw Error(fmt::format("{}: no samples under the header", source));
  return trace;
}

}  // namespace ridge::power
