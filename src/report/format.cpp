#include "report/format.h"

#include <fmt/format.h>

#include <cmath>

namespace ridge::report {

std::string si(double value, const char* unit) {
  if (value == 0) return fmt::format("0{}{}", *unit ? " " : "", unit);
  static const char* kPrefixes[] = {"", "k", "M", "G", "T", "P", "E"};
  int index = 0;
  double scaled = std::fabs(value);
  while (scaled >= 999.5 && index < 6) {
    scaled /= 1000;
    ++index;
  }
  int decimals = scaled >= 99.95 ? 0 : scaled >= 9.995 ? 1 : 2;
  if (index == 0 && std::floor(scaled) == scaled) decimals = 0;
  return fmt::format("{}{:.{}f} {}{}", value < 0 ? "-" : "", scaled, decimals, kPrefixes[index], unit);
}

std::string si_bytes(double bytes) { return si(bytes, "B"); }

std::string fixed(double value, int decimals) { return fmt::format("{:.{}f}", value, decimals); }

}  // namespace ridge::report
