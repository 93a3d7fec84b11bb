#include "exec/bench_codec.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>

#include "util/error.h"
#include "util/file.h"
#include "util/json_reader.h"

namespace ridge::exec {
namespace {

using ordered = nlohmann::ordered_json;
using json = nlohmann::json;

using Reader = JsonReader;

Environment environment_of(const Reader& r) {
  Environment env;
  env.cpu_model = r.text("cpu", "");
  env.logical_cpus = static_cast<int>(r.count("logical_cpus", 0));
  env.threads = static_cast<int>(r.count("threads", 0));
  env.device = r.text("device", "cpu");
  env.torch_version = r.text("torch_version", "");
  env.backend_info = r.text("backend", "");
  env.ridge_version = r.text("ridge_version", "");
  env.ridge_revision = r.text("ridge_revision", "");
  // A CPU run used threads; a GPU run has none to speak of (0).
  if (env.threads < 0 || (env.threads == 0 && !on_gpu(env)))
    throw Error(
        fmt::format("{}.threads {} is not a positive integer (a CPU run records its threads)", r.where(), env.threads));
  return env;
}

ordered power_json(const BenchPower& p) {
  ordered out = ordered::object();
  out["source"] = p.source;
  out["measured"] = p.measured;
  if (p.measured) {
    out["mean_w"] = p.mean_w;
    out["energy_j"] = p.energy_j;
    out["energy_per_inference_j"] = p.energy_per_inference_j;
  }
  if (p.idle_w >= 0) out["idle_power_w"] = p.idle_w;
  out["dynamic_only"] = p.dynamic_only;
  out["window_s"] = p.window_s;
  out["samples"] = p.samples;
  return out;
}

BenchPower power_of(const Reader& r) {
  BenchPower p;
  p.source = r.text("source", "");
  p.measured = r.flag("measured", false);
  p.mean_w = r.number("mean_w", 0);
  p.energy_j = r.number("energy_j", 0);
  p.energy_per_inference_j = r.number("energy_per_inference_j", 0);
  p.idle_w = r.number("idle_power_w", -1);
  p.dynamic_only = r.flag("dynamic_only", false);
  p.window_s = r.number("window_s", 0);
  p.samples = r.count("samples", 0);
  return p;
}

ordered run_json(const BenchResult& r) {
  ordered out = ordered::object();
  out["batch"] = r.batch;
  out["input_size"] = r.input_size;
  out["mode"] = r.mode;
  out["precision"] = r.precision;
  out["memory_format"] = r.memory_format;
  out["conv_algo"] = r.conv_algo;
  out["training"] = r.training;
  if (r.training) {
    out["optimizer"] = r.optimizer;
    out["training_losses"] = r.training_losses;
  }
  const auto& l = r.latency_ms;
  out["latency_ms"] = {
      {"mean", l.mean}, {"std", l.stddev}, {"min", l.min}, {"median", l.median},
      {"p90", l.p90},   {"p99", l.p99},    {"max", l.max}, {"relative_standard_error", l.relative_standard_error}};
  out["throughput"] = r.throughput;
  out["samples"] = l.samples;
  if (r.power.measured) {
    out["power_mean_w"] = r.power.mean_w;
    out["energy_per_inference_j"] = r.power.energy_per_inference_j;
  }
  if (!r.power.source.empty()) out["power"] = power_json(r.power);
  out["warmup_runs"] = r.warmup_runs;
  out["stop_reason"] = r.stop_reason;
  out["executed_nodes"] = r.executed_nodes;
  if (r.host_enqueue_per_node_us >= 0) out["host_enqueue_per_node_us"] = r.host_enqueue_per_node_us;
  if (r.device_memory.peak_bytes >= 0) {
    out["device_memory"] = {{"peak_bytes", r.device_memory.peak_bytes},
                            {"weights_bytes", r.device_memory.weights_bytes},
                            {"workspace_bytes", r.device_memory.workspace_bytes},
                            {"reserved_bytes", r.device_memory.reserved_bytes}};
    if (r.device_memory.saved_bytes >= 0) {
      out["device_memory"]["saved_bytes"] = r.device_memory.saved_bytes;
      out["device_memory"]["optimizer_state_bytes"] = r.device_memory.optimizer_state_bytes;
    }
  }
  if (!r.nodes.empty())
    out["profile"] = {{"node_sum_ms", r.node_sum_ms},
                      {"profiled_run_ms", r.profiled_run_ms},
                      {"overhead_per_node_us", r.overhead_per_node_us}};
  ordered nodes = ordered::array();
  for (const auto& n : r.nodes) {
    ordered node = {{"name", n.name}, {"op", n.op_type}, {"mean_ms", n.mean_ms}};
    if (n.median_ms >= 0) node["median_ms"] = n.median_ms;
    // A training step's split is written only where it was measured (an inference node has no backward).
    if (n.forward_ms >= 0) node["forward_ms"] = n.forward_ms;
    if (n.backward_ms >= 0) node["backward_ms"] = n.backward_ms;
    node["percent"] = n.percent;
    node["in_channels"] = n.in_channels;
    node["out_channels"] = n.out_channels;
    node["kernel_size"] = n.kernel_size;
    node["algorithm"] = n.algorithm;
    node["predicted_flops"] = n.predicted_flops;
    node["workspace_bytes"] = n.workspace_bytes;
    nodes.push_back(std::move(node));
  }
  out["nodes"] = std::move(nodes);
  if (!r.nodes.empty()) {
    ordered ops = ordered::array();
    for (const auto& o : r.op_types)
      ops.push_back({{"op", o.op_type}, {"nodes", o.nodes}, {"total_ms", o.total_ms}, {"percent", o.percent}});
    out["op_types"] = std::move(ops);
  }
  out["notes"] = r.notes;
  if (!r.timestamp.empty()) out["timestamp"] = r.timestamp;
  return out;
}

BenchResult run_of(const Reader& r) {
  BenchResult out;
  out.batch = r.count("batch", 1);
  if (out.batch < 1) throw Error(fmt::format("{}.batch {} is not a positive integer", r.where(), out.batch));
  out.input_size = r.text("input_size", "");
  out.mode = r.text("mode", "eager");
  out.precision = r.text("precision", "fp32");
  out.memory_format = r.text("memory_format", "nchw");
  out.conv_algo = r.text("conv_algo", "auto");
  out.training = r.flag("training", false);
  out.optimizer = r.text("optimizer", "");
  for (const auto& loss : r.list("training_losses")) {
    if (!loss.is_number()) throw Error(fmt::format("{}.training_losses holds a value that is not a number", r.where()));
    out.training_losses.push_back(loss.get<double>());
  }
  auto latency = r.child("latency_ms");
  auto& l = out.latency_ms;
  // Every reader needs the mean or the median; hand-written files may give only one.
  if (!latency.has("mean") && !latency.has("median")) latency.at("median");
  l.mean = latency.non_negative("mean", latency.has("median") ? latency.number("median") : 0);
  l.stddev = latency.non_negative("std", 0);
  l.min = latency.non_negative("min", 0);
  l.median = latency.non_negative("median", l.mean);
  l.p90 = latency.non_negative("p90", 0);
  l.p99 = latency.non_negative("p99", 0);
  l.max = latency.non_negative("max", 0);
  l.relative_standard_error = latency.non_negative("relative_standard_error", 0);
  l.samples = r.count("samples", 0);
  out.throughput = r.number("throughput", 0);
  if (r.has("power")) out.power = power_of(r.child("power"));
  // The run's own energy figures: written beside the power record, or alone by other tools.
  if (r.has("energy_per_inference_j")) {
    out.power.measured = true;
    out.power.energy_per_inference_j = r.non_negative("energy_per_inference_j");
    out.power.mean_w = r.non_negative("power_mean_w", out.power.mean_w);
  }
  out.warmup_runs = r.number("warmup_runs", 0);
  out.stop_reason = r.text("stop_reason", "");
  out.executed_nodes = r.count("executed_nodes", 0);
  out.host_enqueue_per_node_us = r.number("host_enqueue_per_node_us", -1);
  if (r.has("device_memory")) {
    auto m = r.child("device_memory");
    out.device_memory = {m.count("peak_bytes", -1),      m.count("weights_bytes", -1),
                         m.count("workspace_bytes", -1), m.count("reserved_bytes", -1),
                         m.count("saved_bytes", -1),     m.count("optimizer_state_bytes", -1)};
  }
  if (r.has("profile")) {
    auto p = r.child("profile");
    out.node_sum_ms = p.number("node_sum_ms", 0);
    out.profiled_run_ms = p.number("profiled_run_ms", 0);
    out.overhead_per_node_us = p.number("overhead_per_node_us", 0);
  }
  const auto& nodes = r.list("nodes");
  for (size_t i = 0; i < nodes.size(); ++i) {
    Reader n(nodes[i], fmt::format("{}.nodes[{}]", r.where(), i));
    NodeTiming t;
    t.name = n.text("name", "");
    if (t.name.empty()) throw Error(fmt::format("{}.name is missing or empty", n.where()));
    t.op_type = n.text("op", "");
    t.mean_ms = n.non_negative("mean_ms");
    if (n.has("median_ms")) t.median_ms = n.non_negative("median_ms");
    if (n.has("forward_ms")) t.forward_ms = n.non_negative("forward_ms");
    if (n.has("backward_ms")) t.backward_ms = n.non_negative("backward_ms");
    t.percent = n.number("percent", 0);
    t.in_channels = n.count("in_channels", 0);
    t.out_channels = n.count("out_channels", 0);
    t.kernel_size = n.text("kernel_size", "");
    t.algorithm = n.text("algorithm", "");
    t.predicted_flops = n.count("predicted_flops", -1);
    t.workspace_bytes = n.count("workspace_bytes", -1);
    out.nodes.push_back(std::move(t));
  }
  const auto& ops = r.list("op_types");
  for (size_t i = 0; i < ops.size(); ++i) {
    Reader o(ops[i], fmt::format("{}.op_types[{}]", r.where(), i));
    out.op_types.push_back({o.text("op", ""), o.count("nodes", 0), o.number("total_ms", 0), o.number("percent", 0)});
  }
  for (const auto& note : r.list("notes")) {
    if (!note.is_string()) throw Error(fmt::format("{}.notes holds a value that is not a string", r.where()));
    out.notes.push_back(note.get<std::string>());
  }
  out.timestamp = r.text("timestamp", "");
  return out;
}

}  // namespace

bool on_gpu(const std::string& device) { return device.rfind("cuda", 0) == 0; }
bool on_gpu(const Environment& environment) { return on_gpu(environment.device); }

ordered encode_environment(const Environment& env) {
  return {{"cpu", env.cpu_model},
          {"logical_cpus", env.logical_cpus},
          {"threads", env.threads},
          {"device", env.device},
          {"torch_version", env.torch_version},
          {"backend", env.backend_info},
          {"ridge_version", env.ridge_version},
          {"ridge_revision", env.ridge_revision}};
}

ordered encode_bench(const std::vector<BenchResult>& runs) {
  ordered out = ordered::object();
  if (!runs.empty()) {
    const auto& first = runs.front();
    out["model"] = first.model;
    out["environment"] = encode_environment(first.environment);
    out["random_weights"] = first.random_weights;
    const auto& p = first.power;
    if (!p.source.empty())
      out["power"] = {{"source", p.source},
                      {"idle_power_w", p.idle_w >= 0 ? ordered(p.idle_w) : ordered()},
                      {"dynamic_only", p.dynamic_only}};
  }
  ordered list = ordered::array();
  std::vector<std::string> notes;  // each run's, once per file
  for (const auto& r : runs) {
    list.push_back(run_json(r));
    for (const auto& n : r.notes)
      if (std::find(notes.begin(), notes.end(), n) == notes.end()) notes.push_back(n);
  }
  out["runs"] = std::move(list);
  if (!notes.empty()) out["notes"] = notes;
  return out;
}

BenchFile decode_bench(const json& doc, const std::string& where) {
  if (!doc.is_object() || !doc.contains("runs"))
    throw Error(fmt::format("'{}' is not `ridge bench -f json` output: it has no runs[]", where));
  Reader root(doc, where);
  BenchFile file;
  auto model = root.text("model", "");
  if (model.empty()) throw Error(fmt::format("{}: model is missing or empty", where));
  auto environment = environment_of(root.child("environment"));
  bool random_weights = root.flag("random_weights", false);
  const auto& runs = root.list("runs");
  if (runs.empty()) throw Error(fmt::format("'{}' holds no runs", where));
  for (size_t i = 0; i < runs.size(); ++i) {
    auto run = run_of(Reader(runs[i], fmt::format("{}: runs[{}]", where, i)));
    run.model = model;
    run.environment = environment;
    run.random_weights = random_weights;
    file.runs.push_back(std::move(run));
  }
  for (const auto& note : root.list("notes"))
    if (note.is_string()) file.notes.push_back(note.get<std::string>());
  return file;
}

BenchFile parse_bench(std::string_view text, const std::string& where, const std::string& also) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception& e) {
    // "[json.exception.parse_error.101] parse error at line 1, ...": the part after the tag. A number too large
    // for a double is out_of_range.406, not a parse_error: any JSON exception is bad input.
    std::string why = e.what();
    if (auto tag_end = why.find("] "); tag_end != std::string::npos) why = why.substr(tag_end + 2);
    std::replace(why.begin(), why.end(), '\n', ' ');
    if (!also.empty())
      throw Error(fmt::format("'{}' is neither {} nor `ridge bench -f json` output: {}", where, also, why));
    throw Error(fmt::format("'{}' is not valid JSON: {}", where, why));
  }
  return decode_bench(doc, where);
}

BenchFile read_bench_file(const std::string& path, const std::string& also) {
  auto file = parse_bench(read_file(path), path, also);
  file.path = path;
  return file;
}

}  // namespace ridge::exec
