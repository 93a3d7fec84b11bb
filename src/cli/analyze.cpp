#include "cli/command.h"
#include "cli/common.h"
#include "cli/output_options.h"
#include "cli/store_options.h"
#include "report/analysis_report.h"

namespace ridge::cli {

Command add_analyze_command(CLI::App& parent) {
  auto options = std::make_shared<report::AnalyzeCommand>();
  auto* app = parent.add_subcommand("analyze", "FLOPs, MACs, bytes, parameters and arithmetic intensity per node");
  app->footer(
      "Examples:\n"
      "  ridge analyze models/resnet50.onnx --batch 8\n"
      "  ridge analyze models/bert_base.onnx --dim seq=128 --training --optimizer adam --format json\n"
      "  ridge analyze models/resnet50.onnx --sweep batch=1,2,4,8 --dtype bf16");
  add_model_options(*app, options->model, true);
  app->add_option("--sweep", options->sweep, "one row per point: batch=1,2,4,8 or DIM=v1,v2,...");
  add_output_options(*app, options->format, options->store);
  app->add_flag("--summary", options->summary, "omit the per-node rows (op-type summary and totals only)");
  return {app, [options] {
            report::analyze_and_keep(*options);
            return 0;
          }};
}

}  // namespace ridge::cli
