#include "report/figure/breakdown_figure.h"

#include <algorithm>
#include <map>

#include "report/figure/axes.h"
#include "report/figure/legends.h"
#include "report/figure/marks.h"
#include "report/figure/scales.h"
#include "util/error.h"

namespace ridge::report::figure {
namespace {

struct Entry {
  std::string label, op;
  double measured_s = 0, predicted_s = 0;
  int layers = 0;
  bool has_measured = false, has_predicted = false;
};

// The run and the prediction drawn: the first prediction with layers, and the first inference run with per-node
// times (the one at the prediction's batch where there is one); the others are counted in the notes.
std::pair<const exec::BenchResult*, const roofline::Prediction*> pick(const ResultSet& results,
                                                                      std::vector<std::string>& notes) {
  const auto* first = first_with_layers(results.predicted);
  const roofline::Prediction* predicted = first ? &first->prediction : nullptr;
  const exec::BenchResult* measured = nullptr;
  int with_layers = 0;
  for (const auto& m : results.measured) {
    const auto& r = m.run;
    if (r.nodes.empty() || r.training) continue;
    ++with_layers;
    if (!measured || (predicted && measured->batch != predicted->batch && r.batch == predicted->batch)) measured = &r;
  }
  if (!measured && !predicted)
    throw Error("breakdown needs a bench result with per-node times or a predict result with its layers");
  if (with_layers > 1)
    notes.push_back(std::to_string(with_layers - 1) +
                    " other measured run(s) not drawn (select one with --batch, --mode, --precision)");
  int other_predictions = 0;
  for (const auto& p : results.predicted)
    if (!p.prediction.nodes.empty() && &p.prediction != predicted) ++other_predictions;
  if (other_predictions > 0) notes.push_back(std::to_string(other_predictions) + " other prediction(s) not drawn");
  if (measured && predicted && measured->batch != predicted->batch)
    notes.push_back("the measured run is at batch " + std::to_string(measured->batch) + ", the prediction at batch " +
                    std::to_string(predicted->batch));
  return {measured, predicted};
}

// One entry per layer (or op type), measured and predicted time summed, slowest first.
struct Entries {
  std::vector<Entry> list;
  double measured_total = 0, predicted_total = 0;
  int unpredicted = 0;  // predicted layers without a time
};

Entries entries_of(const exec::BenchResult* measured, const roofline::Prediction* predicted, bool by_op) {
  Entries out;
  std::map<std::string, size_t> index;
  auto entry = [&](const LayerTime& l) -> Entry& {
    auto key = by_op ? l.op : l.name;
    auto [it, fresh] = index.try_emplace(key, out.list.size());
    if (fresh) out.list.push_back({.label = key, .op = l.op});
    return out.list[it->second];
  };
  auto measured_layers = measured ? layers(*measured) : std::vector<LayerTime>{};
  auto predicted_layers = predicted ? layers(*predicted) : std::vector<LayerTime>{};
  // The layers behind a bar: one per layer; per op type, the larger of the two sides' counts.
  std::map<std::string, std::pair<int, int>> counts;
  for (const auto& l : measured_layers) {
    auto& e = entry(l);
    e.measured_s += l.time_s, e.has_measured = true, out.measured_total += l.time_s;
    ++counts[l.op].first;
  }
  for (const auto& l : predicted_layers) {
    if (l.time_s <= 0) {
      ++out.unpredicted;
      continue;
    }
    auto& e = entry(l);
    e.predicted_s += l.time_s, e.has_predicted = true, out.predicted_total += l.time_s;
    ++counts[l.op].second;
  }
  for (auto& e : out.list) e.layers = by_op ? std::max(counts[e.label].first, counts[e.label].second) : 1;
  bool rank_measured = measured != nullptr;
  std::stable_sort(out.list.begin(), out.list.end(), [&](const Entry& a, const Entry& b) {
    return rank_measured ? a.measured_s > b.measured_s : a.predicted_s > b.predicted_s;
  });
  return out;
}

// The entries after the top `top` summed into one, "other (K layers)"; the number summed, 0 for none.
int sum_after(std::vector<Entry>& entries, int top, const std::string& unit) {
  if (entries.size() <= static_cast<size_t>(top)) return 0;
  Entry rest{.op = ""};
  int rest_entries = 0;
  for (size_t i = top; i < entries.size(); ++i) {
    rest.measured_s += entries[i].measured_s, rest.predicted_s += entries[i].predicted_s;
    rest.has_measured |= entries[i].has_measured, rest.has_predicted |= entries[i].has_predicted;
    rest.layers += entries[i].layers;
    ++rest_entries;
  }
  rest.label = "other (" + std::to_string(rest_entries) + " " + unit + ")";
  entries.resize(top);
  entries.push_back(std::move(rest));
  return rest_entries;
}

Json bar_rows(const Entries& entries, bool measured, bool predicted) {
  Json points = Json::array();
  for (size_t i = 0; i < entries.list.size(); ++i) {
    const auto& e = entries.list[i];
    auto add = [&](const char* source, double t, double total) {
      points.push_back(Json{{"label", e.label},
                            {"op", e.op},
                            {"layers", e.layers},
                            {"source", source},
                            {"time_s", t},
                            {"time_ms", t * 1000},
                            {"share", total > 0 ? t / total : 0},
                            {"rank", static_cast<int>(i) + 1}});
    };
    if (measured && e.has_measured) add("measured", e.measured_s, entries.measured_total);
    if (predicted && e.has_predicted) add("predicted", e.predicted_s, entries.predicted_total);
  }
  return points;
}

// One band per entry on "y"; in it, a bar per source (measured, predicted) from zero.
Json bar_layer(const BreakdownOptions& o, const std::vector<std::string>& sources) {
  Json bars{{"type", "rect"},
            {"from", {{"data", "rows"}}},
            {"encode",
             {{"enter",
               {{"y", {{"scale", "pos"}, {"field", "source"}}},
                {"height", {{"scale", "pos"}, {"band", 1}}},
                {"x", {{"scale", "x"}, {"field", "time_ms"}}},
                {"x2", {{"scale", "x"}, {"value", 0}}},
                {"fill", {{"scale", "color"}, {"field", "source"}}}}}}}};
  add_hover_fade(bars);
  add_tooltip(bars["encode"]["enter"], {{o.by == "op" ? "op type" : "layer", "datum.label"},
                                        {"op", "datum.op"},
                                        {"layers", "datum.layers"},
                                        {"time", "datum.source"},
                                        {"mean time", "format(datum.time_ms, '.4~r') + ' ms'"},
                                        {"share", "format(datum.share * 100, '.1f') + ' % of ' + datum.source"}});
  return band_groups({.data = "points", .facet = "rows", .group_field = "label", .scale = "y"}, sources,
                     Json::array({bars}));
}

}  // namespace

Figure breakdown_figure(const ResultSet& results, const BreakdownOptions& o) {
  if (o.by != "layer" && o.by != "op") throw Error("breakdown: --by is layer or op, not '" + o.by + "'");
  if (o.top < 1) throw Error("breakdown: --top must be at least 1");
  Figure fig{.kind = o.by == "op" ? "breakdown-op" : "breakdown"};
  auto [measured, predicted] = pick(results, fig.notes);
  auto entries = entries_of(measured, predicted, o.by == "op");
  std::string unit = o.by == "op" ? "op types" : "layers";
  if (int summed = sum_after(entries.list, o.top, unit); summed > 0)
    fig.notes.push_back("the " + std::to_string(summed) + " " + unit + " after the top " + std::to_string(o.top) +
                        " are summed into one bar");
  if (entries.unpredicted > 0)
    fig.notes.push_back(std::to_string(entries.unpredicted) + " layer(s) without a predicted time");
  std::vector<std::string> order, sources;
  for (const auto& e : entries.list) order.push_back(e.label);
  if (measured) sources.emplace_back("measured");
  if (predicted) sources.emplace_back("predicted");

  std::string what = measured && predicted ? "measured and predicted" : measured ? "measured" : "predicted";
  std::string run_text;
  if (measured) {
    auto label = run_label(*measured, results.measured, {"batch", "input"});
    run_text = " (" + (label == "measured" ? "" : label + ", ") + "batch " + std::to_string(measured->batch) + ")";
  }
  fig.title = !o.title.empty()
                  ? o.title
                  : std::string("Time per ") + (o.by == "op" ? "op type" : "layer") + ", " + what + run_text;
  int bar = sources.size() > 1 ? 11 : 14, n = static_cast<int>(entries.list.size());
  Json spec = base_spec(fig.title, 520, std::max(120, n * static_cast<int>(sources.size()) * bar + 10 * n));
  add_data(spec, "points", bar_rows(entries, measured != nullptr, predicted != nullptr));
  spec["scales"] = Json::array({band_scale("y", order, "height", 0.2),
                                linear_scale("x", {{"data", "points"}, {"field", "time_ms"}}, "width", true),
                                ordinal_scale("color", sources, {"#4c78a8", "#f58518"})});
  spec["axes"] = Json::array({grid_axis("bottom", "x", "time (ms)", "~r"), name_axis("left", "y")});
  spec["legends"] = Json::array({legend("fill", "color", "time")});
  spec["marks"].push_back(bar_layer(o, sources));
  fig.spec = std::move(spec);
  return fig;
}

}  // namespace ridge::report::figure
