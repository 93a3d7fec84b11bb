#include "exec/aten/benchmarking/bench.h"

#include <ATen/Parallel.h>
#include <ATen/autocast_mode.h>
#include <fmt/format.h>

#include <chrono>
#include <map>
#include <tuple>

#include "exec/aten/passes/optimize.h"
#include "exec/aten/training.h"
#include "exec/bench_loop.h"
#include "exec/op_table.h"
#include "util/error.h"

namespace ridge::exec::aten {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

}  // namespace

ExecutionScope::ExecutionScope(const ExecOptions& options) {
  if (options.device != Backend::kCpu)
    throw Error(fmt::format("--device {}: the ATen executor runs on the CPU; the GPU has its own module",
                            name(options.device)));
  check_device_options(options.device, options.precision, {}, options.mode);
  if (options.threads > 0) at::set_num_threads(options.threads);
  if (options.precision == Precision::kBf16) {
    at::autocast::set_cpu_enabled(true);
    at::autocast::set_autocast_cpu_dtype(at::kBFloat16);
    autocast_ = true;
  }
}

ExecutionScope::~ExecutionScope() {
  if (autocast_) {
    at::autocast::set_cpu_enabled(false);
    at::autocast::clear_cache();
  }
}

void apply_memory_format(Interpreter& interp, std::vector<at::Tensor>& inputs) {
  if (interp.options().memory_format != MemoryFormat::kChannelsLast) return;
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

namespace {

// One run of the model: an inference pass without gradients, or a training step (its loss kept).
class Step {
 public:
  Step(Interpreter& interp, const TrainingOptions& training, std::vector<at::Tensor>& inputs)
      : interp_(interp), inputs_(inputs) {
    if (training.enabled) training_ = std::make_unique<TrainingStep>(interp, training);
  }
  void operator()(const NodeObserver& observer) {
    if (training_) {
      losses_.push_back(training_->run(inputs_));
      return;
    }
    at::NoGradGuard no_grad;
    interp_.run(inputs_, observer);
  }
  bool training() const { return training_ != nullptr; }
  const std::vector<double>& losses() const { return losses_; }
  // A training step with its time split per node (forward and backward), the loss and the optimizer.
  void profiled_step(TrainingStep::Profile& profile) { losses_.push_back(training_->run(inputs_, nullptr, &profile)); }

 private:
  Interpreter& interp_;
  std::vector<at::Tensor>& inputs_;
  std::unique_ptr<TrainingStep> training_;
  std::vector<double> losses_;
};

// The result's description of the run, and the graph rewrites of optimized mode.
void prepare_run(Interpreter& interp, const BenchOptions& options, BenchResult& result) {
  result.mode = name(options.exec.mode);
  result.precision = name(options.exec.precision);
  result.memory_format = name(options.exec.memory_format);
  result.conv_algo = name(options.exec.conv_algo);
  result.training = options.training.enabled;
  result.optimizer = options.training.enabled ? std::string(cost::name(options.training.optimizer)) : "";
  if (options.training.enabled) check_training_options(options.exec.mode);
  if (options.exec.mode == Mode::kOptimized) {
    result.notes.push_back(optimize(interp).summary());
  }
}

// Warm-up: caches, allocator, oneDNN primitive creation, lazy weight casts.
void warm_up(Step& step, const BenchOptions& options, BenchResult& result) {
  exec::warm_up([&] { step({}); }, options, result);
}

// Timed runs (wall clock: the executor runs synchronously on the CPU).
void measure(Step& step, const BenchOptions& options, BenchResult& result) {
  exec::measure(
      [&] {
        auto start = Clock::now();
        step({});
        return std::chrono::duration<double>(Clock::now() - start).count() * 1e3;
      },
      options, result);
  const auto& losses = step.losses();
  auto samples = result.latency_ms.samples;
  if (step.training()) result.training_losses.assign(losses.end() - samples, losses.end());
}

// The profile's own passes, apart from the timed runs (its clock reads would disturb them): up to `most` runs, at
// least three, within the time budget. Returns the runs done; their wall time is added to `total_s`.
template <class Run>
int64_t profile_passes(int64_t most, const BenchOptions& options, double& total_s, Run run) {
  auto budget_start = Clock::now();
  int64_t done = 0;
  while (done < most) {
    auto start = Clock::now();
    run();
    total_s += seconds_since(start);
    ++done;
    if (done >= 3 && seconds_since(budget_start) > options.stopping.max_seconds) break;
  }
  return done;
}

// Per-node profile of an inference: each node's mean and median over the passes.
void profile_nodes(Step& step, const Interpreter& interp, const BenchOptions& options, BenchResult& result) {
  const auto& g = interp.graph();
  std::vector<std::vector<double>> pass_seconds;  // per pass, per node
  std::vector<std::string> algorithms(g.nodes.size());
  NodeObserver observer = [&](size_t n, double s, const std::string& algorithm) {
    pass_seconds.back()[n] += s;
    if (!algorithm.empty()) algorithms[n] = algorithm;
  };
  double profiled_total = 0;
  auto done = profile_passes(std::clamp<int64_t>(result.latency_ms.samples, 3, 50), options, profiled_total, [&] {
    pass_seconds.emplace_back(g.nodes.size(), 0.0);
    step(observer);
  });
  std::vector<double> times(pass_seconds.size());
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    NodeTiming t;
    t.name = g.nodes[n].name;
    t.op_type = g.nodes[n].op_type;
    double sum = 0;
    for (size_t p = 0; p < pass_seconds.size(); ++p) sum += times[p] = pass_seconds[p][n];
    t.mean_ms = sum / static_cast<double>(done) * 1e3;
    t.median_ms = sys::summarize(times).median * 1e3;
    t.algorithm = algorithms[n];
    describe_layer(g, g.nodes[n], t);
    result.nodes.push_back(std::move(t));
  }
  summarize_profile(result, profiled_total, done);
}

// A training step's profile: per node its forward and the backward of what its forward recorded (mean_ms is
// their sum, as the cost model predicts a node's share of a step); the loss, the gradients' accumulation into the
// weights and the optimizer update as rows of their own, the last named as the prediction names its row.
void profile_training(Step& step, const Interpreter& interp, const BenchOptions& options, BenchResult& result) {
  const auto& g = interp.graph();
  TrainingStep::Profile profile;
  double profiled_total = 0;
  auto done = profile_passes(std::clamp<int64_t>(result.latency_ms.samples, 3, 20), options, profiled_total,
                             [&] { step.profiled_step(profile); });
  auto mean_ms = [&](double seconds) { return seconds / static_cast<double>(done) * 1e3; };
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    NodeTiming t;
    t.name = g.nodes[n].name;
    t.op_type = g.nodes[n].op_type;
    t.forward_ms = mean_ms(profile.forward_s[n]);
    t.backward_ms = mean_ms(profile.backward_s[n]);
    t.mean_ms = t.forward_ms + t.backward_ms;
    describe_layer(g, g.nodes[n], t);
    result.nodes.push_back(std::move(t));
  }
  for (const auto& [name, op, seconds] : {std::tuple{"(loss)", "Loss", profile.loss_s},
                                          {"(gradient accumulation)", "AccumulateGrad", profile.accumulate_s},
                                          {"(optimizer step)", "Optimizer", profile.optimizer_s}}) {
    NodeTiming t;
    t.name = name;
    t.op_type = op;
    t.mean_ms = mean_ms(seconds);
    result.nodes.push_back(std::move(t));
  }
  summarize_profile(result, profiled_total, done);
  result.notes.push_back(
      "per-node times of a training step: each node's forward and the backward of what it computed, summed; the loss, "
      "the weights' gradient accumulation and the optimizer update are rows of their own");
}

}  // namespace

BenchResult bench_model(const graph::Model& model, const std::vector<at::Tensor>& given_inputs,
                        const BenchOptions& options) {
  ExecutionScope scope(options.exec);
  Interpreter interp(model, options.exec);
  BenchResult result;
  prepare_run(interp, options, result);
  std::vector<at::Tensor> inputs = given_inputs.empty() ? interp.generate_inputs() : given_inputs;
  interp.check_inputs(inputs);
  result.executed_nodes = static_cast<int64_t>(interp.graph().nodes.size());
  apply_memory_format(interp, inputs);
  result.random_weights = interp.random_weights();
  for (const auto& note : interp.notes()) result.notes.push_back(note);
  if (given_inputs.empty()) result.notes.push_back("inputs generated (normal noise; ids uniform below the table size)");

  Step step(interp, options.training, inputs);
  warm_up(step, options, result);
  measure(step, options, result);
  if (options.exec.profile_nodes) {
    if (step.training())
      profile_training(step, interp, options, result);
    else
      profile_nodes(step, interp, options, result);
  }
  return result;
}

}  // namespace ridge::exec::aten
