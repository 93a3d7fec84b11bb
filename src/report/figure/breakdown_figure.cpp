#include "report/figure/breakdown_figure.h"

#include <algorithm>
#include <map>

#include "util/error.h"

namespace ridge::report::figure {
namespace {

struct Entry {
  std::string label, op;
  double measured_s = 0, predicted_s = 0;
  int layers = 0;
  bool has_measured = false, has_predicted = false;
};

}  // namespace

Figure breakdown_figure(const ResultSet& results, const BreakdownOptions& o) {
  if (o.by != "layer" && o.by != "op") throw Error("breakdown: --by is layer or op, not '" + o.by + "'");
  if (o.top < 1) throw Error("breakdown: --top must be at least 1");
  Figure fig{.kind = o.by == "op" ? "breakdown-op" : "breakdown"};
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
    fig.notes.push_back(std::to_string(with_layers - 1) +
                        " other measured run(s) not drawn (select one with --batch, --mode, --precision)");
  int other_predictions = 0;
  for (const auto& p : results.predicted)
    if (!p.prediction.nodes.empty() && &p.prediction != predicted) ++other_predictions;
  if (other_predictions > 0) fig.notes.push_back(std::to_string(other_predictions) + " other prediction(s) not drawn");
  if (measured && predicted && measured->batch != predicted->batch)
    fig.notes.push_back("the measured run is at batch " + std::to_string(measured->batch) +
                        ", the prediction at batch " + std::to_string(predicted->batch));

  std::vector<Entry> entries;
  std::map<std::string, size_t> index;
  auto entry = [&](const LayerTime& l) -> Entry& {
    auto key = o.by == "op" ? l.op : l.name;
    auto [it, fresh] = index.try_emplace(key, entries.size());
    if (fresh) entries.push_back({.label = key, .op = l.op});
    return entries[it->second];
  };
  auto measured_layers = measured ? layers(*measured) : std::vector<LayerTime>{};
  auto predicted_layers = predicted ? layers(*predicted) : std::vector<LayerTime>{};
  double measured_total = 0, predicted_total = 0;
  int unpredicted = 0;
  if (measured)
    for (const auto& l : measured_layers) {
      auto& e = entry(l);
      e.measured_s += l.time_s, e.has_measured = true, measured_total += l.time_s;
    }
  if (predicted)
    for (const auto& l : predicted_layers) {
      if (l.time_s <= 0) {
        ++unpredicted;
        continue;
      }
      auto& e = entry(l);
      e.predicted_s += l.time_s, e.has_predicted = true, predicted_total += l.time_s;
    }
  // The layers behind a bar: one per layer; per op type, the larger of the two sides' counts.
  std::map<std::string, std::pair<int, int>> counts;
  if (measured)
    for (const auto& l : measured_layers) ++counts[l.op].first;
  if (predicted)
    for (const auto& l : predicted_layers)
      if (l.time_s > 0) ++counts[l.op].second;
  for (auto& e : entries) e.layers = o.by == "op" ? std::max(counts[e.label].first, counts[e.label].second) : 1;
  bool rank_measured = measured != nullptr;
  std::stable_sort(entries.begin(), entries.end(), [&](const Entry& a, const Entry& b) {
    return rank_measured ? a.measured_s > b.measured_s : a.predicted_s > b.predicted_s;
  });
  std::string unit = o.by == "op" ? "op types" : "layers";
  if (entries.size() > static_cast<size_t>(o.top)) {
    Entry rest{.op = ""};
    int rest_entries = 0;
    for (size_t i = o.top; i < entries.size(); ++i) {
      rest.measured_s += entries[i].measured_s, rest.predicted_s += entries[i].predicted_s;
      rest.has_measured |= entries[i].has_measured, rest.has_predicted |= entries[i].has_predicted;
      rest.layers += entries[i].layers;
      ++rest_entries;
    }
    rest.label = "other (" + std::to_string(rest_entries) + " " + unit + ")";
    entries.resize(o.top);
    entries.push_back(std::move(rest));
    fig.notes.push_back("the " + std::to_string(rest_entries) + " " + unit + " after the top " + std::to_string(o.top) +
                        " are summed into one bar");
  }
  if (unpredicted > 0) fig.notes.push_back(std::to_string(unpredicted) + " layer(s) without a predicted time");

  Json points = Json::array();
  for (size_t i = 0; i < entries.size(); ++i) {
    const auto& e = entries[i];
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
    if (measured && e.has_measured) add("measured", e.measured_s, measured_total);
    if (predicted && e.has_predicted) add("predicted", e.predicted_s, predicted_total);
  }
  std::vector<std::string> order;
  for (const auto& e : entries) order.push_back(e.label);
  std::vector<std::string> sources;
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
  int bar = sources.size() > 1 ? 11 : 14;
  int height = std::max(120, static_cast<int>(entries.size() * sources.size()) * bar + 10 * int(entries.size()));
  Json spec = base_spec(fig.title, 520, height);
  add_data(spec, "points", std::move(points));
  spec["scales"] =
      Json::array({{{"name", "y"}, {"type", "band"}, {"domain", order}, {"range", "height"}, {"padding", 0.2}},
                   {{"name", "x"},
                    {"type", "linear"},
                    {"domain", {{"data", "points"}, {"field", "time_ms"}}},
                    {"range", "width"},
                    {"nice", true},
                    {"zero", true}},
                   {{"name", "color"}, {"type", "ordinal"}, {"domain", sources}, {"range", {"#4c78a8", "#f58518"}}}});
  spec["axes"] = Json::array({{{"orient", "bottom"},
                               {"scale", "x"},
                               {"title", "time (ms)"},
                               {"grid", true},
                               {"gridOpacity", 0.15},
                               {"format", "~r"}},
                              {{"orient", "left"}, {"scale", "y"}, {"labelLimit", 260}, {"labelFontSize", 10}}});
  spec["legends"] = Json::array({{{"fill", "color"}, {"title", "time"}, {"orient", "right"}}});
  Json bars{{"type", "rect"},
            {"from", {{"data", "rows"}}},
            {"encode",
             {{"enter",
               {{"y", {{"scale", "pos"}, {"field", "source"}}},
                {"height", {{"scale", "pos"}, {"band", 1}}},
                {"x", {{"scale", "x"}, {"field", "time_ms"}}},
                {"x2", {{"scale", "x"}, {"value", 0}}},
                {"fill", {{"scale", "color"}, {"field", "source"}}}}},
              {"hover", {{"fillOpacity", {{"value", 0.7}}}}},
              {"update", {{"fillOpacity", {{"value", 1}}}}}}}};
  add_tooltip(bars["encode"]["enter"], {{o.by == "op" ? "op type" : "layer", "datum.label"},
                                        {"op", "datum.op"},
                                        {"layers", "datum.layers"},
                                        {"time", "datum.source"},
                                        {"mean time", "format(datum.time_ms, '.4~r') + ' ms'"},
                                        {"share", "format(datum.share * 100, '.1f') + ' % of ' + datum.source"}});
  spec["marks"].push_back(
      {{"type", "group"},
       {"from", {{"facet", {{"data", "points"}, {"name", "rows"}, {"groupby", "label"}}}}},
       {"encode", {{"enter", {{"y", {{"scale", "y"}, {"field", "label"}}}}}}},
       {"signals", Json::array({{{"name", "height"}, {"update", "bandwidth('y')"}}})},
       {"scales", Json::array({{{"name", "pos"}, {"type", "band"}, {"range", "height"}, {"domain", sources}}})},
       {"marks", Json::array({bars})}});
  fig.spec = std::move(spec);
  return fig;
}

}  // namespace ridge::report::figure
