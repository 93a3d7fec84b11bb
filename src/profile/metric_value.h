#pragma once
// One profiler metric value as ncu prints it ("1,048,576" with unit "Kbyte", "1.59" with unit
// "cycle/nsecond", "nan"), converted to base units: bytes, seconds, hertz, cycles, instructions,
// sectors, ... A unit ridge does not know is kept as text and its value left unscaled, so no number
// is silently rescaled by a guess.
#include <optional>
#include <string>
#include <string_view>

namespace ridge::profile {

struct MetricValue {
  std::optional<double> value;  // in `base_unit`; empty: the export had none ("nan", "n/a", "")
  std::string base_unit;        // "byte", "second", "hertz", "cycle", "inst", "%", ... or the unit as printed
  bool unit_known = true;       // false: an unknown unit, value as printed
  bool infinite = false;        // the export printed "inf": no value, and not a missing one either
};

// The number in `text` (thousands separators allowed), or empty for "", "nan", "n/a", "N/A" and
// anything that is not a whole number in decimal or exponent notation.
std::optional<double> parse_metric_number(std::string_view text);

// What a unit means: the factor to its base unit. Readers of large exports work it out once per
// distinct unit string.
struct UnitScale {
  // value x factor / divisor: sub-units divide by a whole power of ten (12.5 usecond is 12.5 / 1e6 s,
  // the double nearest 1.25e-5, where 12.5 x 1e-6 is not).
  double factor = 1;
  double divisor = 1;
  std::string base;  // the base unit, or the unit as printed when unknown
  bool known = true;
};
UnitScale unit_scale(std::string_view unit);
// `text` (a number as parse_metric_number reads it) in a unit of this scale.
MetricValue scaled_value(std::string_view text, const UnitScale& scale);

// `text` in `unit` converted to the base unit. Units: byte with SI prefixes (Kbyte = 1000 bytes,
// as ncu prints them) or binary ones (Kibyte = 1024), second/msecond/usecond/nsecond and
// s/ms/us/ns, hz/khz/mhz/ghz, and rates "A/B" of any two of those (cycle/nsecond, byte/second).
MetricValue parse_metric_value(std::string_view text, std::string_view unit);

}  // namespace ridge::profile
