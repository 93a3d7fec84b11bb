#include "report/prediction_report.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "report/format.h"
#include "report/text_table.h"

namespace ridge::report {
namespace {

nlohmann::json totals(const roofline::Prediction& p) {
  return {{"time_s", p.time_s},
          {"throughput", p.throughput},
          {"compute_bound_s", p.compute_bound_s},
          {"memory_bound_s", p.memory_bound_s},
          {"overhead_bound_s", p.overhead_bound_s}};
}

}  // namespace

nlohmann::json prediction_json(const roofline::Prediction& p, bool with_nodes) {
  nlohmann::json doc;
  doc["device"] = {{"id", p.device_id}, {"name", p.device_name}};
  doc["mode"] = p.mode;
  doc["precision"] = p.precision;
  doc["calibrated"] = p.calibrated;
  if (p.calibrated) doc["calibration_source"] = p.calibration_source;
  doc["ceilings"] = p.ceilings_used;
  doc["totals"] = totals(p);
  doc["unpredicted_ops"] = p.unpredicted_ops;
  if (with_nodes) {
    nlohmann::json nodes = nlohmann::json::array();
    for (const auto& n : p.nodes) {
      nlohmann::json node = {{"name", n.name},
                             {"op", n.op},
                             {"family", n.family},
                             {"ceiling", n.peak_key},
                             {"peak_flops", n.peak_flops},
                             {"attainable_flops", n.attainable_flops},
                             {"compute_s", n.compute_s},
                             {"memory_s", n.memory_s},
                             {"overhead_s", n.overhead_s},
                             {"time_s", n.time_s},
                             {"bound", std::string(roofline::name(n.bound))},
                             {"efficiency", n.efficiency}};
      if (!n.note.empty()) node["note"] = n.note;
      nodes.push_back(std::move(node));
    }
    doc["nodes"] = nodes;
  }
  return doc;
}

void write_prediction(std::ostream& out, const roofline::Prediction& p, Format format) {
  if (format == Format::kJson) {
    out << prediction_json(p, true).dump(2) << "\n";
    return;
  }
  if (format == Format::kCsv) {
    fmt::print(
        out,
        "name,op,family,ceiling,peak_flops,attainable_flops,compute_s,memory_s,overhead_s,time_s,bound,efficiency\n");
    for (const auto& n : p.nodes)
      fmt::print(out, "\"{}\",{},{},{},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{},{:.4g}\n", n.name, n.op, n.family,
                 n.peak_key, n.peak_flops, n.attainable_flops, n.compute_s, n.memory_s, n.overhead_s, n.time_s,
                 roofline::name(n.bound), n.efficiency);
    return;
  }
  TextTable nodes({"node", "op", "ceiling", "attainable", "bound", "time"});
  for (const auto& n : p.nodes) {
    if (n.bound == roofline::Bound::kNone) continue;
    std::string name = n.name.size() > 40 ? "..." + n.name.substr(n.name.size() - 37) : n.name;
    nodes.add_row({name, n.op, n.peak_key, n.predicted ? si(n.attainable_flops, "FLOP/s") : "",
                   std::string(roofline::name(n.bound)), n.predicted ? duration(n.time_s) : "not predicted"});
  }
  fmt::print(out, "device: {} ({}), mode {}; precision {}; {}\n\n", p.device_name, p.device_id, p.mode, p.precision,
             p.calibrated ? "calibrated from " + p.calibration_source : "uncalibrated (roofline ceilings)");
  if (format == Format::kMarkdown)
    nodes.print_markdown(out);
  else
    nodes.print(out);
  fmt::print(out, "\npredicted latency: {}  throughput: {:.1f} samples/s\n", duration(p.time_s), p.throughput);
  auto share = [&](double s) { return p.time_s > 0 ? 100 * s / p.time_s : 0.0; };
  fmt::print(out, "time in compute-bound nodes {:.1f}%, memory-bound {:.1f}%, overhead-bound {:.1f}%\n",
             share(p.compute_bound_s), share(p.memory_bound_s), share(p.overhead_bound_s));
  std::string ceilings;
  for (const auto& [key, label] : p.ceilings_used)
    ceilings += fmt::format("{}{} ({})", ceilings.empty() ? "" : ", ", key, label);
  fmt::print(out, "ceilings used: {}\n", ceilings);
  fmt::print(out, "nodes not predicted (no cost): {}\n", op_counts(p.unpredicted_ops));
}

void write_prediction_sweep(std::ostream& out, const std::vector<PredictionPoint>& points, Format format) {
  if (format == Format::kJson) {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& pt : points) {
      auto row = prediction_json(pt.prediction, false);
      row["batch"] = pt.batch;
      rows.push_back(std::move(row));
    }
    out << nlohmann::json{{"points", rows}}.dump(2) << "\n";
    return;
  }
  if (format == Format::kCsv) {
    fmt::print(out, "mode,batch,time_s,throughput,compute_bound_s,memory_bound_s,overhead_bound_s,calibrated\n");
    for (const auto& pt : points)
      fmt::print(out, "{},{},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{}\n", pt.mode, pt.batch, pt.prediction.time_s,
                 pt.prediction.throughput, pt.prediction.compute_bound_s, pt.prediction.memory_bound_s,
                 pt.prediction.overhead_bound_s, pt.prediction.calibrated);
    return;
  }
  TextTable table({"mode", "batch", "latency", "throughput", "compute %", "memory %", "overhead %"});
  for (const auto& pt : points) {
    const auto& p = pt.prediction;
    auto share = [&](double s) { return fixed(p.time_s > 0 ? 100 * s / p.time_s : 0.0, 1); };
    table.add_row({pt.mode, std::to_string(pt.batch), duration(p.time_s), fixed(p.throughput, 1) + "/s",
                   share(p.compute_bound_s), share(p.memory_bound_s), share(p.overhead_bound_s)});
  }
  if (!points.empty())
    fmt::print(out, "device: {} ({}); precision {}; {}\n\n", points[0].prediction.device_name,
               points[0].prediction.device_id, points[0].prediction.precision,
               points[0].prediction.calibrated ? "calibrated" : "uncalibrated (roofline ceilings)");
  if (format == Format::kMarkdown)
    table.print_markdown(out);
  else
    table.print(out);
}

}  // namespace ridge::report
