#pragma once
// Importing Nsight Compute CSV exports: shared by `ridge import ncu`, `ridge ncu run` (which imports every CSV it has
// ncu write) and `ridge profile`.
#include <CLI/CLI.hpp>

#include "report/ncu_import_command.h"

namespace ridge::cli {

using NcuImportOptions = report::NcuImportCommand;

// --device, --model and the other options of the import (not the files, not --format, not --store).
void add_ncu_import_options(CLI::App& app, NcuImportOptions& options);

}  // namespace ridge::cli
