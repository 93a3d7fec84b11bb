#pragma once
// Text formatting for people and CSV: SI prefixes (G = 1e9, as the conventions require), durations, lists
// cut to length, CSV quoting. Below every module that prints or writes a file (exec, calib and report use it).
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace ridge {

// "4.09 G" style with three significant digits ("3.42 m" below one, down to pico); "0" for zero.
std::string si(double value, const char* unit = "");
std::string si_bytes(double bytes);  // "102 MB"
std::string fixed(double value, int decimals);
// "Conv x3, Relu x2", or "none": how op types without a cost (or prediction) are named.
std::string op_counts(const std::map<std::string, int>& ops);
// A duration for people: "12.3 us", "4.567 ms", "1.234 s".
std::string duration(double seconds);
// `text` cut to about `limit` characters for people, at a ", " between list items, with the count of the items
// left out ("a, b, ... (3 more)"); text without a list past the middle is cut with the characters left out.
std::string cut_list(const std::string& text, size_t limit = 300);
// A CSV field, quoted (RFC 4180) when it holds a comma, quote or newline.
std::string csv_field(const std::string& s);
// The name in `names` closest to `word` by edit distance (insertions, deletions, substitutions), the first of the
// closest; "" when every name is more than two edits away: what a typo meant, or no suggestion.
std::string closest_name(std::string_view word, const std::vector<std::string>& names);
// The one line for a `word` that names none of `names` (`what` they are: "command"), with the closest as a suggestion
// and every name: "unknown command 'analyse'; did you mean 'analyze'? (commands: analyze, bench)".
std::string unknown_name(std::string_view what, std::string_view word, const std::vector<std::string>& names);

}  // namespace ridge
