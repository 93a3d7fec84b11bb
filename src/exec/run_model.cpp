#include "exec/run_model.h"

#include "exec/backends.h"
#include "exec/prepare.h"
#include "exec/test_data.h"
#include "util/error.h"

namespace ridge::exec {

ModelRun run_model(const RunRequest& request) {
  const auto& bindings = request.model.bindings;
  if (!request.exec.inputs_dir.empty() && (bindings.batch || !bindings.dims.empty() || !bindings.inputs.empty()))
    throw Error("--inputs fixes the input shapes: --batch, --dim and --input cannot change them");
  auto options = exec_options(request.exec);
  auto prepared = prepare(request.model, request.exec.inputs_dir);
  if (backend_row(options.device).checks_before_loading) {
    // Checked before the module (libtorch) is loaded.
    check_runnable(prepared.analysis.model);
    check_memory(prepared.analysis.cost, false);
  }
  auto& engine = load_engine(options.device);
  ModelRun run;
  run.output = engine.run(prepared.analysis.model, prepared.inputs, options);
  run.inputs = prepared.analysis.inputs;
  run.given_inputs = !prepared.inputs.empty();
  if (!request.save_outputs.empty()) write_tensor_dir(request.save_outputs, "output", run.output.outputs);
  return run;
}

}  // namespace ridge::exec
