#pragma once
// An analysis::Request from a model's options as the user typed them (`--dim seq=128`, `--dtype fp16`), and the
// `--sweep KEY=v1,v2,...` of the commands that analyse a model at several points. Every message names the option.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "analysis/run.h"

namespace ridge::analysis {

struct ModelOptions {
  std::string model;
  int64_t batch = 0;                // 0: not given
  std::vector<std::string> dims;    // NAME=V
  std::vector<std::string> inputs;  // NAME=1x3x224x224
  std::string dtype, weight_dtype;  // empty: the model's
  bool training = false;
  std::string optimizer = "sgd";
  bool strict = false;
};

// Validates and converts; throws ridge::Error with a one-line message naming the option.
Request make_request(const ModelOptions& options);
// --sweep KEY=v1,v2,...: the key ("batch" or a named dim) and positive values; ridge::Error otherwise.
std::pair<std::string, std::vector<int64_t>> parse_sweep(const std::string& text);
// A sweep over `key` must not also be fixed by --batch / --dim / --input: one value would be dropped.
void check_sweep_conflicts(const Request& request, const std::string& key);

}  // namespace ridge::analysis
