#pragma once
// Options shared by the subcommands that analyze a model, and their conversion to a Request.
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "analysis/run.h"

namespace ridge::cli {

struct ModelOptions {
  std::string model;
  int64_t batch = 0;
  std::vector<std::string> dims;    // NAME=V
  std::vector<std::string> inputs;  // NAME=1x3x224x224
  std::string dtype, weight_dtype;
  bool training = false;
  std::string optimizer = "sgd";
  bool strict = false;
};

// A whole number in [min, max], checked while parsing so "abc", "0" and "1e3" get one clear line.
CLI::Validator integer_in(int64_t min, int64_t max);

// `with_training`: --training/--optimizer as the cost model's; `for_execution`: only what binds
// the model (no cost dtypes, no --strict), for `run` and `bench`.
void add_model_options(CLI::App& command, ModelOptions& options, bool with_training, bool for_execution = false);
// --sweep KEY=v1,v2,...: the key ("batch" or a named dim) and positive values; ridge::Error otherwise.
std::pair<std::string, std::vector<int64_t>> parse_sweep(const std::string& text);
// A sweep over `key` must not also be fixed by --batch / --dim / --input: one value would be dropped.
void check_sweep_conflicts(const analysis::Request& request, const std::string& key);
// Validates and converts; throws ridge::Error with a one-line message.
analysis::Request make_request(const ModelOptions& options);

}  // namespace ridge::cli
