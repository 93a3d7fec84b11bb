// `ridge import ncu FILE...`: Nsight Compute CSV exports read into kernels with their roofline
// figures, mapped to a model's layers and compared with ridge's analysis, printed and kept.
#include "cli/import_ncu.h"

#include <fmt/format.h>

#include <filesystem>
#include <set>

#include "analysis/run.h"
#include "cli/import_commands.h"
#include "cli/output_options.h"
#include "hw/device_db.h"
#include "profile/export_fit.h"
#include "profile/layer_map.h"
#include "profile/ncu_export.h"
#include "profile/ncu_kernel.h"
#include "report/ncu_import_codec.h"
#include "report/ncu_report.h"
#include "report/result_codec.h"
#include "util/error.h"

namespace ridge::cli {
namespace {

report::AnalyticModel analyse(const NcuImportOptions& o, int64_t batch) {
  ModelOptions model;
  model.model = o.model;
  model.batch = batch;
  auto analysis = analysis::run(make_request(model));
  report::AnalyticModel out;
  out.path = o.model;
  out.batch = analysis::bound_batch(analysis.model);
  for (const auto& node : analysis.cost.nodes)
    if (node.flops > 0 || node.bytes() > 0)  // the layers profile::model_layers lists
      out.layers.push_back(
          {node.name, node.op_type, node.family, static_cast<double>(node.flops), static_cast<double>(node.bytes())});
  out.flops = static_cast<double>(analysis.cost.totals.flops);
  out.bytes = static_cast<double>(analysis.cost.totals.bytes);
  return out;
}

std::vector<profile::ModelLayer> layers_of(const report::AnalyticModel& model) {
  std::vector<profile::ModelLayer> layers;
  for (const auto& l : model.layers) layers.push_back({l.name, l.op_type, l.family, l.flops});
  return layers;
}

}  // namespace

void add_ncu_import_options(CLI::App& app, NcuImportOptions& options) {
  app.add_option("-d,--device", options.device,
                 "a device of ridge's database (ID[:MODE] or a YAML file): each kernel's fraction of its ceilings");
  app.add_option("-m,--model", options.model,
                 "the ONNX model the program ran: kernels mapped to its layers (by NVTX range, else by op class "
                 "and order, cuDNN's bias add with its convolution) and compared with ridge's analytical FLOPs and "
                 "bytes, per pass; an export of another model is named, one of another batch refused");
  app.add_option("--batch", options.batch,
                 "the batch the program ran the model at (default: the model's own, or the run's `batch` sweep value)")
      ->check(integer_in(1, 1 << 20));
  app.add_option("--repetitions", options.repetitions,
                 "times the program ran the model under ncu: measured layer figures are divided by it (default: the "
                 "passes the export shows by its NVTX ranges or kernel counts, else 1; a count it contradicts is "
                 "refused)")
      ->check(integer_in(1, 1 << 20));
}

int run_ncu_import(const NcuImportOptions& o) {
  if (o.files.empty()) throw Error("no ncu CSV export given");
  report::NcuImport import;
  if (!o.device.empty()) {
    auto [id, mode] = hw::split_device_and_mode(o.device);
    auto device = hw::find_device(id);
    import.roofline = hw::roofline_for(device, hw::resolve_mode(device, mode));
  }
  for (size_t i = 0; i < o.files.size(); ++i) {
    const auto& path = o.files[i];
    auto data = profile::read_ncu_export(path);
    report::NcuRun run;
    run.path = path;
    run.label = i < o.run_labels.size() && !o.run_labels[i].empty() ? o.run_labels[i]
                                                                    : std::filesystem::path(path).stem().string();
    run.batch = i < o.batches.size() && o.batches[i] > 0 ? o.batches[i] : o.batch;
    run.layout = data.layout;
    run.messages = data.messages;
    run.skipped_rows = data.skipped_rows;
    run.first_skipped_line = data.first_skipped_line;
    for (const auto& launch : data.launches) run.kernels.push_back(profile::kernel_figures(launch, path));
    import.runs.push_back(std::move(run));
  }
  if (!o.model.empty()) {
    std::set<int64_t> batches;
    for (const auto& run : import.runs) batches.insert(run.batch);
    for (auto batch : batches) import.model[batch] = analyse(o, batch);
  }
  for (auto& run : import.runs) {
    std::vector<profile::ModelLayer> layers;
    if (!o.model.empty()) layers = layers_of(import.model.at(run.batch));
    run.layers = profile::map_kernels_to_layers(run.kernels, layers);
    run.passes = profile::passes_to_use(run.layers, o.repetitions, run.path);
    run.passes_from = o.repetitions > 0 ? "--repetitions" : run.layers.passes_from;
    if (o.model.empty() || !run.layers.misfit.empty()) continue;
    const auto& model = import.model.at(run.batch);
    if (auto why = profile::batch_mismatch(profile::work_ratio(run.kernels, run.layers, layers, run.passes),
                                           model.batch, o.model))
      throw Error(fmt::format("{}: {}", run.path, *why));
  }
  emit(report::ncu_import_document(import), o.format, [&] { return report::encode_ncu_import(import); });
  // One stored result per run, so a sweep's runs are found by their batch.
  for (const auto& run : import.runs) {
    report::NcuImport one;  // this run alone, with the import's device and model
    one.roofline = import.roofline;
    one.model = import.model;
    one.runs = {run};
    store::Params params;
    params.model = o.model;
    params.device = o.device;
    if (run.batch > 0)
      params.batch = run.batch;
    else if (!o.model.empty())
      params.batch = import.model.at(run.batch).batch;
    report::TypedResult value{.kind = "import ncu", .ncu = one};
    keep_result(o.store, report::ncu_import_document(one), params, value);
  }
  return 0;
}

Command add_import_ncu_command(CLI::App& import) {
  auto options = std::make_shared<NcuImportOptions>();
  auto* app = import.add_subcommand(
      "ncu",
      "Nsight Compute CSV exports (details page, raw page, per-kernel summary): each kernel's time, FLOPs per "
      "precision, bytes and intensity at L1, L2 and DRAM");
  app->add_option("files", options->files, "ncu CSV exports (`ncu --csv ... > FILE`, or `ridge ncu run`)")
      ->required()
      ->check(CLI::ExistingFile);
  add_ncu_import_options(*app, *options);
  add_format_option(*app, options->format);
  add_store_options(*app, options->store);
  return {app, [options] { return run_ncu_import(*options); }};
}

}  // namespace ridge::cli
