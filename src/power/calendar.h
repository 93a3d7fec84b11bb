#pragma once
// Calendar dates and times of day as seconds, for the wall-clock stamps of logs (tegrastats, meter
// CSVs); only differences between them are used, so no time zone is needed.
#include <cstdint>
#include <optional>
#include <string_view>

namespace ridge::power {

// Seconds since 1970-01-01 00:00:00 of a proleptic Gregorian date and time; nullopt when a field is
// out of its range.
std::optional<double> civil_seconds(int64_t year, int64_t month, int64_t day, int64_t hour, int64_t minute,
                                    double second);

// ISO 8601 "2026-07-22T21:41:45.304Z" (also "+02:00", a space for the T, '/' in the date as
// nvidia-smi writes it); nullopt when the text is not one.
std::optional<double> parse_iso8601_s(std::string_view text);

}  // namespace ridge::power
