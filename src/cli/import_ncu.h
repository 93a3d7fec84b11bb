#pragma once
// Importing Nsight Compute CSV exports: shared by `ridge import ncu` and `ridge ncu run` (which
// imports every CSV it has ncu write).
#include <CLI/CLI.hpp>
#include <string>

#include "cli/store_options.h"
#include "profile/ncu_import.h"

namespace ridge::cli {

struct NcuImportOptions {
  profile::NcuImportRequest request;
  std::string format = "table";
  StoreOptions store;
};

// --device, --model and the other options of the import (not the files, not --format, not --store).
void add_ncu_import_options(CLI::App& app, NcuImportOptions& options);
// Imports, prints in `options.format` and keeps each run in the store. Returns the exit code.
int run_ncu_import(const NcuImportOptions& options);

}  // namespace ridge::cli
