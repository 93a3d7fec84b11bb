#include "report/compare_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "exec/bench_codec.h"
#include "report/bench_report.h"
#include "report/format.h"
#include "report/prediction_report.h"
#include "util/error.h"

namespace ridge::report {
namespace {

using json = nlohmann::json;
using ordered = nlohmann::ordered_json;

std::string selection_text(const RunSelection& want) {
  std::string text;
  if (want.batch) text = fmt::format("batch {}", *want.batch);
  if (!want.mode.empty()) text += (text.empty() ? "" : ", ") + want.mode + " mode";
  if (want.training && !want.optimizer.empty()) text += (text.empty() ? "" : ", ") + want.optimizer;
  return text;
}

// --- comparing ----------------------------------------------------------------------------------

double roofline_of(const roofline::NodePrediction& n) {
  return n.roofline_s > 0 ? n.roofline_s : std::max(n.compute_s, n.memory_s);
}

bool is_removed(const std::string& fused_into) { return !fused_into.empty() && fused_into.front() == '('; }

// Rows people and programs see in this order: what explains the difference first.
int group_of(const NodeComparison& n) {
  switch (n.match) {
    case Match::kCompared:
      return 0;
    case Match::kNotMeasured:
    case Match::kNotPredicted:
      return 1;
    default:
      return 2;
  }
}

double sort_key(const NodeComparison& n) {
  if (n.match == Match::kCompared) return std::abs(*n.difference_s);
  return std::max(n.predicted_s.value_or(0), n.measured_s.value_or(0));
}

// duration() of |seconds| with the sign in front: "-1.368 ms", not "-1368.5 us".
Value signed_duration(const std::optional<double>& seconds) {
  if (!seconds) return Value{};
  return (*seconds < 0 ? "-" : "") + duration(std::abs(*seconds));
}

std::string percent_text(double fraction) { return fmt::format("{:+.1f}%", 100 * fraction); }

std::string basename(const std::string& path) { return std::filesystem::path(path).filename().string(); }

// --- the document -------------------------------------------------------------------------------

Value optional_value(const std::optional<double>& v) { return v ? Value{*v} : Value{}; }
Value optional_percent(const std::optional<double>& v) { return v ? Value{100 * *v} : Value{}; }
Value text_or_none(const std::string& s) { return s.empty() ? Value{} : Value{s}; }

Column seconds(std::string key, std::string title = "") {
  return {.key = std::move(key), .title = std::move(title), .style = Style::kDuration};
}
Column percent(std::string key, std::string title) {
  return {.key = std::move(key), .title = std::move(title), .style = Style::kFixed, .unit = "%", .decimals = 1};
}

// The per-node columns of JSON and CSV (raw values: seconds, fractions).
void add_node_columns(Table& t) {
  t.column({.key = "name"})
      .column({.key = "op"})
      .column({.key = "status"})
      .column({.key = "bound"})
      .column(seconds("predicted_s"))
      .column(seconds("measured_s"))
      .column(seconds("difference_s"))
      .column({.key = "error"})
      .column({.key = "share"})
      .column(seconds("roofline_s"))
      .column({.key = "ceiling_fraction"})
      .column({.key = "fused_into"})
      .column({.key = "note"});
}

std::vector<Value> node_row(const NodeComparison& n) {
  return {n.name,
          text_or_none(n.op),
          std::string(name(n.match)),
          text_or_none(n.bound),
          optional_value(n.predicted_s),
          optional_value(n.measured_s),
          optional_value(n.difference_s),
          optional_value(n.error),
          optional_value(n.share),
          optional_value(n.roofline_s),
          optional_value(n.ceiling_fraction),
          text_or_none(n.fused_into),
          text_or_none(n.note)};
}

void add_prediction_fields(Document& doc, const roofline::Prediction& p) {
  doc.field("device", "device",
            fmt::format("{} ({}){}; precision {}; {}", p.device_name, p.device_id,
                        p.mode.empty() ? "" : ", mode " + p.mode, p.precision, calibration_text(p)),
            {{"id", p.device_id}, {"name", p.device_name}});
  if (!p.mode.empty()) doc.field("mode", "", "", p.mode, kJson);
  if (p.training) doc.field("training", "", "", true, kJson);
  doc.field("precision", "", "", p.precision, kJson);
  add_calibration_fields(doc, p);
}

void add_measured_field(Document& doc, const exec::BenchResult& m, const std::string& source) {
  int threads = m.environment.threads;
  int64_t samples = m.latency_ms.samples;
  ordered measured{
      {"source", source},         {"model", m.model},         {"batch", m.batch},          {"mode", m.mode},
      {"precision", m.precision}, {"conv_algo", m.conv_algo}, {"input_size", m.input_size}};
  if (threads > 0) measured["threads"] = threads;
  if (m.training) {
    measured["training"] = true;
    measured["optimizer"] = m.optimizer;
  }
  measured["samples"] = samples;
  measured["latency_s"] = m.latency_ms.median * 1e-3;
  auto threads_text = threads > 0 ? fmt::format(", {} thread{}", threads, threads == 1 ? "" : "s") : "";
  doc.field("measured", "measured",
            fmt::format("{}: {}{}; latency median of {} runs", source, bench_run_label(m), threads_text, samples),
            measured);
}

Table totals_table(const Comparison& c) {
  Table t;
  t.key = "totals";
  t.layout = Table::Layout::kRecord;
  t.audience = kJson;
  t.column(seconds("predicted_s"))
      .column(seconds("measured_s"))
      .column({.key = "error"})
      .column(seconds("framework_overhead_s"))
      .column(seconds("predicted_nodes_s"))
      .column(seconds("measured_nodes_s"))
      .column(seconds("abs_difference_s"))
      .column(seconds("not_measured_s"))
      .column(seconds("not_predicted_s"))
      .column({.key = "compared_nodes"})
      .column({.key = "not_measured_nodes"})
      .column({.key = "not_predicted_nodes"})
      .column({.key = "fused_nodes"});
  t.add({c.predicted_s, c.measured_s, optional_value(c.error), c.prediction.framework_overhead_s, c.predicted_nodes_s,
         c.measured_nodes_s, c.abs_difference_s, c.not_measured_s, c.not_predicted_s, int64_t{c.compared},
         int64_t{c.not_measured}, int64_t{c.not_predicted}, int64_t{c.fused}});
  return t;
}

}  // namespace

std::string_view name(Match match) {
  switch (match) {
    case Match::kCompared:
      return "compared";
    case Match::kNotMeasured:
      return "not measured";
    case Match::kNotPredicted:
      return "not predicted";
    case Match::kFused:
      return "fused";
    case Match::kRemoved:
      return "removed";
  }
  return "?";
}

exec::LoadedRun select_bench_run(const std::string& path, const RunSelection& want) {
  auto runs = exec::read_bench_runs(path, "");
  std::vector<size_t> matching;
  std::vector<std::string> held;  // every run's description, for the message when none or several match
  for (size_t i = 0; i < runs.size(); ++i) {
    const auto& run = runs[i].run;
    held.push_back(bench_run_label(run));
    // A training step and an inference are different work: a prediction of one never matches a run of the other.
    if (run.training != want.training) continue;
    if (want.training && !want.optimizer.empty() && run.optimizer != want.optimizer) continue;
    if (want.batch && run.batch != *want.batch) continue;
    if (!want.mode.empty() && run.mode != want.mode) continue;
    matching.push_back(i);
  }
  std::string holds;
  for (const auto& h : held) holds += (holds.empty() ? "" : "; ") + h;
  if (matching.empty()) {
    auto wanted = selection_text(want);
    throw Error(fmt::format("'{}' has no {} run{}; it holds: {}", path, want.training ? "training" : "inference",
                            wanted.empty() ? "" : " with " + wanted, holds));
  }
  if (matching.size() > 1)
    throw Error(fmt::format("'{}' holds {} runs that match{}: {}; choose one with --batch and --exec-mode", path,
                            matching.size(), want.batch || !want.mode.empty() ? " " + selection_text(want) : "",
                            holds));
  auto m = std::move(runs[matching.front()]);
  if (m.run.nodes.empty() && !m.run.training)
    throw Error(fmt::format("'{}': the run ({}) has no per-node times (measured with --no-per-node?)", path,
                            bench_run_label(m.run)));
  return m;
}

Comparison compare(std::string model, const roofline::Prediction& prediction, const exec::BenchResult& measured,
                   std::string source) {
  Comparison c;
  c.model = std::move(model);
  c.prediction = prediction;
  c.prediction.nodes.clear();
  c.measured = measured;
  c.measured.nodes.clear();
  c.measured_source = std::move(source);
  c.predicted_s = prediction.time_s;
  c.measured_s = measured.latency_ms.median * 1e-3;
  if (c.measured_s > 0) c.error = c.predicted_s / c.measured_s - 1;
  if (prediction.training != measured.training)
    throw Error(fmt::format("a prediction of {} against a run of {} ('{}'): predict with{} --training",
                            prediction.training ? "a training step" : "an inference",
                            measured.training ? "a training step" : "an inference", c.measured_source,
                            measured.training ? "" : "out"));
  if (measured.training && measured.nodes.empty()) {
    // A run measured with --no-per-node: the step is compared, its nodes are not.
    c.notes.push_back("the run timed the training step whole (no per-node times): the whole step is compared");
    auto stem = [](const std::string& path) { return std::filesystem::path(path).stem().string(); };
    if (!measured.model.empty() && stem(measured.model) != stem(c.model))
      c.notes.push_back(fmt::format("the run is of '{}', the prediction of '{}'", measured.model, c.model));
    return c;
  }

  // Names can repeat in a hand-made graph: the k-th measured node of a name matches the k-th predicted.
  std::unordered_map<std::string, std::deque<size_t>> measured_by_name;
  for (size_t i = 0; i < measured.nodes.size(); ++i) measured_by_name[measured.nodes[i].name].push_back(i);
  std::vector<bool> matched(measured.nodes.size(), false);
  auto take = [&](const std::string& name) -> std::optional<size_t> {
    auto it = measured_by_name.find(name);
    if (it == measured_by_name.end() || it->second.empty()) return std::nullopt;
    auto i = it->second.front();
    it->second.pop_front();
    matched[i] = true;
    return i;
  };
  // A layer's measured time covers the nodes fused into it, so its ceiling is theirs too.
  std::map<std::string, double> fused_roofline_s;
  bool prediction_fuses = false;
  for (const auto& n : prediction.nodes)
    if (!n.fused_into.empty()) {
      prediction_fuses = true;
      if (!is_removed(n.fused_into)) fused_roofline_s[n.fused_into] += roofline_of(n);
    }

  for (const auto& n : prediction.nodes) {
    NodeComparison r;
    r.name = n.name;
    r.op = n.op;
    r.bound = std::string(roofline::name(n.bound));
    auto measured_index = take(n.name);
    if (measured_index) r.measured_s = measured.nodes[*measured_index].mean_ms * 1e-3;
    bool folded_away = !n.fused_into.empty();
    if (folded_away && !measured_index) {
      r.match = is_removed(n.fused_into) ? Match::kRemoved : Match::kFused;
      if (r.match == Match::kFused) r.fused_into = n.fused_into;
      r.roofline_s = roofline_of(n);
    } else if (!n.predicted) {
      r.match = Match::kNotPredicted;
      r.note = n.note.empty() ? "no cost rule" : n.note;
    } else {
      r.predicted_s = n.time_s;
      r.roofline_s = roofline_of(n) + (folded_away ? 0.0 : fused_roofline_s[n.name]);
      if (folded_away) {
        // The prediction counts it in another layer, but the run executed it on its own.
        r.fused_into = n.fused_into;
        r.note = "predicted as fused (time counted in " + n.fused_into + "), measured on its own";
      }
      r.match = measured_index ? Match::kCompared : Match::kNotMeasured;
      if (!measured_index) r.note = "not in the measured run";
    }
    c.nodes.push_back(std::move(r));
  }
  for (size_t i = 0; i < measured.nodes.size(); ++i) {
    if (matched[i]) continue;
    NodeComparison r;
    r.name = measured.nodes[i].name;
    r.op = measured.nodes[i].op_type;
    r.match = Match::kNotPredicted;
    r.measured_s = measured.nodes[i].mean_ms * 1e-3;
    r.note = "not a node of the predicted model";
    c.nodes.push_back(std::move(r));
  }

  for (auto& r : c.nodes) {
    switch (r.match) {
      case Match::kCompared:
        ++c.compared;
        r.difference_s = *r.predicted_s - *r.measured_s;
        c.predicted_nodes_s += *r.predicted_s;
        c.measured_nodes_s += *r.measured_s;
        c.abs_difference_s += std::abs(*r.difference_s);
        // A node measured at 0 has no relative error (nor an achieved fraction): left empty.
        if (*r.measured_s > 0) {
          r.error = *r.predicted_s / *r.measured_s - 1;
          if (r.roofline_s && *r.roofline_s > 0) r.ceiling_fraction = *r.roofline_s / *r.measured_s;
        }
        break;
      case Match::kNotMeasured:
        ++c.not_measured;
        c.not_measured_s += r.predicted_s.value_or(0);
        break;
      case Match::kNotPredicted:
        ++c.not_predicted;
        c.not_predicted_s += r.measured_s.value_or(0);
        break;
      case Match::kFused:
      case Match::kRemoved:
        ++c.fused;
        break;
    }
  }
  if (c.compared == 0)
    throw Error(fmt::format("none of the {} measured nodes is a node of '{}' (was '{}' measured on another model?)",
                            measured.nodes.size(), c.model, c.measured_source));
  // Another model's run shares some names (ResNet-50 and ResNet-152 name their first blocks alike): more than half
  // of the nodes on one side without a partner, and the op counts disagree. An optimized run fuses nodes the
  // prediction does not: its missing nodes do not count then.
  bool fuses_unpredicted = measured.mode == "optimized" && !prediction_fuses;
  int foreign = 0;
  for (bool m : matched) foreign += !m;
  int unmatched = foreign + (fuses_unpredicted ? 0 : c.not_measured);
  int sides = static_cast<int>(std::max(measured.nodes.size(), prediction.nodes.size()));
  if (2 * unmatched > sides) {
    std::map<std::string, std::pair<int, int>> ops;  // op -> measured, predicted
    for (const auto& n : measured.nodes) ++ops[n.op_type].first;
    for (const auto& n : prediction.nodes) ++ops[n.op].second;
    std::vector<std::string> differ;
    for (const auto& [op, counts] : ops)
      if (counts.first != counts.second && differ.size() < 4)
        differ.push_back(fmt::format("{} {} against {}", op, counts.first, counts.second));
    throw Error(fmt::format(
        "'{}' measured {} nodes, {} of them not nodes of '{}', and {} of its {} nodes were not measured ({}): a run of "
        "another model{}?",
        c.measured_source, measured.nodes.size(), foreign, c.model, c.not_measured, prediction.nodes.size(),
        differ.empty() ? std::string("the op counts agree") : fmt::format("{}", fmt::join(differ, ", ")),
        measured.model.empty() ? std::string() : fmt::format(" ('{}')", measured.model)));
  }
  for (auto& r : c.nodes)
    if (r.difference_s && c.abs_difference_s > 0) r.share = std::abs(*r.difference_s) / c.abs_difference_s;

  std::stable_sort(c.nodes.begin(), c.nodes.end(), [](const NodeComparison& a, const NodeComparison& b) {
    if (group_of(a) != group_of(b)) return group_of(a) < group_of(b);
    if (group_of(a) == 2) return false;  // graph order
    return sort_key(a) > sort_key(b);
  });

  if (!measured.model.empty() && basename(measured.model) != basename(c.model))
    c.notes.push_back(fmt::format("the run measured '{}'; compared here with '{}'", measured.model, c.model));
  if (measured.mode == "cuda-graph")
    c.notes.push_back(fmt::format(
        "the run replayed a CUDA graph, which has no per-node events: its node times come from the eager profile run "
        "(their sum, {}, is the eager time), the whole-model latency from the replays ({})",
        duration(c.measured_nodes_s + c.not_predicted_s), duration(c.measured_s)));
  if (measured.mode == "optimized" && !prediction_fuses && c.not_measured > 0)
    c.notes.push_back(fmt::format(
        "the run is in optimized mode and the prediction node by node (no shape-aware calibration): {} predicted "
        "nodes the executor fused or folded have no measurement of their own",
        c.not_measured));
  if (c.fused > 0)
    c.notes.push_back(
        fmt::format("{} nodes run inside the layer before them or are folded (optimized mode): their times are in that "
                    "layer's row",
                    c.fused));
  if (!prediction.calibrated)
    c.notes.push_back(
        "uncalibrated: predicted times are roofline bounds (lower limits), so predictions below the measurements "
        "are expected; `ridge calibrate` fits the device to measurements");
  for (const auto& note : prediction.notes) c.notes.push_back(note);
  return c;
}

Document compare_document(const Comparison& c, int top) {
  Document doc;
  doc.command = "compare";
  doc.subject = c.model;
  add_ridge_version(doc);
  std::string inputs_text;
  ordered inputs = ordered::object();
  for (const auto& [name, shape] : c.inputs) {
    inputs_text += fmt::format("{}{}={}", inputs_text.empty() ? "" : ", ", name, shape);
    inputs[name] = shape;
  }
  doc.field("model", "model", inputs_text.empty() ? c.model : fmt::format("{}  (inputs: {})", c.model, inputs_text),
            c.model);
  doc.field("inputs", "", "", inputs, kJson);
  add_prediction_fields(doc, c.prediction);
  add_measured_field(doc, c.measured, c.measured_source);
  doc.field("whole_model", "whole model",
            fmt::format("predicted {} vs measured {} (median): error {}", duration(c.predicted_s),
                        duration(c.measured_s), c.error ? percent_text(*c.error) : "none (measured 0)"),
            nullptr, kHuman);
  // A training step is compared whole: no per-node lines for people (the notes say why).
  const bool whole_only = c.measured.training && c.nodes.empty();
  if (!whole_only)
    doc.field("node_summary", "nodes",
              fmt::format("{} compared (predicted {}, measured {}; sum of |predicted - measured| {}), {} not measured, "
                          "{} not predicted, {} fused or folded",
                          c.compared, duration(c.predicted_nodes_s), duration(c.measured_nodes_s),
                          duration(c.abs_difference_s), c.not_measured, c.not_predicted, c.fused),
              nullptr, kHuman);

  doc.tables.push_back(totals_table(c));

  // JSON: every node. CSV: the whole model first, in the same columns, then every node.
  // (Tables are built apart and appended last: a reference into doc.tables would not survive.)
  Table nodes{.key = "nodes", .audience = kJson};
  add_node_columns(nodes);
  Table rows{.key = "csv_rows", .audience = kCsv};
  add_node_columns(rows);
  rows.add({std::string("(whole model)"), Value{}, std::string("whole model"), Value{}, c.predicted_s, c.measured_s,
            c.predicted_s - c.measured_s, optional_value(c.error), Value{}, Value{}, Value{}, Value{}, Value{}});
  for (const auto& n : c.nodes) {
    nodes.add(node_row(n));
    rows.add(node_row(n));
  }
  doc.csv_table = rows.key;

  // People: the nodes that explain most of the difference, then those only one side has.
  size_t compared = static_cast<size_t>(c.compared);
  size_t shown = top > 0 ? std::min(static_cast<size_t>(top), compared) : compared;
  Table largest{.key = "largest",
                .title = shown < compared ? fmt::format("nodes by |predicted - measured|, largest first ({} of {} "
                                                        "compared):",
                                                        shown, compared)
                                          : fmt::format("nodes by |predicted - measured|, largest first:"),
                .audience = kHuman};
  largest.column({.key = "node", .max_width = 40})
      .column({.key = "op"})
      .column({.key = "bound"})
      .column(seconds("predicted"))
      .column(seconds("measured"))
      .column({.key = "difference", .title = "predicted - measured"})
      .column(percent("error", "error"))
      .column(percent("share", "share of diff"))
      .column(percent("ceiling", "of ceiling"));
  for (size_t i = 0; i < shown; ++i) {
    const auto& n = c.nodes[i];
    largest.add({n.name, n.op, n.bound, optional_value(n.predicted_s), optional_value(n.measured_s),
                 signed_duration(n.difference_s), optional_percent(n.error), optional_percent(n.share),
                 optional_percent(n.ceiling_fraction)});
  }
  if (shown < compared)
    largest.footer.push_back(fmt::format(
        "... {} more compared nodes (--top 0 lists all; -f json and -f csv have every node)", compared - shown));

  Table others{.key = "not_compared", .title = "not compared (one side only):", .audience = kHuman};
  others.column({.key = "node", .max_width = 40})
      .column({.key = "op"})
      .column(seconds("predicted"))
      .column(seconds("measured"))
      .column({.key = "why"});
  for (const auto& n : c.nodes)
    if (n.match == Match::kNotMeasured || n.match == Match::kNotPredicted)
      others.add({n.name, n.op, optional_value(n.predicted_s), optional_value(n.measured_s), n.note});

  doc.tables.push_back(std::move(nodes));
  doc.tables.push_back(std::move(rows));
  if (!whole_only) doc.tables.push_back(std::move(largest));
  if (!others.rows.empty()) doc.tables.push_back(std::move(others));
  doc.notes = c.notes;
  return doc;
}

}  // namespace ridge::report
