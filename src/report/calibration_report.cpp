#include "report/calibration_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "report/format.h"
#include "report/printer.h"
#include "util/error.h"
#include "util/json_reader.h"

namespace ridge::report {
namespace {

using ordered = nlohmann::ordered_json;
using json = nlohmann::json;

// A share people read in percent (the row holds it x 100); machines get the fraction in its own column.
Column percent_column(std::string key, std::string title, int decimals) {
  return {.key = std::move(key),
          .title = std::move(title),
          .style = Style::kFixed,
          .unit = "%",
          .decimals = decimals,
          .audience = kHuman};
}

// "0.0123 +- 0.0004", or the figure alone when there is no standard error.
std::string with_error(double value, const std::optional<double>& error, bool at_bound) {
  if (at_bound) return fmt::format("{:.4g} (held at 0)", value);
  return error ? fmt::format("{:.4g} +- {:.2g}", value, *error) : fmt::format("{:.4g}", value);
}

Document begin(const std::string& fit, const std::string& device) {
  Document doc;
  doc.command = "calibrate";
  doc.subject = device;
  add_ridge_version(doc);
  doc.field("fit", "", "", fit, kJson);
  doc.field("device", "device", device, device);
  return doc;
}

void add_output(Document& doc, const std::string& output, const std::string& use) {
  doc.field("output", "wrote", fmt::format("{}: use it with --device {}", output, use), output).at_end = true;
}

Document family_document(const calib::FamilyCalibration& c) {
  auto doc = begin("family", c.device);
  const auto& fit = c.fit;
  doc.field("measured", "measured", c.measured, c.measured);
  if (c.runs_in_file > 1)
    doc.notes.push_back(fmt::format("{} holds {} runs; calibrated on the last: {}", c.measured, c.runs_in_file, c.run));
  doc.field("run", "", "", c.run, kJson);
  doc.field("runs_in_file", "", "", c.runs_in_file, kJson);
  doc.notes.insert(doc.notes.end(), c.notes.begin(), c.notes.end());
  doc.field("nodes", "nodes fitted", std::to_string(fit.calibration.nodes), fit.calibration.nodes);
  doc.field("unmatched", "measured names that are no node of the model", std::to_string(fit.unmatched), fit.unmatched);
  doc.field("without_work", "nodes without work (matched, not fitted)", std::to_string(fit.without_work),
            fit.without_work);
  doc.field("overhead_s", "overhead per op", duration(fit.calibration.overhead_s), fit.calibration.overhead_s);
  auto& t = doc.table("efficiency", "efficiency per op family:");
  t.column({.key = "family"}).column({.key = "efficiency", .style = Style::kFixed, .decimals = 3});
  for (const auto& [family, e] : fit.calibration.efficiency) t.add({family, e});
  for (const auto& family : fit.dropped) t.add({family, Value{}});
  if (!fit.dropped.empty()) t.footer.push_back("empty: not fitted (no positive slope)");
  add_output(doc, c.output, c.output);
  return doc;
}

Document shape_document(const calib::ShapeCalibration& c) {
  auto doc = begin("shape", c.device);
  doc.field("evidence", "evidence", fmt::format("{}", fmt::join(c.evidence, "; ")), c.evidence);
  doc.field("samples", "layers fitted", std::to_string(c.samples), c.samples);
  doc.field("folds", "", "", c.folds, kJson);
  doc.field("held_out", "", "", c.held_out, kJson);
  auto& t = doc.table("models", c.held_out.empty() ? "held-out error per layer kind and executor mode (" +
                                                         std::to_string(c.folds) + "-fold cross-validation):"
                                                   : "held-out error (" + c.held_out + "):");
  t.column({.key = "model"})
      .column({.key = "fit"})
      .column({.key = "points"})
      .column(percent_column("median_abs_error", "median |error|", 1))
      .column(percent_column("p90_abs_error", "p90 |error|", 1))
      .column(percent_column("within_10", "within +-10%", 0))
      .column({.key = "median_abs_error", .audience = kMachine})
      .column({.key = "p90_abs_error", .audience = kMachine})
      .column({.key = "within_10", .audience = kMachine});
  bool single = false;
  for (const auto& m : c.models) {
    if (!m.errors) {  // one sample: nothing to hold out
      single = true;
      t.add({m.key, m.fit, int64_t{0}, {}, {}, {}, {}, {}, {}});
      continue;
    }
    const auto& e = *m.errors;
    t.add({m.key, m.fit, static_cast<int64_t>(e.points), e.median_abs * 100, e.p90_abs * 100, e.within_10 * 100,
           e.median_abs, e.p90_abs, e.within_10});
  }
  if (single && c.held_out.empty())
    t.footer.push_back("points 0: a single sample, nothing to hold out (sample more with --sample-size)");
  doc.notes = c.notes;
  doc.field("files", "kept",
            fmt::format("{}, {} (evidence), {} (model)", c.samples_file, c.overhead_file, c.model_file),
            ordered{{"samples", c.samples_file}, {"overhead", c.overhead_file}, {"model", c.model_file}})
      .at_end = true;
  add_output(doc, c.output, c.output);
  return doc;
}

Document energy_document(const calib::EnergyCalibration& c) {
  auto doc = begin("energy", c.device);
  const auto& fit = c.fit;
  doc.field("mode", "power mode", c.mode, c.mode);
  doc.field("measured", "measured", fmt::format("{}", fmt::join(c.measured, ", ")), c.measured);
  doc.field("traffic", "W, Q counted as", fmt::format("`ridge predict --traffic {}` counts them", c.traffic),
            c.traffic);
  doc.field("e_flop_j", "e_flop", with_error(fit.e_flop_j, fit.standard_error[0], fit.at_bound[0]) + " J/FLOP",
            fit.e_flop_j);
  doc.field("e_byte_j", "e_byte", with_error(fit.e_byte_j, fit.standard_error[1], fit.at_bound[1]) + " J/B",
            fit.e_byte_j);
  doc.field("p_static_w", "p_static", with_error(fit.p_static_w, fit.standard_error[2], fit.at_bound[2]) + " W",
            fit.p_static_w);
  ordered errors;
  for (int j = 0; j < 3; ++j)
    errors[roofline::kEnergyCoefficientNames[j]] = fit.standard_error[j] ? ordered(*fit.standard_error[j]) : ordered();
  doc.field("standard_error", "", "", errors, kJson);
  std::vector<std::string> bound;
  for (int j = 0; j < 3; ++j)
    if (fit.at_bound[j]) bound.push_back(roofline::kEnergyCoefficientNames[j]);
  doc.field("at_bound", "", "", bound, kJson);
  doc.field("error.median_rel", "median |error|", fmt::format("{:.2f}%", fit.median_rel * 100), fit.median_rel);
  doc.field("error.max_rel", "max |error|", fmt::format("{:.2f}%", fit.max_rel * 100), fit.max_rel);
  doc.field("r2", "R^2", fmt::format("{:.4f}", fit.r2), fit.r2);
  doc.field("degrees_of_freedom", "", "", fit.degrees_of_freedom, kJson);
  auto& t = doc.table("runs", fmt::format("{} run(s) fitted (E = e_flop W + e_byte Q + p_static T):", c.runs.size()));
  t.column({.key = "label", .title = "run", .left_aligned = true})
      .column({.key = "source", .audience = kMachine})
      .column({.key = "flops", .title = "W", .style = Style::kSi, .unit = "FLOP"})
      .column({.key = "bytes", .title = "Q", .style = Style::kSi, .unit = "B"})
      .column({.key = "time_s", .title = "T", .style = Style::kDuration})
      .column({.key = "measured_j", .title = "measured J", .style = Style::kGeneral, .decimals = 4})
      .column({.key = "fitted_j", .title = "fitted J", .style = Style::kGeneral, .decimals = 4})
      .column({.key = "rel_error",
               .title = "error",
               .style = Style::kFixed,
               .unit = "%",
               .decimals = 1,
               .audience = kHuman})
      .column({.key = "rel_error", .audience = kMachine});
  for (size_t i = 0; i < c.runs.size(); ++i) {
    const auto& r = c.runs[i];
    double fitted = i < fit.fitted_j.size() ? fit.fitted_j[i] : 0;
    double error = i < fit.relative_error.size() ? fit.relative_error[i] : 0;
    t.add({r.label, r.source, r.flops, r.bytes, r.time_s, r.energy_j, fitted, error * 100, error});
  }
  if (fit.degrees_of_freedom == 0) t.footer.push_back("as many runs as free coefficients: no standard errors");
  doc.field("skipped", "", "", c.skipped, kJson);
  // People read the skipped runs among the notes, first.
  for (const auto& s : c.skipped) doc.notes.push_back("skipped: " + s);
  doc.notes.insert(doc.notes.end(), c.notes.begin(), c.notes.end());
  doc.field("output", "wrote",
            fmt::format("{}: use it with --device {}:{} (other modes get these coefficients scaled, as estimates)",
                        c.output, c.output, c.mode),
            c.output)
      .at_end = true;
  return doc;
}

// ---- decoding ----

// The notes after the first `skip` (those the document adds itself).
std::vector<std::string> notes_after(const JsonReader& r, size_t skip) {
  auto notes = r.texts("notes");
  if (notes.size() < skip) throw Error(fmt::format("{}: notes[] lacks the notes its fields imply", r.where()));
  return {notes.begin() + static_cast<std::ptrdiff_t>(skip), notes.end()};
}

JsonReader row_reader(const JsonReader& r, const char* table, size_t i) {
  return JsonReader(r.list(table)[i], fmt::format("{}: {}[{}]", r.where(), table, i));
}

calib::FamilyCalibration decode_family(const JsonReader& r) {
  calib::FamilyCalibration c;
  c.device = r.text("device", "");
  c.measured = r.text("measured", "");
  c.run = r.text("run", "");
  c.runs_in_file = r.small_count("runs_in_file");
  c.notes = notes_after(r, c.runs_in_file > 1 ? 1 : 0);
  auto& fit = c.fit;
  fit.calibration.nodes = r.small_count("nodes");
  fit.calibration.fitted_from = c.measured;
  fit.calibration.overhead_s = r.non_negative("overhead_s");
  fit.unmatched = r.small_count("unmatched");
  fit.without_work = r.small_count("without_work");
  for (size_t i = 0; i < r.list("efficiency").size(); ++i) {
    auto row = row_reader(r, "efficiency", i);
    auto family = row.text("family", "");
    if (row.has("efficiency"))
      fit.calibration.efficiency[family] = row.non_negative("efficiency");
    else
      fit.dropped.push_back(family);
  }
  c.output = r.text("output", "");
  return c;
}

calib::ShapeCalibration decode_shape(const JsonReader& r) {
  calib::ShapeCalibration c;
  c.device = r.text("device", "");
  c.evidence = r.texts("evidence");
  c.samples = r.count("samples", 0);
  c.folds = r.small_count("folds");
  c.held_out = r.text("held_out", "");
  for (size_t i = 0; i < r.list("models").size(); ++i) {
    auto row = row_reader(r, "models", i);
    calib::ModelValidation m{row.text("model", ""), row.text("fit", ""), std::nullopt};
    if (row.has("median_abs_error"))
      m.errors = calib::ErrorStats{static_cast<int>(row.count("points", 0)), row.non_negative("median_abs_error"),
                                   row.non_negative("p90_abs_error"), row.non_negative("within_10")};
    c.models.push_back(std::move(m));
  }
  c.notes = r.texts("notes");
  auto files = r.child("files");
  c.samples_file = files.text("samples", "");
  c.overhead_file = files.text("overhead", "");
  c.model_file = files.text("model", "");
  c.output = r.text("output", "");
  return c;
}

calib::EnergyCalibration decode_energy(const JsonReader& r) {
  calib::EnergyCalibration c;
  c.device = r.text("device", "");
  c.mode = r.text("mode", "");
  c.measured = r.texts("measured");
  c.traffic = r.text("traffic", "");
  auto& fit = c.fit;
  fit.e_flop_j = r.non_negative("e_flop_j");
  fit.e_byte_j = r.non_negative("e_byte_j");
  fit.p_static_w = r.non_negative("p_static_w");
  auto errors = r.child("standard_error");
  for (int j = 0; j < 3; ++j)
    if (errors.has(roofline::kEnergyCoefficientNames[j]))
      fit.standard_error[j] = errors.non_negative(roofline::kEnergyCoefficientNames[j]);
  for (const auto& name : r.texts("at_bound")) {
    const auto* names = std::begin(roofline::kEnergyCoefficientNames);
    auto it =
        std::find_if(names, std::end(roofline::kEnergyCoefficientNames), [&](const char* n) { return name == n; });
    if (it == std::end(roofline::kEnergyCoefficientNames))
      throw Error(fmt::format("{}: at_bound names '{}', no coefficient", r.where(), name));
    fit.at_bound[it - names] = true;
  }
  auto error = r.child("error");
  fit.median_rel = error.non_negative("median_rel");
  fit.max_rel = error.non_negative("max_rel");
  fit.r2 = r.number("r2");
  fit.degrees_of_freedom = r.small_count("degrees_of_freedom");
  for (size_t i = 0; i < r.list("runs").size(); ++i) {
    auto row = row_reader(r, "runs", i);
    c.runs.push_back({row.text("label", ""), row.text("source", ""), row.non_negative("flops"),
                      row.non_negative("bytes"), row.non_negative("time_s"), row.non_negative("measured_j")});
    fit.fitted_j.push_back(row.non_negative("fitted_j"));
    fit.relative_error.push_back(row.number("rel_error"));
  }
  c.skipped = r.texts("skipped");
  c.notes = notes_after(r, c.skipped.size());
  c.output = r.text("output", "");
  return c;
}

}  // namespace

Document calibration_document(const calib::Calibration& calibration) {
  return std::visit(
      [](const auto& c) -> Document {
        using T = std::decay_t<decltype(c)>;
        if constexpr (std::is_same_v<T, calib::FamilyCalibration>)
          return family_document(c);
        else if constexpr (std::is_same_v<T, calib::ShapeCalibration>)
          return shape_document(c);
        else
          return energy_document(c);
      },
      calibration);
}

nlohmann::ordered_json encode_calibration(const calib::Calibration& calibration) {
  return to_json(calibration_document(calibration));
}

bool is_calibration(const json& doc) {
  return doc.is_object() && doc.contains("fit") && doc["fit"].is_string() && doc.contains("device") &&
         doc.contains("output");
}

calib::Calibration decode_calibration(const json& doc, const std::string& where) {
  JsonReader r(doc, where);
  auto fit = r.text("fit", "");
  if (fit == "family") return decode_family(r);
  if (fit == "shape") return decode_shape(r);
  if (fit == "energy") return decode_energy(r);
  throw Error(
      fmt::format("{} is no `ridge calibrate -f json` output (fit '{}' is none of family, shape, energy)", where, fit));
}

std::string calibration_headline(const calib::Calibration& calibration) {
  return std::visit(
      [](const auto& c) -> std::string {
        using T = std::decay_t<decltype(c)>;
        if constexpr (std::is_same_v<T, calib::FamilyCalibration>) {
          return fmt::format("{} nodes, {} per op", c.fit.calibration.nodes, duration(c.fit.calibration.overhead_s));
        } else if constexpr (std::is_same_v<T, calib::ShapeCalibration>) {
          for (const auto& m : c.models)
            if (m.key == "all" && m.errors)
              return fmt::format("{} layers, median |error| {:.1f}%", c.samples, m.errors->median_abs * 100);
          return fmt::format("{} layers", c.samples);
        } else {
          return fmt::format("{} runs, median |error| {:.1f}%, R^2 {:.4f}", c.runs.size(), c.fit.median_rel * 100,
                             c.fit.r2);
        }
      },
      calibration);
}

}  // namespace ridge::report
