#include "exec/bench_loop.h"

#include <algorithm>
#include <chrono>
#include <map>

#include "exec/op_table.h"

namespace ridge::exec {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

}  // namespace

// Warm-up: caches, allocator, oneDNN primitive creation, lazy weight casts.
void warm_up(const std::function<void()>& step, const BenchOptions& options, BenchResult& result) {
  auto warm_start = Clock::now();
  int64_t warm_runs = 0;
  while (warm_runs < options.min_warmup || seconds_since(warm_start) < options.warmup_seconds) {
    step();
    ++warm_runs;
    if (options.fixed_iterations > 0 && warm_runs >= options.min_warmup) break;
  }
  result.warmup_runs = static_cast<double>(warm_runs);
}

// Timed runs until the stopping rule (or the fixed iteration count) is met.
void measure(const std::function<double()>& timed_step, const BenchOptions& options, BenchResult& result) {
  std::vector<double> samples;
  sys::RunningStats running;
  auto measure_start = Clock::now();
  auto clock_s = [](Clock::time_point t) { return std::chrono::duration<double>(t.time_since_epoch()).count(); };
  result.timed_start_s = clock_s(measure_start);
  while (true) {
    double ms = timed_step();
    result.timed_end_s = clock_s(Clock::now());
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
  result.latency_ms = sys::summarize(samples);
}

// Layer descriptors for layers.csv: channels and kernel size of convolutions and matrix products.
void describe_layer(const graph::Graph& g, const graph::Node& node, NodeTiming& t) {
  auto dims = [&](size_t i) -> std::vector<int64_t> {
    auto id = node.input(i);
    if (id == graph::kNoValue || !g.value(id).has_shape || !graph::is_fully_known(g.value(id).shape)) return {};
    return graph::known_dims(g.value(id).shape);
  };
  const auto* row = node.is_default_domain() ? find_op(node.op_type) : nullptr;
  if (!row || !row->has(kLayer)) return;
  if (row->family == "conv") {
    auto w = dims(1);
    if (w.size() < 3) return;
    int64_t groups = node.get_int("group", 1);
    bool transposed = node.op_type == "ConvTranspose";
    t.in_channels = transposed ? w[0] : w[1] * groups;
    t.out_channels = transposed ? w[1] * groups : w[0];
    for (size_t i = 2; i < w.size(); ++i) t.kernel_size += (i > 2 ? "x" : "") + std::to_string(w[i]);
  } else {  // Gemm, MatMul
    auto b = dims(1);
    if (b.size() < 2) return;
    bool trans = node.op_type == "Gemm" && node.get_int("transB", 0);
    t.in_channels = trans ? b[b.size() - 1] : b[b.size() - 2];
    t.out_channels = trans ? b[b.size() - 2] : b[b.size() - 1];
  }
}

// Per-node and per-op-type shares of the summed node times, and the interpreter's overhead per node.
void summarize_profile(BenchResult& result, double profiled_total, int64_t runs) {
  double node_sum = 0;
  for (const auto& t : result.nodes) node_sum += t.mean_ms;
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
  result.profiled_run_ms = profiled_total / static_cast<double>(runs) * 1e3;
  if (!result.nodes.empty())
    result.overhead_per_node_us =
        (result.profiled_run_ms - node_sum) * 1e3 / static_cast<double>(result.executed_nodes);
}

}  // namespace ridge::exec
