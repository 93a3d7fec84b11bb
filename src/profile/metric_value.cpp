#include "profile/metric_value.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <string>

namespace ridge::profile {
namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

// One side of a unit: an optional prefix on a base unit ncu uses. Units of counted things (inst,
// warp, sector, request, thread, block, cycle) get SI prefixes too: ncu scales them with
// --print-units auto.
UnitScale scale_of(std::string_view unit) {
  static const std::pair<const char*, const char*> kAliases[] = {
      {"s", "second"},   {"ms", "msecond"}, {"us", "usecond"}, {"ns", "nsecond"}, {"b", "byte"},
      {"bytes", "byte"}, {"hz", "hertz"},   {"khz", "khertz"}, {"mhz", "mhertz"}, {"ghz", "ghertz"},
  };
  static const char* kBases[] = {"byte",    "second", "hertz", "cycle",       "inst", "warp",        "sector",
                                 "request", "thread", "block", "instruction", "flop", "transaction", "wavefront"};
  std::string text = lower(trim(unit));
  for (const auto& [alias, full] : kAliases)
    if (text == alias) text = full;
  if (text.empty()) return {1, 1, "", true};
  if (text == "%") return {1, 1, "%", true};
  for (const char* base : kBases) {
    std::string_view b(base);
    if (text == b) return {1, 1, std::string(b), true};
    if (text.size() == b.size() + 1 && text.compare(1, std::string::npos, b) == 0) {
      switch (text[0]) {
        case 'k':
          return {1e3, 1, std::string(b), true};
        case 'm':
          return b == "second" ? UnitScale{1, 1e3, std::string(b), true}
                               : UnitScale{1e6, 1, std::string(b), true};  // msecond, but Mbyte, MHz
        case 'g':
          return {1e9, 1, std::string(b), true};
        case 't':
          return {1e12, 1, std::string(b), true};
        case 'p':
          return b == "second" ? UnitScale{1, 1e12, std::string(b), true} : UnitScale{1e15, 1, std::string(b), true};
        case 'u':
          return {1, 1e6, std::string(b), true};
        case 'n':
          return {1, 1e9, std::string(b), true};
        default:
          break;
      }
    }
    // Binary prefixes (Kibyte, Mibyte, ...), should an export use them.
    if (text.size() == b.size() + 2 && text[1] == 'i' && text.compare(2, std::string::npos, b) == 0) {
      switch (text[0]) {
        case 'k':
          return {1024.0, 1, std::string(b), true};
        case 'm':
          return {1024.0 * 1024, 1, std::string(b), true};
        case 'g':
          return {1024.0 * 1024 * 1024, 1, std::string(b), true};
        case 't':
          return {1024.0 * 1024 * 1024 * 1024, 1, std::string(b), true};
        default:
          break;
      }
    }
  }
  return {1, 1, std::string(trim(unit)), false};
}

}  // namespace

std::optional<double> parse_metric_number(std::string_view text) {
  text = trim(text);
  std::string digits;
  if (text.find(',') == std::string_view::npos) {
    digits.assign(text);
  } else {
    digits.reserve(text.size());
    for (char c : text)
      if (c != ',') digits += c;
  }
  if (digits.empty()) return std::nullopt;
  double value = 0;
  const char* begin = digits.data();
  const char* end = begin + digits.size();
  if (*begin == '+') ++begin;
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc() || ptr != end || !std::isfinite(value)) return std::nullopt;
  return value;
}

UnitScale unit_scale(std::string_view unit) {
  auto slash = unit.find('/');
  if (slash == std::string_view::npos) {
    return scale_of(unit);
  }
  auto top = scale_of(unit.substr(0, slash)), bottom = scale_of(unit.substr(slash + 1));
  if (!top.known || !bottom.known) return {1, 1, std::string(trim(unit)), false};
  // cycle/second is a clock: hertz, like the "hz" ncu prints for the same metric elsewhere.
  return {top.factor * bottom.divisor, top.divisor * bottom.factor,
          bottom.base == "second" && top.base == "cycle" ? "hertz" : top.base + "/" + bottom.base, true};
}

MetricValue scaled_value(std::string_view text, const UnitScale& scale) {
  MetricValue out;
  out.base_unit = scale.base;
  out.unit_known = scale.known;
  if (auto number = parse_metric_number(text)) {
    out.value = *number * scale.factor / scale.divisor;
  } else {
    auto word = lower(trim(text));
    if (!word.empty() && (word.front() == '+' || word.front() == '-')) word.erase(0, 1);
    out.infinite = word == "inf" || word == "infinity";
  }
  return out;
}

MetricValue parse_metric_value(std::string_view text, std::string_view unit) {
  return scaled_value(text, unit_scale(unit));
}

}  // namespace ridge::profile
