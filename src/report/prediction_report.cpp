#include "report/prediction_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "hw/device.h"
#include "report/format.h"

namespace ridge::report {
namespace {

using json = nlohmann::ordered_json;

double share(double part_s, double total_s) { return total_s > 0 ? 100 * part_s / total_s : 0.0; }

Column seconds(std::string key, std::string title, unsigned audience = kEveryone) {
  return {.key = std::move(key), .title = std::move(title), .style = Style::kDuration, .audience = audience};
}
Column percent(std::string key, std::string title, unsigned audience) {
  return {.key = std::move(key),
          .title = std::move(title),
          .style = Style::kFixed,
          .unit = "%",
          .decimals = 1,
          .audience = audience};
}

// Energy figures exist only where the roofline had energy ceilings: elsewhere the cell is empty, never 0.
Value energy_value(const roofline::Prediction& p, double value) { return p.energy_predicted ? Value{value} : Value{}; }

Column joules(std::string key, std::string title, unsigned audience = kEveryone) {
  return {.key = std::move(key), .title = std::move(title), .style = Style::kSi, .unit = "J", .audience = audience};
}
Column watts(std::string key, std::string title, unsigned audience = kEveryone) {
  return {.key = std::move(key),
          .title = std::move(title),
          .style = Style::kFixed,
          .unit = "W",
          .decimals = 1,
          .audience = audience};
}

void add_device_fields(Document& doc, const roofline::Prediction& p, bool with_mode) {
  add_ridge_version(doc);
  doc.field("device", "device",
            fmt::format("{} ({}){}; precision {}; {}", p.device_name, p.device_id, with_mode ? ", mode " + p.mode : "",
                        p.precision, calibration_text(p)),
            {{"id", p.device_id}, {"name", p.device_name}});
  if (with_mode) doc.field("mode", "", "", p.mode, kJson);
  doc.field("precision", "", "", p.precision, kJson);
  add_calibration_fields(doc, p);
  if (auto note = overhead_note(p); !note.empty()) doc.notes.push_back(note);
  if (auto hint = calibration_hint(p); !hint.empty()) doc.notes.push_back(hint);
  for (const auto& note : p.notes) doc.notes.push_back(note);
}

// "mean power (estimate)", "mean power (predicted, measured coefficients)": people see beside every energy figure
// that it is predicted, and the label of the coefficients it comes from; never "(measured)" alone, which would read
// as a measurement.
std::string energy_title(const roofline::Prediction& p, const std::string& title) {
  if (!p.energy_predicted || p.energy_label.empty()) return title;
  if (p.energy_label == hw::kEstimate) return title + " (estimate)";
  return title + " (predicted, " + p.energy_label + " coefficients)";
}

Table totals_table(const roofline::Prediction& p) {
  Table t;
  t.key = "totals";
  t.layout = Table::Layout::kRecord;
  t.column(seconds("time_s", p.training ? "predicted time per training step" : "predicted latency"))
      .column({.key = "throughput", .title = "throughput", .style = Style::kFixed, .unit = "samples/s", .decimals = 1})
      .column(seconds("compute_bound_s", "", kMachine))
      .column(seconds("memory_bound_s", "", kMachine))
      .column(seconds("overhead_bound_s", "", kMachine))
      .column(percent("compute_percent", "time in compute-bound nodes", kHuman))
      .column(percent("memory_percent", "time in memory-bound nodes", kHuman))
      .column(percent("overhead_percent", "time in overhead-bound nodes", kHuman))
      .column(seconds("framework_overhead_s", "framework time outside the nodes"))
      .column(seconds("overhead_excluded_s", "estimated launch overhead, not in the bound"))
      .column(joules("energy_per_inference_j", energy_title(p, p.training ? "predicted energy per training step"
                                                                          : "predicted energy per inference")))
      .column(watts("power_mean_w", energy_title(p, "mean power")));
  t.add({p.time_s, p.throughput, p.compute_bound_s, p.memory_bound_s, p.overhead_bound_s,
         share(p.compute_bound_s, p.time_s), share(p.memory_bound_s, p.time_s), share(p.overhead_bound_s, p.time_s),
         p.framework_overhead_s, p.calibrated ? Value{} : Value{p.overhead_excluded_s}, energy_value(p, p.energy_j),
         energy_value(p, p.power_w)});
  return t;
}

}  // namespace

std::string energy_text(const roofline::Prediction& p) {
  if (!p.energy_predicted) return "not predicted: " + p.energy_missing;
  return fmt::format("{} coefficients: {}", p.energy_label, p.energy_source);
}

std::string power_limit_note(const roofline::Prediction& p) {
  if (!p.energy_predicted || !p.power_limit_w || p.power_limited_nodes == 0) return "";
  return fmt::format(
      "power-limited: at the roofline time the {} would draw {:.3g} W, above the board's {:g} W ({}); as the "
      "hardware throttles, it takes the time its dynamic energy needs at the limit (dynamic energy / (limit - static "
      "power)), every node stretched alike: {} added",
      p.training ? "training step" : "inference", p.power_demand_w, *p.power_limit_w,
      p.power_limit_from == "budget" ? "the power mode's budget" : "its TDP", duration(p.power_limited_s));
}

void add_energy_field(Document& doc, const roofline::Prediction& p) {
  json energy{{"predicted", p.energy_predicted}};
  if (p.energy_predicted) {
    energy["label"] = p.energy_label;
    energy["source"] = p.energy_source;
  } else {
    energy["missing"] = p.energy_missing;
  }
  if (p.energy_predicted && p.power_limit_w) {
    energy["power_limit_w"] = *p.power_limit_w;
    energy["power_limit_from"] = p.power_limit_from;
    energy["power_demand_w"] = p.power_demand_w;
    energy["power_limited_nodes"] = p.power_limited_nodes;
    energy["power_limited_s"] = p.power_limited_s;
  }
  doc.field("energy", "energy", energy_text(p), energy);
  if (auto note = power_limit_note(p); !note.empty()) doc.notes.push_back(note);
  if (p.energy_predicted && p.energy_label == hw::kEstimate)
    doc.notes.push_back(
        "energy and power are estimates: the device file gives no measured energy coefficients for this mode, so "
        "they follow the rule in docs/energy.md (E = e_flop x FLOPs + e_byte x bytes + p_static x time)");
}

std::string overhead_note(const roofline::Prediction& p) {
  if (p.calibrated || p.overhead_excluded_s <= 0) return "";
  return fmt::format(
      "launch overhead left out of the bound: the device file's per-op overhead is a default, not a measurement, "
      "and a default can exceed what the hardware does ({} over the kernels if it held). On a GPU, `ridge ert "
      "--device cuda --profile gpu.yaml` measures it; on a CPU no microbenchmark does, and a calibration fits the "
      "executor's own time per node instead: `ridge calibrate --device host.yaml --sample` (or `--measured RUNS` on "
      "either), whose predictions are estimates rather than bounds",
      duration(p.overhead_excluded_s));
}

// How to turn an uncalibrated GPU prediction (a bound) into an estimate: the GPU executor's runs on that kind of
// device, fitted (docs/calibration.md). A CPU's bound says so in overhead_note, whose default overhead it leaves out.
std::string calibration_hint(const roofline::Prediction& p) {
  if (p.calibrated || !p.calibration_model.empty() || !overhead_note(p).empty()) return "";
  if (p.device_kind != "gpu" && p.device_kind != "soc") return "";
  return fmt::format(
      "for estimates rather than bounds, calibrate on a {0}: `ridge bench MODEL --device cuda --mode both -f json > "
      "runs.json` there (any models, the more the better), `ridge calibrate --device {0} --measured runs.json -o "
      "{0}-cal.yaml`, then `ridge predict MODEL --device {0}-cal.yaml --exec-mode eager|cuda-graph` "
      "(docs/calibration.md)",
      p.device_id);
}

std::string calibration_text(const roofline::Prediction& p) {
  if (!p.calibration_model.empty()) {
    std::string validation = "no held-out error";
    if (p.validation)
      validation = fmt::format("held-out error: median {:.1f}%, p90 {:.1f}%, {:.0f}% of {} within +-10%",
                               100 * p.validation->median_abs, 100 * p.validation->p90_abs,
                               100 * p.validation->within_10, p.validation->unit);
    // A GPU calibration predicts the GPU executor or a framework on the GPU, which have no thread count.
    auto where = !p.predicts.empty() ? p.predicts
                 : p.threads > 0     ? fmt::format("{} thread{}", p.threads, p.threads == 1 ? "" : "s")
                                     : std::string("the GPU executor");
    return fmt::format("calibrated estimate for {} mode, {} ({}; {})", p.exec_mode, where, p.calibration_model,
                       validation);
  }
  return p.calibrated ? "calibrated from " + p.calibration_source
                      : "uncalibrated: times are roofline bounds (lower limits), not estimates";
}

void add_calibration_fields(Document& doc, const roofline::Prediction& p) {
  doc.field("calibrated", "", "", p.calibrated, kJson);
  // Whether time_s is an estimate (a fitted calibration) or a bound (the roofline alone).
  doc.field("estimate", "", "", p.calibrated, kJson);
  if (p.calibrated && p.calibration_model.empty()) doc.field("calibration_source", "", "", p.calibration_source, kJson);
  if (!p.calibration_model.empty()) {
    json calibration{{"model", p.calibration_model}, {"exec_mode", p.exec_mode}, {"threads", p.threads}};
    if (p.validation)
      calibration["validation"] = {{"points", p.validation->points},
                                   {"median_abs_error", p.validation->median_abs},
                                   {"p90_abs_error", p.validation->p90_abs},
                                   {"within_10", p.validation->within_10}};
    doc.field("calibration", "", "", calibration, kJson);
  }
}

Document prediction_document(const roofline::Prediction& p) {
  Document doc;
  doc.command = "predict";
  doc.subject = p.device_id;
  add_device_fields(doc, p, true);
  add_energy_field(doc, p);
  json ceilings = json::object();
  std::string ceilings_text;
  for (const auto& [key, label] : p.ceilings_used) {
    ceilings[key] = label;
    ceilings_text += fmt::format("{}{} ({})", ceilings_text.empty() ? "" : ", ", key, label);
  }
  auto& nodes = doc.table("nodes", "");
  nodes.column({.key = "name", .title = "node", .max_width = 40})
      .column({.key = "op"})
      .column({.key = "family", .audience = kMachine})
      .column({.key = "flops", .audience = kMachine})
      .column({.key = "bytes", .audience = kMachine})
      .column({.key = "ceiling"})
      .column({.key = "peak_flops", .audience = kMachine})
      .column({.key = "attainable_flops", .title = "attainable", .style = Style::kSi, .unit = "FLOP/s"})
      .column(seconds("compute_s", "", kMachine))
      .column(seconds("memory_s", "", kMachine))
      .column(seconds("overhead_s", "", kMachine))
      .column({.key = "bound"})
      .column(seconds("time_s", "time"))
      .column(joules("energy_j", "energy"))
      .column(watts("power_w", "power"))
      .column({.key = "efficiency", .audience = kMachine})
      .column(seconds("roofline_s", "", kMachine))
      .column({.key = "estimated", .audience = kMachine})
      .column({.key = "fused_into", .title = "fused into", .max_width = 30})
      .column({.key = "note", .audience = kJson});
  for (const auto& n : p.nodes) {
    // A node without work (Flatten, folded shape arithmetic) has no attainable rate to show.
    Value attainable = n.predicted && n.bound != roofline::Bound::kNone ? Value{n.attainable_flops} : Value{};
    Value time = n.predicted ? Value{n.time_s} : Value{std::string("not predicted")};
    double roofline_s = n.roofline_s > 0 ? n.roofline_s : std::max(n.compute_s, n.memory_s);
    // Whole numbers of FLOPs and bytes (exact in JSON); none for a node not predicted.
    auto whole = [&](double v) { return n.predicted ? Value{static_cast<int64_t>(std::llround(v))} : Value{}; };
    // Energy of the nodes add_energy charged (those that do work); none for the rest.
    bool charged = p.energy_predicted && n.predicted && n.bound != roofline::Bound::kNone;
    Value energy = charged ? Value{n.energy_j} : Value{};
    Value power = charged && n.time_s > 0 ? Value{n.power_w} : Value{};
    nodes.add({n.name,
               n.op,
               n.family,
               whole(n.flops),
               whole(n.bytes),
               n.peak_key,
               n.peak_flops,
               attainable,
               n.compute_s,
               n.memory_s,
               n.overhead_s,
               std::string(roofline::name(n.bound)),
               time,
               energy,
               power,
               n.efficiency,
               roofline_s,
               n.estimated,
               n.fused_into.empty() ? Value{} : Value{n.fused_into},
               n.note.empty() ? Value{} : Value{n.note}});
  }
  doc.tables.push_back(totals_table(p));
  doc.field("ceilings", "ceilings used", ceilings_text, ceilings).at_end = true;
  json unpredicted = json::object();
  for (const auto& [op, n] : p.unpredicted_ops) unpredicted[op] = n;
  doc.field("unpredicted_ops", "nodes not predicted (no cost)", op_counts(p.unpredicted_ops), unpredicted).at_end =
      true;
  return doc;
}

Document prediction_sweep_document(const std::vector<PredictionPoint>& points) {
  Document doc;
  doc.command = "predict";
  if (!points.empty()) {
    doc.subject = points[0].prediction.device_id;
    add_device_fields(doc, points[0].prediction, false);
  }
  auto& t = doc.table("points", "");
  t.column({.key = "mode"})
      .column({.key = "batch"})
      .column(seconds("time_s", "latency", kHuman | kCsv))
      .column(
          {.key = "throughput", .title = "samples/s", .style = Style::kFixed, .decimals = 1, .audience = kHuman | kCsv})
      .column(seconds("compute_bound_s", "", kCsv))
      .column(seconds("memory_bound_s", "", kCsv))
      .column(seconds("overhead_bound_s", "", kCsv))
      .column(percent("compute_percent", "compute %", kHuman))
      .column(percent("memory_percent", "memory %", kHuman))
      .column(percent("overhead_percent", "overhead %", kHuman))
      .column(joules("energy_per_inference_j", "energy/inference", kHuman | kCsv))
      .column(watts("power_mean_w", "power", kHuman | kCsv))
      .column({.key = "energy_from", .title = "energy coefficients", .audience = kHuman})
      .column({.key = "calibrated", .audience = kMachine})
      .column({.key = "energy_predicted", .audience = kMachine, .json_path = "energy.predicted"})
      .column({.key = "energy_label", .audience = kMachine, .json_path = "energy.label"})
      .column({.key = "energy_source", .audience = kJson, .json_path = "energy.source"})
      .column({.key = "energy_missing", .audience = kJson, .json_path = "energy.missing"})
      .column({.key = "totals", .audience = kJson});
  // Each distinct source of energy coefficients once, with the modes it holds for.
  std::vector<std::pair<std::string, std::vector<std::string>>> sources;
  for (const auto& pt : points) {
    const auto& p = pt.prediction;
    auto text_if = [](bool shown, const std::string& text) { return shown ? Value{text} : Value{}; };
    t.add({pt.mode, pt.batch, p.time_s, p.throughput, p.compute_bound_s, p.memory_bound_s, p.overhead_bound_s,
           share(p.compute_bound_s, p.time_s), share(p.memory_bound_s, p.time_s), share(p.overhead_bound_s, p.time_s),
           energy_value(p, p.energy_j), energy_value(p, p.power_w),
           p.energy_predicted ? Value{p.energy_label} : Value{std::string("not predicted")}, p.calibrated,
           p.energy_predicted, text_if(p.energy_predicted, p.energy_label),
           text_if(p.energy_predicted, p.energy_source), text_if(!p.energy_predicted, p.energy_missing),
           std::shared_ptr<const Table>(std::make_shared<Table>(totals_table(p)))});
    auto text = energy_text(p);
    auto it = std::find_if(sources.begin(), sources.end(), [&](const auto& s) { return s.first == text; });
    if (it == sources.end()) it = sources.insert(sources.end(), {text, {}});
    if (std::find(it->second.begin(), it->second.end(), pt.mode) == it->second.end()) it->second.push_back(pt.mode);
  }
  for (const auto& [text, modes] : sources) {
    std::string names;
    for (const auto& m : modes) names += (names.empty() ? "" : ", ") + m;
    doc.notes.push_back(fmt::format("energy of mode{} {}: {}", modes.size() == 1 ? "" : "s", names, text));
  }
  for (const auto& pt : points)
    if (auto note = power_limit_note(pt.prediction); !note.empty())
      doc.notes.push_back(fmt::format("mode {}, batch {}: {}", pt.mode, pt.prediction.batch, note));
  return doc;
}

}  // namespace ridge::report
