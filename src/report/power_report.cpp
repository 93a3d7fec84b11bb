#include "report/power_report.h"

#include <fmt/format.h>

namespace ridge::report {

Document power_document(const std::string& command, const power::Trace& trace, const power::Energy& energy) {
  Document doc;
  doc.command = command;
  doc.subject = trace.source;
  doc.csv_table = "rails";
  add_ridge_version(doc);
  doc.field("source", "source", trace.source, trace.source);
  doc.field("energy_j", "energy", fmt::format("{:.4g} J ({})", energy.energy_j, trace.total_meaning()),
            energy.energy_j);
  doc.field("mean_w", "mean power", fmt::format("{:.4g} W", energy.mean_w), energy.mean_w);
  doc.field("duration_s", "duration", fmt::format("{:.3f} s", energy.duration_s), energy.duration_s);
  doc.field("samples", "samples",
            fmt::format("{}{}", trace.samples.size(),
                        energy.from_counters ? " (energy from the sources' counters)" : " (trapezoid rule)"),
            static_cast<int64_t>(trace.samples.size()));
  doc.field("total", "", "", trace.total_meaning(), kJson);
  doc.field("from_counters", "", "", energy.from_counters, kJson);
  doc.field("skipped_lines", "skipped lines", std::to_string(trace.skipped_lines), trace.skipped_lines,
            trace.skipped_lines > 0 ? kEveryone : kJson);
  auto& t = doc.table("rails", "per rail:");
  t.column({.key = "rail"})
      .column({.key = "mean_w", .title = "mean W", .style = Style::kFixed, .decimals = 3})
      .column({.key = "energy_j", .title = "energy J", .style = Style::kGeneral, .decimals = 4});
  for (size_t r = 0; r < trace.rails.size(); ++r)
    t.add({trace.rails[r], energy.rail_mean_w.at(r), energy.rail_energy_j.at(r)});
  return doc;
}

Document sample_power(const power::MeasureRequest& r, const std::function<void(const std::string&)>& progress) {
  bool show = progress && r.duration_s > 3;
  auto trace = power::sample(r, [&](double elapsed_s) {
    if (show) progress(fmt::format("\rpower: sampling {}: {:.0f} of {:.0f} s", r.source, elapsed_s, r.duration_s));
  });
  if (show) progress("\n");
  return power_document("power sample", trace, power::integrate(trace));
}

Document integrate_power(const power::MeasureRequest& request) {
  auto trace = power::read_recorded(request);
  return power_document("power integrate", trace, power::integrate(trace));
}

}  // namespace ridge::report
