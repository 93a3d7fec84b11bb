#include "report/tune_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "hw/device.h"
#include "report/format.h"
#include "report/printer.h"
#include "util/error.h"

namespace ridge::report {
namespace {

using json = nlohmann::ordered_json;
using roofline::ModeResult;

Value optional_number(const std::optional<double>& v) { return v ? Value{*v} : Value{}; }

std::string signed_percent(double v) { return fmt::format("{}{:.1f}%", v > 0 ? "+" : "", v); }

// "estimate" when any mode's energy is one: every output shows the weakest label present.
std::string overall_label(const roofline::TuneResult& r) {
  std::set<std::string> labels;
  for (const auto& m : r.modes) labels.insert(m.energy_label);
  if (labels.count(hw::kEstimate)) return hw::kEstimate;
  return labels.empty() ? "" : *labels.begin();
}

json mode_json(const ModeResult& m, const ModeResult& reference) {
  json j{{"name", m.mode.name},
         {"batch", m.batch},
         {"named", m.named},
         {"time_s", m.time_s},
         {"energy_j", m.energy_j},
         {"power_w", m.power_w},
         {"energy_per_sample_j", m.energy_per_sample_j},
         {"energy_label", m.energy_label},
         {"energy_saved_pct", roofline::energy_saved_percent(m, reference)},
         {"latency_change_pct", roofline::latency_change_percent(m, reference)},
         {"power_limited_s", m.power_limited_s}};
  if (m.mode.nvpmodel_id) j["nvpmodel_id"] = *m.mode.nvpmodel_id;
  return j;
}

}  // namespace

Document tune_document(const Tuning& tuning) {
  const auto& r = tuning.result;
  const auto& c = tuning.context;
  Document doc;
  doc.command = "tune";
  doc.subject = tuning.device_id;
  add_ridge_version(doc);
  const bool sweep = c.batches.size() > 1;
  const auto& reference = r.modes.at(r.reference);
  const std::string label = overall_label(r);
  const bool estimated = label == hw::kEstimate;
  std::string batches;
  for (auto b : c.batches) batches += (batches.empty() ? "" : ",") + std::to_string(b);
  doc.field("device", "device", fmt::format("{} ({}); {}", tuning.device_name, tuning.device_id, c.calibration),
            {{"id", tuning.device_id}, {"name", tuning.device_name}});
  doc.field("model", "model", fmt::format("{}; batch {}; precision {}", c.model, batches, c.precision), c.model);
  doc.field("batches", "", "", c.batches, kJson);
  doc.field("precision", "", "", c.precision, kJson);

  // What was searched.
  size_t named = 0;
  for (const auto& m : r.modes) named += m.named ? 1 : 0;
  const size_t per_batch = r.modes.size() / std::max<size_t>(1, c.batches.size());
  const size_t named_per_batch = named / std::max<size_t>(1, c.batches.size());
  json domains = json::array();
  std::string axes_text;
  for (const auto& a : r.axes) {
    domains.push_back({{"domain", a.domain},
                       {"values_mhz", a.mhz},
                       {"cores", a.cores},
                       {"held", a.held},
                       {"values_from", a.values_from}});
    axes_text +=
        fmt::format("{}{}: {}", axes_text.empty() ? "" : "; ", a.domain,
                    a.held ? a.values_from : fmt::format("{} frequencies from {}", a.mhz.size(), a.values_from));
  }
  doc.field("enumeration", "modes searched",
            fmt::format("{} ({} named, {} custom){}; {}", per_batch, named_per_batch, per_batch - named_per_batch,
                        sweep ? fmt::format(" x {} batch sizes", c.batches.size()) : "", axes_text),
            {{"modes", per_batch},
             {"named", named_per_batch},
             {"custom", per_batch - named_per_batch},
             {"domains", domains},
             {"all_domains", c.options.all_domains},
             {"named_only", c.options.named_only}});

  std::string constraints;
  if (c.options.latency_max_s) constraints += fmt::format("latency <= {:g} ms", *c.options.latency_max_s * 1e3);
  if (c.options.power_max_w)
    constraints += fmt::format("{}average power <= {:g} W", constraints.empty() ? "" : ", ", *c.options.power_max_w);
  size_t rejected = 0;
  for (const auto& m : r.modes) rejected += m.feasible ? 0 : 1;
  if (!constraints.empty()) constraints += fmt::format(" ({} of {} rejected)", rejected, r.modes.size());
  doc.field("constraints", "constraints", constraints.empty() ? "none" : constraints,
            {{"latency_max_s", c.options.latency_max_s ? json(*c.options.latency_max_s) : json(nullptr)},
             {"power_max_w", c.options.power_max_w ? json(*c.options.power_max_w) : json(nullptr)},
             {"rejected", rejected}});
  doc.field("objective", "objective",
            c.options.objective == roofline::Objective::kEnergy    ? "energy (least energy per sample)"
            : c.options.objective == roofline::Objective::kLatency ? "latency (least time)"
                                                                   : "edp (least energy per sample x latency)",
            roofline::objective_name(c.options.objective));
  std::set<std::string> sources;
  for (const auto& m : r.modes) sources.insert(m.energy_source);
  std::string energy_text = r.energy_predicted
                                ? fmt::format("{}{}", estimated ? "ESTIMATE: " : label + ": ", reference.energy_source)
                                : "not predicted: " + r.energy_missing;
  if (sources.size() > 1) energy_text += fmt::format(" (and {} other sources, see -f json)", sources.size() - 1);
  doc.field("energy_label", "energy coefficients", energy_text, label);

  // Every mode, for programs.
  auto& modes = doc.table("modes", "", Table::Layout::kRows, kMachine);
  modes.column({.key = "name"})
      .column({.key = "batch"})
      .column({.key = "named"})
      .column({.key = "nvpmodel_id"})
      .column({.key = "time_s"})
      .column({.key = "energy_j"})
      .column({.key = "power_w"})
      .column({.key = "energy_per_sample_j"})
      .column({.key = "edp_js"})
      .column({.key = "energy_label"})
      .column({.key = "energy_saved_pct"})
      .column({.key = "latency_change_pct"})
      .column({.key = "power_budget_w"})
      .column({.key = "feasible"})
      .column({.key = "rejected"})
      .column({.key = "pareto"})
      .column({.key = "tied"});
  for (const auto& m : r.modes)
    modes.add({m.mode.name, m.batch, m.named, m.mode.nvpmodel_id ? Value{int64_t{*m.mode.nvpmodel_id}} : Value{},
               m.time_s, m.energy_j, m.power_w, m.energy_per_sample_j, m.energy_per_sample_j * m.time_s, m.energy_label,
               roofline::energy_saved_percent(m, reference), roofline::latency_change_percent(m, reference),
               optional_number(m.mode.power_budget_w), m.feasible, m.rejected.empty() ? Value{} : Value{m.rejected},
               m.pareto, m.tied});
  doc.csv_table = "modes";

  // For people: the named modes, the Pareto front and the best mode.
  auto& shown = doc.table("front",
                          fmt::format("named modes and the Pareto front (time vs energy per sample){}:",
                                      estimated ? " - energy from ESTIMATED coefficients" : ""),
                          Table::Layout::kRows, kHuman);
  shown.column({.key = "mark", .title = ""}).column({.key = "name", .title = "mode", .left_aligned = true});
  if (sweep) shown.column({.key = "batch"});
  shown
      .column({.key = "time_s", .title = "latency", .style = Style::kDuration})
      // One inference is a forward pass of the batch; with several batches the objective compares per sample.
      .column({.key = "energy_j", .title = "energy/inference", .style = Style::kGeneral, .unit = "J", .decimals = 4});
  if (sweep)
    shown.column(
        {.key = "energy_per_sample_j", .title = "energy/sample", .style = Style::kGeneral, .unit = "J", .decimals = 4});
  shown.column({.key = "power_w", .title = "power", .style = Style::kFixed, .unit = "W", .decimals = 1})
      .column({.key = "energy_saved", .title = "energy saved", .style = Style::kFixed, .unit = "%", .decimals = 1})
      .column({.key = "latency_change", .title = "latency change", .style = Style::kFixed, .unit = "%", .decimals = 1})
      .column({.key = "note", .left_aligned = true});
  // Named modes in the file's order, then the Pareto front by increasing time, then the best if elsewhere.
  std::vector<size_t> order;
  std::vector<bool> listed(r.modes.size(), false);
  auto list = [&](size_t i) {
    if (!listed[i]) listed[i] = true, order.push_back(i);
  };
  for (size_t i = 0; i < r.modes.size(); ++i)
    if (r.modes[i].named) list(i);
  for (auto i : r.pareto) list(i);
  if (r.best) list(*r.best);
  const size_t hidden = r.modes.size() - order.size();
  for (auto i : order) {
    const auto& m = r.modes[i];
    bool best = r.best && *r.best == i;
    std::string mark = std::string(best ? "*" : "") + (m.pareto ? "P" : "");
    std::string note = !m.feasible ? m.rejected : m.tied ? "same time and energy as an earlier mode" : "";
    // A prediction never draws more than the board's limit: above it, the mode runs power-limited (slower).
    if (m.power_limited_s > 0)
      note += fmt::format("{}power-limited{} (+{})", note.empty() ? "" : "; ",
                          m.mode.power_budget_w ? fmt::format(" at the mode's {:g} W budget", *m.mode.power_budget_w)
                                                : std::string(" at the TDP"),
                          duration(m.power_limited_s));
    std::vector<Value> row{mark, m.mode.name};
    if (sweep) row.push_back(m.batch);
    row.emplace_back(m.time_s);
    row.emplace_back(m.energy_j);
    if (sweep) row.emplace_back(m.energy_per_sample_j);
    for (Value v : {Value{m.power_w}, Value{roofline::energy_saved_percent(m, reference)},
                    Value{roofline::latency_change_percent(m, reference)}, Value{note}})
      row.push_back(v);
    shown.add(row);
  }
  shown.footer.push_back(
      fmt::format("* best for the objective; P on the Pareto front; savings against {} (the device's default mode){}",
                  reference.mode.name, hidden ? fmt::format("; {} other modes in -f json / -f csv", hidden) : ""));
  if (estimated)
    shown.footer.push_back(
        "energy, power and savings are predictions from ESTIMATED energy coefficients (docs/tune.md), not "
        "measurements");

  auto& pareto = doc.table("pareto", "", Table::Layout::kList, kJson);
  pareto.column({.key = "pareto"});
  for (auto i : r.pareto) pareto.add({r.modes[i].mode.name});

  if (r.best) {
    const auto& b = r.modes[*r.best];
    auto j = mode_json(b, reference);
    j["commands"] = c.commands;
    double saved = roofline::energy_saved_percent(b, reference),
           change = roofline::latency_change_percent(b, reference);
    doc.field("best", "best mode",
              fmt::format("{}{}: {:.4g} ms, {:.4g} J, {:.1f} W{}", b.mode.name,
                          sweep ? fmt::format(" at batch {}", b.batch) : "", b.time_s * 1e3, b.energy_j, b.power_w,
                          estimated ? " (energy estimated)" : ""),
              j);
    doc.field(
        "savings", fmt::format("against {}", reference.mode.name),
        fmt::format("energy saved {:.1f}%, latency change {}{}", saved, signed_percent(change),
                    estimated ? " (predicted from estimated coefficients)" : ""),
        {{"reference", mode_json(reference, reference)}, {"energy_saved_pct", saved}, {"latency_change_pct", change}});
    auto& commands = doc.table("commands", "commands that set it:", Table::Layout::kList, kHuman);
    commands.column({.key = "command", .left_aligned = true});
    for (const auto& line : c.commands) commands.add({line});
    commands.footer = c.command_notes;
  }
  if (!c.applied.empty()) {
    auto& applied = doc.table("applied", "--apply:", Table::Layout::kList);
    applied.column({.key = "applied", .left_aligned = true});
    for (const auto& line : c.applied) applied.add({line});
  }
  for (const auto& a : r.axes)
    if (a.held && a.values_from.find("changes neither") != std::string::npos)
      doc.notes.push_back(fmt::format("{} is {} (--all-domains enumerates it too)", a.domain, a.values_from));
  return doc;
}

}  // namespace ridge::report

// ---- the codec ----

// This nlohmann (3.11.2) has no serializer for std::optional: absent is null.
namespace nlohmann {
template <class T>
struct adl_serializer<std::optional<T>> {
  static void to_json(json& j, const std::optional<T>& value) {
    if (value)
      j = *value;
    else
      j = nullptr;
  }
  static void from_json(const json& j, std::optional<T>& value) {
    if (j.is_null())
      value.reset();
    else
      value = j.get<T>();
  }
};
}  // namespace nlohmann

// Member lists for nlohmann's (de)serialisers, in the namespaces of the types (found by argument-dependent lookup).
namespace ridge::hw {
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(PowerMode, name, clocks_mhz, cores, power_budget_w, source, nvpmodel_id)
}  // namespace ridge::hw

namespace ridge::roofline {
NLOHMANN_JSON_SERIALIZE_ENUM(Objective, {{Objective::kEnergy, "energy"},
                                         {Objective::kLatency, "latency"},
                                         {Objective::kEdp, "edp"}})
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(DomainAxis, domain, mhz, cores, values_from, held)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(TuneOptions, objective, latency_max_s, power_max_w, all_domains,
                                                named_only)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ModeResult, mode, named, batch, time_s, energy_j, power_w,
                                                energy_per_sample_j, energy_label, energy_source, power_limited_s,
                                                feasible, rejected, pareto, tied)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(TuneResult, axes, modes, pareto, best, reference, energy_predicted,
                                                energy_missing)
}  // namespace ridge::roofline

namespace ridge::report {

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(TuneContext, model, precision, batches, options, calibration, commands,
                                                command_notes, applied)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Tuning, device_id, device_name, result, context)

nlohmann::ordered_json encode_tuning(const Tuning& tuning) {
  auto out = to_json(tune_document(tuning));
  // The macros of this nlohmann serialise to nlohmann::json only (keys sorted).
  out["tuning"] = nlohmann::ordered_json::parse(nlohmann::json(tuning).dump());
  return out;
}

bool is_tuning(const nlohmann::json& doc) {
  return doc.is_object() && doc.contains("tuning") && doc["tuning"].is_object();
}

Tuning decode_tuning(const nlohmann::json& doc, const std::string& where) {
  if (!is_tuning(doc)) throw Error(fmt::format("{} is no `ridge tune -f json` output (it has no tuning)", where));
  Tuning t;
  try {
    t = doc["tuning"].get<Tuning>();
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("{}: tuning is malformed: {}", where, e.what()));
  }
  // The indices the document follows must point into the modes.
  const auto& r = t.result;
  auto in_range = [&](size_t i) { return i < r.modes.size(); };
  if (r.modes.empty() || !in_range(r.reference) || (r.best && !in_range(*r.best)) ||
      !std::all_of(r.pareto.begin(), r.pareto.end(), in_range))
    throw Error(
        fmt::format("{}: tuning's best, reference or pareto name no mode of its {} modes", where, r.modes.size()));
  return t;
}

std::string tuning_headline(const Tuning& tuning) {
  const auto& r = tuning.result;
  if (!r.best || *r.best >= r.modes.size()) return "no mode";
  const auto& best = r.modes[*r.best];
  const auto& reference = r.modes.at(r.reference);
  if (tuning.context.options.objective == roofline::Objective::kLatency)
    return fmt::format("best {}: {:+.1f}% latency", best.mode.name, roofline::latency_change_percent(best, reference));
  return fmt::format("best {}: {:.1f}% less energy", best.mode.name, roofline::energy_saved_percent(best, reference));
}

}  // namespace ridge::report
