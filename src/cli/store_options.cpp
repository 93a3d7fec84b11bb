#include "cli/store_options.h"

#include <fmt/format.h>
#include <unistd.h>

#include <iostream>
#include <map>
#include <memory>

#include "report/result_record.h"
#include "store/environment.h"
#include "store/store.h"
#include "util/error.h"
#include "util/program.h"

namespace ridge::cli {
store::Store& open_store(const std::string& path) {
  // One connection per store for the whole process: a sweep saves every cell through it, so opening
  // the file and checkpointing its WAL when the connection closes are paid once, not per result.
  static std::map<std::string, std::unique_ptr<store::Store>> open;
  auto& slot = open[path];
  if (!slot) slot = std::make_unique<store::Store>(path);
  return *slot;
}

Invocation& invocation() {
  static Invocation current;
  return current;
}

void set_command_line(int argc, char** argv) {
  std::string line;
  for (int i = 0; i < argc; ++i) line += (i ? " " : "") + shell_quote(argv[i]);
  invocation().command_line = line;
}

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

std::string store_path(const StoreOptions& options) {
  if (!options.path.empty()) return options.path;
  if (!invocation().store_path.empty()) return invocation().store_path;
  return store::default_store_path();
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

void keep_result(const StoreOptions& options, const report::Document& doc, store::Params params,
                 const report::TypedResult& value) {
  if (options.disabled) return;
  auto path = store_path(options);
  auto record = report::result_record(doc, std::move(params), value,
                                      store::collect_environment(invocation().command_line), invocation().cell);
  try {
    open_store(path).save(record);
  } catch (const Error& e) {
    throw Error(fmt::format("the result above was not saved: {} (--no-store skips the store)", e.what()));
  }
  invocation().stored_ids.push_back(record.id);
  if (!invocation().quiet && ::isatty(STDERR_FILENO))
    fmt::print(stderr, "ridge: saved as result {} in {}\n", record.id, path);
}

}  // namespace ridge::cli
