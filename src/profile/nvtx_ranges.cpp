#include "profile/nvtx_ranges.h"

#include <algorithm>

namespace ridge::profile {
namespace {

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> out;
  for (size_t start = 0;;) {
    auto end = text.find(separator, start);
    out.push_back(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) return out;
    start = end + 1;
  }
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

bool is_none(std::string_view field) { return field.empty() || field == "none"; }

// Where the name and the message sit among a range entry's ':'-separated fields.
struct Fields {
  size_t count = 0;    // fields per entry; 0: the header does not describe them
  size_t name = 0;     // the "..._Range" field
  size_t message = 0;  // the "Msg" field, or count when none
};

Fields fields_of(std::string_view header) {
  // The field list is the header's last word ("thread Domain:Push/Pop_Range:...": the thread comes first).
  auto last_space = header.find_last_of(' ');
  auto list = split(last_space == std::string_view::npos ? header : header.substr(last_space + 1), ':');
  Fields f;
  f.message = list.size();
  bool named = false;
  for (size_t i = 0; i < list.size(); ++i) {
    if (!named && list[i].find("Range") != std::string_view::npos) {
      f.name = i;
      named = true;
    }
    if (list[i] == "Msg") f.message = i;
  }
  if (named && list.size() > 1) f.count = list.size();
  return f;
}

// The name in one entry: its fields are counted from both ends, so only the name may hold ':'.
std::string name_of(std::string_view entry, const Fields& f) {
  auto parts = split(entry, ':');
  if (f.count == 0 || parts.size() < f.count) return std::string(entry);
  size_t extra = parts.size() - f.count;  // ':' inside the name
  std::string name(parts[f.name]);
  for (size_t i = 1; i <= extra; ++i) name += ":" + std::string(parts[f.name + i]);
  if (is_none(name) && f.message < f.count) {
    auto message_at = f.message > f.name ? f.message + extra : f.message;
    if (!is_none(parts[message_at])) return std::string(parts[message_at]);
  }
  return is_none(name) ? std::string() : name;
}

}  // namespace

std::vector<std::string> nvtx_range_names(std::string_view header, std::string_view cell) {
  std::vector<std::string> names;
  cell = trim(cell);
  if (cell.empty()) return names;
  if (cell.find('"') == std::string_view::npos) {
    names.emplace_back(cell);  // an older export's plain range text
    return names;
  }
  auto fields = fields_of(header);
  // The quoted entries; what lies outside them (the thread) is not a range.
  for (size_t open = cell.find('"'); open != std::string_view::npos;) {
    auto close = cell.find('"', open + 1);
    if (close == std::string_view::npos) break;
    auto name = name_of(cell.substr(open + 1, close - open - 1), fields);
    if (!name.empty()) names.push_back(std::move(name));
    open = cell.find('"', close + 1);
  }
  return names;
}

}  // namespace ridge::profile
