#include "report/figure/sweep_figure.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

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

}  // namespace

Figure sweep_figure(const ResultSet& results, const SweepOptions& o) {
  if (o.x != "batch" && o.x != "input") throw Error("sweep: --x is batch or input, not '" + o.x + "'");
  if (o.y != "latency" && o.y != "throughput" && o.y != "flops")
    throw Error("sweep: --y is latency, throughput or flops, not '" + o.y + "'");
  if (o.error != "minmax" && o.error != "std") throw Error("sweep: --error is minmax or std, not '" + o.error + "'");
  Figure fig{.kind = "sweep"};
  std::vector<Row> rows;
  std::map<int64_t, double> flops_at_batch;  // measured FLOPs per batch, for predict sweep points
  for (const auto& m : results.measured)
    if (double flops = work_flops(m.run); flops > 0 && !m.run.training) flops_at_batch.emplace(m.run.batch, flops);
  int no_x = 0, no_flops = 0;
  std::vector<std::string> except{o.x == "batch" ? "batch" : "input"};
  for (const auto& m : results.measured) {
    const auto& r = m.run;
    const auto& l = r.latency_ms;
    double run_flops = work_flops(r);
    double x = o.x == "batch" ? static_cast<double>(r.batch) : input_extent(r.input_size);
    if (!(x > 0)) {
      ++no_x;
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
        ++no_flops;
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
  for (const auto& x : results.predicted) {
    const auto& p = x.prediction;
    if (o.x == "input") {
      ++no_x;  // predictions do not record their input size
      continue;
    }
    if (p.batch <= 0 || p.time_s <= 0) {
      ++no_x;
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
        ++no_flops;
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
  double x_lo = std::numeric_limits<double>::infinity(), x_hi = 0, y_lo = x_lo, y_hi = 0;
  std::set<std::string> series;
  std::set<double> xs;
  Json points = Json::array();
  for (const auto& r : rows) {
    x_lo = std::min(x_lo, r.x), x_hi = std::max(x_hi, r.x);
    double lo = o.y == "latency" && r.lo > 0 ? r.lo : r.y, hi = o.y == "latency" ? std::max(r.hi, r.y) : r.y;
    y_lo = std::min(y_lo, lo), y_hi = std::max(y_hi, hi);
    series.insert(r.series);
    xs.insert(r.x);
    Json row{{"series", r.series}, {"kind", r.kind}, {"x", r.x}, {"y", r.y}, {"lo", lo}, {"hi", hi}};
    row.update(r.extra);
    points.push_back(std::move(row));
  }
  bool x_log = x_hi / x_lo >= 8, y_log = y_hi / y_lo >= 10;
  Json x_scale{{"name", "x"}, {"type", x_log ? "log" : "linear"}, {"range", "width"}, {"zero", false}};
  if (x_log) {
    x_scale["base"] = 2, x_scale["domain"] = {x_lo / 1.2, x_hi * 1.2}, x_scale["nice"] = false;
  } else {
    double pad = x_hi > x_lo ? (x_hi - x_lo) * 0.05 : std::max(1.0, x_lo * 0.1);
    x_scale["domain"] = {std::max(0.0, x_lo - pad), x_hi + pad}, x_scale["nice"] = false;
  }
  Json y_scale{{"name", "y"}, {"type", y_log ? "log" : "linear"}, {"range", "height"}, {"nice", true}};
  if (y_log) {
    auto [lo, hi] = decade_domain(y_lo, y_hi);
    y_scale["domain"] = {lo, hi}, y_scale["nice"] = false;
  } else {
    y_scale["domain"] = {0, y_hi * 1.1}, y_scale["zero"] = true;
  }
  std::string x_name = o.x == "batch" ? "batch size" : "input size";
  fig.title = !o.title.empty() ? o.title
                               : std::string(o.y == "latency"      ? "Latency"
                                             : o.y == "throughput" ? "Throughput"
                                                                   : "Achieved FLOP/s") +
                                     " against " + x_name;
  Json spec = base_spec(fig.title, 560, 360);
  add_data(spec, "points", std::move(points));
  spec["scales"] = Json::array({x_scale,
                                y_scale,
                                {{"name", "color"},
                                 {"type", "ordinal"},
                                 {"domain", {{"data", "points"}, {"field", "series"}, {"sort", true}}},
                                 {"range", {{"scheme", "tableau10"}}}},
                                {{"name", "dash"},
                                 {"type", "ordinal"},
                                 {"domain", {"measured", "predicted"}},
                                 {"range", {Json::array(), {6, 4}}}}});
  Json x_axis{{"orient", "bottom"}, {"scale", "x"}, {"title", x_name}, {"grid", true}, {"gridOpacity", 0.15}};
  if (xs.size() <= 12) x_axis["values"] = Json(std::vector<double>(xs.begin(), xs.end()));
  x_axis["format"] = "~g";
  spec["axes"] = Json::array({x_axis,
                              {{"orient", "left"},
                               {"scale", "y"},
                               {"title", o.y == "latency" ? std::string("mean latency (ms; bars: ") +
                                                                (o.error == "std" ? "+- std)" : "min to max)")
                                                          : std::string(y_title(o.y))},
                               {"grid", true},
                               {"gridOpacity", 0.15},
                               {"format", "~s"}}});
  spec["legends"] =
      Json::array({{{"stroke", "color"}, {"title", "series"}, {"symbolType", "stroke"}, {"orient", "right"}},
                   {{"strokeDash", "dash"}, {"title", "time"}, {"symbolType", "stroke"}, {"orient", "right"}}});
  Json line{{"type", "line"},
            {"from", {{"data", "series_points"}}},
            {"sort", {{"field", "datum.x"}}},
            {"encode",
             {{"enter",
               {{"x", {{"scale", "x"}, {"field", "x"}}},
                {"y", {{"scale", "y"}, {"field", "y"}}},
                {"stroke", {{"scale", "color"}, {"field", "series"}}},
                {"strokeDash", {{"scale", "dash"}, {"field", "kind"}}},
                {"strokeWidth", {{"value", 2}}}}}}}};
  spec["marks"].push_back(
      {{"type", "group"},
       {"from", {{"facet", {{"name", "series_points"}, {"data", "points"}, {"groupby", "series"}}}}},
       {"marks", Json::array({line})}});
  if (o.y == "latency")
    spec["marks"].push_back({{"type", "rule"},
                             {"from", {{"data", "points"}}},
                             {"encode",
                              {{"enter",
                                {{"x", {{"scale", "x"}, {"field", "x"}}},
                                 {"y", {{"scale", "y"}, {"field", "lo"}}},
                                 {"y2", {{"scale", "y"}, {"field", "hi"}}},
                                 {"stroke", {{"scale", "color"}, {"field", "series"}}},
                                 {"strokeOpacity", {{"value", 0.6}}}}}}}});
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
  spec["marks"].push_back(std::move(symbols));
  fig.spec = std::move(spec);
  if (no_x > 0)
    fig.notes.push_back(std::to_string(no_x) + " result(s) without a " + (o.x == "batch" ? "batch" : "input") +
                        " size are not drawn" + (o.x == "input" ? " (predictions do not record input sizes)" : ""));
  if (no_flops > 0)
    fig.notes.push_back(std::to_string(no_flops) +
                        " result(s) without FLOPs are not drawn (bench --no-per-node, or a predict sweep point "
                        "with no measured run at its batch)");
  return fig;
}

}  // namespace ridge::report::figure
