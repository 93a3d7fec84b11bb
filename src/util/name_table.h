#pragma once
// One table of names per enum: the name of a value, and the value of a name, for command-line
// options and outputs. Parsing an unknown name throws ridge::Error listing the valid ones.
#include <fmt/format.h>

#include <array>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/error.h"

namespace ridge {

template <class Enum, size_t N>
using NameTable = std::array<std::pair<Enum, std::string_view>, N>;

template <class Enum, size_t N>
std::string_view name_in(const NameTable<Enum, N>& table, Enum value) {
  for (const auto& [v, name] : table)
    if (v == value) return name;
  return "?";
}

template <class Enum, size_t N>
std::vector<std::string> names_in(const NameTable<Enum, N>& table) {
  std::vector<std::string> names;
  for (const auto& entry : table) names.emplace_back(entry.second);
  return names;
}

// `what` names the option in the message: "unknown precision 'fp8' (fp32, bf16)".
template <class Enum, size_t N>
Enum parse_in(const NameTable<Enum, N>& table, std::string_view what, std::string_view text) {
  for (const auto& [v, name] : table)
    if (name == text) return v;
  throw Error(fmt::format("unknown {} '{}' ({})", what, text, fmt::join(names_in(table), ", ")));
}

}  // namespace ridge
