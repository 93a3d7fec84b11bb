#include "util/format.h"

#include <fmt/format.h>

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

}  // namespace ridge
