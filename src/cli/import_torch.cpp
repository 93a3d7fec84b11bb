// `ridge import torch FILE...`: PyTorch profiler traces (Chrome-trace JSON) read into per-op,
// per-kernel and per-layer measured times.
#include <memory>

#include "cli/import_commands.h"
#include "cli/output_options.h"
#include "cli/store_options.h"
#include "profile/torch_import.h"
#include "report/torch_import_command.h"

namespace ridge::cli {
namespace {

struct TorchImportOptions {
  profile::TorchImportRequest request;
  std::string format = "table";
  StoreOptions store;
};

}  // namespace

Command add_import_torch_command(CLI::App& import) {
  auto options = std::make_shared<TorchImportOptions>();
  auto* app = import.add_subcommand(
      "torch",
      "PyTorch profiler traces (Chrome-trace JSON from torch.profiler's export_chrome_trace): measured time per op, "
      "per GPU kernel and per layer, per pass of the model (ProfilerStep, else a repeated op sequence)");
  app->add_option("files", options->request.files,
                  "trace files (.json), Kineto ({\"traceEvents\": [...]}) or legacy autograd-profiler ([...]) layout")
      ->required();
  app->add_option("--model,-m", options->request.model,
                  "the ONNX export of the profiled model: layers become its nodes (by range names matching node "
                  "names or module paths, else by op type and order where the trace's op counts fit the model); "
                  "without it, layers are the trace's record_function / nn.Module ranges");
  add_output_options(*app, options->format, options->store);
  app->footer(
      "Times are the trace's own (microseconds). Per-layer times are means per pass: per ProfilerStep; without "
      "steps, the passes are the copies of a repeated top-level op sequence, or what the model's op counts give "
      "(--model). `-f csv` prints the layers table, which `ridge calibrate MODEL --measured FILE.csv` reads.");
  return {app, [options] {
            report::import_torch_traces(options->request, options->format, options->store);
            return 0;
          }};
}

}  // namespace ridge::cli
