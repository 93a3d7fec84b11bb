#pragma once
// `ridge run` behind one entry point: the model prepared (inputs read and bound, shapes inferred, and on the CPU
// every op and the memory checked before libtorch is loaded), run once, and its outputs saved where asked.
#include <string>
#include <utility>
#include <vector>

#include "analysis/run.h"
#include "exec/engine.h"
#include "exec/exec_request.h"

namespace ridge::exec {

struct RunRequest {
  analysis::Request model;
  ExecRequest exec;
  std::string save_outputs;  // a directory for output_N.pb (ONNX test-data layout); empty: not written
};

struct ModelRun {
  std::vector<std::pair<std::string, std::string>> inputs;  // name, bound shape
  bool given_inputs = false;                                // read from exec.inputs_dir; else generated (seeded)
  RunOutput output;
};

// Throws ridge::Error (bad inputs, an op the executor lacks, a run that does not fit in memory), and for given inputs
// (--inputs) with bindings that would change their shapes, before anything is read.
ModelRun run_model(const RunRequest& request);

}  // namespace ridge::exec
