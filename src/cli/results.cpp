#include <fmt/format.h>

#include <iostream>

#include "cli/command.h"
#include "cli/common.h"
#include "cli/output_options.h"
#include "cli/store_options.h"
#include "report/document_codec.h"
#include "report/result_import.h"
#include "report/results_report.h"
#include "store/store.h"
#include "util/error.h"

namespace ridge::cli {
namespace {

struct ResultsOptions {
  std::string format = "table", export_dir;
  ResultFilterOptions filter;
  bool show = false;
};

int run_results(const ResultsOptions& o) {
  auto path = store_path(o.filter);
  store::Store store(path, true);
  auto filter = result_filter(o.filter);
  if (!o.export_dir.empty()) {
    auto records = store.query(filter);
    auto files = report::export_bench_csv(records, o.export_dir);
    if (files.empty()) throw Error("no stored bench result matches: nothing to export");
    for (const auto& f : files) fmt::print("wrote {}\n", f);
    return 0;
  }
  if (o.show) {
    // The stored documents themselves, as the commands printed them.
    auto records = store.query(filter);
    if (records.empty()) throw Error("no stored result matches");
    for (const auto& r : records) {
      if (r.document.is_null()) {
        fmt::print("result {}: {} failed: {}\n", r.id, r.command, r.error);
        continue;
      }
      if (o.format == "table" || o.format == "md")
        fmt::print("result {} ({}, {}):\n", r.id, r.command, r.environment.created_at);
      emit(report::decode_document(r.document), o.format);
    }
    return 0;
  }
  emit(report::results_document(store.query(filter, false), path), o.format);
  return 0;
}

// Why the results of a file are stored with the time of the import, when they are.
int run_import(const std::vector<std::string>& files, const ResultFilterOptions& o) {
  auto path = store_path(o);
  auto imported = report::import_files(files, path);
  int64_t total = 0;
  for (const auto& file : imported.files) {
    fmt::print("{}\n", report::import_line(file, path));
    total += file.added;
  }
  fmt::print("{}\n", report::holds_line(path, imported.held, total));
  return 0;
}

void print_line(const std::string& line) { fmt::print("{}\n", line); }

}  // namespace

Command add_results_command(CLI::App& parent) {
  auto o = std::make_shared<ResultsOptions>();
  auto* app = parent.add_subcommand("results", "list, show and export the results kept in the results store");
  add_result_filter_options(*app, o->filter);
  add_format_option(*app, o->format);
  app->add_flag("--show", o->show, "print the selected results' documents as their commands printed them (any -f)");
  app->add_option("--export", o->export_dir,
                  "write the selected bench results to DIR/overall.csv, layers.csv, metrics.csv and "
                  "benchmark_results.csv (replacing them)");
  auto files = std::make_shared<std::vector<std::string>>();
  auto import_filter = std::make_shared<ResultFilterOptions>();
  auto* import = app->add_subcommand(
      "import",
      "bring results written elsewhere into the store: `ridge bench -f json` files (a GPU machine's too) and "
      "`ridge predict`, `ridge import ncu`, `ridge import torch`, `ridge calibrate`, `ridge compare` and `ridge ert` "
      "-f json files");
  import->add_option("files", *files, "bench, predict, import, calibrate, compare or ert JSON files")
      ->required()
      ->check(CLI::ExistingFile);
  import->add_option("--store", import_filter->store,
                     "results store to import into (default: $RIDGE_STORE, else ./ridge-results.db)");
  import->footer(
      "Each bench run becomes one bench result with the environment the file records (GPU, CPU, libraries, ridge\n"
      "revision), not this machine's; a prediction file (a sweep included) becomes one predict result, an ncu import\n"
      "one result per run, a torch import, a calibration, a comparison or an ert measurement one result. A result\n"
      "is identified by its content: importing a file again adds nothing.\n"
      "Example:\n"
      "  ridge results import h200/ridge-bench-resnet50.json h200-predict.json --store study.db");
  app->footer(
      "Every analyze, predict, bench (one result per measured point), compare, ert and calibrate run is kept,\n"
      "with its environment (host, CPU/GPU, threads, library versions, ridge revision, command line, time).\n"
      "Examples:\n"
      "  ridge results --last 10\n"
      "  ridge results --command bench --model resnet50 --batch 8 -f csv\n"
      "  ridge results --id 12 --show -f json\n"
      "  ridge results --sweep my-study --export results/");
  return {app, [o, import, files, import_filter] {
            return import->parsed() ? run_import(*files, *import_filter) : run_results(*o);
          }};
}

Command add_store_command(CLI::App& parent) {
  auto inputs = std::make_shared<std::vector<std::string>>();
  auto output = std::make_shared<std::string>();
  auto* app = parent.add_subcommand("store", "maintain results stores: merge");
  app->require_subcommand(1);
  auto* merge = app->add_subcommand("merge", "copy the results of stores into one, each result once");
  merge->add_option("inputs", *inputs, "stores to merge from")->required()->check(CLI::ExistingFile);
  merge->add_option("-o,--output", *output, "the store to merge into (created when missing)")->required();
  merge->footer(
      "A result is identified by the uid drawn when it was saved: merging the same store twice, or stores\n"
      "that share results, adds each result once.\n"
      "Example:\n"
      "  ridge store merge shard-0.db shard-1.db -o ridge-results.db");
  return {app, [inputs, output] {
            report::merge_stores(*inputs, *output, print_line);
            return 0;
          }};
}

}  // namespace ridge::cli
