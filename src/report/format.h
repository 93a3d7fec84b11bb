#pragma once
// Number formatting for human output: SI prefixes (G = 1e9), as the conventions require.
#include <cstdint>
#include <string>

namespace ridge::report {

// "4.09 G" style with three significant digits; "0" for zero.
std::string si(double value, const char* unit = "");
std::string si_bytes(double bytes);  // "102 MB"
std::string fixed(double value, int decimals);

}  // namespace ridge::report
