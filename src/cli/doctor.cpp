#include <fmt/format.h>

#include "cli/command.h"
#include "cli/output_options.h"
#include "doctor/doctor_report.h"
#include "doctor/feature.h"

namespace ridge::cli {

Command add_doctor_command(CLI::App& parent) {
  struct Options {
    std::string feature, store, format = "table";
  };
  auto o = std::make_shared<Options>();
  auto* app = parent.add_subcommand(
      "doctor", "check this machine: CPU, executor, CUDA stack, profilers, power counters, SLURM, store, devices");
  std::string features;
  for (const auto& f : doctor::features()) features += fmt::format("\n  {:<11} {}", f.name, f.description);
  app->add_option("--for", o->feature,
                  "mark the checks FEATURE needs (features below) and exit 1 when one of them is not ok")
      ->check(CLI::IsMember(doctor::feature_names()));
  app->add_option("--store", o->store,
                  "the results store to check (default: $RIDGE_STORE, else ridge-results.db in the working directory)");
  add_format_option(*app, o->format);
  app->footer(
      "Every check is a row: ok, missing (with what to install or do) or not applicable (Jetson tools on\n"
      "another machine, RAPL where the kernel exposes none). Libraries are loaded with dlopen and programs\n"
      "are found on PATH and asked --version. Without --for the exit code is 0; with it, 1 when a check the\n"
      "feature needs is not ok, with one line on stderr naming it and its fix. Features:" +
      features +
      "\nExamples:\n"
      "  ridge doctor\n"
      "  ridge doctor --for bench-cuda\n"
      "  ridge doctor --for power -f json");
  return {app, [o] { return doctor::run_doctor(o->feature, o->store, o->format); }};
}

}  // namespace ridge::cli
