#include "report/torch_trace_report.h"

#include <fmt/format.h>

#include "report/format.h"

namespace ridge::report {
namespace {

Column seconds(std::string key, std::string title, unsigned audience = kEveryone) {
  return {.key = std::move(key), .title = std::move(title), .style = Style::kDuration, .audience = audience};
}

Value optional(const std::optional<double>& v) { return v ? Value{*v} : Value{}; }
Value text_or_none(const std::string& s) { return s.empty() ? Value{} : Value{s}; }

}  // namespace

Document torch_trace_document(const std::vector<TorchImport>& imports, const std::string& model_path) {
  Document doc;
  doc.command = "import torch";
  doc.csv_table = "layers";
  std::vector<std::string> files;
  for (const auto& i : imports) files.push_back(i.trace.source);
  doc.subject = files.size() == 1 ? files.front() : fmt::format("{} traces", files.size());
  add_ridge_version(doc);
  doc.field("traces", "traces", fmt::format("{}", fmt::join(files, ", ")), files, kJson);
  if (!model_path.empty())
    doc.field("model", "layers of", model_path + " (its nodes)", model_path);
  else
    doc.field("model", "layers", "the trace's annotations (record_function, nn.Module); --model maps to ONNX nodes",
              nullptr, kHuman);
  bool several = imports.size() > 1;
  unsigned trace_audience = several ? kEveryone : kMachine;
  bool any_gpu = false;
  for (const auto& i : imports) any_gpu = any_gpu || i.summary.has_gpu;

  auto& traces = doc.table("traces", "");
  traces.column({.key = "trace", .left_aligned = true})
      .column({.key = "layout"})
      .column({.key = "iterations", .title = "steps"})
      .column({.key = "ops", .title = "ranges"})
      .column({.key = "kernels"})
      .column({.key = "skipped_events", .title = "skipped"})
      .column(seconds("cpu_time_s", "CPU time"))
      .column(seconds("kernel_time_s", "GPU time"))
      .column({.key = "layers"})
      .column({.key = "mapped_by", .audience = kJson});
  for (const auto& i : imports) {
    const auto& m = i.mapping;
    Table by;
    by.key = "mapped_by";
    by.layout = Table::Layout::kRecord;
    by.column({.key = "annotation"})
        .column({.key = "node_name"})
        .column({.key = "module_path"})
        .column({.key = "op_order"});
    by.add({int64_t{m.by_annotation}, int64_t{m.by_node_name}, int64_t{m.by_module_path}, int64_t{m.by_op_order}});
    traces.add({i.trace.source, i.trace.layout, i.summary.iterations, static_cast<int64_t>(i.trace.ops.size()),
                static_cast<int64_t>(i.trace.kernels.size()), i.trace.skipped_events, i.summary.cpu_s,
                i.summary.has_gpu ? Value{i.summary.kernel_s} : Value{}, static_cast<int64_t>(i.summary.layers.size()),
                Value{std::shared_ptr<const Table>(std::make_shared<Table>(std::move(by)))}});
  }

  auto& steps = doc.table("steps", "steps (ProfilerStep#N):");
  steps.column({.key = "trace", .audience = trace_audience, .left_aligned = true})
      .column({.key = "step"})
      .column(seconds("time_s", "wall"))
      .column(seconds("cpu_time_s", "CPU ranges"))
      .column(seconds("kernel_time_s", "GPU kernels", any_gpu ? kEveryone : kMachine));
  for (const auto& i : imports)
    for (const auto& s : i.summary.steps)
      steps.add({i.trace.source, s.number, s.duration_s, s.cpu_op_s, optional(s.kernel_s)});
  if (steps.rows.empty()) steps.audience = kJson;

  auto& layers = doc.table("layers", "");
  layers.column({.key = "trace", .audience = several ? (kHuman | kJson) : kJson, .left_aligned = true})
      .column({.key = "layer", .left_aligned = true})
      .column(seconds("time_s", "time/step"))
      .column(seconds("cpu_time_s", "CPU/step"))
      .column(seconds("gpu_time_s", "GPU/step", any_gpu ? kEveryone : kMachine))
      .column({.key = "ops", .title = "ranges"})
      .column({.key = "kernels", .audience = any_gpu ? kEveryone : kMachine})
      .column({.key = "steps", .audience = kJson});
  std::vector<std::string> zero;
  for (const auto& i : imports)
    for (const auto& l : i.summary.layers) {
      // The time a layer is measured by: its kernels' on a GPU trace, its CPU ranges' otherwise.
      double time_s = l.gpu_s ? *l.gpu_s : l.cpu_s;
      if (!(time_s > 0)) {
        zero.push_back(l.layer);
        continue;
      }
      layers.add({i.trace.source, l.layer, time_s, l.cpu_s, optional(l.gpu_s), l.ops, l.kernels, i.summary.iterations});
    }
  int64_t iterations = imports.empty() ? 1 : imports.front().summary.iterations;
  layers.title = fmt::format("per layer (mean of {} step{}; time: {}):", iterations, iterations == 1 ? "" : "s",
                             any_gpu ? "GPU kernels" : "CPU ranges");
  if (!zero.empty())
    doc.notes.push_back(fmt::format("layers without measurable time (0 at the trace's resolution), not listed: {}",
                                    fmt::join(zero, ", ")));

  auto& ops = doc.table("ops", "ops (all calls):");
  ops.column({.key = "trace", .audience = trace_audience, .left_aligned = true})
      .column({.key = "name", .title = "op", .max_width = 48, .left_aligned = true})
      .column({.key = "kind"})
      .column({.key = "device", .audience = kMachine})
      .column({.key = "layer", .max_width = 32, .left_aligned = true})
      .column({.key = "calls"})
      .column(seconds("self_time_s", "self"))
      .column(seconds("total_time_s", "total"))
      .column(seconds("mean_call_s", "per call"))
      .column(seconds("cuda_time_s", "GPU", any_gpu ? kEveryone : kMachine));
  for (const auto& i : imports)
    for (const auto& o : i.summary.ops)
      ops.add({i.trace.source, o.name, o.kind, std::string("cpu"), text_or_none(o.layer), o.calls, o.self_s, o.total_s,
               o.total_s / static_cast<double>(o.calls), optional(o.cuda_s)});

  auto& kernels = doc.table("kernels", "GPU kernels (all calls):");
  kernels.column({.key = "trace", .audience = trace_audience, .left_aligned = true})
      .column({.key = "name", .title = "kernel", .max_width = 48, .left_aligned = true})
      .column({.key = "category", .audience = kMachine})
      .column({.key = "device"})
      .column({.key = "op", .max_width = 32, .left_aligned = true})
      .column({.key = "layer", .max_width = 32, .left_aligned = true})
      .column({.key = "calls"})
      .column(seconds("time_s", "per call"))
      .column(seconds("total_time_s", "total"));
  for (const auto& i : imports)
    for (const auto& k : i.summary.kernels)
      kernels.add({i.trace.source, k.name, k.category, k.device, text_or_none(k.op), text_or_none(k.layer), k.calls,
                   k.total_s / static_cast<double>(k.calls), k.total_s});
  if (kernels.rows.empty()) kernels.audience = kJson;

  auto& unmapped = doc.table("unmapped", "not mapped to a layer (time in all steps):");
  unmapped.column({.key = "trace", .audience = trace_audience, .left_aligned = true})
      .column({.key = "what"})
      .column({.key = "name", .max_width = 48, .left_aligned = true})
      .column({.key = "calls"})
      .column(seconds("time_s", "time"));
  for (const auto& i : imports)
    for (const auto& u : i.summary.unmapped) unmapped.add({i.trace.source, u.what, u.name, u.calls, u.time_s});
  if (unmapped.rows.empty()) unmapped.audience = kJson;

  for (const auto& i : imports) {
    const auto& name = i.trace.source;
    for (const auto& a : i.mapping.ambiguous)
      doc.notes.push_back(fmt::format("{}: range '{}' names no node of the model (or several): not a layer", name, a));
    if (i.summary.outside_steps > 0)
      doc.notes.push_back(
          fmt::format("{}: {} events outside every ProfilerStep are in the ops and kernels tables, "
                      "not in per-step figures",
                      name, i.summary.outside_steps));
    int64_t unlinked = 0;
    for (const auto& k : i.trace.kernels) unlinked += k.op < 0 ? 1 : 0;
    if (unlinked > 0)
      doc.notes.push_back(
          fmt::format("{}: {} GPU activities are linked to no op (no matching correlation or External "
                      "id)",
                      name, unlinked));
  }
  if (any_gpu)
    doc.notes.push_back("GPU times are sums of kernel durations; kernels on several streams may overlap in wall time");
  doc.notes.push_back(
      "self time: a range's time less its nested ranges'; total: with them (nested calls of the same "
      "op counted once); layer times are self times, so no time is counted twice");
  return doc;
}

}  // namespace ridge::report
