#include "report/figure/sources.h"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <set>

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
  if (doc.contains("ceilings") && doc.contains("nodes") && doc["nodes"].is_array()) return "predict";
  if (doc.contains("points") && doc["points"].is_array() && doc.contains("device")) return "predict-sweep";
  if (doc.contains("op_types") && doc.contains("nodes") && doc.contains("totals")) return "analyze";
  return "";
}

std::vector<RooflinePoint> prediction_points(const Json& doc, const std::string& series) {
  std::vector<RooflinePoint> points;
  for (const auto& node : array_at(doc, "nodes")) {
    RooflinePoint p{
        .series = series, .name = text(node, "name"), .op = text(node, "op"), .family = text(node, "family")};
    p.flops = number(node, "flops");
    p.bytes = number(node, "bytes");
    p.time_s = number(node, "time_s");  // "not predicted" is text: 0, so the node is named, not drawn
    auto estimate = doc.find("estimate");
    p.time_kind =
        estimate != doc.end() && estimate->is_boolean() && estimate->get<bool>() ? "calibrated estimate" : "predicted";
    points.push_back(std::move(p));
  }
  return points;
}

std::vector<EnergyPoint> energy_points(const Json& doc) {
  std::vector<EnergyPoint> points;
  for (const auto& node : array_at(doc, "nodes"))
    points.push_back({.name = text(node, "name"),
                      .op = text(node, "op"),
                      .family = text(node, "family"),
                      .ceiling = text(node, "ceiling"),
                      .flops = number(node, "flops"),
                      .bytes = number(node, "bytes"),
                      .energy_j = number(node, "energy_j"),
                      .time_s = number(node, "time_s")});
  return points;
}

std::vector<RooflinePoint> measured_points(const Json& run, const Json& analysis, const std::string& series,
                                           std::vector<std::string>& unmatched) {
  std::map<std::string, const Json*> by_name;
  for (const auto& node : array_at(analysis, "nodes")) by_name[text(node, "name")] = &node;
  std::vector<RooflinePoint> points;
  for (const auto& node : array_at(run, "nodes")) {
    auto name = text(node, "name");
    auto it = by_name.find(name);
    if (it == by_name.end()) {
      unmatched.push_back(name);
      continue;
    }
    RooflinePoint p{.series = series, .name = name, .op = text(node, "op"), .family = text(node, "op")};
    p.flops = number(*it->second, "flops");
    p.bytes = number(*it->second, "bytes");
    p.time_s = number(node, "mean_ms") / 1000;
    p.time_kind = "measured";
    points.push_back(std::move(p));
  }
  return points;
}

std::vector<RooflinePoint> bench_points(const Json& bench, const Json& analysis, int64_t batch, int& runs,
                                        std::vector<std::string>& unmatched) {
  std::vector<RooflinePoint> points;
  runs = 0;
  auto device = bench.is_object() && bench.contains("environment") ? text(bench["environment"], "device") : "";
  for (const auto& run : array_at(bench, "runs")) {
    auto training =
        run.is_object() && run.contains("training") && run["training"].is_boolean() && run["training"].get<bool>();
    if (training || number(run, "batch") != static_cast<double>(batch)) continue;
    ++runs;
    auto series = "measured " + (device.empty() ? std::string("cpu") : device) + " " + text(run, "mode") + " " +
                  text(run, "precision");
    auto more = measured_points(run, analysis, series, unmatched);
    points.insert(points.end(), more.begin(), more.end());
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
