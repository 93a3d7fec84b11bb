#include "power/calendar.h"

#include <cctype>
#include <string>

namespace ridge::power {

std::optional<double> civil_seconds(int64_t year, int64_t month, int64_t day, int64_t hour, int64_t minute,
                                    double second) {
  if (year < 1 || year > 9999 || month < 1 || month > 12 || day < 1 || day > 31 || hour < 0 || hour > 23 ||
      minute < 0 || minute > 59 || !(second >= 0 && second < 61))
    return std::nullopt;
  // Howard Hinnant's days_from_civil.
  year -= month <= 2;
  int64_t era = year / 400;
  int64_t yoe = year - era * 400;
  int64_t doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  int64_t days = era * 146097 + doe - 719468;
  return static_cast<double>(days * 86400 + hour * 3600 + minute * 60) + second;
}

namespace {

// Reads exactly `n` digits at `pos`.
bool digits(std::string_view s, size_t& pos, size_t n, int64_t& out) {
  if (pos + n > s.size()) return false;
  out = 0;
  for (size_t i = 0; i < n; ++i) {
    char c = s[pos + i];
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    out = out * 10 + (c - '0');
  }
  pos += n;
  return true;
}

bool expect(std::string_view s, size_t& pos, std::string_view one_of) {
  if (pos >= s.size() || one_of.find(s[pos]) == std::string_view::npos) return false;
  ++pos;
  return true;
}

}  // namespace

std::optional<double> parse_iso8601_s(std::string_view text) {
  size_t pos = 0;
  int64_t year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!digits(text, pos, 4, year) || !expect(text, pos, "-/") || !digits(text, pos, 2, month) ||
      !expect(text, pos, "-/") || !digits(text, pos, 2, day) || !expect(text, pos, "T ") ||
      !digits(text, pos, 2, hour) || !expect(text, pos, ":") || !digits(text, pos, 2, minute) ||
      !expect(text, pos, ":") || !digits(text, pos, 2, second))
    return std::nullopt;
  double fraction = 0, scale = 0.1;
  if (pos < text.size() && (text[pos] == '.' || text[pos] == ',')) {
    ++pos;
    size_t start = pos;
    for (; pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos])); ++pos, scale /= 10)
      fraction += (text[pos] - '0') * scale;
    if (pos == start) return std::nullopt;
  }
  double offset_s = 0;
  if (pos < text.size() && text[pos] == 'Z') {
    ++pos;
  } else if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) {
    int sign = text[pos] == '-' ? -1 : 1;
    ++pos;
    int64_t oh = 0, om = 0;
    if (!digits(text, pos, 2, oh)) return std::nullopt;
    if (pos < text.size() && text[pos] == ':') ++pos;
    if (!digits(text, pos, 2, om) || oh > 23 || om > 59) return std::nullopt;
    offset_s = sign * static_cast<double>(oh * 3600 + om * 60);
  }
  if (pos != text.size()) return std::nullopt;
  auto s = civil_seconds(year, month, day, hour, minute, static_cast<double>(second) + fraction);
  if (!s) return std::nullopt;
  return *s - offset_s;
}

}  // namespace ridge::power
