// `ridge power sample` (a live source for a while) and `ridge power integrate` (a tegrastats log or
// a meter's CSV): energy, mean power and duration, per rail.
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <iostream>
#include <memory>

#include "cli/command.h"
#include "cli/common.h"
#include "cli/output_options.h"
#include "cli/store_options.h"  // invocation(): --quiet
#include "report/power_report.h"

namespace ridge::cli {
namespace {

struct PowerCliOptions {
  power::MeasureRequest request;
  std::string format = "table";
};

void add_common(CLI::App& app, PowerCliOptions& o) {
  app.add_option("--rail", o.request.rail,
                 "one rail or domain instead of the total, e.g. --rail VDD_GPU_SOC (Jetson), --rail gpu1 (nvml), "
                 "--rail dram-0 (rapl:dram)");
  add_format_option(app, o.format);
}

}  // namespace

Command add_power_command(CLI::App& parent) {
  auto* app = parent.add_subcommand("power", "measure power: sample a live source, or integrate a recorded trace");
  app->require_subcommand(1);
  auto sample_o = std::make_shared<PowerCliOptions>();
  auto* sample = app->add_subcommand("sample", "sample a live power source for a while: mean power per rail, energy");
  sample
      ->add_option("--source", sample_o->request.source,
                   "nvml (every GPU, rails gpu0...) | nvml:INDEX | jetson (INA3221 rails in sysfs) | tegrastats "
                   "(run live) | rapl (CPU packages) | rapl:package | rapl:dram")
      ->required();
  sample->add_option("--duration", sample_o->request.duration_s, "seconds to sample, e.g. --duration 10 (default 5)")
      ->check(CLI::Range(0.01, 1e6));
  sample
      ->add_option("--interval", sample_o->request.interval_ms,
                   "milliseconds between samples, e.g. --interval 20 (default: 50 for jetson/rapl, 100 for nvml, "
                   "1000 for tegrastats)")
      ->check(CLI::Range(1.0, 1e6));
  add_common(*sample, *sample_o);
  sample->footer(
      "The total is the board's input rail where it has one (VDD_IN, POM_5V_IN), else the sum of the rails.\n"
      "Sensors update slowly (NVML ~0.5 s on many GPUs, tegrastats 1 s): a faster interval adds no information.\n"
      "Examples:\n"
      "  ridge power sample --source jetson --duration 10\n"
      "  ridge power sample --source nvml:0 --duration 30 --interval 100 -f json\n"
      "  ridge power sample --source rapl:dram --duration 2\n"
      "  sudo ridge power sample --source tegrastats --interval 500 --rail VDD_GPU_SOC");
  auto integrate_o = std::make_shared<PowerCliOptions>();
  auto* integrate = app->add_subcommand("integrate", "energy of a recorded trace: a tegrastats log or a meter's CSV");
  integrate
      ->add_option("--source", integrate_o->request.source,
                   "tegrastats:FILE (a tegrastats log, with or without timestamps) | csv:FILE (a timestamp column, "
                   "ISO 8601 or seconds, and a watts column: power_w, watts, power, W, or power_mw)")
      ->required();
  integrate
      ->add_option("--interval", integrate_o->request.interval_ms,
                   "tegrastats logs: milliseconds between lines, as given to tegrastats --interval (default 1000); "
                   "e.g. --interval 100")
      ->check(CLI::Range(1.0, 1e6));
  add_common(*integrate, *integrate_o);
  integrate->footer(
      "Energy is the trapezoid rule over the samples, first to last; mean power = energy / duration.\n"
      "Lines of a log that are not tegrastats lines (prompts, escapes, ^C) are skipped and counted.\n"
      "Examples:\n"
      "  ridge power integrate --source tegrastats:run.log --interval 100 -f json\n"
      "  ridge power integrate --source tegrastats:run.log --rail VDD_GPU_SOC\n"
      "  ridge power integrate --source csv:meter.csv -f csv");
  return {app, [sample, integrate, sample_o, integrate_o] {
            if (sample->parsed()) {
              std::function<void(const std::string&)> progress;
              if (!invocation().quiet) progress = [](const std::string& text) { fmt::print(std::cerr, "{}", text); };
              emit(report::sample_power(sample_o->request, progress), sample_o->format);
              return 0;
            }
            if (integrate->parsed()) {
              emit(report::integrate_power(integrate_o->request), integrate_o->format);
              return 0;
            }
            return 2;
          }};
}

}  // namespace ridge::cli
