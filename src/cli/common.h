#pragma once
// Options shared by the subcommands that analyze a model, and their conversion to a Request.
#include <CLI/CLI.hpp>

#include "analysis/request_builder.h"

namespace ridge::cli {

// The model's options and their conversion, in analysis/request_builder.h.
using analysis::check_sweep_conflicts;
using analysis::make_request;
using analysis::ModelOptions;
using analysis::parse_sweep;

// A whole number in [min, max], checked while parsing so "abc", "0" and "1e3" get one clear line.
CLI::Validator integer_in(int64_t min, int64_t max);

// `with_training`: --training/--optimizer as the cost model's; `for_execution`: only what binds
// the model (no cost dtypes, no --strict), for `run` and `bench`.
void add_model_options(CLI::App& command, ModelOptions& options, bool with_training, bool for_execution = false);

}  // namespace ridge::cli
