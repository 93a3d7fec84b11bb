#pragma once
// Splitting one CSV line (RFC 4180 quoting: "a,b" and doubled quotes), for the CSV files ridge
// reads back (measured node times, calibration samples). Quoting on output: util/format.h.
#include <string>
#include <string_view>
#include <vector>

namespace ridge {

std::vector<std::string> split_csv_line(const std::string& line);
// The same into `fields`, reusing its strings' storage: for readers of large files (ncu exports).
void split_csv_line(std::string_view line, std::vector<std::string>& fields);
// "a,b,c" as {"a", "b", "c"}, no quoting, empty items kept ("" is {""}): option lists such as --modes 15W,MAXN.
std::vector<std::string> split_commas(const std::string& text);

}  // namespace ridge
