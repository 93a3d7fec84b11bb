#include "exec/aten/bench.h"

#include <ATen/Parallel.h>
#include <ATen/autocast_mode.h>
#include <fmt/format.h>

#include <chrono>
#include <map>

#include "exec/aten/optimize.h"
#include "exec/aten/training.h"
#include "util/error.h"

namespace ridge::exec::aten {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// Layer descriptors for layers.csv: channels and kernel size of convolutions and matrix products.
void describe_layer(const graph::Graph& g, const graph::Node& node, NodeTiming& t) {
  auto dims = [&](size_t i) -> std::vector<int64_t> {
    auto id = node.input(i);
    if (id == graph::kNoValue || !g.value(id).has_shape || !graph::is_fully_known(g.value(id).shape)) return {};
    return graph::known_dims(g.value(id).shape);
  };
  if (node.op_type == "Conv" || node.op_type == "ConvTranspose") {
    auto w = dims(1);
    if (w.size() < 3) return;
    int64_t groups = node.get_int("group", 1);
    bool transposed = node.op_type == "ConvTranspose";
    t.in_channels = transposed ? w[0] : w[1] * groups;
    t.out_channels = transposed ? w[1] * groups : w[0];
    for (size_t i = 2; i < w.size(); ++i) t.kernel_size += (i > 2 ? "x" : "") + std::to_string(w[i]);
  } else if (node.op_type == "Gemm" || node.op_type == "MatMul") {
    auto b = dims(1);
    if (b.size() < 2) return;
    bool trans = node.op_type == "Gemm" && node.get_int("transB", 0);
    t.in_channels = trans ? b[b.size() - 1] : b[b.size() - 2];
    t.out_channels = trans ? b[b.size() - 2] : b[b.size() - 1];
  }
}

}  // namespace

ExecutionScope::ExecutionScope(const ExecOptions& options) {
  if (options.device != "cpu") {
    if (options.device == "cuda" && !at::hasCUDA())
      throw Error("--device cuda: this libtorch was built without CUDA (Debian's libtorch is CPU-only)");
    throw Error(fmt::format("--device {}: the executor runs on the CPU only", options.device));
  }
  if (options.threads > 0) at::set_num_threads(options.threads);
  if (options.precision == "bf16") {
    at::autocast::set_cpu_enabled(true);
    at::autocast::set_autocast_cpu_dtype(at::kBFloat16);
    autocast_ = true;
  } else if (options.precision != "fp32") {
    throw Error(fmt::format("unknown precision '{}' (fp32 or bf16)", options.precision));
  }
}

ExecutionScope::~ExecutionScope() {
  if (autocast_) {
    at::autocast::set_cpu_enabled(false);
    at::autocast::clear_cache();
  }
}

void apply_memory_format(Interpreter& interp, std::vector<at::Tensor>& inputs) {
  const auto& format = interp.options().memory_format;
  if (format == "nchw") return;
  if (format != "channels-last") throw Error(fmt::format("unknown memory format '{}' (nchw or channels-last)", format));
  for (auto& t : inputs)
    if (t.dim() == 4 && at::isFloatingType(t.scalar_type())) t = t.contiguous(at::MemoryFormat::ChannelsLast);
  const auto& g = interp.graph();
  auto& constants = interp.constants(g);
  for (const auto& node : g.nodes)
    if (node.op_type == "Conv" && node.input(1) != graph::kNoValue) {
      auto& w = constants[static_cast<size_t>(node.input(1))];
      if (w.defined() && w.dim() == 4) w = w.contiguous(at::MemoryFormat::ChannelsLast);
    }
}

BenchResult bench_model(const graph::Model& model, const std::vector<at::Tensor>& given_inputs,
                        const BenchOptions& options) {
  ExecutionScope scope(options.exec);
  Interpreter interp(model, options.exec);
  BenchResult result;
  result.mode = options.exec.mode;
  result.precision = options.exec.precision;
  result.memory_format = options.exec.memory_format;
  result.conv_algo = options.exec.conv_algo;
  result.training = options.training.enabled;
  result.optimizer = options.training.enabled ? options.training.optimizer : "";
  if (options.exec.mode == "optimized") {
    if (options.training.enabled) throw Error("--mode optimized is for inference; train with --mode eager");
    result.notes.push_back(optimize(interp).summary());
  } else if (options.exec.mode != "eager") {
    throw Error(fmt::format("unknown mode '{}' (eager or optimized)", options.exec.mode));
  }
  std::vector<at::Tensor> inputs = given_inputs.empty() ? interp.generate_inputs() : given_inputs;
  interp.check_inputs(inputs);
  result.executed_nodes = static_cast<int64_t>(interp.graph().nodes.size());
  apply_memory_format(interp, inputs);
  result.random_weights = interp.random_weights();
  for (const auto& note : interp.notes()) result.notes.push_back(note);
  if (given_inputs.empty()) result.notes.push_back("inputs generated (normal noise; ids uniform below the table size)");

  std::unique_ptr<TrainingStep> training;
  if (options.training.enabled) training = std::make_unique<TrainingStep>(interp, options.training);
  std::vector<double> losses;
  auto step = [&](const NodeObserver& observer) {
    if (training) {
      losses.push_back(training->run(inputs));
      return;
    }
    at::NoGradGuard no_grad;
    interp.run(inputs, observer);
  };

  // Warm-up: caches, allocator, oneDNN primitive creation, lazy weight casts.
  auto warm_start = Clock::now();
  int64_t warm_runs = 0;
  while (warm_runs < options.min_warmup || seconds_since(warm_start) < options.warmup_seconds) {
    step({});
    ++warm_runs;
    if (options.fixed_iterations > 0 && warm_runs >= options.min_warmup) break;
  }
  result.warmup_runs = static_cast<double>(warm_runs);

  std::vector<double> samples;
  RunningStats running;
  auto measure_start = Clock::now();
  while (true) {
    auto start = Clock::now();
    step({});
    double ms = seconds_since(start) * 1e3;
    samples.push_back(ms);
    running.add(ms);
    if (options.fixed_iterations > 0) {
      if (static_cast<int64_t>(samples.size()) >= options.fixed_iterations) {
        result.stop_reason = "fixed iterations";
        break;
      }
      continue;
    }
    if (const char* reason = options.stopping.stop_reason(running, seconds_since(measure_start))) {
      result.stop_reason = reason;
      break;
    }
  }
  result.latency_ms = summarize(samples);
  if (training) result.training_losses.assign(losses.end() - static_cast<int64_t>(samples.size()), losses.end());

  // Per-node profile (inference: a separate pass, so the clock reads do not disturb the timings above).
  if (options.exec.profile_nodes && !training) {
    const auto& g = interp.graph();
    std::vector<double> node_seconds(g.nodes.size(), 0);
    std::vector<std::string> algorithms(g.nodes.size());
    NodeObserver observer = [&](size_t n, double s, const std::string& algorithm) {
      node_seconds[n] += s;
      if (!algorithm.empty()) algorithms[n] = algorithm;
    };
    int64_t runs = std::clamp<int64_t>(result.latency_ms.samples, 3, 50);
    double profiled_total = 0;
    auto budget_start = Clock::now();
    int64_t done = 0;
    while (done < runs) {
      auto start = Clock::now();
      step(observer);
      profiled_total += seconds_since(start);
      ++done;
      if (done >= 3 && seconds_since(budget_start) > options.stopping.max_seconds) break;
    }
    double node_sum = 0;
    for (size_t n = 0; n < g.nodes.size(); ++n) {
      NodeTiming t;
      t.name = g.nodes[n].name;
      t.op_type = g.nodes[n].op_type;
      t.mean_ms = node_seconds[n] / static_cast<double>(done) * 1e3;
      t.algorithm = algorithms[n];
      describe_layer(g, g.nodes[n], t);
      node_sum += t.mean_ms;
      result.nodes.push_back(std::move(t));
    }
    std::map<std::string, OpTypeTiming> by_type;
    for (auto& t : result.nodes) {
      t.percent = node_sum > 0 ? 100 * t.mean_ms / node_sum : 0;
      auto& o = by_type[t.op_type];
      o.op_type = t.op_type;
      ++o.nodes;
      o.total_ms += t.mean_ms;
    }
    for (auto& [op, o] : by_type) {
      o.percent = node_sum > 0 ? 100 * o.total_ms / node_sum : 0;
      result.op_types.push_back(o);
    }
    std::sort(result.op_types.begin(), result.op_types.end(),
              [](const auto& a, const auto& b) { return a.total_ms > b.total_ms; });
    result.node_sum_ms = node_sum;
    result.profiled_run_ms = profiled_total / static_cast<double>(done) * 1e3;
    if (!g.nodes.empty())
      result.overhead_per_node_us =
          (result.profiled_run_ms - node_sum) * 1e3 / static_cast<double>(result.executed_nodes);
  }
  return result;
}

}  // namespace ridge::exec::aten
