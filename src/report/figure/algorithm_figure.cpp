#include "report/figure/algorithm_figure.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "exec/options.h"
#include "report/figure/axes.h"
#include "report/figure/legends.h"
#include "report/figure/marks.h"
#include "report/figure/scales.h"
#include "util/error.h"

namespace ridge::report::figure {
namespace {

// A run with its per-layer times.
struct Run {
  const exec::BenchResult* result;
  std::vector<LayerTime> layers;
  const std::string& conv_algo() const { return result->conv_algo; }
};

std::string group_key(const exec::BenchResult& r) {
  return fmt::format("{}|{}|{}|{}|{}|{}|{}", r.model, r.batch, input_shape(r), r.mode, r.precision, r.memory_format,
                     r.training);
}

// Whether a cell ran another algorithm than its run asked for: the asked one could not run this layer (the CPU's
// winograd on a strided convolution runs auto; cuDNN's algorithms that do not support a layer, or need more
// workspace than is free, run the heuristic's choice). Only a named algorithm can fall back: auto, heuristic and
// benchmark choose per layer. What ran may carry the fused epilogue ("direct+relu"), which is no fallback.
bool fell_back(const std::string& asked, const std::string& ran) {
  if (ran.empty() || asked == exec::kAutoConvAlgo || asked == exec::name(exec::CudnnConvAlgo::kHeuristic) ||
      asked == exec::name(exec::CudnnConvAlgo::kBenchmark) ||
      asked == exec::name(exec::CudnnConvAlgo::kLegacyHeuristic))
    return false;
  return ran.substr(0, ran.find('+')) != asked;
}

// The runs of the map: those that differ only by conv_algo, the largest such group (one run per algorithm); the
// other groups are counted in the notes.
std::vector<Run> pick_runs(const ResultSet& results, std::vector<std::string>& notes) {
  std::map<std::string, std::vector<const exec::BenchResult*>> groups;
  std::vector<std::string> order;
  for (const auto& m : results.measured) {
    const auto& r = m.run;
    if (r.nodes.empty()) continue;
    auto key = group_key(r);
    if (!groups.count(key)) order.push_back(key);
    auto& g = groups[key];
    if (std::none_of(g.begin(), g.end(), [&](const exec::BenchResult* x) { return x->conv_algo == r.conv_algo; }))
      g.push_back(&r);
  }
  std::string best;
  for (const auto& key : order)
    if (best.empty() || groups[key].size() > groups[best].size()) best = key;
  if (best.empty() || groups[best].size() < 2)
    throw Error(
        "algorithms needs bench results with per-node times over several --conv-algo values of the same model "
        "and point (ridge bench MODEL --conv-algo all -f json)");
  std::vector<Run> runs;
  for (const auto* r : groups[best]) runs.push_back({r, figure::layers(*r)});
  int other_groups = static_cast<int>(order.size()) - 1;
  if (other_groups > 0)
    notes.push_back(std::to_string(other_groups) +
                    " other group(s) of runs (another batch, mode or precision) not drawn");
  return runs;
}

// The rows: layers with an algorithm in any run, in the first run's order. Convolutions (an op named *Conv*) that
// name an algorithm; other nodes that name one (matrix products) only when the model has no convolution.
std::vector<std::pair<std::string, std::string>> rows_of(const std::vector<Run>& runs,
                                                         std::vector<std::string>& notes) {
  std::vector<std::pair<std::string, std::string>> layers;  // name, op
  std::set<std::string> seen;
  auto is_conv = [](const LayerTime& l) { return l.op.find("Conv") != std::string::npos; };
  bool any_conv = false;
  for (const auto& r : runs)
    for (const auto& l : r.layers) any_conv |= !l.algorithm.empty() && is_conv(l);
  std::set<std::string> left_out;
  for (const auto& r : runs)
    for (const auto& l : r.layers) {
      if (l.algorithm.empty()) continue;
      if (any_conv && !is_conv(l)) {
        left_out.insert(l.name);
        continue;
      }
      if (seen.insert(l.name).second) layers.emplace_back(l.name, l.op);
    }
  if (!left_out.empty())
    notes.push_back(std::to_string(left_out.size()) + " node(s) that are not convolutions are left out");
  if (layers.empty())
    throw Error("algorithms needs bench results whose nodes name their convolution algorithm (a model with Conv)");
  return layers;
}

// The cells ("points": one per layer and run with a time), each layer's fastest ("fastest") and the cells that ran
// another algorithm than asked ("fallbacks"), with the number of layers each algorithm wins and of cells without a
// time. A layer whose fastest cell is a fallback is won by the algorithm that ran there, not by the one asked: the
// asked one never ran on that layer.
struct Cells {
  Json points = Json::array(), fastest = Json::array(), fallbacks = Json::array();
  std::map<std::string, int> wins;
  int missing = 0;
};

Cells cells_of(const std::vector<Run>& runs, const std::vector<std::pair<std::string, std::string>>& layers) {
  Cells out;
  for (const auto& [name, op] : layers) {
    std::vector<std::pair<const Run*, const LayerTime*>> cells;
    double best_time = std::numeric_limits<double>::infinity();
    const Run* best_run = nullptr;
    for (const auto& r : runs) {
      // A named copy: clang 14 cannot capture a structured binding.
      const std::string& layer_name = name;
      auto it =
          std::find_if(r.layers.begin(), r.layers.end(), [&](const LayerTime& l) { return l.name == layer_name; });
      if (it == r.layers.end() || it->time_s <= 0) {
        ++out.missing;
        continue;
      }
      cells.emplace_back(&r, &*it);
      if (it->time_s < best_time) best_time = it->time_s, best_run = &r;
    }
    for (const auto& [r, l] : cells) {
      bool is_best = r == best_run, fallback = fell_back(r->conv_algo(), l->algorithm);
      out.points.push_back(Json{{"layer", name},
                                {"op", op},
                                {"conv_algo", r->conv_algo()},
                                {"algorithm", l->algorithm},
                                {"time_s", l->time_s},
                                {"time_ms", l->time_s * 1000},
                                {"relative", l->time_s / best_time},
                                {"fastest", is_best},
                                {"fallback", fallback}});
      if (fallback)
        out.fallbacks.push_back(
            Json{{"layer", name}, {"op", op}, {"conv_algo", r->conv_algo()}, {"algorithm", l->algorithm}});
      if (is_best) {
        out.fastest.push_back(Json{{"layer", name},
                                   {"op", op},
                                   {"conv_algo", r->conv_algo()},
                                   {"algorithm", l->algorithm},
                                   {"time_s", l->time_s}});
        ++out.wins[fallback ? l->algorithm.substr(0, l->algorithm.find('+')) : r->conv_algo()];
      }
    }
  }
  return out;
}

// What marks a fallback: a dashed frame inside the cell and a hook after its time.
constexpr const char* kFallbackGlyph = "\u21a9";
constexpr const char* kFallbackLegend = "another algorithm ran";

// The cells coloured by their ratio to the layer's fastest, the fastest outlined, the fallbacks framed with a dash,
// each cell's time printed in it (white on the darker half of the colour scale, which ends at `worst`), with "*"
// on the fastest and a hook on a fallback.
Json heat_map_marks(double worst) {
  Json cells{{"type", "rect"},
             {"name", "cells"},
             {"from", {{"data", "points"}}},
             {"encode", {{"enter", band_cell("x", "conv_algo", "y", "layer")}}}};
  cells["encode"]["enter"]["fill"] = {{"scale", "color"}, {"field", "relative"}};
  add_hover_fade(cells);
  add_tooltip(cells["encode"]["enter"], {{"layer", "datum.layer"},
                                         {"op", "datum.op"},
                                         {"--conv-algo", "datum.conv_algo"},
                                         {"ran", "datum.algorithm"},
                                         {"time", ms_expr("time_s")},
                                         {"vs fastest", "format(datum.relative, '.3~f') + 'x'"},
                                         {"fastest", "datum.fastest ? 'yes' : 'no'"},
                                         {"fallback",
                                          "datum.fallback ? 'yes: ' + datum.conv_algo + "
                                          "' could not run here' : 'no'"}});
  Json outline{{"type", "rect"},
               {"from", {{"data", "fastest"}}},
               {"interactive", false},
               {"encode", {{"enter", band_cell("x", "conv_algo", "y", "layer")}}}};
  outline["encode"]["enter"].update(
      Json{{"fillOpacity", {{"value", 0}}}, {"stroke", {{"value", "#000"}}}, {"strokeWidth", {{"value", 2}}}});
  // Inset by 3 px, so the frame shows inside the fastest's outline too.
  Json frame{{"type", "rect"},
             {"from", {{"data", "fallbacks"}}},
             {"interactive", false},
             {"encode",
              {{"enter",
                {{"x", {{"scale", "x"}, {"field", "conv_algo"}, {"offset", 3}}},
                 {"width", {{"scale", "x"}, {"band", 1}, {"offset", -6}}},
                 {"y", {{"scale", "y"}, {"field", "layer"}, {"offset", 2}}},
                 {"height", {{"scale", "y"}, {"band", 1}, {"offset", -4}}},
                 {"fillOpacity", {{"value", 0}}},
                 {"stroke", {{"value", "#222"}}},
                 {"strokeWidth", {{"value", 1.2}}},
                 {"strokeDash", {{"value", {3, 2}}}}}}}}};
  Json labels{{"type", "text"},
              {"from", {{"data", "points"}}},
              {"interactive", false},
              {"encode",
               {{"enter",
                 {{"x", {{"scale", "x"}, {"field", "conv_algo"}}},
                  {"dx", {{"scale", "x"}, {"band", 0.5}}},
                  {"y", {{"scale", "y"}, {"field", "layer"}}},
                  {"dy", {{"scale", "y"}, {"band", 0.5}}},
                  {"align", {{"value", "center"}}},
                  {"baseline", {{"value", "middle"}}},
                  {"fontSize", {{"value", 9}}},
                  {"fontWeight", {{"signal", "datum.fastest ? 'bold' : 'normal'"}}},
                  {"fill",
                   {{"signal",
                     "datum.relative > " + std::to_string(std::sqrt(std::max(worst, 1.01))) + " ? 'white' : 'black'"}}},
                  {"text",
                   {{"signal", std::string("format(datum.time_ms, '.3~r') + (datum.fastest ? ' *' : '') + ") +
                                   "(datum.fallback ? ' " + kFallbackGlyph + "' : '')"}}}}}}}};
  return Json::array({cells, outline, frame, labels});
}

// "2 cell(s) ran another algorithm than asked (framed, ↩): winograd on conv1 ran auto, ...".
std::string fallback_note(const Json& fallbacks) {
  std::string listed;
  for (size_t i = 0; i < fallbacks.size() && i < 3; ++i)
    listed += fmt::format("{}{} on {} ran {}", i ? ", " : "", fallbacks[i]["conv_algo"].get<std::string>(),
                          fallbacks[i]["layer"].get<std::string>(), fallbacks[i]["algorithm"].get<std::string>());
  return fmt::format("{} cell(s) ran another algorithm than asked (framed, {}): {}{}", fallbacks.size(), kFallbackGlyph,
                     listed, fallbacks.size() > 3 ? ", ..." : "");
}

}  // namespace

Figure algorithm_figure(const ResultSet& results, const AlgorithmOptions& o) {
  Figure fig{.kind = "algorithms"};
  const auto runs = pick_runs(results, fig.notes);
  const auto layers = rows_of(runs, fig.notes);
  std::vector<std::string> algos;
  for (const auto& r : runs) algos.push_back(r.conv_algo());
  auto cells = cells_of(runs, layers);
  auto& [points, fastest, fallbacks, wins, missing] = cells;
  if (missing > 0) fig.notes.push_back(std::to_string(missing) + " cell(s) without a measured time are left blank");
  if (!fallbacks.empty()) fig.notes.push_back(fallback_note(fallbacks));
  // The winners in column order, then those that won only as another's fallback and have no column of their own
  // (the CPU's auto, a cuDNN algorithm no run asked for).
  std::string win_text;
  // The map by name, not the structured binding: clang before 16 cannot capture a binding in a lambda.
  auto& win_count = cells.wins;
  auto add_win = [&](const std::string& a) {
    if (win_count[a] > 0) win_text += (win_text.empty() ? "" : ", ") + a + " " + std::to_string(win_count[a]);
  };
  for (const auto& a : algos) add_win(a);
  for (const auto& [a, n] : wins)
    if (std::find(algos.begin(), algos.end(), a) == algos.end()) add_win(a);
  const auto& first = *runs.front().result;
  fig.title = !o.title.empty() ? o.title
                               : fmt::format("Convolution time per layer and algorithm (batch {}, {} {}; fastest: {})",
                                             first.batch, first.mode, first.precision, win_text);
  int cell_w = 84, cell_h = 18;
  Json spec = base_spec(fig.title, std::max(200, cell_w * static_cast<int>(algos.size())),
                        std::max(60, cell_h * static_cast<int>(layers.size())));
  std::vector<std::string> layer_names;
  for (const auto& l : layers) layer_names.push_back(l.first);
  double worst = 1;
  for (const auto& p : points) worst = std::max(worst, p["relative"].get<double>());
  add_data(spec, "points", std::move(points));
  add_data(spec, "fastest", std::move(fastest));
  bool any_fallback = !fallbacks.empty();
  add_data(spec, "fallbacks", std::move(fallbacks));
  Json color = log_scale("color", 1, std::max(worst, 1.01), "");
  color["range"] = {{"scheme", "yelloworangered"}}, color["zero"] = false;
  spec["scales"] = Json::array(
      {band_scale("x", algos, "width", 0.04), band_scale("y", layer_names, "height", 0.06), std::move(color),
       ordinal_scale("fallback", {std::string(kFallbackGlyph) + " " + kFallbackLegend}, {{3, 2}})});
  // Algorithm names are wider than a cell ("implicit-precomp-gemm"): written at an angle, each clears its neighbours.
  Json columns = category_axis("top", "x", "--conv-algo");
  columns["labelAngle"] = -30, columns["labelAlign"] = "left", columns["labelBaseline"] = "middle";
  columns["labelLimit"] = 200;
  spec["axes"] = Json::array({std::move(columns), name_axis("left", "y")});
  Json gradient = legend("fill", "color", "x fastest");
  gradient["type"] = "gradient", gradient["format"] = ".2~f";
  gradient["gradientLength"] = std::max(60, cell_h * static_cast<int>(layers.size()));
  spec["legends"] = Json::array({gradient});
  if (any_fallback) {
    Json marker = legend("strokeDash", "fallback", "fallback", "square");
    marker["encode"] = {{"symbols", {{"update", {{"stroke", {{"value", "#222"}}}, {"fillOpacity", {{"value", 0}}}}}}}};
    spec["legends"].push_back(std::move(marker));
  }
  spec["marks"] = heat_map_marks(worst);
  fig.spec = std::move(spec);
  return fig;
}

}  // namespace ridge::report::figure
