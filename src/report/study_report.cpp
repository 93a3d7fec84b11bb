#include "report/study_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "hw/device_db.h"
#include "report/analysis_report.h"
#include "report/document_codec.h"
#include "report/figure/energy_roofline_figure.h"
#include "report/figure/render.h"
#include "report/figure/result_figures.h"
#include "report/figure/result_sources.h"
#include "report/figure/roofline_figure.h"
#include "report/figure/sources.h"
#include "report/format.h"
#include "report/html_document.h"
#include "report/human_table.h"
#include "report/prediction_report.h"
#include "report/printer.h"
#include "report/result_codec.h"
#include "report/results_report.h"
#include "util/error.h"

namespace ridge::report {
namespace fs = std::filesystem;
namespace fig = figure;
using Json = nlohmann::ordered_json;

namespace {

// A stored result's document (what the command printed, shown in the per-layer tables) and its typed result (what
// every number of the report is read from), decoded once. Results of kinds without a codec yet (analyze, imports)
// have their document only.
struct Stored {
  const store::Record* record = nullptr;
  size_t index = 0;  // in Study::records
  Document doc;
  std::optional<TypedResult> typed;
};

// The documents of the study's ok results. Every section reads them: they are decoded once per set of
// results (by uid, a result's identity everywhere) and re-pointed at this study's records.
const std::vector<Stored>& stored_documents(const Study& study) {
  thread_local std::string cached_key;
  thread_local std::vector<Stored> cached;
  std::string key;
  for (const auto& r : study.records) key += r.uid + (r.uid.empty() ? std::to_string(r.id) : "") + r.status + ";";
  if (key != cached_key || key.empty()) {
    cached.clear();
    for (size_t i = 0; i < study.records.size(); ++i) {
      const auto& r = study.records[i];
      if (r.status != "ok" || r.document.is_null()) continue;
      cached.push_back({&r, i, decode_document(r.document), typed_result(r)});
    }
    cached_key = key;
  }
  for (auto& s : cached) s.record = &study.records[s.index];
  return cached;
}

// A prediction made here or stored.
struct Predicted {
  std::string label;  // "h100-sxm default" or "result 4"
  std::string model;
  const roofline::Prediction* p = nullptr;
};

std::string series_of(const hw::Roofline& r) { return r.device_id + (r.mode.empty() ? "" : " " + r.mode); }

std::vector<Predicted> all_predictions(const Study& study, const std::vector<Stored>& stored) {
  std::vector<Predicted> out;
  for (const auto& d : study.devices)
    for (size_t i = 0; i < d.predictions.size() && i < d.rooflines.size(); ++i)
      out.push_back({series_of(d.rooflines[i]), study.model, &d.predictions[i]});
  for (const auto& s : stored)
    if (s.typed)
      for (const auto& p : s.typed->predictions)
        out.push_back({fmt::format("result {}", s.record->id), p.model.empty() ? s.record->params.model : p.model, &p});
  return out;
}

std::string file_name(const std::string& path) { return fs::path(path).filename().string(); }

// The calibration a prediction used, as people read it.
std::string calibration_of(const roofline::Prediction& p) {
  if (!p.calibration_model.empty()) {
    std::string text =
        fmt::format("calibrated model {} ({} mode, {} threads)", p.calibration_model, p.exec_mode, p.threads);
    if (p.validation)
      text += fmt::format("; held-out error median {:.1f}%, p90 {:.1f}%", 100 * p.validation->median_abs,
                          100 * p.validation->p90_abs);
    return text;
  }
  if (p.calibrated)
    return "calibrated from " + (p.calibration_source.empty() ? std::string("the device file") : p.calibration_source);
  return "uncalibrated (roofline bound)";
}

Value text_or_none(const std::string& s) { return s.empty() ? Value{} : Value{s}; }

// Whether a run in `precision` is what `p` predicts: the same arithmetic, or a TF32 run against an fp32 prediction
// that let its products use TF32 tensor units (--allow-tf32: a tf32 ceiling among those it used).
bool same_precision(const std::string& precision, const roofline::Prediction& p) {
  if (precision.empty() || p.precision.empty() || precision == p.precision) return true;
  if (precision != "tf32" || p.precision != "fp32") return false;
  return std::any_of(p.ceilings_used.begin(), p.ceilings_used.end(),
                     [](const auto& c) { return c.first.find("tf32") != std::string::npos; });
}

std::string heading_title(std::string title) {
  while (!title.empty() && (title.back() == ':' || title.back() == ' ')) title.pop_back();
  return title;
}

// Rooflines of models and of imported profiler kernels share the report's roofline section.
bool is_roofline(const std::string& kind) {
  return kind == "roofline" || kind == "hierarchical-roofline" || kind == "energy-roofline";
}

// The energy roofline of a device with energy ceilings: its modes as curves on the compute ceiling
// that carries most of the first prediction's FLOPs, that prediction's nodes as points.
std::optional<fig::Figure> energy_figure(const Study& study, const StudyDevice& d) {
  if (d.rooflines.empty() || !d.rooflines.front().energy) return std::nullopt;
  fig::EnergyRooflineInput input;
  input.modes = d.rooflines;
  input.points_series = d.rooflines.front().mode;
  std::map<std::string, double> flops;
  if (!d.predictions.empty()) {
    const auto& p = d.predictions.front();
    input.points = fig::energy_points(p);
    if (p.energy_predicted) input.points_label = p.energy_label;
    for (const auto& p : input.points)
      if (!p.ceiling.empty()) flops[p.ceiling] += p.flops;
  }
  for (const auto& [key, f] : flops)
    if (input.peak_key.empty() || f > flops[input.peak_key]) input.peak_key = key;
  if (input.peak_key.empty()) input.peak_key = d.rooflines.front().peak_flops.count("fp32") ? "fp32" : "";
  if (input.peak_key.empty() || !d.rooflines.front().peak_flops.count(input.peak_key)) return std::nullopt;
  input.title = "Energy roofline: " + (study.model.empty() ? d.name : file_name(study.model) + " on " + d.name) + " (" +
                input.peak_key + ")";
  try {
    return fig::energy_roofline_figure(input);
  } catch (const Error&) {  // no mode with energy on that ceiling and a DRAM bandwidth: no figure to show
    return std::nullopt;
  }
}

}  // namespace

std::vector<figure::Figure> study_figures(const Study& study) {
  std::vector<fig::Figure> out;
  for (const auto& d : study.devices) {
    fig::RooflineInput input;
    for (const auto& r : d.rooflines) {
      auto ceilings = fig::ceilings_of(r, series_of(r));
      input.ceilings.insert(input.ceilings.end(), ceilings.begin(), ceilings.end());
    }
    std::set<std::string> used;  // the compute ceilings the predictions used ("fp32", "fp16_tensor")
    for (size_t i = 0; i < d.predictions.size() && i < d.rooflines.size(); ++i) {
      auto points = fig::prediction_points(d.predictions[i], series_of(d.rooflines[i]));
      input.points.insert(input.points.end(), points.begin(), points.end());
      for (const auto& n : d.predictions[i].nodes)
        if (!n.peak_key.empty()) used.insert(n.peak_key);
    }
    // Several modes on one chart: only the compute ceilings the predictions used (every memory level),
    // as `ridge plot roofline` does, so the chart stays readable.
    if (d.rooflines.size() > 1 && !used.empty())
      std::erase_if(input.ceilings, [&](const fig::RooflineCeiling& c) { return c.compute && !used.count(c.key); });
    input.title = "Roofline: " + (study.model.empty() ? d.name : file_name(study.model) + " on " + d.name);
    if (input.ceilings.empty() && input.points.empty()) continue;
    auto figure = fig::roofline_figure(input);
    figure.kind = "roofline";
    out.push_back(std::move(figure));
    if (auto energy = energy_figure(study, d)) out.push_back(std::move(*energy));
  }
  const auto& stored = stored_documents(study);
  for (const auto& s : stored) {
    // Imported profiler kernels: a hierarchical roofline on the device the import named (its
    // ceilings from the import, else the study's device, else the database), one point per memory level, from the
    // typed import (a PyTorch trace's kernels have no bytes: nothing to place on it).
    if (!s.typed || !s.typed->ncu) continue;
    fig::RooflineInput input;
    input.hierarchical = true;
    auto series = fmt::format("result {}", s.record->id);
    input.points = fig::kernel_points(*s.typed->ncu, series);
    bool drawable = std::any_of(input.points.begin(), input.points.end(),
                                [](const auto& p) { return p.flops > 0 && p.bytes > 0 && p.time_s > 0; });
    if (!drawable) continue;
    auto device_id = s.record->params.device.substr(0, s.record->params.device.find(':'));
    std::optional<hw::Roofline> roofline;
    if (s.typed->ncu->roofline) {
      roofline = s.typed->ncu->roofline;
      device_id = roofline->device_id;
    }
    if (!roofline && !device_id.empty()) {
      for (const auto& d : study.devices)
        if (d.id == device_id && !d.rooflines.empty()) roofline = d.rooflines.front();
      if (!roofline) try {
          auto device = hw::find_device(device_id);
          roofline = hw::roofline_for(device, hw::resolve_mode(device, ""));
        } catch (const Error&) {  // a device file no longer at hand: the kernels without ceilings
        }
    }
    if (roofline) input.ceilings = fig::ceilings_of(*roofline, series);
    input.title = fmt::format("Hierarchical roofline: result {} ({}{})", s.record->id, s.record->command,
                              device_id.empty() ? "" : " on " + device_id);
    auto figure = fig::roofline_figure(input);
    figure.kind = "hierarchical-roofline";
    out.push_back(std::move(figure));
  }
  fig::ResultSet results;
  fig::add_records(results, study.records);
  for (const auto& d : study.devices)
    for (size_t i = 0; i < d.predictions.size() && i < d.rooflines.size(); ++i)
      results.predicted.push_back({series_of(d.rooflines[i]), d.predictions[i]});
  for (auto& f : fig::result_figures(results)) out.push_back(std::move(f));
  return out;
}

// The notes of stored results, one line per kind: the same note of many results ("inputs generated"), or notes
// that differ only in their figures ("wall clock per run 5.344 ms mean"), are said once with the results' ids.
class ResultNotes {
 public:
  void add(int64_t id, const std::string& command, const std::string& note) {
    auto key = command + "\x1f" + mask_digits(note);
    auto it = std::find_if(groups_.begin(), groups_.end(), [&](const Group& g) { return g.key == key; });
    if (it == groups_.end()) {
      groups_.push_back({key, command, note, {id}, false});
      return;
    }
    if (std::find(it->ids.begin(), it->ids.end(), id) == it->ids.end()) it->ids.push_back(id);
    it->figures_differ |= note != it->first;
  }
  std::vector<std::string> lines() const {
    std::vector<std::string> out;
    for (const auto& g : groups_) {
      std::vector<std::string> ids;
      for (auto id : g.ids) ids.push_back(std::to_string(id));
      auto who = g.ids.size() == 1 ? fmt::format("result {} ({})", ids.front(), g.command)
                                   : fmt::format("results {} ({})", fmt::join(ids, ", "), g.command);
      out.push_back(fmt::format("{}: {}{}", who, cut_list(g.first),
                                g.figures_differ ? " (figures differ between them: the first's shown)" : ""));
    }
    return out;
  }

 private:
  struct Group {
    std::string key, command, first;
    std::vector<int64_t> ids;
    bool figures_differ = false;
  };
  // Every number ("5.344", "14.285") as one '#'.
  static std::string mask_digits(const std::string& text) {
    std::string out;
    for (size_t i = 0; i < text.size(); ++i) {
      bool digit = text[i] >= '0' && text[i] <= '9';
      bool in_number = digit || (text[i] == '.' && !out.empty() && out.back() == '#' && i + 1 < text.size() &&
                                 text[i + 1] >= '0' && text[i + 1] <= '9');
      if (!in_number)
        out += text[i];
      else if (out.empty() || out.back() != '#')
        out += '#';
    }
    return out;
  }
  std::vector<Group> groups_;
};

std::vector<std::string> study_warnings(const Study& study, const std::vector<figure::Figure>& figures) {
  std::vector<std::string> out;
  ResultNotes notes;
  auto add = [&](std::string w) {
    if (std::find(out.begin(), out.end(), w) == out.end()) out.push_back(std::move(w));
  };
  if (study.analysis) {
    const auto& c = study.analysis->cost;
    std::string model = file_name(study.model);
    if (!c.unknown_ops.empty())
      add(fmt::format("{}: ops without a cost rule (their FLOPs and bytes are not in the totals): {}", model,
                      op_counts(c.unknown_ops)));
    if (!c.unresolved_ops.empty())
      add(fmt::format("{}: nodes with unresolved shapes, not costed: {}", model, op_counts(c.unresolved_ops)));
    if (c.estimated_nodes > 0)
      add(fmt::format("{}: {} node(s) are estimated (each node's note says why)", model, c.estimated_nodes));
    for (const auto& n : study.analysis->notes) add("analysis: " + n);
  }
  for (const auto& r : study.records) {
    if (r.status != "ok") add(fmt::format("result {} ({} {}) failed: {}", r.id, r.command, r.params.model, r.error));
    if (r.environment.random_weights.value_or(false))
      add(
          fmt::format("{}: measured with RANDOM weights (the model file holds none): latencies are valid, outputs "
                      "are not meaningful",
                      r.params.model.empty() ? r.subject : r.params.model));
  }
  const auto& stored = stored_documents(study);
  for (const auto& x : all_predictions(study, stored)) {
    const auto& p = *x.p;
    if (!p.calibrated)
      add(fmt::format("prediction {}: uncalibrated: times are roofline bounds (lower limits), not estimates", x.label));
    if (auto ops = op_counts(p.unpredicted_ops); !p.unpredicted_ops.empty())
      add(fmt::format("prediction {}: nodes not predicted (no cost): {}", x.label, ops));
    auto estimated = std::count_if(p.nodes.begin(), p.nodes.end(), [](const auto& n) { return n.estimated; });
    if (estimated) add(fmt::format("prediction {}: {} node time(s) are estimated", x.label, estimated));
    if (auto note = power_limit_note(p); !note.empty()) add(fmt::format("prediction {}: {}", x.label, note));
  }
  for (const auto& s : stored) {
    if (s.typed)
      for (const auto& a : s.typed->analyses)
        if (!a.cost.unknown_ops.empty())
          add(fmt::format("result {}: ops without a cost rule: {}", s.record->id, op_counts(a.cost.unknown_ops)));
    for (const auto& n : s.doc.notes) notes.add(s.record->id, s.record->command, n);
  }
  for (auto& line : notes.lines()) add(std::move(line));
  for (const auto& f : figures)
    for (const auto& n : f.notes) add(fmt::format("figure \"{}\": {}", f.title, n));
  return out;
}

Table environment_table(const Study& study) {
  Table t;
  t.key = "environment";
  t.column({.key = "source", .left_aligned = true})
      .column({.key = "host"})
      .column({.key = "cpu", .title = "CPU"})
      .column({.key = "gpu", .title = "GPU"})
      .column({.key = "threads"})
      .column({.key = "versions", .title = "libraries", .left_aligned = true})
      .column({.key = "revision", .title = "ridge revision"});
  auto versions_text = [](const Json& v) {
    std::string text;
    for (const auto& [library, version] : v.items())
      text += fmt::format("{}{} {}", text.empty() ? "" : ", ", library,
                          version.is_string() ? version.get<std::string>() : version.dump());
    return text;
  };
  const auto& h = study.host;
  t.add({std::string("this machine (report)"), text_or_none(h.host), text_or_none(h.cpu), text_or_none(h.gpu),
         study.logical_cpus > 0 ? Value{fmt::format("{} logical CPUs", study.logical_cpus)} : Value{},
         text_or_none(versions_text(h.versions)), text_or_none(h.revision)});
  // One row per distinct environment of the stored results, naming the results it produced.
  std::vector<std::pair<std::string, std::vector<int64_t>>> groups;  // key -> ids
  std::map<std::string, std::vector<Value>> rows;
  for (const auto& r : study.records) {
    const auto& e = r.environment;
    auto threads = r.params.threads ? std::to_string(*r.params.threads) : std::string();
    auto key = e.host + "\n" + e.cpu + "\n" + e.gpu + "\n" + threads + "\n" + e.versions.dump() + "\n" + e.revision;
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == key; });
    if (it == groups.end()) {
      groups.push_back({key, {}});
      it = groups.end() - 1;
      rows[key] = {Value{},
                   text_or_none(e.host),
                   text_or_none(e.cpu),
                   text_or_none(e.gpu),
                   text_or_none(threads),
                   text_or_none(versions_text(e.versions)),
                   text_or_none(e.revision)};
    }
    it->second.push_back(r.id);
  }
  for (auto& [key, ids] : groups) {
    std::string source = ids.size() == 1 ? "result " : "results ";
    for (size_t i = 0; i < ids.size(); ++i) source += (i ? ", " : "") + std::to_string(ids[i]);
    auto row = rows[key];
    row[0] = source;
    t.add(std::move(row));
  }
  return t;
}

Table run_matrix_table(const Study& study) {
  auto doc = results_document(study.records, study.store_path);
  Table t = doc.tables.front();
  t.key = "run_matrix";
  t.footer.clear();
  for (auto& c : t.columns) {
    if (c.key == "command_line") {
      c.audience = kEveryone;
      c.title = "command line";
      c.left_aligned = true;
    }
    if (c.key == "model") c.max_width = 40;
  }
  if (study.records.empty()) t.footer.push_back("no stored result was selected");
  return t;
}

Table predictions_table(const Study& study) {
  Table t;
  t.key = "predictions";
  t.column({.key = "prediction"})
      .column({.key = "model"})
      .column({.key = "batch"})
      .column({.key = "device"})
      .column({.key = "mode"})
      .column({.key = "precision"})
      .column({.key = "time_s", .title = "latency", .style = Style::kDuration})
      .column({.key = "throughput", .title = "samples/s", .style = Style::kFixed, .decimals = 1})
      .column({.key = "compute_bound_s", .title = "compute-bound", .style = Style::kDuration})
      .column({.key = "memory_bound_s", .title = "memory-bound", .style = Style::kDuration})
      .column({.key = "overhead_bound_s", .title = "overhead-bound", .style = Style::kDuration})
      .column({.key = "energy_per_inference_j", .title = "energy", .style = Style::kSi, .unit = "J"})
      .column({.key = "energy_label", .title = "energy coefficients"})
      .column({.key = "calibration", .title = "calibration used", .left_aligned = true})
      .column({.key = "device_name", .audience = kMachine})
      .column({.key = "exec_mode", .audience = kMachine});
  for (const auto& x : all_predictions(study, stored_documents(study))) {
    const auto& p = *x.p;
    t.add({x.label, text_or_none(file_name(x.model)), p.batch > 0 ? Value{p.batch} : Value{}, p.device_id,
           text_or_none(p.mode), p.precision, p.time_s, p.throughput, p.compute_bound_s, p.memory_bound_s,
           p.overhead_bound_s, p.energy_predicted ? Value{p.energy_j} : Value{},
           p.energy_predicted ? Value{p.energy_label} : Value{}, calibration_of(p), text_or_none(p.device_name),
           text_or_none(p.exec_mode)});
  }
  return t;
}

Table measurements_table(const Study& study) {
  Table t;
  t.key = "measurements";
  t.column({.key = "result"})
      .column({.key = "model"})
      .column({.key = "batch"})
      .column({.key = "input_size", .title = "input"})
      .column({.key = "mode"})
      .column({.key = "precision"})
      .column({.key = "threads"})
      .column({.key = "mean_s", .title = "mean", .style = Style::kDuration})
      .column({.key = "std_s", .title = "std", .style = Style::kDuration})
      .column({.key = "median_s", .title = "median", .style = Style::kDuration})
      .column({.key = "p90_s", .title = "p90", .style = Style::kDuration})
      .column({.key = "throughput", .title = "samples/s", .style = Style::kFixed, .decimals = 1})
      .column({.key = "samples", .title = "runs"})
      .column({.key = "stop_reason", .title = "stopped by"});
  for (const auto& s : stored_documents(study)) {
    if (!s.typed) continue;
    for (const auto& run : s.typed->runs) {
      const auto& l = run.latency_ms;
      // A GPU run's host threads say nothing about it.
      auto threads = run.environment.threads > 0 ? Value{int64_t{run.environment.threads}} : Value{};
      t.add({s.record->id, file_name(run.model.empty() ? s.record->params.model : run.model), run.batch, run.input_size,
             run.mode, run.precision, threads, l.mean / 1e3, l.stddev / 1e3, l.median / 1e3, l.p90 / 1e3,
             run.throughput, l.samples, run.stop_reason});
    }
  }
  return t;
}

namespace {

// What an empty predicted-against-measured table says: no pair, and the predictions that were not paired.
std::string unpaired_text(const Table& pvm) {
  std::string text = "No measured run has a prediction of the same model and batch for the hardware that measured it.";
  for (size_t i = 1; i < pvm.footer.size(); ++i) text += " " + pvm.footer[i] + ".";
  return text;
}

}  // namespace

Table predicted_vs_measured_table(const Study& study) {
  Table t;
  t.key = "predicted_vs_measured";
  t.column({.key = "model"})
      .column({.key = "batch"})
      .column({.key = "measured_by", .title = "measured (result)"})
      .column({.key = "run"})
      .column({.key = "measured_s", .title = "measured", .style = Style::kDuration})
      .column({.key = "prediction"})
      .column({.key = "predicted_s", .title = "predicted", .style = Style::kDuration})
      .column({.key = "ratio", .title = "measured / predicted", .style = Style::kFixed, .unit = "x", .decimals = 2})
      .column({.key = "calibration", .title = "calibration used", .left_aligned = true});
  // Every prediction (single predictions and the points of predict sweeps) of the same model and batch.
  const auto& stored = stored_documents(study);
  auto predictions = all_predictions(study, stored);
  int other_hardware = 0, other_mode = 0, other_precision = 0;
  for (const auto& s : stored) {
    if (!s.typed) continue;
    for (const auto& run : s.typed->runs) {
      if (run.training) continue;
      auto model = file_name(run.model.empty() ? s.record->params.model : run.model);
      // The hardware the run itself records (an imported run's GPU, not the importing machine's).
      auto measured_on = fig::hardware(run);
      double measured = run.latency_ms.mean / 1e3;
      auto label = fmt::format("{} {} {}", run.mode, run.precision, run.conv_algo);
      for (const auto& x : predictions) {
        const auto& p = *x.p;
        if (file_name(x.model) != model || (p.batch > 0 && p.batch != run.batch)) continue;
        // Only a prediction for the hardware that measured, and for the executor mode that ran, is its pair.
        if (!fig::same_hardware(measured_on, p.device_name)) {
          ++other_hardware;
          continue;
        }
        if (!p.exec_mode.empty() && p.exec_mode != run.mode) {
          ++other_mode;
          continue;
        }
        if (!same_precision(run.precision, p)) {
          ++other_precision;
          continue;
        }
        auto name = x.label;
        auto where = p.device_id + (p.mode.empty() ? "" : " " + p.mode);
        if (name != where) name += " (" + where + ")";
        t.add({model, run.batch, s.record->id, label, measured, name, p.time_s,
               p.time_s > 0 ? Value{measured / p.time_s} : Value{}, calibration_of(p)});
      }
    }
  }
  t.footer.push_back(
      "Each measured run is paired with the predictions of the same model, batch and precision for the hardware that "
      "measured it (the device's name holds the GPU's or CPU's: a device file from `ridge ert --profile` for this "
      "machine) and, where a calibration predicts one executor mode, for the mode that ran. A TF32 run pairs with an "
      "fp32 prediction made with --allow-tf32.");
  if (other_hardware > 0)
    t.footer.push_back(
        fmt::format("{} prediction(s) of the same model and batch are for other hardware: not paired", other_hardware));
  if (other_mode > 0)
    t.footer.push_back(fmt::format("{} prediction(s) are for another executor mode: not paired", other_mode));
  if (other_precision > 0)
    t.footer.push_back(fmt::format("{} prediction(s) are for another precision: not paired", other_precision));
  return t;
}

// ---------------------------------------------------------------------------------------------
// HTML

namespace {

using fig::escape_html;

std::string section(const std::string& id, const std::string& title, const std::string& body) {
  return fmt::format("<section id=\"{}\">\n<h2>{}</h2>\n{}</section>\n", id, escape_html(title), body);
}

std::string paragraph(const std::string& text, const std::string& css = "") {
  return fmt::format("<p{}>{}</p>\n", css.empty() ? "" : " class=\"" + css + "\"", escape_html(text));
}

std::string details(const std::string& summary, const std::string& body, bool open = false) {
  return fmt::format("<details{}><summary>{}</summary>\n{}</details>\n", open ? " open" : "", escape_html(summary),
                     body);
}

std::string report_title(const Study& study) {
  if (!study.title.empty()) return study.title;
  return study.model.empty() ? "ridge report" : "ridge report: " + file_name(study.model);
}

// The nodes of one bench run as a table (JSON-only in the bench document: every column shown here).
const Table* nested_table(const Table& runs, const std::vector<Value>& row, const std::string& key) {
  const auto* v = runs.cell(row, key);
  if (!v) return nullptr;
  const auto* t = std::get_if<std::shared_ptr<const Table>>(v);
  return t && *t ? t->get() : nullptr;
}

std::string analysis_html(const Study& study) {
  if (!study.analysis) return paragraph("No MODEL was given: run `ridge report MODEL ...` for its complexity.");
  const auto a = analysis_document(*study.analysis);
  std::string out;
  Document header = a;
  header.tables.clear();
  header.notes.clear();  // shown with the warnings
  for (const auto& key : {"totals", "training", "op_types"})
    if (const auto* t = a.find(key)) header.tables.push_back(*t);
  out += document_html(header);
  return out;
}

}  // namespace

std::string study_html(const Study& study) {
  auto figures = study_figures(study);
  auto warnings = study_warnings(study, figures);
  auto title = report_title(study);
  int figure_id = 0;
  auto figure_block = [&](const fig::Figure& f) { return fig::figure_html(f, fmt::format("figure-{}", ++figure_id)); };

  std::string body;
  body += "<h1>" + escape_html(title) + "</h1>\n";
  body += paragraph(
      fmt::format("Generated {} by ridge {} on {}{}.", study.host.created_at, study.host.revision, study.host.host,
                  study.store_path.empty() ? std::string()
                                           : fmt::format(" from {} ({} stored result{} selected)", study.store_path,
                                                         study.records.size(), study.records.size() == 1 ? "" : "s")),
      "meta");
  body +=
      "<nav><a href=\"#warnings\">Warnings</a> | <a href=\"#environment\">Environment</a> | <a href=\"#runs\">What "
      "was run</a> | <a href=\"#analysis\">Complexity</a> | <a href=\"#rooflines\">Rooflines</a> | <a "
      "href=\"#predictions\">Predictions</a> | <a href=\"#measurements\">Measurements</a> | <a "
      "href=\"#accuracy\">Predicted against measured</a> | <a href=\"#layers\">Per-layer tables</a></nav>\n";

  std::string w;
  if (warnings.empty()) {
    w = paragraph("None.");
  } else {
    w = "<ul class=\"warnings\">\n";
    for (const auto& line : warnings) w += "<li class=\"warning\">" + escape_html(line) + "</li>\n";
    w += "</ul>\n";
  }
  body += section("warnings", fmt::format("Warnings ({})", warnings.size()), w);
  body += section("environment", "Environment", table_html(environment_table(study)));
  body += section("runs", "What was run", table_html(run_matrix_table(study)));
  body += section("analysis", "Complexity (analysis)", analysis_html(study));

  std::string roofs, measured, accuracy;
  for (const auto& f : figures) {
    if (is_roofline(f.kind))
      roofs += figure_block(f);
    else if (f.kind == "accuracy")
      accuracy += figure_block(f);
    else
      measured += figure_block(f);
  }
  if (roofs.empty()) roofs = paragraph("No device was given: add --device ID (repeatable) for rooflines.");
  body += section("rooflines", "Rooflines", roofs);
  auto predictions = predictions_table(study);
  body += section("predictions", "Predictions",
                  predictions.rows.empty() ? paragraph("No prediction: give a MODEL and --device, or select stored "
                                                       "predict results.")
                                           : table_html(predictions));
  auto measurements = measurements_table(study);
  body += section(
      "measurements", "Measurements",
      (measurements.rows.empty() ? paragraph("No stored bench result was selected.") : table_html(measurements)) +
          measured);
  auto pvm = predicted_vs_measured_table(study);
  body += section("accuracy", "Predicted against measured",
                  (pvm.rows.empty() ? paragraph(unpaired_text(pvm)) : table_html(pvm)) + accuracy);

  std::string layers;
  if (study.analysis)
    if (auto doc = analysis_document(*study.analysis); const auto* t = doc.find("nodes"))
      layers += details("Analysis per node: " + file_name(study.model), table_html(*t), true);
  for (const auto& d : study.devices)
    for (size_t i = 0; i < d.predictions.size() && i < d.rooflines.size(); ++i)
      if (auto doc = prediction_document(d.predictions[i]); const auto* t = doc.find("nodes"))
        layers += details("Prediction per node: " + series_of(d.rooflines[i]), table_html(*t));
  for (const auto& s : stored_documents(study)) {
    const auto* runs = s.doc.find("runs");
    if (s.record->command != "bench" || !runs) continue;
    for (const auto& row : runs->rows) {
      const auto* label = runs->cell(row, "run");
      auto name = fmt::format("Measured per node: result {} ({} {})", s.record->id, file_name(s.record->params.model),
                              label ? human_text(*label, Column{}) : "");
      std::string tables;
      if (const auto* ops = nested_table(*runs, row, "op_types")) tables += table_html(*ops);
      if (const auto* nodes = nested_table(*runs, row, "nodes"); nodes && !nodes->rows.empty())
        tables += table_html(*nodes, {.audience = kEveryone});
      if (!tables.empty()) layers += details(name, tables);
    }
  }
  if (layers.empty()) layers = paragraph("No per-layer data.");
  body += section("layers", "Per-layer tables", layers);

  std::string page = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" +
                     escape_html(title) + "</title>\n" + fig::page_style() +
                     "<style>\nul.warnings li { margin: 0.2em 0; } .meta { color: #666; } caption { text-align: left; "
                     "font-weight: bold; padding: 0.3em 0; } dl.fields dt { font-weight: bold; float: left; clear: "
                     "left; margin-right: 0.5em; } dl.fields dd { margin: 0 0 0.2em 0; } details { margin: 0.8em 0; "
                     "} summary { cursor: pointer; font-weight: bold; } table.record th { cursor: default; text-align: "
                     "left; font-weight: normal; }\n</style>\n<script>" +
                     fig::vega_script() + "</script>\n</head>\n<body>\n<div id=\"ridge-errors\" hidden></div>\n" +
                     body + fig::page_script() + sortable_table_script() + "</body>\n</html>\n";
  return page;
}

// ---------------------------------------------------------------------------------------------
// Markdown

namespace {

std::string markdown_table(const Table& t) {
  std::ostringstream out;
  if (t.layout == Table::Layout::kList) {
    for (const auto& row : t.rows)
      if (!row.empty()) out << "- " << human_text(row.front(), t.columns.front()) << "\n";
  } else {
    human_table(t).print_markdown(out);
  }
  for (const auto& line : t.footer) out << "\n" << line << "\n";
  return out.str();
}

std::string placeholder(const std::string& prompt) { return "> _Your interpretation: " + prompt + "_\n"; }

}  // namespace

MarkdownOutput write_study_markdown(const Study& study, const std::string& directory, const FigureProgress& progress) {
  MarkdownOutput result;
  std::error_code ec;
  fs::create_directories(directory, ec);
  if (ec) throw Error("cannot create directory '" + directory + "': " + ec.message());
  auto figures = study_figures(study);
  auto warnings = study_warnings(study, figures);

  // Figures first (the slow part); the text names each by its file.
  std::vector<std::string> names(figures.size());
  for (size_t i = 0; i < figures.size(); ++i) {
    names[i] = fmt::format("fig-{}.png", i + 1);
    if (progress) progress(i + 1, figures.size(), figures[i].title);
    auto path = (fs::path(directory) / names[i]).string();
    try {
      fig::write_figure(figures[i], path);
      result.figures.push_back(path);
    } catch (const Error& e) {
      result.failures.push_back(fmt::format("{}: {}", names[i], e.what()));
    }
  }
  auto figure_md = [&](size_t i) {
    std::string out =
        fmt::format("![{}]({})\n\n*Figure {}: {}*\n", figures[i].title, names[i], i + 1, figures[i].title);
    for (const auto& n : figures[i].notes) out += "\n- note: " + n + "\n";
    return out + "\n";
  };

  std::ostringstream md;
  md << "# " << (study.model.empty() ? std::string("Roofline study") : "Roofline study: " + file_name(study.model))
     << "\n\n";
  md << fmt::format(
      "_Generated {} by ridge {} on {}{}. Sections marked \"Your interpretation\" are for the "
      "author._\n\n",
      study.host.created_at, study.host.revision, study.host.host,
      study.store_path.empty() ? std::string()
                               : fmt::format(" from `{}` ({} stored results)", study.store_path, study.records.size()));
  md << "## Warnings\n\n";
  if (warnings.empty()) md << "None.\n";
  for (const auto& w : warnings) md << "- **warning:** " << w << "\n";

  md << "\n## 1. Experiment design\n\n";
  md << placeholder("the question this study answers, the model and devices chosen, and why.") << "\n";
  md << "### Environment\n\n" << markdown_table(environment_table(study)) << "\n";
  md << "### Run matrix\n\n";
  auto matrix = run_matrix_table(study);
  md << (matrix.rows.empty() ? "No stored result was selected.\n" : markdown_table(matrix)) << "\n";

  md << "## 2. Complexity (analysis)\n\n";
  if (study.analysis) {
    const auto a = analysis_document(*study.analysis);
    for (const auto& f : a.fields)
      if ((f.audience & kHuman) && !f.at_end && !f.text.empty()) md << "- " << f.label << ": " << f.text << "\n";
    for (const auto& key : {"totals", "training", "op_types"})
      if (const auto* t = a.find(key))
        md << "\n### " << (t->title.empty() ? std::string("Totals") : heading_title(t->title)) << "\n\n"
           << markdown_table(*t);
    for (const auto& f : a.fields)
      if ((f.audience & kHuman) && f.at_end && !f.text.empty()) md << "\n- " << f.label << ": " << f.text << "\n";
  } else {
    md << "No MODEL was given (`ridge report MODEL ...` adds its complexity).\n";
  }
  md << "\n" << placeholder("which layers dominate the work and the data movement, and what that implies.") << "\n";

  md << "## 3. Measurement\n\n";
  auto measurements = measurements_table(study);
  md << (measurements.rows.empty() ? "No stored bench result was selected.\n" : markdown_table(measurements)) << "\n";
  for (size_t i = 0; i < figures.size(); ++i)
    if (!is_roofline(figures[i].kind) && figures[i].kind != "accuracy") md << figure_md(i);
  md << placeholder("how stable the measurements are, and how latency scales.") << "\n";

  md << "## 4. Roofline\n\n";
  bool any_roofline = false;
  for (size_t i = 0; i < figures.size(); ++i)
    if (is_roofline(figures[i].kind)) {
      md << figure_md(i);
      any_roofline = true;
    }
  if (!any_roofline) md << "No device was given (`--device ID` adds its roofline).\n\n";
  auto predictions = predictions_table(study);
  if (!predictions.rows.empty()) md << "### Predictions\n\n" << markdown_table(predictions) << "\n";
  auto pvm = predicted_vs_measured_table(study);
  md << "### Predicted against measured\n\n";
  md << (pvm.rows.empty() ? unpaired_text(pvm) + "\n" : markdown_table(pvm)) << "\n";
  for (size_t i = 0; i < figures.size(); ++i)
    if (figures[i].kind == "accuracy") md << figure_md(i);
  md << placeholder("which layers are compute-, memory- or overhead-bound on each device and mode.") << "\n";

  md << "## 5. Analysis\n\n";
  md << placeholder(
            "why measured and predicted times differ (overheads, cache effects, kernels that miss the "
            "ceilings).")
     << "\n";
  md << placeholder("what would move the model closer to its roofline (batch, precision, fusion, power mode).") << "\n";
  md << "### Conclusions\n\n" << placeholder("the answer to the question of section 1.") << "\n";

  if (study.analysis)
    if (auto doc = analysis_document(*study.analysis); const auto* t = doc.find("nodes"))
      md << "## Appendix: per-layer analysis\n\n" << markdown_table(*t) << "\n";

  result.path = (fs::path(directory) / "report.md").string();
  std::ofstream out(result.path, std::ios::trunc);
  out << md.str();
  out.close();
  if (!out) throw Error("cannot write " + result.path);
  return result;
}

}  // namespace ridge::report
