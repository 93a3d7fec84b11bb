#include "report/figure/sources.h"

#include <map>

#include "util/error.h"

namespace ridge::report::figure {
namespace {

double number(const Json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_number() ? it->get<double>() : 0.0;
}

std::string text(const Json& object, const char* key) {
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
  for (const auto& node : doc.at("nodes")) {
    RooflinePoint p{
        .series = series, .name = text(node, "name"), .op = text(node, "op"), .family = text(node, "family")};
    p.flops = number(node, "flops");
    p.bytes = number(node, "bytes");
    p.time_s = number(node, "time_s");  // "not predicted" is text: 0, so the node is named, not drawn
    p.time_kind = doc.value("estimate", false) ? "calibrated estimate" : "predicted";
    points.push_back(std::move(p));
  }
  return points;
}

std::vector<RooflinePoint> measured_points(const Json& run, const Json& analysis, const std::string& series,
                                           std::vector<std::string>& unmatched) {
  std::map<std::string, const Json*> by_name;
  for (const auto& node : analysis.at("nodes")) by_name[text(node, "name")] = &node;
  std::vector<RooflinePoint> points;
  for (const auto& node : run.at("nodes")) {
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

std::vector<RooflinePoint> kernel_points(const Json& doc, const std::string& series) {
  std::vector<RooflinePoint> points;
  for (const auto& kernel : doc.at("kernels")) {
    auto bytes = kernel.find("bytes");
    if (bytes == kernel.end() || !bytes->is_object()) {
      points.push_back({.series = series, .name = text(kernel, "name")});  // named in the notes, not drawn
      continue;
    }
    for (const char* level : {"l1", "l2", "dram"}) {
      RooflinePoint p{.series = series, .name = text(kernel, "name"), .op = text(kernel, "op"), .level = level};
      p.family = p.op.empty() ? p.name.substr(0, p.name.find('(')) : p.op;
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
