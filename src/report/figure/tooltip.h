#pragma once
// Tooltips and the Vega expressions that fill them. Every mark a reader may ask about carries one:
// on hover in the HTML page, and as the mark's accessible label (aria-label) in the SVG, so a static
// file still names every point and the tests can count them.
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace ridge::report::figure {

// One tooltip row: a label and a Vega expression over `datum`.
using TooltipField = std::pair<std::string, std::string>;
// Encodings that show `fields` on hover (`tooltip`) and as each mark's accessible label
// (`description`, written as aria-label in the SVG, so a static file still names every point).
void add_tooltip(nlohmann::ordered_json& encode_block, const std::vector<TooltipField>& fields);

// Vega expressions for the usual figures: SI-prefixed numbers, milliseconds.
std::string si_expr(const std::string& field, const std::string& unit);
std::string ms_expr(const std::string& seconds_field);

// `text` as a single-quoted Vega string literal ('it\'s').
std::string vega_string(const std::string& text);
// A Vega expression that looks `key_expr` up in `table` (an object literal), else `otherwise_expr`:
// text that C++ computed per category (a legend's shortened or extended labels) without a data set.
std::string lookup_expr(const std::map<std::string, std::string>& table, const std::string& key_expr,
                        const std::string& otherwise_expr);

}  // namespace ridge::report::figure
