#include "report/bench_report.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "report/format.h"
#include "report/text_table.h"
#include "util/error.h"

namespace ridge::report {

namespace {

std::string run_label(const exec::BenchResult& r) {
  std::string label = fmt::format("batch {}, {}, {}", r.batch, r.mode, r.precision);
  if (r.memory_format != "nchw") label += ", " + r.memory_format;
  if (r.conv_algo != "auto") label += ", conv " + r.conv_algo;
  if (r.training) label += ", training (" + r.optimizer + ")";
  if (!r.input_size.empty()) label += ", input " + r.input_size;
  return label;
}

}  // namespace

void write_bench_table(std::ostream& out, const std::vector<exec::BenchResult>& runs, int top_nodes) {
  if (runs.empty()) return;
  const auto& env = runs.front().environment;
  fmt::print(out, "model: {}\n", runs.front().model);
  fmt::print(out, "environment: {} ({} logical CPUs), {} threads, libtorch {}, {}; ridge {} ({})\n", env.cpu_model,
             env.logical_cpus, env.threads, env.torch_version, env.backend_info, env.ridge_version, env.ridge_revision);
  if (runs.front().random_weights) fmt::print(out, "weights: RANDOM (the model file holds none)\n");
  fmt::print(out, "\n");
  TextTable summary({"run", "mean ms", "std ms", "min ms", "median ms", "p90 ms", "p99 ms", "max ms", "samples/s",
                     "runs", "stopped by"});
  for (const auto& r : runs) {
    const auto& l = r.latency_ms;
    summary.add_row({run_label(r), fixed(l.mean, 3), fixed(l.stddev, 3), fixed(l.min, 3), fixed(l.median, 3),
                     fixed(l.p90, 3), fixed(l.p99, 3), fixed(l.max, 3), fixed(r.throughput, 1),
                     std::to_string(l.samples), r.stop_reason});
  }
  summary.print(out);
  for (const auto& r : runs)
    if (r.training && !r.training_losses.empty())
      fmt::print(out, "training loss (mean square of the outputs), {}: {:.6g} -> {:.6g} over {} steps\n", run_label(r),
                 r.training_losses.front(), r.training_losses.back(), r.training_losses.size());
  for (const auto& r : runs) {
    if (r.nodes.empty()) continue;
    fmt::print(
        out, "\nper op type ({}): {} nodes, node sum {:.3f} ms of a {:.3f} ms profiled run; overhead {:.2f} us/node\n",
        run_label(r), r.executed_nodes, r.node_sum_ms, r.profiled_run_ms, r.overhead_per_node_us);
    TextTable ops({"op", "nodes", "total ms", "%"});
    for (const auto& o : r.op_types)
      ops.add_row({o.op_type, std::to_string(o.nodes), fixed(o.total_ms, 3), fixed(o.percent, 1)});
    ops.print(out);
    if (top_nodes > 0) {
      auto nodes = r.nodes;
      std::sort(nodes.begin(), nodes.end(), [](const auto& a, const auto& b) { return a.mean_ms > b.mean_ms; });
      if (static_cast<int>(nodes.size()) > top_nodes) nodes.resize(static_cast<size_t>(top_nodes));
      fmt::print(out, "\nslowest {} nodes:\n", nodes.size());
      TextTable table({"node", "op", "ms", "%", "algorithm"});
      for (const auto& n : nodes)
        table.add_row({n.name, n.op_type, fixed(n.mean_ms, 4), fixed(n.percent, 1), n.algorithm});
      table.print(out);
    }
  }
  std::vector<std::string> notes;
  for (const auto& r : runs)
    for (const auto& n : r.notes)
      if (std::find(notes.begin(), notes.end(), n) == notes.end()) notes.push_back(n);
  if (!notes.empty()) fmt::print(out, "\n");
  for (const auto& n : notes) fmt::print(out, "note: {}\n", n);
}

void write_bench_json(std::ostream& out, const std::vector<exec::BenchResult>& runs) {
  nlohmann::ordered_json doc;
  if (!runs.empty()) {
    const auto& env = runs.front().environment;
    doc["model"] = runs.front().model;
    doc["environment"] = {{"cpu", env.cpu_model},
                          {"logical_cpus", env.logical_cpus},
                          {"threads", env.threads},
                          {"device", env.device},
                          {"torch_version", env.torch_version},
                          {"backend", env.backend_info},
                          {"ridge_version", env.ridge_version},
                          {"ridge_revision", env.ridge_revision}};
    doc["random_weights"] = runs.front().random_weights;
  }
  doc["runs"] = nlohmann::ordered_json::array();
  for (const auto& r : runs) {
    nlohmann::ordered_json j;
    j["batch"] = r.batch;
    j["input_size"] = r.input_size;
    j["mode"] = r.mode;
    j["precision"] = r.precision;
    j["memory_format"] = r.memory_format;
    j["conv_algo"] = r.conv_algo;
    j["training"] = r.training;
    if (r.training) {
      j["optimizer"] = r.optimizer;
      j["training_losses"] = r.training_losses;
    }
    const auto& l = r.latency_ms;
    j["latency_ms"] = {
        {"mean", l.mean}, {"std", l.stddev}, {"min", l.min}, {"median", l.median},
        {"p90", l.p90},   {"p99", l.p99},    {"max", l.max}, {"relative_standard_error", l.relative_standard_error}};
    j["throughput"] = r.throughput;
    j["samples"] = l.samples;
    j["warmup_runs"] = r.warmup_runs;
    j["stop_reason"] = r.stop_reason;
    j["executed_nodes"] = r.executed_nodes;
    if (!r.nodes.empty())
      j["profile"] = {{"node_sum_ms", r.node_sum_ms},
                      {"profiled_run_ms", r.profiled_run_ms},
                      {"overhead_per_node_us", r.overhead_per_node_us}};
    j["nodes"] = nlohmann::ordered_json::array();
    for (const auto& n : r.nodes)
      j["nodes"].push_back({{"name", n.name},
                            {"op", n.op_type},
                            {"mean_ms", n.mean_ms},
                            {"percent", n.percent},
                            {"in_channels", n.in_channels},
                            {"out_channels", n.out_channels},
                            {"kernel_size", n.kernel_size},
                            {"algorithm", n.algorithm},
                            {"predicted_flops", n.predicted_flops},
                            {"workspace_bytes", n.workspace_bytes}});
    j["op_types"] = nlohmann::ordered_json::array();
    for (const auto& o : r.op_types)
      j["op_types"].push_back(
          {{"op", o.op_type}, {"nodes", o.nodes}, {"total_ms", o.total_ms}, {"percent", o.percent}});
    j["notes"] = r.notes;
    doc["runs"].push_back(std::move(j));
  }
  out << doc.dump(2) << "\n";
}

void write_overall_csv(std::ostream& out, const std::vector<exec::BenchResult>& runs) {
  fmt::print(out,
             "model,algorithm,input_size,batch,mode,precision,training,mean_ms,std_ms,min_ms,max_ms,median_ms,p99_ms,"
             "samples,throughput,power_w,energy_j\n");
  for (const auto& r : runs) {
    const auto& l = r.latency_ms;
    fmt::print(out, "{},{},{},{},{},{},{},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},{},{:.3f},,\n", csv_field(r.model),
               r.conv_algo, csv_field(r.input_size), r.batch, r.mode, r.precision, r.training ? 1 : 0, l.mean, l.stddev,
               l.min, l.max, l.median, l.p99, l.samples, r.throughput);
  }
}

void write_layers_csv(std::ostream& out, const std::vector<exec::BenchResult>& runs) {
  fmt::print(out,
             "batch,input_size,mode,algorithm,layer,op,in_channels,out_channels,kernel_size,mean_ms,percentage,"
             "predicted_flops,workspace_bytes,achieved_gflops\n");
  auto optional = [](int64_t v) { return v < 0 ? std::string() : std::to_string(v); };
  for (const auto& r : runs)
    for (const auto& n : r.nodes) {
      std::string achieved = n.predicted_flops > 0 && n.mean_ms > 0
                                 ? fmt::format("{:.3f}", static_cast<double>(n.predicted_flops) / n.mean_ms / 1e6)
                                 : "";
      fmt::print(out, "{},{},{},{},{},{},{},{},{},{:.6f},{:.3f},{},{},{}\n", r.batch, csv_field(r.input_size), r.mode,
                 n.algorithm.empty() ? "" : n.algorithm, csv_field(n.name), n.op_type, n.in_channels, n.out_channels,
                 n.kernel_size, n.mean_ms, n.percent, optional(n.predicted_flops), optional(n.workspace_bytes),
                 achieved);
    }
}

void write_node_times_csv(std::ostream& out, const exec::BenchResult& run) {
  fmt::print(out, "node,op,mean_ms,seconds\n");
  for (const auto& n : run.nodes)
    fmt::print(out, "{},{},{:.6f},{:.9g}\n", csv_field(n.name), n.op_type, n.mean_ms, n.mean_ms / 1e3);
}

void write_bench_csv_dir(const std::string& directory, const std::vector<exec::BenchResult>& runs) {
  std::error_code ec;
  std::filesystem::create_directories(directory, ec);
  if (ec) throw Error(fmt::format("cannot create '{}': {}", directory, ec.message()));
  auto open = [&](const char* name) {
    auto path = std::filesystem::path(directory) / name;
    std::ofstream file(path);
    if (!file) throw Error(fmt::format("cannot write '{}'", path.string()));
    return file;
  };
  auto overall = open("overall.csv");
  write_overall_csv(overall, runs);
  auto layers = open("layers.csv");
  write_layers_csv(layers, runs);
  if (!runs.empty()) {
    auto nodes = open("nodes.csv");
    write_node_times_csv(nodes, runs.front());
  }
}

}  // namespace ridge::report
