#pragma once
// --store / --no-store, and keeping a command's result in the results store.
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "cli/common.h"
#include "cli/output_options.h"
#include "report/document.h"
#include "report/result_codec.h"
#include "store/record.h"
#include "store/store.h"

namespace ridge::cli {

struct StoreOptions {
  std::string path;  // empty: $RIDGE_STORE, else ridge-results.db
  bool disabled = false;
};

// What the process is running: the command line every result records, and, while a sweep runs a
// cell, the cell its results belong to (and that the cell prints nothing).
struct Invocation {
  std::string command_line;
  store::Cell cell;
  bool quiet = false;
  std::string store_path;           // a sweep's store, for every cell it runs
  std::vector<int64_t> stored_ids;  // results this process saved, in order
};
Invocation& invocation();
// Records argv as one shell-quoted line.
void set_command_line(int argc, char** argv);

void add_store_options(CLI::App& app, StoreOptions& options);
// -f/--format, then --no-store and --store: what a command with a stored result prints and where it keeps it.
void add_output_options(CLI::App& app, std::string& format, StoreOptions& store);
// The store path these options select.
std::string store_path(const StoreOptions& options);
// The store at `path`, opened once per process and kept open.
store::Store& open_store(const std::string& path);

// The options that select stored results (`ridge results`, `ridge plot KIND`): --store, --id,
// --command, --model, --device, --batch, --mode, --precision, --status, --sweep, --stage, --since, --last.
struct ResultFilterOptions {
  std::string store;  // empty: $RIDGE_STORE, else ridge-results.db
  store::Filter filter;
  int64_t batch = 0;
};
// Registers them on `app`; returns the options registered (to tell whether any was given). A command with a model
// and devices of its own (`ridge report`) names the filters of those --of-model, --of-device, --of-batch, --of-mode
// and --of-precision (`prefix` "of-") and groups them under "stored results" in --help.
std::vector<CLI::Option*> add_result_filter_options(CLI::App& app, ResultFilterOptions& options,
                                                    const std::string& prefix = "");
// The filter they select (--batch applied), and the store they name.
store::Filter result_filter(const ResultFilterOptions& options);
std::string store_path(const ResultFilterOptions& options);

// The commands whose results the store keeps (what --command filters on).
inline const std::vector<std::string> kStoredCommands = {"analyze",   "predict", "bench",      "compare",     "ert",
                                                         "calibrate", "tune",    "import ncu", "import torch"};

// Saves `doc` with its parameters and the environment. A result that cannot be saved (an unwritable path, a damaged
// store) throws ridge::Error after the result was printed.
// `value`: the result itself, kept typed through its kind's codec (what readers of the store decode); its headline,
// environment and calibration come from it. `doc` is what the command printed, kept for `results --show`.
void keep_result(const StoreOptions& options, const report::Document& doc, store::Params params,
                 const report::TypedResult& value);

}  // namespace ridge::cli
