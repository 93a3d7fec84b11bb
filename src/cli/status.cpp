#include "sweep/status.h"

#include "cli/command.h"
#include "cli/output_options.h"
#include "cli/store_options.h"
#include "report/status_report.h"

namespace ridge::cli {
namespace {

struct StatusOptions {
  std::string file, store, slurm_dir, stage = "full", format = "table";
};

int run_status(const StatusOptions& o) {
  auto path = store_path(StoreOptions{o.store, false});
  if (o.file.empty())
    emit(report::stored_sweeps_document(sweep::sweeps_in_store(path), path), o.format);
  else
    emit(report::sweep_status_document(sweep::sweep_status(o.file, path, o.slurm_dir, o.stage), o.stage), o.format);
  return 0;
}

}  // namespace

Command add_status_command(CLI::App& parent) {
  auto o = std::make_shared<StatusOptions>();
  auto* app = parent.add_subcommand("status", "a sweep's cells done / running / failed / pending, per stage and shard");
  app->add_option("file", o->file, "the sweep file (without one: the sweeps in the store and their counts)");
  app->add_option("--store", o->store, "results store (default: $RIDGE_STORE, else ./ridge-results.db)");
  app->add_option("--slurm-dir", o->slurm_dir, "the sweep's SLURM directory, when not the default");
  app->add_option("--stage", o->stage, "the stage whose counts JSON reports at the top level (default full)")
      ->check(CLI::IsMember({"sanity", "quick", "full"}));
  add_format_option(*app, o->format);
  app->footer(
      "Counts come from the store and the shard stores not merged yet; running array tasks from squeue, and\n"
      "the state of finished ones from sacct, when they are on PATH.\n"
      "Examples:\n"
      "  ridge status\n"
      "  ridge status study.yaml -f json");
  return {app, [o] { return run_status(*o); }};
}

}  // namespace ridge::cli
