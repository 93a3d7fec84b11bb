#include "util/format.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace ridge {

std::string si(double value, const char* unit) {
  if (value == 0) return fmt::format("0{}{}", *unit ? " " : "", unit);
  static const char* kPrefixes[] = {"p", "n", "u", "m", "", "k", "M", "G", "T", "P", "E"};
  constexpr int kOne = 4;  // the index of no prefix
  int index = kOne;
  double scaled = std::fabs(value);
  while (scaled >= 999.5 && index < 10) {
    scaled /= 1000;
    ++index;
  }
  // Below one: milli down to pico (energies of a layer: "3.42 mJ"), rounding as above.
  while (scaled < 0.9995 && index > 0) {
    scaled *= 1000;
    --index;
  }
  int decimals = scaled >= 99.95 ? 0 : scaled >= 9.995 ? 1 : 2;
  if (index == kOne && std::floor(scaled) == scaled) decimals = 0;
  return fmt::format("{}{:.{}f} {}{}", value < 0 ? "-" : "", scaled, decimals, kPrefixes[index], unit);
}

std::string si_bytes(double bytes) { return si(bytes, "B"); }

std::string fixed(double value, int decimals) { return fmt::format("{:.{}f}", value, decimals); }

std::string op_counts(const std::map<std::string, int>& ops) {
  std::string text;
  for (const auto& [op, count] : ops) text += fmt::format("{}{} x{}", text.empty() ? "" : ", ", op, count);
  return text.empty() ? "none" : text;
}

std::string duration(double seconds) {
  if (seconds == 0) return "0";
  if (seconds < 1e-3) return fmt::format("{:.1f} us", seconds * 1e6);
  if (seconds < 1) return fmt::format("{:.3f} ms", seconds * 1e3);
  return fmt::format("{:.3f} s", seconds);
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string quoted = "\"";
  for (char ch : s) quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return quoted + "\"";
}

std::string cut_list(const std::string& text, size_t limit) {
  if (text.size() <= limit) return text;
  auto at = text.rfind(", ", limit);
  if (at == std::string::npos || at < limit / 2)
    return text.substr(0, limit) + fmt::format(" ... ({} more characters)", text.size() - limit);
  size_t rest = 1;
  for (auto p = text.find(", ", at + 2); p != std::string::npos; p = text.find(", ", p + 2)) ++rest;
  return text.substr(0, at) + fmt::format(", ... ({} more)", rest);
}

namespace {

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string closest_name(std::string_view word, const std::vector<std::string>& names) {
  std::string best;
  size_t best_distance = 3;  // farther than two edits is no suggestion
  for (const auto& name : names) {
    size_t d = edit_distance(word, name);
    if (d < best_distance) best_distance = d, best = name;
  }
  return best;
}

std::string unknown_name(std::string_view what, std::string_view word, const std::vector<std::string>& names) {
  auto best = closest_name(word, names);
  std::string all;
  for (const auto& name : names) all += (all.empty() ? "" : ", ") + name;
  return fmt::format("unknown {} '{}'{} ({}s: {})", what, word,
                     best.empty() ? "" : fmt::format("; did you mean '{}'?", best), what, all);
}

}  // namespace ridge
