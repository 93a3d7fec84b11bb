#include "report/ncu_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "report/format.h"

namespace ridge::report {
namespace {

using profile::KernelFigures;

Value optional_value(const std::optional<double>& v) { return v ? Value{*v} : Value{}; }

Value ratio(const std::optional<double>& a, const std::optional<double>& b) {
  if (!a || !b || *b <= 0) return {};
  return *a / *b;
}

struct Level {
  const char* key;  // l1, l2, dram: the memory level, as in the device files
  std::optional<double> KernelFigures::*bytes;
};
constexpr Level kLevels[] = {
    {"l1", &KernelFigures::l1_bytes}, {"l2", &KernelFigures::l2_bytes}, {"dram", &KernelFigures::dram_bytes}};

// A summary row stands for `invocations` launches: the run's totals count each.
double times(const KernelFigures& k) { return static_cast<double>(std::max<int64_t>(1, k.invocations)); }

// A kernel's name without its return type and argument list, for people: the JSON keeps it whole.
std::string short_name(const std::string& name) {
  auto open = name.find('(');
  std::string head = name.substr(0, open);
  if (head.rfind("void ", 0) == 0) head = head.substr(5);
  return head.empty() ? name : head;
}

std::string join(const std::vector<std::string>& items, const char* separator) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : separator) + item;
  return out;
}

void add_kernel_table(Document& doc, const profile::NcuImport& import) {
  auto& t = doc.table("kernels", "kernels:");
  bool device = import.roofline.has_value();
  t.column({.key = "run", .audience = import.runs.size() > 1 ? kEveryone : kMachine})
      .column({.key = "id", .audience = kMachine})
      .column({.key = "kernel", .audience = kHuman, .max_width = 40, .left_aligned = true})
      .column({.key = "name", .audience = kMachine})
      .column({.key = "nvtx", .audience = kMachine})
      .column({.key = "layer", .max_width = 32, .left_aligned = true})
      .column({.key = "mapped_by", .audience = kMachine})
      .column({.key = "op", .audience = kMachine})
      .column({.key = "invocations", .audience = kMachine})
      .column({.key = "time_s", .title = "time", .style = Style::kDuration})
      .column({.key = "flops", .title = "FLOPs", .style = Style::kSi, .unit = "FLOP"})
      .column({.key = "precision", .title = "main"});
  for (const char* key : profile::flops_keys())
    t.column({.key = std::string("flops_") + key,
              .audience = kMachine,
              .json_path = std::string("flops_by_precision.") + key});
  t.column({.key = "not_counted", .audience = kMachine})
      .column({.key = "l1_bytes", .title = "L1", .style = Style::kBytes, .json_path = "bytes.l1"})
      .column({.key = "l2_bytes", .title = "L2", .style = Style::kBytes, .json_path = "bytes.l2"})
      .column({.key = "dram_bytes", .title = "DRAM", .style = Style::kBytes, .json_path = "bytes.dram"})
      .column({.key = "intensity_l1",
               .style = Style::kFixed,
               .unit = "FLOP/B",
               .decimals = 2,
               .audience = kMachine,
               .json_path = "intensity.l1"})
      .column({.key = "intensity_l2",
               .style = Style::kFixed,
               .unit = "FLOP/B",
               .decimals = 2,
               .audience = kMachine,
               .json_path = "intensity.l2"})
      .column({.key = "intensity_dram",
               .title = "AI DRAM",
               .style = Style::kFixed,
               .unit = "FLOP/B",
               .decimals = 2,
               .json_path = "intensity.dram"})
      .column({.key = "flops_per_s", .title = "achieved", .style = Style::kSi, .unit = "FLOP/s"})
      .column({.key = "l1_bytes_per_s",
               .style = Style::kSi,
               .unit = "B/s",
               .audience = kMachine,
               .json_path = "bandwidth.l1"})
      .column({.key = "l2_bytes_per_s",
               .style = Style::kSi,
               .unit = "B/s",
               .audience = kMachine,
               .json_path = "bandwidth.l2"})
      .column({.key = "dram_bytes_per_s",
               .title = "DRAM BW",
               .style = Style::kSi,
               .unit = "B/s",
               .json_path = "bandwidth.dram"});
  if (device)
    t.column({.key = "peak_key", .audience = kMachine})
        .column({.key = "of_peak_pct", .title = "of peak", .style = Style::kFixed, .unit = "%", .decimals = 1})
        .column({.key = "of_dram_bw_pct", .title = "of DRAM BW", .style = Style::kFixed, .unit = "%", .decimals = 1});
  std::set<std::string> no_ceiling;  // main precisions the device file has no peak for
  for (const auto& run : import.runs) {
    for (size_t i = 0; i < run.kernels.size(); ++i) {
      const auto& k = run.kernels[i];
      const auto& where = run.layers.of_kernel[i];
      auto flops = k.flops();
      auto family = profile::kernel_family(k.name);
      auto precision = [&](const char* key) -> Value {
        auto it = k.flops_by_precision.find(key);
        return it == k.flops_by_precision.end() ? Value{} : Value{it->second};
      };
      auto main = peak_key_of(k);
      std::vector<Value> row{run.label,
                             k.id >= 0 ? Value{k.id} : Value{},
                             short_name(k.name),
                             k.name,
                             k.nvtx.empty() ? Value{} : Value{k.nvtx},
                             where.layer.empty() ? Value{} : Value{where.layer},
                             where.method.empty() ? Value{} : Value{where.method},
                             family.empty() ? Value{} : Value{family},
                             k.invocations,
                             optional_value(k.time_s),
                             optional_value(flops),
                             main.empty() ? Value{} : Value{main}};
      for (const char* key : profile::flops_keys()) row.push_back(precision(key));
      row.push_back(k.not_counted.empty() ? Value{} : Value{join(k.not_counted, "; ")});
      for (const auto& level : kLevels) row.push_back(optional_value(k.*level.bytes));
      for (const auto& level : kLevels) row.push_back(ratio(flops, k.*level.bytes));
      row.push_back(ratio(flops, k.time_s));
      for (const auto& level : kLevels) row.push_back(ratio(k.*level.bytes, k.time_s));
      if (device) {
        auto key = peak_key_of(k);
        auto peak = import.roofline->peak_flops.find(key);
        auto dram = import.roofline->bandwidth.find("dram");
        auto achieved = ratio(flops, k.time_s);
        auto bandwidth = ratio(k.dram_bytes, k.time_s);
        row.push_back(key.empty() ? Value{} : Value{key});
        if (!key.empty() && peak == import.roofline->peak_flops.end()) no_ceiling.insert(key);
        row.push_back(peak != import.roofline->peak_flops.end() && !std::holds_alternative<std::monostate>(achieved)
                          ? Value{100 * std::get<double>(achieved) / peak->second.value}
                          : Value{});
        row.push_back(dram != import.roofline->bandwidth.end() && !std::holds_alternative<std::monostate>(bandwidth)
                          ? Value{100 * std::get<double>(bandwidth) / dram->second.value}
                          : Value{});
      }
      t.add(std::move(row));
    }
  }
  bool partial = false;
  for (const auto& run : import.runs)
    for (const auto& k : run.kernels) partial |= !k.failed && !k.not_counted.empty() && k.flops();
  if (partial) t.footer.push_back("FLOPs: the precisions counted; the notes name those that were not");
  for (const auto& key : no_ceiling)
    t.footer.push_back(
        fmt::format("of peak, empty: {} has no {} ceiling in its device file", import.roofline->device_id, key));
  if (device) {
    t.footer.push_back(
        fmt::format("of peak: achieved FLOP/s over {}'s peak of the kernel's main precision, the one it did most "
                    "operations in (fp64, fp32, fp16 on CUDA cores; SRC_tensor on tensor cores; Volta's estimate: "
                    "fp16_tensor)",
                    import.roofline->device_id));
  }
}

struct Totals {
  double time_s = 0, flops = 0, dram_bytes = 0;
  int64_t kernels = 0, failed = 0;
  bool all_timed = true, all_flops = true, all_dram = true;
  void add(const KernelFigures& k) {
    ++kernels;
    if (k.failed) {
      ++failed;
      return;
    }
    double n = times(k);
    if (k.time_s)
      time_s += n * *k.time_s;
    else
      all_timed = false;
    if (auto f = k.flops())
      flops += n * *f;
    else
      all_flops = false;
    if (k.dram_bytes)
      dram_bytes += n * *k.dram_bytes;
    else
      all_dram = false;
  }
};

void add_run_table(Document& doc, const profile::NcuImport& import) {
  auto& t = doc.table("runs", "runs:");
  t.column({.key = "run"})
      .column({.key = "file", .max_width = 40, .left_aligned = true})
      .column({.key = "layout"})
      .column({.key = "batch"})
      .column({.key = "passes"})
      .column({.key = "passes_from", .audience = kMachine})
      .column({.key = "kernels"})
      .column({.key = "failed"})
      .column({.key = "time_s", .title = "kernel time", .style = Style::kDuration})
      .column({.key = "flops", .title = "FLOPs", .style = Style::kSi, .unit = "FLOP"})
      .column({.key = "dram_bytes", .title = "DRAM", .style = Style::kBytes});
  for (const auto& run : import.runs) {
    Totals total;
    for (const auto& k : run.kernels) total.add(k);
    bool any = total.kernels > total.failed;
    t.add({run.label, run.path, profile::layout_name(run.layout), run.batch > 0 ? Value{run.batch} : Value{},
           run.passes_from.empty() ? Value{} : Value{run.passes},
           run.passes_from.empty() ? Value{} : Value{run.passes_from}, total.kernels, total.failed,
           any && total.all_timed ? Value{total.time_s} : Value{},
           any && total.all_flops ? Value{total.flops} : Value{},
           any && total.all_dram ? Value{total.dram_bytes} : Value{}});
  }
  bool gaps = std::any_of(t.rows.begin(), t.rows.end(), [](const auto& row) {
    return std::any_of(row.begin() + 8, row.end(),
                       [](const Value& v) { return std::holds_alternative<std::monostate>(v); });
  });
  if (gaps) t.footer.push_back("empty: some kernel of the run lacks the counters (see the notes)");
}

const profile::AnalyticModel* model_for(const profile::NcuImport& import, int64_t batch) {
  auto it = import.model.find(batch);
  if (it == import.model.end()) it = import.model.find(0);
  return it == import.model.end() ? nullptr : &it->second;
}

void add_layer_table(Document& doc, const profile::NcuImport& import) {
  auto& t = doc.table("layers", "layers, measured (per model pass) against ridge's analysis:");
  t.column({.key = "run", .audience = import.runs.size() > 1 ? kEveryone : kMachine})
      .column({.key = "layer", .max_width = 36, .left_aligned = true})
      .column({.key = "op_type"})
      .column({.key = "kernels"})
      .column({.key = "time_s", .title = "time", .style = Style::kDuration})
      .column({.key = "flops_measured", .title = "FLOPs measured", .style = Style::kSi})
      .column({.key = "flops_ridge", .title = "FLOPs ridge", .style = Style::kSi})
      .column({.key = "flops_ratio", .title = "FLOP ratio", .style = Style::kFixed, .decimals = 2})
      .column({.key = "dram_bytes_measured", .title = "DRAM measured", .style = Style::kBytes})
      .column({.key = "bytes_ridge", .title = "bytes ridge", .style = Style::kBytes})
      .column({.key = "bytes_ratio", .title = "byte ratio", .style = Style::kFixed, .decimals = 2});
  bool divided = false;
  for (const auto& run : import.runs) {
    const auto* model = model_for(import, run.batch);
    if (!model) continue;
    double passes = static_cast<double>(std::max<int64_t>(1, run.passes));
    divided |= passes > 1;
    std::map<std::string, Totals> by_layer;
    Totals whole;
    for (size_t i = 0; i < run.kernels.size(); ++i) {
      whole.add(run.kernels[i]);
      const auto& layer = run.layers.of_kernel[i].layer;
      if (!layer.empty()) by_layer[layer].add(run.kernels[i]);
    }
    auto measured = [&](bool complete, double value) -> std::optional<double> {
      return complete ? std::optional<double>(value / passes) : std::nullopt;
    };
    for (const auto& layer : model->layers) {
      auto it = by_layer.find(layer.name);
      if (it == by_layer.end()) continue;
      const auto& m = it->second;
      auto flops = measured(m.all_flops, m.flops), dram = measured(m.all_dram, m.dram_bytes);
      t.add({run.label, layer.name, layer.op_type, m.kernels, optional_value(measured(m.all_timed, m.time_s)),
             optional_value(flops), layer.flops, ratio(flops, layer.flops), optional_value(dram), layer.bytes,
             ratio(dram, layer.bytes)});
    }
    auto flops = measured(whole.all_flops, whole.flops), dram = measured(whole.all_dram, whole.dram_bytes);
    t.add({run.label, "(whole model, every kernel)", Value{}, whole.kernels,
           optional_value(measured(whole.all_timed, whole.time_s)), optional_value(flops), model->flops,
           ratio(flops, model->flops), optional_value(dram), model->bytes, ratio(dram, model->bytes)});
  }
  t.footer.push_back(
      "measured: the sum over the layer's kernels" +
      (divided ? ", divided by the run's passes of the model" : std::string()) +
      "; ridge: the analytical count at the run's batch. Measured FLOPs count executed floating-point instructions "
      "(an FMA is 2), so they include the kernels' own overheads and exclude uncounted precisions.");
}

void add_unmapped(Document& doc, const profile::NcuImport& import) {
  bool tried = !import.model.empty();
  for (const auto& run : import.runs)
    for (const auto& k : run.kernels) tried |= !k.nvtx.empty();
  if (!tried) return;
  auto& t = doc.table("unmapped", "kernels mapped to no layer:");
  t.column({.key = "run", .audience = import.runs.size() > 1 ? kEveryone : kMachine})
      .column({.key = "id"})
      .column({.key = "name", .title = "kernel", .max_width = 60, .left_aligned = true})
      .column({.key = "time_s", .title = "time", .style = Style::kDuration});
  for (const auto& run : import.runs)
    for (size_t i = 0; i < run.kernels.size(); ++i)
      if (run.layers.of_kernel[i].layer.empty())
        t.add({run.label, run.kernels[i].id >= 0 ? Value{run.kernels[i].id} : Value{}, run.kernels[i].name,
               optional_value(run.kernels[i].time_s)});
  if (t.rows.empty()) doc.tables.pop_back();
}

void add_notes(Document& doc, const profile::NcuImport& import) {
  std::map<std::string, int> not_counted, how_counted;
  std::map<std::string, std::pair<int, std::string>> bad_values;  // "counter: what" -> kernels, the first's line
  std::vector<std::string> failed, untimed;
  for (const auto& run : import.runs) {
    for (const auto& m : run.messages) doc.notes.push_back(fmt::format("{}: ncu said: {}", run.path, m));
    if (run.skipped_rows > 0)
      doc.notes.push_back(fmt::format(
          "{}: {} quoted line{} between the rows did not have the header's columns (program output?) and {} skipped; "
          "the first is line {}",
          run.path, run.skipped_rows, run.skipped_rows == 1 ? "" : "s", run.skipped_rows == 1 ? "was" : "were",
          run.first_skipped_line));
    for (const auto& note : run.layers.notes) doc.notes.push_back(fmt::format("{}: {}", run.label, note));
    if (run.passes > 1)
      doc.notes.push_back(fmt::format("{}: {} passes of the model ({}): layer figures are per pass", run.label,
                                      run.passes, run.passes_from));
    for (const auto& k : run.kernels) {
      if (k.failed) {
        failed.push_back(fmt::format("{} ({})", k.name, k.line));
        continue;
      }
      if (!k.time_s) untimed.push_back(fmt::format("{} ({})", k.name, k.line));
      for (const auto& line : k.not_counted) ++not_counted[line];
      for (const auto& line : k.notes) ++how_counted[line];
      for (const auto& line : k.bad_values) {
        auto& [count, first] = bad_values[line.substr(0, line.find(" ("))];
        if (count++ == 0) first = fmt::format("{}, {}", k.line, line);
      }
    }
  }
  size_t kernels = 0;
  for (const auto& run : import.runs) kernels += run.kernels.size();
  if (!failed.empty() && failed.size() == kernels)
    doc.notes.push_back("nothing was measured: ncu could profile none of the launches (see its messages above)");
  if (!failed.empty())
    doc.notes.push_back(fmt::format("{} launch{} could not be profiled (every metric is nan), no figures: {}",
                                    failed.size(), failed.size() == 1 ? "" : "es", join(failed, ", ")));
  if (!untimed.empty())
    doc.notes.push_back(
        fmt::format("no time (needs gpu__time_duration.sum, or sm__cycles_elapsed.avg with its "
                    ".per_second) for: {}",
                    join(untimed, ", ")));
  for (const auto& [what, seen] : bad_values)
    doc.notes.push_back(fmt::format("counter not used, {} kernel{}: {} (the figures it feeds are empty; first: {})",
                                    seen.first, seen.first == 1 ? "" : "s", what, seen.second));
  for (const auto& [line, count] : not_counted)
    doc.notes.push_back(fmt::format("FLOPs not counted, {} kernel{}: {}", count, count == 1 ? "" : "s", line));
  for (const auto& [line, count] : how_counted)
    doc.notes.push_back(fmt::format("FLOPs, {} kernel{}: {}", count, count == 1 ? "" : "s", line));
}

}  // namespace

std::string peak_key_of(const KernelFigures& kernel) {
  std::string best;
  double most = -1;
  for (const auto& [precision, flops] : kernel.flops_by_precision)
    if (flops > most) most = flops, best = precision;
  if (most <= 0) return "";
  return best == "tensor" ? "fp16_tensor" : best;
}

Document ncu_import_document(const profile::NcuImport& import) {
  Document doc;
  doc.command = "import ncu";
  std::vector<std::string> files;
  for (const auto& run : import.runs) files.push_back(run.path);
  doc.subject = join(files, ", ");
  add_ridge_version(doc);
  doc.field("source", "source", "Nsight Compute CSV", "ncu");
  doc.field("files", "files", join(files, ", "), files);
  if (import.roofline) {
    const auto& r = *import.roofline;
    doc.field("device", "device", fmt::format("{} ({}), mode {}", r.device_name, r.device_id, r.mode), r.device_id);
  }
  if (!import.model.empty()) {
    const auto& m = import.model.begin()->second;
    doc.field("model", "model", m.path, m.path);
  }
  add_run_table(doc, import);
  add_kernel_table(doc, import);
  if (!import.model.empty()) add_layer_table(doc, import);
  add_unmapped(doc, import);
  add_notes(doc, import);
  doc.csv_table = "kernels";
  return doc;
}

store::Params ncu_run_params(const profile::NcuImportRequest& request, const profile::NcuImport& import, size_t run) {
  store::Params params;
  params.model = request.model;
  params.device = request.device;
  const auto& batch = import.runs.at(run).batch;
  if (batch > 0)
    params.batch = batch;
  else if (!request.model.empty())
    params.batch = import.model.at(batch).batch;
  return params;
}

}  // namespace ridge::report
