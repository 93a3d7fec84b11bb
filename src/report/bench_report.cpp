#include "report/bench_report.h"

#include <fmt/format.h>

#include <algorithm>

#include "exec/bench_codec.h"
#include "exec/bench_csv.h"
#include "report/format.h"
#include "report/printer.h"
#include "util/error.h"

namespace ridge::report {
namespace {

using json = nlohmann::ordered_json;

}  // namespace

std::string bench_run_label(const exec::BenchResult& r) {
  std::string label = fmt::format("batch {}, {}, {}", r.batch, r.mode, r.precision);
  if (r.memory_format != "nchw") label += ", " + r.memory_format;
  if (r.conv_algo != "auto") label += ", conv " + r.conv_algo;
  if (r.training) label += r.optimizer.empty() ? ", training" : ", training (" + r.optimizer + ")";
  if (!r.input_size.empty()) label += ", input " + r.input_size;
  return label;
}

namespace {

Column ms(std::string key, std::string title, std::string json_path, unsigned audience = kEveryone) {
  return {.key = std::move(key),
          .title = std::move(title),
          .style = Style::kFixed,
          .decimals = 3,
          .audience = audience,
          .json_path = std::move(json_path)};
}

Value nested(Table t) { return std::shared_ptr<const Table>(std::make_shared<Table>(std::move(t))); }

// The columns that say which run a CSV row belongs to, first in every bench CSV (exec/bench_csv reads them back).
constexpr size_t kRunColumns = exec::kBenchRunColumns.size();
void add_run_columns(Table& t) {
  for (const char* key : exec::kBenchRunColumns) t.column({.key = key});
}
std::vector<Value> run_cells(const exec::BenchResult& r) {
  return {r.model,         r.conv_algo,
          r.input_size,    r.batch,
          r.mode,          r.precision,
          r.memory_format, static_cast<int64_t>(r.environment.threads),
          r.training,      r.training ? Value{r.optimizer} : Value{}};
}
void add_provenance_columns(Table& t) { t.column({.key = "ridge_revision"}).column({.key = "timestamp"}); }
void append_provenance(std::vector<Value>& row, const exec::BenchResult& r) {
  row.emplace_back(r.environment.ridge_revision);
  row.emplace_back(r.timestamp);
}

Table op_types_table(const exec::BenchResult& r) {
  Table t;
  t.key = "op_types";
  t.title = fmt::format(
      "per op type ({}): {} nodes, node sum {:.3f} ms of a {:.3f} ms profiled run; overhead {:.2f} "
      "us/node",
      bench_run_label(r), r.executed_nodes, r.node_sum_ms, r.profiled_run_ms, r.overhead_per_node_us);
  if (r.host_enqueue_per_node_us >= 0)
    t.title += fmt::format("; host enqueue {:.2f} us/node", r.host_enqueue_per_node_us);
  t.column({.key = "op"})
      .column({.key = "nodes"})
      .column(ms("total_ms", "total ms", ""))
      .column({.key = "percent", .title = "%", .style = Style::kFixed, .decimals = 1});
  for (const auto& o : r.op_types) t.add({o.op_type, o.nodes, o.total_ms, o.percent});
  return t;
}

// A figure the profile may not have: a training step's forward or backward part (-1 in inference, which has no
// split), a median it did not keep (-1); empty then.
Value ms_or_empty(double ms) { return ms >= 0 ? Value{ms} : Value{}; }

bool split_profile(const exec::BenchResult& r) {
  return std::any_of(r.nodes.begin(), r.nodes.end(), [](const auto& n) { return n.forward_ms >= 0; });
}

Table nodes_table(const exec::BenchResult& r) {
  Table t;
  t.key = "nodes";
  t.audience = kJson;
  t.column({.key = "name"})
      .column({.key = "op"})
      .column({.key = "mean_ms"})
      .column({.key = "median_ms"})
      .column({.key = "forward_ms"})
      .column({.key = "backward_ms"})
      .column({.key = "percent"})
      .column({.key = "in_channels"})
      .column({.key = "out_channels"})
      .column({.key = "kernel_size"})
      .column({.key = "algorithm"})
      .column({.key = "predicted_flops"})
      .column({.key = "workspace_bytes"});
  for (const auto& n : r.nodes)
    t.add({n.name, n.op_type, n.mean_ms, ms_or_empty(n.median_ms), ms_or_empty(n.forward_ms),
           ms_or_empty(n.backward_ms), n.percent, n.in_channels, n.out_channels, n.kernel_size, n.algorithm,
           n.predicted_flops, n.workspace_bytes});
  return t;
}

Table slowest_table(const exec::BenchResult& r, int top_nodes) {
  auto nodes = r.nodes;
  std::stable_sort(nodes.begin(), nodes.end(), [](const auto& a, const auto& b) { return a.mean_ms > b.mean_ms; });
  if (static_cast<int>(nodes.size()) > top_nodes) nodes.resize(static_cast<size_t>(std::max(top_nodes, 0)));
  Table t;
  t.key = "slowest";
  t.title = fmt::format("slowest {} nodes:", nodes.size());
  t.audience = kHuman;
  t.column({.key = "node"}).column({.key = "op"}).column({.key = "ms", .style = Style::kFixed, .decimals = 4});
  bool split = split_profile(r);
  if (split)
    t.column({.key = "forward ms", .style = Style::kFixed, .decimals = 4})
        .column({.key = "backward ms", .style = Style::kFixed, .decimals = 4});
  t.column({.key = "%", .style = Style::kFixed, .decimals = 1}).column({.key = "algorithm"});
  for (const auto& n : nodes) {
    std::vector<Value> row{n.name, n.op_type, n.mean_ms};
    if (split) {
      row.push_back(ms_or_empty(n.forward_ms));
      row.push_back(ms_or_empty(n.backward_ms));
    }
    row.emplace_back(n.percent);
    row.emplace_back(n.algorithm);
    t.add(std::move(row));
  }
  return t;
}

Table list_table(std::string key, const std::vector<Value>& values) {
  Table t;
  t.key = std::move(key);
  t.layout = Table::Layout::kList;
  t.audience = kJson;
  t.column({.key = t.key});
  for (const auto& v : values) t.add({v});
  return t;
}

void add_environment(Document& doc, const exec::BenchResult& first) {
  const auto& env = first.environment;
  doc.field("model", "model", first.model, first.model);
  doc.field("environment", "environment",
            exec::on_gpu(env) ? fmt::format("{}, host {}; {}; ridge {} ({})", env.device, env.cpu_model,
                                            env.backend_info, env.ridge_version, env.ridge_revision)
                              : fmt::format("{} ({} logical CPUs), {} threads, libtorch {}, {}; ridge {} ({})",
                                            env.cpu_model, env.logical_cpus, env.threads, env.torch_version,
                                            env.backend_info, env.ridge_version, env.ridge_revision),
            exec::encode_environment(env));
  doc.field("random_weights", "weights", "RANDOM (the model file holds none)", first.random_weights,
            first.random_weights ? kEveryone : kJson);
}

// The power figures of a run measured with --power, for JSON; none otherwise.
Value power_record(const exec::BenchPower& p) {
  if (p.source.empty()) return {};
  Table t;
  t.key = "power";
  t.layout = Table::Layout::kRecord;
  t.column({.key = "source"})
      .column({.key = "measured"})
      .column({.key = "mean_w"})
      .column({.key = "energy_j"})
      .column({.key = "energy_per_inference_j"})
      .column({.key = "idle_power_w"})
      .column({.key = "dynamic_only"})
      .column({.key = "window_s"})
      .column({.key = "samples"});
  auto measured = [&](double v) { return p.measured ? Value{v} : Value{}; };
  t.add({p.source, p.measured, measured(p.mean_w), measured(p.energy_j), measured(p.energy_per_inference_j),
         p.idle_w >= 0 ? Value{p.idle_w} : Value{}, p.dynamic_only, p.window_s, p.samples});
  return nested(std::move(t));
}

// A GPU run's memory from its allocator, for JSON; none for a CPU run.
Value device_memory_record(const exec::DeviceMemory& m) {
  if (m.peak_bytes < 0) return {};
  Table t;
  t.key = "device_memory";
  t.layout = Table::Layout::kRecord;
  t.column({.key = "peak_bytes"})
      .column({.key = "weights_bytes"})
      .column({.key = "workspace_bytes"})
      .column({.key = "reserved_bytes"});
  if (m.saved_bytes < 0) {
    t.add({m.peak_bytes, m.weights_bytes, m.workspace_bytes, m.reserved_bytes});
    return nested(std::move(t));
  }
  t.column({.key = "saved_bytes"}).column({.key = "optimizer_state_bytes"});
  t.add({m.peak_bytes, m.weights_bytes, m.workspace_bytes, m.reserved_bytes, m.saved_bytes, m.optimizer_state_bytes});
  return nested(std::move(t));
}

// How power was measured, once per document: the source, the idle power, what the figures include.
// A training run's energy per run is per training step (the JSON key stays energy_per_inference_j: one run each).
void add_power_field(Document& doc, const exec::BenchPower& p, bool training) {
  if (p.source.empty()) return;
  std::string idle = p.idle_w >= 0 ? fmt::format("idle {:.3f} W", p.idle_w) : "idle not measured";
  doc.field("power", "power",
            fmt::format("{}, {}; {} (energy per {} = energy of the timed runs / their count, one {} of the batch each)",
                        p.source, idle, p.dynamic_only ? "dynamic only: idle power subtracted" : "total power",
                        training ? "training step" : "inference", training ? "training step" : "run"),
            {{"source", p.source},
             {"idle_power_w", p.idle_w >= 0 ? nlohmann::ordered_json(p.idle_w) : nlohmann::ordered_json()},
             {"dynamic_only", p.dynamic_only}});
}

}  // namespace

Document bench_document(const std::vector<exec::BenchResult>& runs, int top_nodes) {
  Document doc;
  doc.command = "bench";
  doc.csv_table = "overall";
  if (!runs.empty()) {
    doc.subject = runs.front().model;
    add_environment(doc, runs.front());
    add_power_field(doc, runs.front().power, runs.front().training);
  }
  auto& t = doc.table("runs", "");
  t.column({.key = "run", .audience = kHuman})
      .column({.key = "batch", .audience = kJson})
      .column({.key = "input_size", .audience = kJson})
      .column({.key = "mode", .audience = kJson})
      .column({.key = "precision", .audience = kJson})
      .column({.key = "memory_format", .audience = kJson})
      .column({.key = "conv_algo", .audience = kJson})
      .column({.key = "training", .audience = kJson})
      .column({.key = "optimizer", .audience = kJson})
      .column({.key = "training_losses", .audience = kJson})
      .column(ms("mean_ms", "mean ms", "latency_ms.mean"))
      .column(ms("std_ms", "std ms", "latency_ms.std"))
      .column(ms("min_ms", "min ms", "latency_ms.min"))
      .column(ms("median_ms", "median ms", "latency_ms.median"))
      .column(ms("p90_ms", "p90 ms", "latency_ms.p90"))
      .column(ms("p99_ms", "p99 ms", "latency_ms.p99"))
      .column(ms("max_ms", "max ms", "latency_ms.max"))
      .column({.key = "relative_standard_error", .audience = kJson, .json_path = "latency_ms.relative_standard_error"})
      .column({.key = "throughput", .title = "samples/s", .style = Style::kFixed, .decimals = 1})
      .column({.key = "samples", .title = "runs"})
      .column({.key = "power_mean_w", .title = "W", .style = Style::kFixed, .decimals = 2})
      .column({.key = "energy_per_inference_j",
               .title = !runs.empty() && runs.front().training ? "J/step" : "J/inference",
               .style = Style::kGeneral,
               .decimals = 4})
      .column({.key = "power", .audience = kJson})
      .column({.key = "warmup_runs", .audience = kJson})
      .column({.key = "stop_reason", .title = "stopped by"})
      .column({.key = "executed_nodes", .audience = kJson})
      .column({.key = "host_enqueue_per_node_us", .audience = kJson})
      .column({.key = "device_memory", .audience = kJson})
      .column({.key = "profile", .audience = kJson})
      .column({.key = "nodes", .audience = kJson})
      .column({.key = "op_types"})
      .column({.key = "slowest", .audience = kHuman})
      .column({.key = "notes", .audience = kJson})
      .column({.key = "timestamp", .audience = kJson});
  for (const auto& r : runs) {
    const auto& l = r.latency_ms;
    Value profile;
    if (!r.nodes.empty()) {
      Table p;
      p.key = "profile";
      p.layout = Table::Layout::kRecord;
      p.column({.key = "node_sum_ms"}).column({.key = "profiled_run_ms"}).column({.key = "overhead_per_node_us"});
      p.add({r.node_sum_ms, r.profiled_run_ms, r.overhead_per_node_us});
      profile = nested(std::move(p));
    }
    std::vector<Value> losses(r.training_losses.begin(), r.training_losses.end());
    std::vector<Value> notes(r.notes.begin(), r.notes.end());
    t.add({bench_run_label(r),
           r.batch,
           r.input_size,
           r.mode,
           r.precision,
           r.memory_format,
           r.conv_algo,
           r.training,
           r.training ? Value{r.optimizer} : Value{},
           r.training ? nested(list_table("training_losses", losses)) : Value{},
           l.mean,
           l.stddev,
           l.min,
           l.median,
           l.p90,
           l.p99,
           l.max,
           l.relative_standard_error,
           r.throughput,
           l.samples,
           r.power.measured ? Value{r.power.mean_w} : Value{},
           r.power.measured ? Value{r.power.energy_per_inference_j} : Value{},
           power_record(r.power),
           r.warmup_runs,
           r.stop_reason,
           r.executed_nodes,
           r.host_enqueue_per_node_us >= 0 ? Value{r.host_enqueue_per_node_us} : Value{},
           device_memory_record(r.device_memory),
           profile,
           nested(nodes_table(r)),
           r.nodes.empty() ? Value{} : nested(op_types_table(r)),
           r.nodes.empty() || top_nodes <= 0 ? Value{} : nested(slowest_table(r, top_nodes)),
           nested(list_table("notes", notes)),
           r.timestamp.empty() ? Value{} : Value{r.timestamp}});
    if (r.training && !r.training_losses.empty())
      t.footer.push_back(fmt::format("training loss (mean square of the outputs), {}: {:.6g} -> {:.6g} over {} steps",
                                     bench_run_label(r), r.training_losses.front(), r.training_losses.back(),
                                     r.training_losses.size()));
  }
  // Each JSON run has its notes; the document lists them once.
  for (const auto& r : runs)
    for (const auto& n : r.notes)
      if (std::find(doc.notes.begin(), doc.notes.end(), n) == doc.notes.end()) doc.notes.push_back(n);
  auto overall = overall_table(runs);
  overall.audience = kCsv;
  doc.tables.push_back(std::move(overall));
  return doc;
}

Document bench_run_document(const exec::BenchResult& run, int top_nodes) {
  // layers.csv is rebuilt from the overall table and the run's nodes when exported: storing it too
  // would double the document.
  return bench_document({run}, top_nodes);
}

Table overall_table(const std::vector<exec::BenchResult>& runs) {
  Table t;
  t.key = "overall";
  add_run_columns(t);
  t.column({.key = "mean_ms"})
      .column({.key = "std_ms"})
      .column({.key = "min_ms"})
      .column({.key = "max_ms"})
      .column({.key = "median_ms"})
      .column({.key = "p99_ms"})
      .column({.key = "samples"})
      .column({.key = "throughput"})
      // Filled once power is measured (`--power`); empty until then, never zero.
      .column({.key = "power_mean_w"})
      .column({.key = "energy_per_inference_j"});
  add_provenance_columns(t);
  for (const auto& r : runs) {
    const auto& l = r.latency_ms;
    auto row = run_cells(r);
    for (Value v : {Value{l.mean}, Value{l.stddev}, Value{l.min}, Value{l.max}, Value{l.median}, Value{l.p99},
                    Value{l.samples}, Value{r.throughput}, r.power.measured ? Value{r.power.mean_w} : Value{},
                    r.power.measured ? Value{r.power.energy_per_inference_j} : Value{}})
      row.push_back(v);
    append_provenance(row, r);
    t.add(std::move(row));
  }
  return t;
}

Table layers_table(const Table& overall, const Table& nodes) {
  Table t;
  t.key = "layers";
  add_run_columns(t);
  t.column({.key = "layer"})
      .column({.key = "op"})
      .column({.key = "layer_algorithm"})
      .column({.key = "in_channels"})
      .column({.key = "out_channels"})
      .column({.key = "kernel_size"})
      .column({.key = "mean_ms"})
      .column({.key = "percentage"})
      .column({.key = "predicted_flops"})
      .column({.key = "workspace_bytes"})
      .column({.key = "achieved_gflops"});
  add_provenance_columns(t);
  if (overall.rows.empty()) return t;
  const auto& run = overall.rows.front();
  auto at = [](const Table& table, const std::vector<Value>& row, const std::string& key) -> const Value& {
    if (const auto* v = table.cell(row, key)) return *v;
    throw Error(fmt::format("internal: table '{}' has no column '{}'", table.key, key));
  };
  auto count = [](const Value& v) {  // -1: the cost model has no figure
    const auto* i = std::get_if<int64_t>(&v);
    return i && *i >= 0 ? Value{*i} : Value{};
  };
  for (const auto& n : nodes.rows) {
    std::vector<Value> row(run.begin(), run.begin() + static_cast<std::ptrdiff_t>(kRunColumns));
    const auto& flops = at(nodes, n, "predicted_flops");
    const auto& mean = at(nodes, n, "mean_ms");
    const auto* f = std::get_if<int64_t>(&flops);
    const auto* ms = std::get_if<double>(&mean);
    Value achieved = f && *f > 0 && ms && *ms > 0 ? Value{static_cast<double>(*f) / *ms / 1e6} : Value{};
    for (Value v : {at(nodes, n, "name"), at(nodes, n, "op"), at(nodes, n, "algorithm"), at(nodes, n, "in_channels"),
                    at(nodes, n, "out_channels"), at(nodes, n, "kernel_size"), mean, at(nodes, n, "percent"),
                    count(flops), count(at(nodes, n, "workspace_bytes")), achieved})
      row.push_back(v);
    row.push_back(at(overall, run, "ridge_revision"));
    row.push_back(at(overall, run, "timestamp"));
    t.add(std::move(row));
  }
  return t;
}

Table layers_table(const std::vector<exec::BenchResult>& runs) {
  Table t = layers_table(overall_table({}), nodes_table({}));
  for (const auto& r : runs)
    for (auto& row : layers_table(overall_table({r}), nodes_table(r)).rows) t.rows.push_back(std::move(row));
  return t;
}

Table node_times_table(const std::vector<exec::BenchResult>& runs) {
  Table t;
  t.key = "nodes";
  add_run_columns(t);
  t.column({.key = "node"})
      .column({.key = "op"})
      .column({.key = "mean_ms"})
      .column({.key = "median_ms"})
      .column({.key = "forward_ms"})
      .column({.key = "backward_ms"});
  add_provenance_columns(t);
  for (const auto& r : runs)
    for (const auto& n : r.nodes) {
      auto row = run_cells(r);
      row.emplace_back(n.name);
      row.emplace_back(n.op_type);
      row.emplace_back(n.mean_ms);
      row.push_back(ms_or_empty(n.median_ms));
      row.push_back(ms_or_empty(n.forward_ms));
      row.push_back(ms_or_empty(n.backward_ms));
      append_provenance(row, r);
      t.add(std::move(row));
    }
  return t;
}

}  // namespace ridge::report

namespace ridge::report {

namespace {
// The cell of `row` under column `key` (none when the table has no such column).
Value cell(const Table& t, const std::vector<Value>& row, const std::string& key) {
  const auto* v = t.cell(row, key);
  return v ? *v : Value{};
}
double number(const Value& v) { return number_or(&v, 0); }
}  // namespace

Table metrics_table(const Table& overall, const std::string& label) {
  Table t;
  t.key = "metrics";
  t.column({.key = "label"})
      .column({.key = "model"})
      .column({.key = "batch"})
      .column({.key = "precision"})
      .column({.key = "memory_format"})
      .column({.key = "images_per_s"})
      .column({.key = "measured_s"})
      .column({.key = "iterations"});
  for (const auto& row : overall.rows) {
    auto samples = cell(overall, row, "samples");
    // The timed runs only (warm-up excluded): mean x runs.
    Value measured =
        number(samples) > 0 ? Value{number(cell(overall, row, "mean_ms")) * number(samples) / 1e3} : Value{};
    std::string row_label = label;
    if (row_label.empty())  // the run itself: "resnet50 batch 8 eager fp32"
      row_label = fmt::format("{} batch {} {} {}", human_text(cell(overall, row, "model"), {}),
                              human_text(cell(overall, row, "batch"), {}), human_text(cell(overall, row, "mode"), {}),
                              human_text(cell(overall, row, "precision"), {}));
    t.add({row_label, cell(overall, row, "model"), cell(overall, row, "batch"), cell(overall, row, "precision"),
           cell(overall, row, "memory_format"), cell(overall, row, "throughput"), measured, samples});
  }
  return t;
}

Table benchmark_results_table(const Table& overall) {
  Table t;
  t.key = "benchmark_results";
  t.column({.key = "model"}).column({.key = "mode"}).column({.key = "batch"}).column({.key = "latency_ms"});
  for (const auto& row : overall.rows)
    t.add({cell(overall, row, "model"), cell(overall, row, "mode"), cell(overall, row, "batch"),
           cell(overall, row, "mean_ms")});
  return t;
}

void append_bench_csv(const std::string& directory, const std::vector<exec::BenchResult>& runs) {
  auto overall = overall_table(runs);
  append_csv_file(directory, "metrics.csv", metrics_table(overall, ""));
  append_csv_file(directory, "benchmark_results.csv", benchmark_results_table(overall));
  append_csv_file(directory, "overall.csv", overall);
  append_csv_file(directory, "layers.csv", layers_table(runs));
  append_csv_file(directory, "nodes.csv", node_times_table(runs));
}

}  // namespace ridge::report
