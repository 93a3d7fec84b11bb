#pragma once
// The ONNX project's backend node tests (Debian's libonnx-testdata) run on an executor: each test has a model, inputs
// and the outputs ONNX's reference implementation computed. A test whose ops the engine has must reproduce them
// (rtol 1e-3, atol 1e-5, as ONNX's backend test runner checks, with a looser atol for float noise); the CPU's tests
// (tests/exec/test_executor_backend.cpp) and the GPU's (tests/gpu) run the same cases the same way.
#include <functional>
#include <string>

#include "exec/engine.h"
#include "exec/options.h"

namespace ridge::test {

struct NodeTestTally {
  int pass = 0, skip = 0, fail = 0;
  std::string failures;  // a line per failed test: its name and why
};

// Every node test under `root` (libonnx-testdata's data/node) in name order, on `engine` with `options`. A run whose
// error `refused` accepts (an engine's documented refusal: the GPU's fp32-only kernels) counts as skipped.
NodeTestTally run_backend_node_tests(const std::string& root, exec::Engine& engine, const exec::ExecOptions& options,
                                     const std::function<bool(const std::string&)>& refused = {});

}  // namespace ridge::test
