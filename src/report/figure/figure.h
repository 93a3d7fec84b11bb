#pragma once
// A figure is one Vega specification with its data inline: ridge writes the grammar (scales, axes,
// marks, legends) and Vega draws it, in the browser (HTML) or headlessly (SVG, then PNG and PDF).
// Builders compute every plotted number here, in C++, so tests read them back from the data sets.
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

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

// One tooltip row: a label and a Vega expression over `datum`.
using TooltipField = std::pair<std::string, std::string>;
// Encodings that show `fields` on hover (`tooltip`) and as each mark's accessible label
// (`description`, written as aria-label in the SVG, so a static file still names every point).
void add_tooltip(Json& encode_block, const std::vector<TooltipField>& fields);

// Vega expressions for the usual figures: SI-prefixed numbers, milliseconds.
std::string si_expr(const std::string& field, const std::string& unit);
std::string ms_expr(const std::string& seconds_field);

// A log-scale axis domain that covers [lo, hi] with whole decades around it.
std::pair<double, double> decade_domain(double lo, double hi);

}  // namespace ridge::report::figure
