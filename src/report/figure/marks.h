#pragma once
// Marks several figures draw alike: points sized by their share, one line per series, heat-map cells and bars
// that fade on hover. Each takes the data set and fields it draws; the figure adds its tooltip.
#include <string>
#include <vector>

#include "report/figure/figure.h"

namespace ridge::report::figure {

// Symbols named "point_marks" over data set `data` at (`x_field`, `y_field`) on the scales "x" and "y": area by
// "share" (scale "size"), fill by "family" (scale "color"), outlined, brighter on hover. The tooltip goes in
// ["encode"]["enter"].
Json share_points(const std::string& data, const std::string& x_field, const std::string& y_field);

// One line per value of `group_field` in data set `data` (faceted as `facet`), at (`x_field`, `y_field`) on the
// scales "x" and "y", stroke by `color_scale` on `group_field`, dashed by scale "dash" on `dash_field`.
struct SeriesLines {
  std::string data, facet, group_field, x_field, y_field, color_scale, dash_field;
  std::string name;        // the line mark's name, where tests or tooltips need one
  bool sort_by_x = false;  // join points in x order (a data set not already in that order)
};
Json series_lines(const SeriesLines& lines);

// The position of a cell of two band scales: `x_scale` on `x_field`, `y_scale` on `y_field`, a band each way.
Json band_cell(const std::string& x_scale, const std::string& x_field, const std::string& y_scale,
               const std::string& y_field);

// Grouped bars: one group per value of `group_field` in data set `data` (faceted as `facet`), placed on the band
// scale `scale` ("x": groups side by side, "y": stacked); inside each, the band scale "pos" over `members` splits
// the group for `marks` (one bar per member).
struct BandGroups {
  std::string data, facet, group_field, scale;
};
Json band_groups(const BandGroups& groups, const std::vector<std::string>& members, Json marks);

// Fills that fade on hover (bars, cells): the mark's "hover" and "update" encodings.
void add_hover_fade(Json& mark);

}  // namespace ridge::report::figure
