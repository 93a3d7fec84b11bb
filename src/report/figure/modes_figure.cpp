#include "report/figure/modes_figure.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "report/figure/axes.h"
#include "report/figure/legends.h"
#include "report/figure/marks.h"
#include "report/figure/scales.h"
#include "util/error.h"

namespace ridge::report::figure {
namespace {

std::string group_key(const exec::BenchResult& r) {
  return fmt::format("{}|{}|{}|{}|{}|{}", r.model, input_shape(r), r.precision, r.memory_format, r.conv_algo,
                     r.training);
}

// The bars (one per batch and mode) and the speedups (each faster mode against eager at its batch).
struct Rows {
  Json points = Json::array(), speedups = Json::array();
  std::vector<std::string> batches;
  std::set<std::string> modes;
  int unpaired = 0;  // batch sizes measured in one mode only
  const exec::BenchResult* first = nullptr;
};

Rows rows_of(const std::map<int64_t, std::map<std::string, const exec::BenchResult*>>& group) {
  Rows out;
  for (const auto& [batch, by_mode] : group) {
    out.batches.push_back(std::to_string(batch));
    for (const auto& [mode, r] : by_mode) {
      if (!out.first) out.first = r;
      out.modes.insert(mode);
      out.points.push_back(Json{{"batch", std::to_string(batch)},
                                {"mode", mode},
                                {"mean_ms", r->latency_ms.mean},
                                {"min_ms", r->latency_ms.min},
                                {"max_ms", r->latency_ms.max},
                                {"std_ms", r->latency_ms.stddev},
                                {"throughput", r->throughput}});
    }
    // Each faster mode against eager: optimized (the CPU's rewrites) and cuda-graph (a GPU's replays).
    auto eager = by_mode.find("eager");
    bool any = false;
    for (const auto& [mode, r] : by_mode) {
      if (mode == "eager" || eager == by_mode.end()) continue;
      double speedup = eager->second->latency_ms.mean / r->latency_ms.mean;
      out.speedups.push_back(Json{{"batch", std::to_string(batch)},
                                  {"mode", mode},
                                  {"eager_ms", eager->second->latency_ms.mean},
                                  {"mode_ms", r->latency_ms.mean},
                                  {"speedup", speedup},
                                  {"label", fmt::format("{:.2f}x", speedup)}});
      any = true;
    }
    if (!any) ++out.unpaired;
  }
  return out;
}

// One band per batch size on "x"; in it, a bar per mode (mean latency) with its min-to-max range and, over the
// faster modes, the speedup.
Json bar_layer(const std::vector<std::string>& modes) {
  Json bars{{"type", "rect"},
            {"from", {{"data", "bars"}}},
            {"encode",
             {{"enter",
               {{"x", {{"scale", "pos"}, {"field", "mode"}}},
                {"width", {{"scale", "pos"}, {"band", 1}}},
                {"y", {{"scale", "y"}, {"field", "mean_ms"}}},
                {"y2", {{"scale", "y"}, {"value", 0}}},
                {"fill", {{"scale", "color"}, {"field", "mode"}}}}}}}};
  add_hover_fade(bars);
  add_tooltip(
      bars["encode"]["enter"],
      {{"mode", "datum.mode"},
       {"batch", "datum.batch"},
       {"mean", "format(datum.mean_ms, '.4~r') + ' ms'"},
       {"min - max", "format(datum.min_ms, '.4~r') + ' - ' + format(datum.max_ms, '.4~r') + ' ms'"},
       {"throughput", "format(datum.throughput, '.4~r') + ' samples/s'"},
       {"speedup", "datum.speedup ? format(datum.speedup, '.3~r') + 'x (eager / ' + datum.mode + ')' : 'n/a'"}});
  Json ranges{{"type", "rule"},
              {"from", {{"data", "bars"}}},
              {"interactive", false},
              {"encode",
               {{"enter",
                 {{"x", {{"scale", "pos"}, {"field", "mode"}, {"band", 0.5}}},
                  {"y", {{"scale", "y"}, {"field", "min_ms"}}},
                  {"y2", {{"scale", "y"}, {"field", "max_ms"}}},
                  {"stroke", {{"value", "#222"}}}}}}}};
  Json labels{
      {"type", "text"},
      {"from", {{"data", "bars"}}},
      {"interactive", false},
      {"encode",
       {{"enter",
         {{"x", {{"scale", "pos"}, {"field", "mode"}, {"band", 0.5}}},
          {"y", {{"scale", "y"}, {"signal", "max(datum.mean_ms, datum.max_ms)"}}},
          {"dy", {{"value", -4}}},
          {"align", {{"value", "center"}}},
          {"baseline", {{"value", "bottom"}}},
          {"fontSize", {{"value", 11}}},
          {"fontWeight", {{"value", "bold"}}},
          {"text",
           {{"signal", "datum.mode !== 'eager' && datum.speedup ? format(datum.speedup, '.2f') + 'x' : ''"}}}}}}}};
  return band_groups({.data = "points", .facet = "bars", .group_field = "batch", .scale = "x"}, modes,
                     Json::array({bars, ranges, labels}));
}

}  // namespace

Figure modes_figure(const ResultSet& results, const ModesOptions& o) {
  // group -> batch -> mode -> run (the first of each)
  std::map<std::string, std::map<int64_t, std::map<std::string, const exec::BenchResult*>>> groups;
  std::vector<std::string> order;
  for (const auto& m : results.measured) {
    const auto& r = m.run;
    auto key = group_key(r);
    if (!groups.count(key)) order.push_back(key);
    groups[key][r.batch].try_emplace(r.mode, &r);
  }
  auto paired = [&](const std::string& key) {
    int n = 0;
    for (const auto& [batch, modes] : groups[key])
      n += modes.count("eager") && (modes.count("optimized") || modes.count("cuda-graph"));
    return n;
  };
  std::string best;
  for (const auto& key : order)
    if (paired(key) > 0 && (best.empty() || paired(key) > paired(best))) best = key;
  if (best.empty())
    throw Error(
        "modes needs bench results of the same model in eager mode and in optimized or cuda-graph mode at one batch "
        "size at least (ridge bench MODEL --mode both -f json)");
  Figure fig{.kind = "modes"};
  int others = 0;
  for (const auto& key : order)
    if (key != best) ++others;
  if (others > 0)
    fig.notes.push_back(std::to_string(others) +
                        " other group(s) of runs (another precision, algorithm or input) not drawn");
  auto rows = rows_of(groups[best]);
  auto& [points, speedups, batches, mode_set, unpaired, first] = rows;
  std::vector<std::string> modes;
  // eager first, then optimized and cuda-graph, then anything else
  for (const char* m : {"eager", "optimized", "cuda-graph"})
    if (mode_set.erase(m)) modes.emplace_back(m);
  modes.insert(modes.end(), mode_set.begin(), mode_set.end());
  for (auto& p : points) {
    auto it = std::find_if(speedups.begin(), speedups.end(),
                           [&](const Json& s) { return s["batch"] == p["batch"] && s["mode"] == p["mode"]; });
    p["speedup"] = it != speedups.end() ? (*it)["speedup"] : Json(nullptr);
  }
  if (unpaired > 0)
    fig.notes.push_back(std::to_string(unpaired) + " batch size(s) measured in one mode only have no speedup");
  std::string speedup_text;
  for (const auto& s : speedups)
    speedup_text += fmt::format("{}{} at batch {}", speedup_text.empty() ? "" : ", ", s["label"].get<std::string>(),
                                s["batch"].get<std::string>());
  std::vector<std::string> faster(modes.begin() + (modes.front() == "eager" ? 1 : 0), modes.end());
  fig.title = !o.title.empty() ? o.title
                               : fmt::format("Eager against {} ({}): speedup {}", fmt::join(faster, " and "),
                                             first->precision, speedup_text);
  Json spec = base_spec(fig.title, std::max(240, 110 * static_cast<int>(batches.size())), 320);
  double top = 0;
  for (const auto& p : points)
    top = std::max(top, p["max_ms"].get<double>() > 0 ? p["max_ms"].get<double>() : p["mean_ms"].get<double>());
  add_data(spec, "points", std::move(points));
  add_data(spec, "speedups", std::move(speedups));
  spec["scales"] =
      Json::array({band_scale("x", batches, "width", 0.2), linear_scale("y", {0, top * 1.15}, "height", true),
                   ordinal_scale("color", modes, {"#9c9ede", "#393b79", "#e7969c"})});
  spec["axes"] = Json::array(
      {category_axis("bottom", "x", "batch size"), grid_axis("left", "y", "mean latency (ms; bars: min to max)", "")});
  spec["legends"] = Json::array({legend("fill", "color", "mode")});
  spec["marks"].push_back(bar_layer(modes));
  fig.spec = std::move(spec);
  return fig;
}

}  // namespace ridge::report::figure
