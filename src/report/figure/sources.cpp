#include "report/figure/sources.h"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <set>

#include "roofline/prediction_codec.h"
#include "util/error.h"

namespace ridge::report::figure {
namespace {

// A finite, non-negative number, else 0 (a figure then names the point instead of drawing it).
double number(const Json& object, const char* key) {
  if (!object.is_object()) return 0;
  auto it = object.find(key);
  if (it == object.end() || !it->is_number()) return 0;
  auto v = it->get<double>();
  return std::isfinite(v) && v > 0 ? v : 0.0;
}

const Json& array_at(const Json& object, const char* key) {
  static const Json empty = Json::array();
  if (!object.is_object()) return empty;
  auto it = object.find(key);
  return it != object.end() && it->is_array() ? *it : empty;
}

std::string text(const Json& object, const char* key) {
  if (!object.is_object()) return "";
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

std::string document_kind(const Json& doc) {
  if (!doc.is_object()) return "";
  if (doc.contains("kernels") && doc["kernels"].is_array()) return "kernels";
  if (doc.contains("runs") && doc["runs"].is_array() && doc.contains("environment")) return "bench";
  if (roofline::is_prediction(doc)) return "predict";
  return "";
}

std::vector<RooflinePoint> prediction_points(const roofline::Prediction& prediction, const std::string& series) {
  std::vector<RooflinePoint> points;
  for (const auto& node : prediction.nodes) {
    RooflinePoint p{.series = series, .name = node.name, .op = node.op, .family = node.family};
    // A node not predicted has no figures: 0, so it is named, not drawn.
    p.flops = node.predicted ? node.flops : 0;
    p.bytes = node.predicted ? node.bytes : 0;
    p.time_s = node.predicted ? node.time_s : 0;
    p.time_kind = prediction.calibrated ? "calibrated estimate" : "predicted";
    points.push_back(std::move(p));
  }
  return points;
}

std::vector<EnergyPoint> energy_points(const roofline::Prediction& prediction) {
  std::vector<EnergyPoint> points;
  for (const auto& node : prediction.nodes) {
    // Energy only where add_energy charged it (a predicted node that does work).
    bool charged = prediction.energy_predicted && node.predicted && node.bound != roofline::Bound::kNone;
    points.push_back({.name = node.name,
                      .op = node.op,
                      .family = node.family,
                      .ceiling = node.peak_key,
                      .flops = node.predicted ? node.flops : 0,
                      .bytes = node.predicted ? node.bytes : 0,
                      .energy_j = charged ? node.energy_j : 0,
                      .time_s = node.predicted ? node.time_s : 0});
  }
  return points;
}

std::vector<RooflinePoint> measured_points(const exec::BenchResult& run, const cost::ModelCost& cost,
                                           const std::string& series, std::vector<std::string>& unmatched) {
  std::map<std::string, const cost::NodeCost*> by_name;
  for (const auto& node : cost.nodes) by_name[node.name] = &node;
  std::vector<RooflinePoint> points;
  for (const auto& node : run.nodes) {
    auto it = by_name.find(node.name);
    if (it == by_name.end()) {
      unmatched.push_back(node.name);
      continue;
    }
    RooflinePoint p{.series = series, .name = node.name, .op = node.op_type, .family = node.op_type};
    p.flops = static_cast<double>(it->second->flops);
    p.bytes = static_cast<double>(it->second->bytes());
    p.time_s = node.mean_ms > 0 ? node.mean_ms / 1000 : 0;
    p.time_kind = "measured";
    points.push_back(std::move(p));
  }
  return points;
}

std::vector<RooflinePoint> bench_points(const std::vector<exec::BenchResult>& bench, const cost::ModelCost& cost,
                                        int64_t batch, int& runs, std::vector<std::string>& unmatched) {
  std::vector<RooflinePoint> points;
  runs = 0;
  for (const auto& run : bench) {
    if (run.training || run.batch != batch) continue;
    ++runs;
    auto series = "measured " + run.environment.device + " " + run.mode + " " + run.precision;
    auto more = measured_points(run, cost, series, unmatched);
    points.insert(points.end(), more.begin(), more.end());
  }
  return points;
}

std::vector<RooflinePoint> kernel_points(const profile::NcuImport& import, const std::string& series) {
  std::map<std::string, int> launches;
  for (const auto& run : import.runs)
    for (const auto& k : run.kernels) ++launches[k.name];
  std::map<std::string, int> seen;
  std::vector<RooflinePoint> points;
  for (const auto& run : import.runs)
    for (const auto& k : run.kernels) {
      auto label = import.runs.size() > 1 ? run.label + ": " + k.name : k.name;
      if (launches[k.name] > 1) label += fmt::format(" #{}", k.id >= 0 ? k.id : ++seen[k.name]);
      if (!k.l1_bytes && !k.l2_bytes && !k.dram_bytes) {
        points.push_back({.series = series, .name = label});  // named in the notes, not drawn
        continue;
      }
      auto op = profile::kernel_family(k.name);
      const std::pair<const char*, const std::optional<double>*> levels[] = {
          {"l1", &k.l1_bytes}, {"l2", &k.l2_bytes}, {"dram", &k.dram_bytes}};
      for (auto [level, bytes] : levels) {
        RooflinePoint p{.series = series, .name = label, .op = op, .level = level};
        p.family = op.empty() ? k.name.substr(0, k.name.find('(')) : op;
        p.flops = k.flops().value_or(0);
        p.bytes = bytes->value_or(0);
        p.time_s = k.time_s.value_or(0);
        p.time_kind = "measured";
        points.push_back(std::move(p));
      }
    }
  return points;
}

std::vector<RooflinePoint> kernel_points(const Json& doc, const std::string& series) {
  // A kernel launched several times (or in several runs) is one point per launch: its label gets
  // the run and launch ID, so each launch's levels are joined, not every launch of the name.
  std::map<std::string, int> launches;
  std::set<std::string> runs;
  for (const auto& kernel : array_at(doc, "kernels")) {
    ++launches[text(kernel, "name")];
    runs.insert(text(kernel, "run"));
  }
  std::map<std::string, int> seen;
  std::vector<RooflinePoint> points;
  for (const auto& kernel : array_at(doc, "kernels")) {
    auto name = text(kernel, "name");
    auto label = name;
    if (runs.size() > 1 && !text(kernel, "run").empty()) label = text(kernel, "run") + ": " + label;
    if (launches[name] > 1) {
      auto id = kernel.is_object() ? kernel.find("id") : kernel.end();
      label += id != kernel.end() && id->is_number_integer() ? fmt::format(" #{}", id->get<int64_t>())
                                                             : fmt::format(" #{}", ++seen[name]);
    }
    auto bytes = kernel.is_object() ? kernel.find("bytes") : kernel.end();
    if (!kernel.is_object() || bytes == kernel.end() || !bytes->is_object()) {
      points.push_back({.series = series, .name = label});  // named in the notes, not drawn
      continue;
    }
    for (const char* level : {"l1", "l2", "dram"}) {
      RooflinePoint p{.series = series, .name = label, .op = text(kernel, "op"), .level = level};
      p.family = p.op.empty() ? name.substr(0, name.find('(')) : p.op;
      p.flops = number(kernel, "flops");
      p.bytes = number(*bytes, level);
      p.time_s = number(kernel, "time_s");
      p.time_kind = "measured";
      points.push_back(std::move(p));
    }
  }
  return points;
}

}  // namespace ridge::report::figure
