#include <fmt/format.h>

#include <iostream>

#include "cli/command.h"
#include "cli/output_options.h"
#include "cli/store_options.h"
#include "report/result_import.h"
#include "report/results_report.h"

namespace ridge::cli {
namespace {

struct ResultsOptions {
  report::ResultsRequest request;
  ResultFilterOptions filter;
};

void print_line(const std::string& line) { fmt::print("{}\n", line); }

}  // namespace

Command add_results_command(CLI::App& parent) {
  auto o = std::make_shared<ResultsOptions>();
  auto* app = parent.add_subcommand("results", "list, show and export the results kept in the results store");
  add_result_filter_options(*app, o->filter);
  add_format_option(*app, o->request.format);
  app->add_flag("--show", o->request.show,
                "print the selected results' documents as their commands printed them (any -f)");
  app->add_option("--export", o->request.export_dir,
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
            if (import->parsed()) {
              report::import_into_store(*files, store_path(*import_filter), print_line);
              return 0;
            }
            o->request.store_path = store_path(o->filter);
            o->request.filter = result_filter(o->filter);
            report::print_results(o->request, std::cout);
            return 0;
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
