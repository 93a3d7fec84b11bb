#include "cli/command.h"
#include "cli/common.h"
#include "cli/exec_options.h"
#include "cli/output_options.h"
#include "exec/run_model.h"
#include "report/run_report.h"

namespace ridge::cli {
namespace {

struct RunOptions {
  ModelOptions model;
  exec::RunRequest request;
  std::string format = "table";
};

int run_model(RunOptions& o) {
  o.request.model = make_request(o.model);
  emit(report::run_document(o.request, exec::run_model(o.request)), o.format);
  return 0;
}

}  // namespace

Command add_run_command(CLI::App& parent) {
  auto o = std::make_shared<RunOptions>();
  auto* app = parent.add_subcommand(
      "run", "run a model once on the executor (ATen on the CPU, or the GPU) and show or save its outputs");
  add_model_options(*app, o->model, false, true);
  add_exec_options(*app, o->request.exec, exec::mode_names(), exec::all_conv_algo_names());
  app->add_option("--save-outputs", o->request.save_outputs,
                  "write the outputs as output_0.pb, output_1.pb, ... (TensorProto, ONNX test-data layout) here");
  add_format_option(*app, o->format);
  app->footer(
      "Examples:\n"
      "  ridge run models/resnet50.onnx --batch 2\n"
      "  ridge run model.onnx --inputs test_data_set_0 --save-outputs out/\n"
      "Models without weight values (ridge's bundled models) run with random weights, and say so.");
  return {app, [o] { return run_model(*o); }};
}

}  // namespace ridge::cli
