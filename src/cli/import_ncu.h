#pragma once
// Importing Nsight Compute CSV exports: shared by `ridge import ncu` and `ridge ncu run` (which
// imports every CSV it has ncu write).
#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "cli/store_options.h"

namespace ridge::cli {

struct NcuImportOptions {
  std::vector<std::string> files;  // ncu CSV exports
  // One label per file (`ridge ncu run --sweep batch=8` labels its run "batch=8"); empty: the file name.
  std::vector<std::string> run_labels;
  std::vector<int64_t> batches;  // the batch of each file's run, where known (0: unknown)
  std::string device;            // a device of ridge's database: fractions of its ceilings
  std::string model;             // an ONNX model: kernels mapped to its layers and compared
  int64_t batch = 0;             // the batch of runs without one of their own (0: the model's)
  int64_t repetitions = 0;       // times each run ran the model (0: what the export shows)
  std::string format = "table";
  StoreOptions store;
};

// --device, --model and the other options of the import (not the files, not --format, not --store).
void add_ncu_import_options(CLI::App& app, NcuImportOptions& options);
// Reads, prints in `options.format` and keeps the result in the store. Returns the exit code.
int run_ncu_import(const NcuImportOptions& options);

}  // namespace ridge::cli
