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

using From = profile::TorchPasses::From;

// How the passes were found, for people.
std::string from_text(From from) {
  switch (from) {
    case From::kSteps:
      return "steps";
    case From::kOpSequence:
      return "op sequence";
    case From::kModel:
      return "model";
    case From::kNone:
      break;
  }
  return "none";
}

// The model fit as a JSON record: verdict, passes, reason, families compared.
Value fit_record(const std::optional<profile::ModelFit>& fit) {
  if (!fit) return {};
  auto families = std::make_shared<Table>();
  families->key = "families";
  families->column({.key = "family"}).column({.key = "ops"}).column({.key = "nodes"}).column({.key = "nodes_max"});
  for (const auto& f : fit->families) families->add({f.family, f.ops, f.nodes, f.nodes_max});
  auto record = std::make_shared<Table>();
  record->key = "model_fit";
  record->layout = Table::Layout::kRecord;
  record->column({.key = "verdict"}).column({.key = "passes"}).column({.key = "reason"}).column({.key = "families"});
  record->add({std::string(profile::verdict_name(fit->verdict)), fit->fits() ? Value{fit->passes} : Value{},
               text_or_none(fit->reason), Value{std::shared_ptr<const Table>(families)}});
  return Value{std::shared_ptr<const Table>(record)};
}

// What a reader needs to trust the pass count: how it was found, and what would make it wrong.
std::string passes_note(const profile::TorchImport& i) {
  const auto& p = i.trace.passes;
  const auto& fit = i.mapping.fit;
  const auto& name = i.trace.source;
  switch (p.from) {
    case From::kSteps:
      if (fit && fit->fits() && fit->passes != p.count)
        return fmt::format(
            "{}: the model's op counts give {} passes in the {} ProfilerSteps: per-step figures are "
            "not per pass of the model",
            name, fit->passes, p.count);
      return "";
    case From::kOpSequence:
      if (fit && fit->fits())
        return fmt::format(
            "{}: no ProfilerStep ranges: {} passes, found by the top-level op sequence repeating {} "
            "times, as the model's op counts give",
            name, p.count, p.sequence_repeats);
      return fmt::format(
          "{}: no ProfilerStep ranges: {} passes, found by the top-level op sequence repeating {} times "
          "(one pass of a model made of one repeated block looks the same{})",
          name, p.count, p.sequence_repeats, fit ? "" : ": --model checks the count against the model's op counts");
    case From::kModel:
      if (p.count == 1)
        return fmt::format("{}: no ProfilerStep ranges: 1 pass, by the model's op counts{}", name,
                           p.sequence_repeats > 1
                               ? fmt::format(" (the top-level op sequence repeats {} times, as the model's blocks do)",
                                             p.sequence_repeats)
                               : "");
      if (!p.windows.empty())
        return fmt::format(
            "{}: no ProfilerStep ranges: {} passes, by the model's op counts (the top-level op "
            "sequence repeats {} times, as the model's blocks do)",
            name, p.count, p.sequence_repeats);
      return fmt::format(
          "{}: no ProfilerStep ranges: {} passes, by the model's op counts; the top-level op "
          "sequence is not {} copies of one pass, so per-pass figures divide whole-trace ones",
          name, p.count, p.count);
    case From::kNone:
      break;
  }
  if (!i.trace.steps.empty()) return "";
  return fmt::format("{}: no ProfilerStep ranges and no repeated op sequence: the whole trace is one pass", name);
}

std::string fit_note(const profile::TorchImport& i, const std::string& model_path) {
  const auto& fit = i.mapping.fit;
  if (!fit) return "";
  const auto& name = i.trace.source;
  switch (fit->verdict) {
    case profile::ModelFit::Verdict::kMismatch:
      return fmt::format("{}: the trace does not fit {}: {}: a trace of another model? nothing mapped by op order",
                         name, model_path, fit->reason);
    case profile::ModelFit::Verdict::kFits:
      return fmt::format("{}: the trace fits {} {} time{}: {}", name, model_path, fit->passes,
                         fit->passes == 1 ? "" : "s", profile::describe_families(*fit));
    case profile::ModelFit::Verdict::kUnknown:
      break;
  }
  return fmt::format(
      "{}: the op counts cannot tell whether the trace fits {} ({}): mapped by op order only where "
      "the counts are equal",
      name, model_path,
      fit->families.empty() ? "no convolution, matrix multiply, pooling, ReLU or add on either side"
                            : profile::describe_families(*fit));
}

}  // namespace

Document torch_trace_document(const std::vector<profile::TorchImport>& imports, const std::string& model_path) {
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
      .column({.key = "steps", .audience = kMachine})
      .column({.key = "passes"})
      .column({.key = "passes_from", .audience = kMachine})
      .column({.key = "from", .audience = kHuman})
      .column({.key = "ops", .title = "ranges"})
      .column({.key = "kernels"})
      .column({.key = "skipped_events", .title = "skipped"})
      .column(seconds("cpu_time_s", "CPU time"))
      .column(seconds("kernel_time_s", "GPU time", any_gpu ? kEveryone : kMachine))
      .column(seconds("cpu_time_per_pass_s", "CPU/pass"))
      .column(seconds("kernel_time_per_pass_s", "GPU/pass", any_gpu ? kEveryone : kMachine))
      .column({.key = "layers"})
      .column({.key = "mapped_by", .audience = kJson})
      .column({.key = "model_fit", .audience = kJson});
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
    traces.add({i.trace.source, i.trace.layout, static_cast<int64_t>(i.trace.steps.size()), i.summary.passes,
                profile::passes_from_name(i.summary.passes_from), from_text(i.summary.passes_from), i.ops_read,
                i.kernels_read, i.trace.skipped_events, i.summary.cpu_s,
                i.summary.has_gpu ? Value{i.summary.kernel_s} : Value{}, i.summary.cpu_per_pass_s,
                optional(i.summary.kernel_per_pass_s), static_cast<int64_t>(i.summary.layers.size()),
                Value{std::shared_ptr<const Table>(std::make_shared<Table>(std::move(by)))}, fit_record(m.fit)});
  }

  // The pass windows: ProfilerSteps in one table, copies of the op sequence in another (one table at a
  // time: doc.table may move the tables made before).
  for (bool of_steps : {true, false}) {
    auto& windows = of_steps ? doc.table("steps", "steps (ProfilerStep#N):")
                             : doc.table("passes", "passes (copies of the top-level op sequence):");
    windows.column({.key = "trace", .audience = trace_audience, .left_aligned = true})
        .column({.key = of_steps ? "step" : "pass"})
        .column(seconds("time_s", "wall"))
        .column(seconds("cpu_time_s", "CPU ranges"))
        .column(seconds("kernel_time_s", "GPU kernels", any_gpu ? kEveryone : kMachine));
    for (const auto& i : imports)
      if ((i.summary.passes_from == From::kSteps) == of_steps)
        for (const auto& w : i.summary.windows)
          windows.add({i.trace.source, w.number, w.duration_s, w.cpu_op_s, optional(w.kernel_s)});
    if (windows.rows.empty()) windows.audience = kJson;
  }

  auto& layers = doc.table("layers", "");
  layers.column({.key = "trace", .audience = several ? (kHuman | kJson) : kJson, .left_aligned = true})
      .column({.key = "layer", .left_aligned = true})
      .column(seconds("time_s", "time/pass"))
      .column(seconds("cpu_time_s", "CPU/pass"))
      .column(seconds("gpu_time_s", "GPU/pass", any_gpu ? kEveryone : kMachine))
      .column({.key = "ops", .title = "ranges"})
      .column({.key = "kernels", .audience = any_gpu ? kEveryone : kMachine})
      .column({.key = "passes", .audience = kJson});
  std::vector<std::string> zero;
  for (const auto& i : imports)
    for (const auto& l : i.summary.layers) {
      // The time a layer is measured by: its kernels' on a GPU trace, its CPU ranges' otherwise.
      double time_s = l.gpu_s ? *l.gpu_s : l.cpu_s;
      if (!(time_s > 0)) {
        zero.push_back(l.layer);
        continue;
      }
      layers.add({i.trace.source, l.layer, time_s, l.cpu_s, optional(l.gpu_s), l.ops, l.kernels, i.summary.passes});
    }
  // The divisor of one trace; several traces each have theirs (the JSON `passes` of each row).
  std::string per;
  if (several) {
    per = "mean per pass of each trace";
  } else if (!imports.empty()) {
    const auto& s = imports.front().summary;
    if (s.passes_from == From::kSteps)
      per = fmt::format("mean of {} step{}", s.passes, s.passes == 1 ? "" : "s");
    else if (s.passes_from == From::kNone)
      per = "the whole trace as one pass";
    else
      per = fmt::format("mean of {} passes, by the {}", s.passes,
                        s.passes_from == From::kModel ? "model's op counts" : "repeated op sequence");
  }
  layers.title = fmt::format("per layer ({}; time: {}):", per, any_gpu ? "GPU kernels" : "CPU ranges");
  if (layers.rows.empty()) layers.audience = kMachine;  // the CSV keeps its header, for calibrate's message
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

  auto& unmapped = doc.table("unmapped", "not mapped to a layer (time in all passes):");
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
    if (auto note = fit_note(i, model_path); !note.empty()) doc.notes.push_back(note);
    if (auto note = passes_note(i); !note.empty()) doc.notes.push_back(note);
    for (const auto& a : i.mapping.ambiguous)
      doc.notes.push_back(fmt::format("{}: range '{}' names no node of the model (or several): not a layer", name, a));
    if (i.summary.outside_passes > 0)
      doc.notes.push_back(
          fmt::format("{}: {} events outside every {} are in the ops and kernels tables, "
                      "not in per-pass figures",
                      name, i.summary.outside_passes, i.summary.passes_from == From::kSteps ? "ProfilerStep" : "pass"));
    if (auto unlinked = i.unlinked_kernels; unlinked > 0)
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
