#include <fmt/format.h>

#include <iostream>

#include "cli/command.h"
#include "cli/common.h"
#include "cli/output_options.h"
#include "cli/store_options.h"
#include "report/analysis_report.h"
#include "report/result_codec.h"
#include "report/result_record.h"
#include "util/error.h"

namespace ridge::cli {
namespace {

struct AnalyzeOptions {
  ModelOptions model;
  StoreOptions store;
  std::string format = "table";
  std::string sweep;
  bool summary = false;
};

int run_analyze(const AnalyzeOptions& o) {
  auto request = make_request(o.model);
  if (o.sweep.empty()) {
    auto result = analysis::run(request);
    auto analyzed = analysis::make_analysis(request, result, !o.summary);
    auto doc = report::analysis_document(analyzed);
    emit(doc, o.format, [&] { return analysis::encode_analysis(analyzed); });
    report::TypedResult value{.kind = "analyze", .analyses = {analyzed}};
    keep_result(o.store, doc, report::model_params(o.model, analysis::bound_batch(result.model)), value);
    return 0;
  }
  if (o.summary) throw Error("--summary applies to one analysis; a sweep prints one row of totals per point already");
  auto sweep = report::analyze_sweep(request, o.sweep);
  auto doc = report::analysis_sweep_document(request.model_path, sweep.key, sweep.analyses);
  emit(doc, o.format, [&] { return analysis::encode_analysis_sweep(request.model_path, sweep.key, sweep.analyses); });
  report::TypedResult value{.kind = "analyze", .analyses = std::move(sweep.analyses), .sweep = sweep.key};
  keep_result(o.store, doc, report::model_params(o.model), value);
  return 0;
}

}  // namespace

Command add_analyze_command(CLI::App& parent) {
  auto options = std::make_shared<AnalyzeOptions>();
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
  return {app, [options] { return run_analyze(*options); }};
}

}  // namespace ridge::cli
