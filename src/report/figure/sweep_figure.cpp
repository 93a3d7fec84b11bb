#include "report/figure/sweep_figure.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "report/figure/axes.h"
#include "report/figure/legends.h"
#include "report/figure/marks.h"
#include "report/figure/scales.h"
#include "util/error.h"

namespace ridge::report::figure {
namespace {

struct Row {
  std::string series, kind;
  double x = 0, y = 0, lo = 0, hi = 0;
  Json extra;
};

const char* y_title(const std::string& y) {
  if (y == "throughput") return "throughput (samples/s)";
  if (y == "flops") return "achieved FLOP/s";
  return "latency (ms)";
}

// What was read but cannot be drawn, for the notes.
struct Left {
  int no_x = 0, no_flops = 0;
};

std::vector<Row> measured_rows(const ResultSet& results, const SweepOptions& o, Left& left) {
  std::vector<Row> rows;
  std::vector<std::string> except{o.x == "batch" ? "batch" : "input"};
  for (const auto& m : results.measured) {
    const auto& r = m.run;
    const auto& l = r.latency_ms;
    double run_flops = work_flops(r);
    double x = o.x == "batch" ? static_cast<double>(r.batch) : input_extent(r.input_size);
    if (!(x > 0)) {
      ++left.no_x;
      continue;
    }
    Row row{.series = run_label(r, results.measured, except), .kind = "measured", .x = x};
    double flops_per_s = run_flops > 0 ? run_flops / (l.mean / 1000) : 0;
    if (o.y == "latency") {
      row.y = l.mean;
      row.lo = o.error == "std" ? std::max(l.mean - l.stddev, l.min) : l.min;
      row.hi = o.error == "std" ? l.mean + l.stddev : l.max;
    } else if (o.y == "throughput") {
      row.y = r.throughput;
    } else {
      if (flops_per_s <= 0) {
        ++left.no_flops;
        continue;
      }
      row.y = flops_per_s;
    }
    row.extra = Json{
        {"batch", r.batch},         {"input_size", r.input_size}, {"mode", r.mode},     {"precision", r.precision},
        {"conv_algo", r.conv_algo}, {"mean_ms", l.mean},          {"std_ms", l.stddev}, {"min_ms", l.min},
        {"max_ms", l.max},          {"throughput", r.throughput}, {"flops", run_flops}, {"flops_per_s", flops_per_s},
        {"source", m.source}};
    rows.push_back(std::move(row));
  }
  return rows;
}

// Predictions are drawn against batch size only (they record no input size); a predict sweep point, which has no
// nodes, borrows the FLOPs of a measured run at its batch.
std::vector<Row> predicted_rows(const ResultSet& results, const SweepOptions& o, Left& left) {
  std::map<int64_t, double> flops_at_batch;
  for (const auto& m : results.measured)
    if (double flops = work_flops(m.run); flops > 0 && !m.run.training) flops_at_batch.emplace(m.run.batch, flops);
  std::vector<Row> rows;
  for (const auto& x : results.predicted) {
    const auto& p = x.prediction;
    if (o.x == "input" || p.batch <= 0 || p.time_s <= 0) {
      ++left.no_x;
      continue;
    }
    double flops = work_flops(p);
    if (flops <= 0) {
      auto it = flops_at_batch.find(p.batch);
      if (it != flops_at_batch.end()) flops = it->second;
    }
    double flops_per_s = flops > 0 ? flops / p.time_s : 0;
    Row row{.series = "predicted " + prediction_label(p), .kind = "predicted", .x = static_cast<double>(p.batch)};
    if (o.y == "latency") {
      row.y = row.lo = row.hi = p.time_s * 1000;
    } else if (o.y == "throughput") {
      row.y = p.throughput;
    } else {
      if (flops_per_s <= 0) {
        ++left.no_flops;
        continue;
      }
      row.y = flops_per_s;
    }
    row.extra =
        Json{{"batch", p.batch},          {"input_size", ""},           {"mode", p.mode}, {"precision", p.precision},
             {"conv_algo", ""},           {"mean_ms", p.time_s * 1000}, {"std_ms", 0},    {"min_ms", p.time_s * 1000},
             {"max_ms", p.time_s * 1000}, {"throughput", p.throughput}, {"flops", flops}, {"flops_per_s", flops_per_s},
             {"source", x.source}};
    rows.push_back(std::move(row));
  }
  return rows;
}

// Axes turn logarithmic when the values span a decade (x, batch sizes: a factor of 8, in powers of two).
Json scales_of(const Extent& x, const Extent& y) {
  Json x_scale = x.hi / x.lo >= 8 ? log_scale("x", x.lo / 1.2, x.hi * 1.2, "width", 2) : [&] {
    double pad = x.hi > x.lo ? (x.hi - x.lo) * 0.05 : std::max(1.0, x.lo * 0.1);
    return linear_scale("x", {std::max(0.0, x.lo - pad), x.hi + pad}, "width", false);
  }();
  Json y_scale = y.hi / y.lo >= 10 ? [&] {
    auto [lo, hi] = decade_domain(y.lo, y.hi);
    return log_scale("y", lo, hi, "height");
  }()
                                   : linear_scale("y", {0, y.hi * 1.1}, "height", true);
  return Json::array({x_scale, y_scale, category_scale("color", field_domain("points", "series"), "tableau10"),
                      ordinal_scale("dash", {"measured", "predicted"}, {Json::array(), {6, 4}})});
}

Json point_layer(const SweepOptions& o) {
  Json symbols{{"type", "symbol"},
               {"name", "point_marks"},
               {"from", {{"data", "points"}}},
               {"encode",
                {{"enter",
                  {{"x", {{"scale", "x"}, {"field", "x"}}},
                   {"y", {{"scale", "y"}, {"field", "y"}}},
                   {"size", {{"value", 50}}},
                   {"fill", {{"signal", "datum.kind === 'measured' ? scale('color', datum.series) : 'white'"}}},
                   {"stroke", {{"scale", "color"}, {"field", "series"}}},
                   {"strokeWidth", {{"value", 1.5}}}}}}}};
  std::vector<TooltipField> tip{{"series", "datum.series"},
                                {"time", "datum.kind"},
                                {"batch", "datum.batch"},
                                {"latency", "format(datum.mean_ms, '.4~r') + ' ms'"},
                                {"throughput", "format(datum.throughput, '.4~r') + ' samples/s'"},
                                {"achieved", si_expr("flops_per_s", "FLOP/s")}};
  if (o.x == "input") tip.insert(tip.begin() + 3, {"input", "datum.input_size"});
  if (o.y == "latency")
    tip.insert(tip.begin() + 4, {o.error == "std" ? "mean +- std" : "min - max",
                                 "format(datum.lo, '.4~r') + ' - ' + format(datum.hi, '.4~r') + ' ms'"});
  add_tooltip(symbols["encode"]["enter"], tip);
  return symbols;
}

Json error_bars() {
  return Json{{"type", "rule"},
              {"from", {{"data", "points"}}},
              {"encode",
               {{"enter",
                 {{"x", {{"scale", "x"}, {"field", "x"}}},
                  {"y", {{"scale", "y"}, {"field", "lo"}}},
                  {"y2", {{"scale", "y"}, {"field", "hi"}}},
                  {"stroke", {{"scale", "color"}, {"field", "series"}}},
                  {"strokeOpacity", {{"value", 0.6}}}}}}}};
}

}  // namespace

Figure sweep_figure(const ResultSet& results, const SweepOptions& o) {
  if (o.x != "batch" && o.x != "input") throw Error("sweep: --x is batch or input, not '" + o.x + "'");
  if (o.y != "latency" && o.y != "throughput" && o.y != "flops")
    throw Error("sweep: --y is latency, throughput or flops, not '" + o.y + "'");
  if (o.error != "minmax" && o.error != "std") throw Error("sweep: --error is minmax or std, not '" + o.error + "'");
  Figure fig{.kind = "sweep"};
  Left left;
  auto rows = measured_rows(results, o, left);
  for (auto& row : predicted_rows(results, o, left)) rows.push_back(std::move(row));
  if (rows.empty())
    throw Error(std::string("sweep needs bench or predict results") +
                (o.x == "input" ? " with input sizes (ridge bench --sweep input=...)" : "") +
                (o.y == "flops" ? " with FLOPs (bench per-node profiles, or predict documents)" : ""));
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return a.kind != b.kind ? a.kind < b.kind : a.series != b.series ? a.series < b.series : a.x < b.x;
  });
  // One point per series and x: the first result given (a stored prediction can repeat a sweep's point).
  auto repeated = std::unique(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return a.kind == b.kind && a.series == b.series && a.x == b.x;
  });
  auto duplicates = std::distance(repeated, rows.end());
  rows.erase(repeated, rows.end());
  if (duplicates > 0)
    fig.notes.push_back(std::to_string(duplicates) + " result(s) repeating a series at the same " + o.x +
                        " size are not drawn (the first is)");
  Extent x, y;
  std::set<std::string> series;
  std::set<double> xs;
  Json points = Json::array();
  for (const auto& r : rows) {
    double lo = o.y == "latency" && r.lo > 0 ? r.lo : r.y, hi = o.y == "latency" ? std::max(r.hi, r.y) : r.y;
    x.cover(r.x), y.lo = std::min(y.lo, lo), y.hi = std::max(y.hi, hi);
    series.insert(r.series);
    xs.insert(r.x);
    Json row{{"series", r.series}, {"kind", r.kind}, {"x", r.x}, {"y", r.y}, {"lo", lo}, {"hi", hi}};
    row.update(r.extra);
    points.push_back(std::move(row));
  }
  std::string x_name = o.x == "batch" ? "batch size" : "input size";
  fig.title = !o.title.empty() ? o.title
                               : std::string(o.y == "latency"      ? "Latency"
                                             : o.y == "throughput" ? "Throughput"
                                                                   : "Achieved FLOP/s") +
                                     " against " + x_name;
  Json spec = base_spec(fig.title, 560, 360);
  add_data(spec, "points", std::move(points));
  spec["scales"] = scales_of(x, y);
  Json x_axis = grid_axis("bottom", "x", x_name, "~g");
  if (xs.size() <= 12) x_axis["values"] = Json(std::vector<double>(xs.begin(), xs.end()));
  spec["axes"] = Json::array({x_axis, grid_axis("left", "y",
                                                o.y == "latency" ? std::string("mean latency (ms; bars: ") +
                                                                       (o.error == "std" ? "+- std)" : "min to max)")
                                                                 : std::string(y_title(o.y)),
                                                "~s")});
  spec["legends"] = Json::array(
      {category_legend("stroke", "color", "series", std::vector<std::string>(series.begin(), series.end()), "stroke"),
       legend("strokeDash", "dash", "time", "stroke")});
  spec["marks"].push_back(series_lines({.data = "points",
                                        .facet = "series_points",
                                        .group_field = "series",
                                        .x_field = "x",
                                        .y_field = "y",
                                        .color_scale = "color",
                                        .dash_field = "kind",
                                        .sort_by_x = true}));
  if (o.y == "latency") spec["marks"].push_back(error_bars());
  spec["marks"].push_back(point_layer(o));
  fig.spec = std::move(spec);
  if (left.no_x > 0)
    fig.notes.push_back(std::to_string(left.no_x) + " result(s) without a " + (o.x == "batch" ? "batch" : "input") +
                        " size are not drawn" + (o.x == "input" ? " (predictions do not record input sizes)" : ""));
  if (left.no_flops > 0)
    fig.notes.push_back(std::to_string(left.no_flops) +
                        " result(s) without FLOPs are not drawn (bench --no-per-node, or a predict sweep point "
                        "with no measured run at its batch)");
  return fig;
}

}  // namespace ridge::report::figure
