#pragma once
// Legends. Series names ("jetson-agx-orin-64gb MAXN training") differ at their ends, and Vega cuts a long label
// at its end: four modes of one device read alike. Long entries are therefore shortened here, from the middle,
// keeping the start and the end, and the full name shows on hover.
#include <string>
#include <vector>

#include "report/figure/figure.h"

namespace ridge::report::figure {

// Legend entries longer than this many characters are shortened (unless that would make two read alike): about
// what Vega's legends show in their 160 px at 11 px, so an entry Vega showed whole stays whole ("jetson-agx-orin-64gb
// MAXN", "gpu-measured measured") and only those it cut at their end are cut in the middle instead.
inline constexpr size_t kLegendLabelChars = 26;

// `text` cut to `max_chars` characters (UTF-8 code points) by replacing its middle with "…": the first
// (max_chars - 1) / 2 and the last max_chars - 1 - that are kept. Text that fits is returned as it is.
std::string middle_truncate(const std::string& text, size_t max_chars);

// The labels `values` get in a legend: each cut by middle_truncate to kLegendLabelChars, or to the fewest
// characters beyond that at which no two read alike.
std::vector<std::string> legend_labels(const std::vector<std::string>& values);

// A legend of scale `scale` on channel `channel` ("fill", "stroke", "strokeDash", "shape"), on the right.
// `symbol_type`, where given, is the symbol of every entry ("circle", "stroke").
Json legend(const std::string& channel, const std::string& scale, const std::string& title,
            const std::string& symbol_type = "");
// A legend of named categories (devices, modes, series): entries shortened by legend_labels, each with its full
// name as its tooltip.
Json category_legend(const std::string& channel, const std::string& scale, const std::string& title,
                     const std::vector<std::string>& values, const std::string& symbol_type = "");

}  // namespace ridge::report::figure
