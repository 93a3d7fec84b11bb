#include "profile/ncu_import.h"

#include <fmt/format.h>

#include <filesystem>
#include <set>

#include "analysis/run.h"
#include "hw/device_db.h"
#include "profile/export_fit.h"
#include "util/error.h"

namespace ridge::profile {
namespace {

AnalyticModel analyse(const std::string& path, int64_t batch) {
  analysis::Request request;
  request.model_path = path;
  if (batch > 0) request.bindings.batch = batch;
  auto analysis = analysis::run(request);
  AnalyticModel out;
  out.path = path;
  out.batch = analysis::bound_batch(analysis.model);
  for (const auto& node : analysis.cost.nodes)
    if (node.flops > 0 || node.bytes() > 0)  // the layers profile::model_layers lists
      out.layers.push_back(
          {node.name, node.op_type, node.family, static_cast<double>(node.flops), static_cast<double>(node.bytes())});
  out.flops = static_cast<double>(analysis.cost.totals.flops);
  out.bytes = static_cast<double>(analysis.cost.totals.bytes);
  return out;
}

std::vector<ModelLayer> layers_of(const AnalyticModel& model) {
  std::vector<ModelLayer> layers;
  for (const auto& l : model.layers) layers.push_back({l.name, l.op_type, l.family, l.flops});
  return layers;
}

NcuRun read_run(const NcuImportRequest& r, size_t i) {
  const auto& path = r.files[i];
  auto data = read_ncu_export(path);
  NcuRun run;
  run.path = path;
  run.label = i < r.run_labels.size() && !r.run_labels[i].empty() ? r.run_labels[i]
                                                                  : std::filesystem::path(path).stem().string();
  run.batch = i < r.batches.size() && r.batches[i] > 0 ? r.batches[i] : r.batch;
  run.layout = data.layout;
  run.messages = data.messages;
  run.skipped_rows = data.skipped_rows;
  run.first_skipped_line = data.first_skipped_line;
  for (const auto& launch : data.launches) run.kernels.push_back(kernel_figures(launch, path));
  return run;
}

}  // namespace

NcuImport import_ncu(const NcuImportRequest& r) {
  if (r.files.empty()) throw Error("no ncu CSV export given");
  NcuImport import;
  if (!r.device.empty()) {
    auto [id, mode] = hw::split_device_and_mode(r.device);
    auto device = hw::find_device(id);
    import.roofline = hw::roofline_for(device, hw::resolve_mode(device, mode));
  }
  for (size_t i = 0; i < r.files.size(); ++i) import.runs.push_back(read_run(r, i));
  if (!r.model.empty()) {
    std::set<int64_t> batches;
    for (const auto& run : import.runs) batches.insert(run.batch);
    for (auto batch : batches) import.model[batch] = analyse(r.model, batch);
  }
  for (auto& run : import.runs) {
    std::vector<ModelLayer> layers;
    if (!r.model.empty()) layers = layers_of(import.model.at(run.batch));
    run.layers = map_kernels_to_layers(run.kernels, layers);
    run.passes = passes_to_use(run.layers, r.repetitions, run.path);
    run.passes_from = r.repetitions > 0 ? "--repetitions" : run.layers.passes_from;
    if (r.model.empty() || !run.layers.misfit.empty()) continue;
    const auto& model = import.model.at(run.batch);
    if (auto why = batch_mismatch(work_ratio(run.kernels, run.layers, layers, run.passes), model.batch, r.model))
      throw Error(fmt::format("{}: {}", run.path, *why));
  }
  return import;
}

NcuImport ncu_run_alone(const NcuImport& import, size_t index) {
  NcuImport one;
  one.roofline = import.roofline;
  one.model = import.model;
  one.runs = {import.runs.at(index)};
  return one;
}

}  // namespace ridge::profile
