#pragma once
// --store / --no-store, and the options that select stored results.
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "cli/common.h"
#include "cli/output_options.h"
#include "report/command_output.h"
#include "store/store.h"

namespace ridge::cli {

// --store / --no-store, the invocation's state and keeping a result: report/command_output.h.
using report::invocation;
using report::keep_result;
using report::store_path;
using report::StoreOptions;

void add_store_options(CLI::App& app, StoreOptions& options);
// -f/--format, then --no-store and --store: what a command with a stored result prints and where it keeps it.
void add_output_options(CLI::App& app, std::string& format, StoreOptions& store);

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

}  // namespace ridge::cli
