#pragma once
// A figure is one Vega specification with its data inline: ridge writes the grammar (scales, axes,
// marks, legends) and Vega draws it, in the browser (HTML) or headlessly (SVG, then PNG and PDF).
// Builders compute every plotted number here, in C++, so tests read them back from the data sets.
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "report/figure/tooltip.h"  // every builder labels its marks

namespace ridge::report::figure {

using Json = nlohmann::ordered_json;

struct Figure {
  std::string kind;                // "roofline", "sweep", "breakdown", ...
  std::string title;               // also the spec's title
  Json spec;                       // a complete Vega v5 specification
  std::vector<std::string> notes;  // what was left out and why (printed, and shown under the figure)
};

// The skeleton every figure starts from: schema, title, plot size, padding, autosize.
Json base_spec(const std::string& title, int width, int height);

// The inline data set `name` of a figure's spec; throws ridge::Error when there is none.
const Json& data_values(const Json& spec, const std::string& name);
Json& data_values(Json& spec, const std::string& name);
Json& add_data(Json& spec, const std::string& name, Json values);

// The number of distinct values of `field` among the rows of the "points" data set (the series a summary counts).
int series_count(const Figure& figure, const std::string& field);

// A JSON file, or ridge::Error naming it.
Json read_json_file(const std::string& path);
// A Vega specification ridge wrote earlier (FILE.vg.json) as a figure of kind "spec", titled by its description
// (else the path); ridge::Error when the file is not JSON or has no marks.
Figure read_spec_figure(const std::string& path);

// The note for nodes that cannot be drawn: "3 node(s) <why> (a, b, c)", the first five names given, each once.
std::string not_drawn_note(const std::vector<std::string>& names, const std::string& why);

}  // namespace ridge::report::figure
