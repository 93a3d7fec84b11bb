#include "cli/store_options.h"

namespace ridge::cli {

void add_store_options(CLI::App& app, StoreOptions& options) {
  auto* no_store = app.add_flag("--no-store", options.disabled, "do not save this result in the results store");
  app.add_option("--store", options.path,
                 "results store to save this result in (default: $RIDGE_STORE, else ./ridge-results.db)")
      ->excludes(no_store);
}

void add_output_options(CLI::App& app, std::string& format, StoreOptions& store) {
  add_format_option(app, format);
  add_store_options(app, store);
}

std::vector<CLI::Option*> add_result_filter_options(CLI::App& app, ResultFilterOptions& o, const std::string& prefix) {
  auto& f = o.filter;
  auto named = [&](const char* name) { return "--" + prefix + name; };
  std::vector<CLI::Option*> options{
      app.add_option("--store", o.store, "results store (default: $RIDGE_STORE, else ./ridge-results.db)"),
      app.add_option("--id", f.ids, "only these result ids (repeatable)"),
      app.add_option("--command", f.command, "only results of this command (analyze, predict, bench, ...)")
          ->check(CLI::IsMember(kStoredCommands)),
      app.add_option(named("model"), f.model,
                     prefix.empty() ? "only this model (a path, or part of one: resnet50)"
                                    : "only this model (a path or part of one; all: every model)"),
      app.add_option(named("device"), f.device, "only this device (predict, compare: the --device given)"),
      app.add_option(named("batch"), o.batch, "only this batch size")->check(integer_in(1, int64_t{1} << 40)),
      app.add_option(named("mode"), f.mode, "only this executor mode (eager, optimized)"),
      app.add_option(named("precision"), f.precision, "only this precision (fp32, bf16, ...)"),
      app.add_option("--status", f.status, "only ok or failed results")->check(CLI::IsMember({"ok", "failed"})),
      app.add_option("--sweep", f.sweep, "only the cells of this sweep (its name)"),
      app.add_option("--stage", f.stage, "only cells run by this stage (sanity, quick, full)"),
      app.add_option("--since", f.since, "only results from this UTC time on (2026-11-24 or 2026-11-24T10:00:00Z)"),
      app.add_option("--last", f.last, "only the N newest")->check(integer_in(1, int64_t{1} << 40)),
  };
  if (!prefix.empty())
    for (auto* option : options) option->group("stored results");
  return options;
}

store::Filter result_filter(const ResultFilterOptions& o) {
  auto filter = o.filter;
  if (o.batch > 0) filter.batch = o.batch;
  return filter;
}

std::string store_path(const ResultFilterOptions& o) { return store_path(StoreOptions{o.store, false}); }

}  // namespace ridge::cli
