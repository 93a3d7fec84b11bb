#include "exec/cuda/bench.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <tuple>

#include "exec/bench_loop.h"
#include "exec/cuda/conv_plan.h"
#include "exec/cuda/interpreter.h"
#include "exec/cuda/training.h"
#include "exec/inlined_rows.h"
#include "sys/cuda/check.h"
#include "sys/cuda/event.h"
#include "sys/statistics.h"
#include "util/error.h"

namespace ridge::exec::cuda {

using sys::cuda::check;
using sys::cuda::Event;

namespace {

using Clock = std::chrono::steady_clock;

// One run of the model, eager or replayed from the CUDA graph captured from an eager run; with training, one
// training step, eager or replayed likewise (its loss kept).
class Runner {
 public:
  Runner(Interpreter& interp, Gpu& gpu, Mode mode, const TrainingOptions& training)
      : interp_(interp), gpu_(gpu), mode_(mode) {
    if (training.enabled) training_ = std::make_unique<TrainingStep>(interp, gpu, training);
  }
  ~Runner() {
    if (exec_) cudaGraphExecDestroy(exec_);
    if (graph_) cudaGraphDestroy(graph_);
  }
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;
  bool training() const { return training_ != nullptr; }
  TrainingStep* training_step() { return training_.get(); }
  const std::vector<double>& losses() const { return losses_; }

  // One run. `enqueued` (where given) is called once the run's work is on the stream and before anything waits for it:
  // a training step's loss is read back after it, so a timing's stop event is recorded there, not after the host's
  // wait.
  void run(const std::function<void()>& enqueued = {}) {
    auto done = [&] {
      if (enqueued) enqueued();
    };
    if (training_ && mode_ != Mode::kCudaGraph) {
      training_->enqueue();
      done();
      losses_.push_back(training_->finish());
      return;
    }
    if (training_) {
      if (!exec_) capture();
      check(cudaGraphLaunch(exec_, gpu_.stream()), "cudaGraphLaunch");
      done();
      losses_.push_back(training_->finish());
      return;
    }
    // Optimized mode replays its rewritten graph as a CUDA graph too: the fastest the executor runs a model.
    if (mode_ == Mode::kEager) {
      interp_.run();
      done();
      return;
    }
    if (!exec_) capture();
    check(cudaGraphLaunch(exec_, gpu_.stream()), "cudaGraphLaunch");
    done();
  }

 private:
  // Captured after warm-up: every algorithm is chosen, every workspace sized and every block the run
  // needs is in the allocator's cache, so the capture neither allocates nor synchronizes; the outputs
  // are held, so their blocks are not reused while the graph writes them. A training step is captured whole:
  // forward, loss, backward, the optimizer (its step count on the device) and the copy of the loss.
  void capture() {
    // An eager run first: algorithms chosen, workspaces sized, blocks cached.
    if (training_)
      training_->run();
    else
      interp_.run();
    check(cudaStreamSynchronize(gpu_.stream()), "cudaStreamSynchronize");
    check(cudaStreamBeginCapture(gpu_.stream(), cudaStreamCaptureModeRelaxed), "cudaStreamBeginCapture");
    try {
      if (training_)
        training_->enqueue();
      else
        outputs_ = interp_.run();
    } catch (...) {
      cudaGraph_t partial = nullptr;
      cudaStreamEndCapture(gpu_.stream(), &partial);
      if (partial) cudaGraphDestroy(partial);
      throw;
    }
    check(cudaStreamEndCapture(gpu_.stream(), &graph_), "cudaStreamEndCapture");
    check(cudaGraphInstantiate(&exec_, graph_, 0), "cudaGraphInstantiate");
  }

  Interpreter& interp_;
  Gpu& gpu_;
  Mode mode_;
  std::unique_ptr<TrainingStep> training_;
  std::vector<double> losses_;
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
  std::vector<GpuTensor> outputs_;
};

// Per node: an event pair around it, for `runs` runs; node times are the GPU time between the pair.
void profile_nodes(Interpreter& interp, Gpu& gpu, const BenchOptions& options, BenchResult& result) {
  const auto& g = interp.graph();
  std::vector<Event> before(g.nodes.size()), after(g.nodes.size());
  std::vector<double> node_ms(g.nodes.size(), 0);
  int64_t runs = std::clamp<int64_t>(result.latency_ms.samples, 3, 50), done = 0;
  double total_ms = 0;
  auto start = Clock::now();
  Event run_start, run_end;
  while (done < runs) {
    run_start.record(gpu.stream());
    interp.run([&](size_t n, bool is_after) { (is_after ? after : before)[n].record(gpu.stream()); });
    run_end.record(gpu.stream());
    run_end.wait();
    total_ms += run_end.since(run_start);
    for (size_t n = 0; n < g.nodes.size(); ++n)
      if (interp.executes(n)) node_ms[n] += after[n].since(before[n]);
    ++done;
    if (done >= 3 && std::chrono::duration<double>(Clock::now() - start).count() > options.stopping.max_seconds) break;
  }
  const auto& algorithms = interp.algorithms();
  std::vector<Origin> origin_of_row;
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    if (!interp.executes(n)) continue;
    origin_of_row.push_back(interp.origin(n));
    NodeTiming t;
    t.name = g.nodes[n].name;
    t.op_type = g.nodes[n].op_type;
    t.mean_ms = node_ms[n] / static_cast<double>(done);
    t.algorithm = algorithms[n].name;
    t.workspace_bytes = algorithms[n].workspace_bytes;
    describe_layer(g, g.nodes[n], t);
    result.nodes.push_back(std::move(t));
  }
  fold_inlined_rows(origin_of_row, result.nodes);
  summarize_profile(result, total_ms / 1e3, done);
}

// A training step's profile: per node, its forward and its backward between event pairs, summed (a node's share of
// the step, as the cost model predicts a node's training time); the loss and the optimizer update as two more
// rows, named as the prediction names its optimizer row.
void profile_training(TrainingStep& step, Interpreter& interp, Gpu& gpu, const BenchOptions& options,
                      BenchResult& result) {
  const auto& g = interp.graph();
  size_t count = g.nodes.size();
  std::vector<Event> forward_before(count), forward_after(count), backward_before(count), backward_after(count);
  Event loss_before, loss_after, optimizer_before, optimizer_after, run_start, run_end;
  std::vector<double> forward_ms(count, 0), backward_ms(count, 0);
  std::vector<bool> backward_ran(count, false);
  double loss_ms = 0, optimizer_ms = 0, total_ms = 0;
  int64_t runs = std::clamp<int64_t>(result.latency_ms.samples, 3, 20), done = 0;
  auto start = Clock::now();
  auto stream = gpu.stream();
  StepHook hook = [&](StepPhase phase, size_t n, bool after) {
    switch (phase) {
      case StepPhase::kForward:
        (after ? forward_after : forward_before)[n].record(stream);
        break;
      case StepPhase::kBackward:
        (after ? backward_after : backward_before)[n].record(stream);
        backward_ran[n] = true;
        break;
      case StepPhase::kLoss:
        (after ? loss_after : loss_before).record(stream);
        break;
      case StepPhase::kOptimizer:
        (after ? optimizer_after : optimizer_before).record(stream);
        break;
    }
  };
  while (done < runs) {
    std::fill(backward_ran.begin(), backward_ran.end(), false);
    run_start.record(stream);
    step.run(nullptr, hook);
    run_end.record(stream);
    run_end.wait();
    total_ms += run_end.since(run_start);
    for (size_t n = 0; n < count; ++n) {
      if (interp.executes(n)) forward_ms[n] += forward_after[n].since(forward_before[n]);
      if (backward_ran[n]) backward_ms[n] += backward_after[n].since(backward_before[n]);
    }
    loss_ms += loss_after.since(loss_before);
    optimizer_ms += optimizer_after.since(optimizer_before);
    ++done;
    if (done >= 3 && std::chrono::duration<double>(Clock::now() - start).count() > options.stopping.max_seconds) break;
  }
  std::vector<Origin> origin_of_row;
  for (size_t n = 0; n < count; ++n) {
    if (!interp.executes(n)) continue;
    origin_of_row.push_back(interp.origin(n));
    NodeTiming t;
    t.name = g.nodes[n].name;
    t.op_type = g.nodes[n].op_type;
    t.forward_ms = forward_ms[n] / static_cast<double>(done);
    t.backward_ms = backward_ms[n] / static_cast<double>(done);
    t.mean_ms = t.forward_ms + t.backward_ms;
    t.algorithm = interp.algorithms()[n].name;
    t.workspace_bytes = interp.algorithms()[n].workspace_bytes;
    describe_layer(g, g.nodes[n], t);
    result.nodes.push_back(std::move(t));
  }
  fold_inlined_rows(origin_of_row, result.nodes);
  for (const auto& [name, op, ms] :
       {std::tuple{"(loss)", "Loss", loss_ms}, {"(optimizer step)", "Optimizer", optimizer_ms}}) {
    NodeTiming t;
    t.name = name;
    t.op_type = op;
    t.mean_ms = ms / static_cast<double>(done);
    result.nodes.push_back(std::move(t));
  }
  summarize_profile(result, total_ms / 1e3, done);
  result.notes.push_back(
      "per-node times of a training step: each node's forward and backward, summed; the loss and the optimizer update "
      "are rows of their own");
}

// The algorithms that did not run as asked, named per layer (never skipped in silence).
void note_algorithms(const Interpreter& interp, BenchResult& result) {
  const auto& g = interp.graph();
  std::vector<std::string> layers;
  std::string first;
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    const auto& a = interp.algorithms()[n];
    if (a.note.empty()) continue;
    layers.push_back(g.nodes[n].name);
    if (first.empty()) first = a.note;
  }
  if (layers.empty()) return;
  std::string names;
  for (size_t i = 0; i < layers.size() && i < 8; ++i) names += (i ? ", " : "") + layers[i];
  if (layers.size() > 8) names += fmt::format(" and {} more", layers.size() - 8);
  result.notes.push_back(fmt::format("--conv-algo {}: {} convolution(s) ran another algorithm ({}); e.g. {}",
                                     result.conv_algo, layers.size(), names, first));
}

}  // namespace

void check_options(const ExecOptions& options, bool training) {
  check_device_options(Backend::kCuda, options.precision, name(options.cudnn_conv_algo), options.mode);
  if (training) check_training_options(options.mode);
}

BenchResult bench_model(Gpu& gpu, const graph::Model& model, const std::vector<HostTensor>& inputs,
                        const BenchOptions& options) {
  check_options(options.exec, options.training.enabled);
  BenchResult result;
  result.mode = name(options.exec.mode);
  result.precision = name(options.exec.precision);
  result.memory_format = name(options.exec.memory_format);
  result.conv_algo = name(options.exec.cudnn_conv_algo);
  result.training = options.training.enabled;
  result.optimizer = options.training.enabled ? std::string(cost::name(options.training.optimizer)) : "";
  gpu.allocator().reset_peak();
  Interpreter interp(model, gpu, options.exec);
  interp.set_inputs(inputs);
  result.random_weights = interp.random_weights();
  if (interp.random_weights())
    result.notes.push_back("random weights: the model file holds no weight values (outputs are not meaningful)");
  if (inputs.empty()) result.notes.push_back("inputs generated (normal noise; ids uniform below the table size)");
  result.executed_nodes = interp.executed_nodes();
  if (!interp.optimization().empty()) result.notes.push_back(interp.optimization());
  if (!interp.inlining().empty()) result.notes.push_back(interp.inlining());
  if (interp.folded_nodes() > 0)
    result.notes.push_back(
        fmt::format("{} node(s) of shape arithmetic folded into constants before the run", interp.folded_nodes()));

  Runner runner(interp, gpu, options.exec.mode, options.training);
  // After the runner: a training step plans the run's storage again (its values stay fp32; exec/cuda/interpreter.h).
  if (auto line = interp.storage().summary(); !line.empty()) result.notes.push_back(line);
  if (auto line = interp.storage().layout_summary(); !line.empty()) result.notes.push_back(line);
  if (runner.training() && is_fixed(options.exec.cudnn_conv_algo))
    result.notes.push_back(
        "the convolutions' backward runs cuDNN's heuristic algorithms (a named --conv-algo is a forward algorithm)");
  auto stream = gpu.stream();
  warm_up(
      [&] {
        runner.run();
        check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
      },
      options, result);
  Event start, stop;
  sys::RunningStats wall;
  std::vector<double> issue_ms;  // until runner.run() returns: the host's time to enqueue the run
  measure(
      [&] {
        auto wall_start = Clock::now();
        start.record(stream);
        runner.run([&] {
          issue_ms.push_back(std::chrono::duration<double>(Clock::now() - wall_start).count() * 1e3);
          stop.record(stream);
        });
        stop.wait();
        wall.add(std::chrono::duration<double>(Clock::now() - wall_start).count() * 1e3);
        return stop.since(start);
      },
      options, result);
  // CUDA events time the GPU's work between the markers; the host's clock adds the launches and the
  // synchronization. Both are kept, so a host-bound run shows.
  result.notes.push_back(
      fmt::format("CUDA-event times; wall clock per run (launch + synchronize) {:.3f} ms mean", wall.mean()));
  // What eager launching costs the host per node (issue 28's bar is 10 us): a training step's run waits for its
  // loss, and a CUDA graph is one launch, so neither has a per-node figure.
  if (options.exec.mode == Mode::kEager && !runner.training() && !issue_ms.empty() && result.executed_nodes > 0)
    result.host_enqueue_per_node_us = sys::median(issue_ms) * 1e3 / static_cast<double>(result.executed_nodes);
  if (runner.training()) {
    const auto& losses = runner.losses();
    auto samples = std::min<size_t>(static_cast<size_t>(result.latency_ms.samples), losses.size());
    result.training_losses.assign(losses.end() - static_cast<std::ptrdiff_t>(samples), losses.end());
  }
  if (auto* step = runner.training_step())
    if (auto line = step->layout_summary(); !line.empty()) result.notes.push_back(line);
  note_algorithms(interp, result);
  if (options.exec.profile_nodes) {
    if (auto* step = runner.training_step())
      profile_training(*step, interp, gpu, options, result);
    else
      profile_nodes(interp, gpu, options, result);
    if (options.exec.mode != Mode::kEager)
      result.notes.push_back("per-node times are from eager runs (a CUDA graph replays as one launch)");
  }
  const auto& memory = gpu.allocator();
  result.device_memory = {memory.peak_bytes(), interp.weight_bytes(), static_cast<int64_t>(gpu.workspace_bytes()),
                          memory.reserved_bytes()};
  if (auto* step = runner.training_step()) {
    result.device_memory.saved_bytes = step->saved_bytes();
    result.device_memory.optimizer_state_bytes = step->optimizer_state_bytes();
    result.notes.push_back(
        fmt::format("training: {:.1f} MB of activations kept for the backward, {:.1f} MB of {} state",
                    static_cast<double>(step->saved_bytes()) / 1e6,
                    static_cast<double>(step->optimizer_state_bytes()) / 1e6, result.optimizer));
  }
  result.notes.push_back(fmt::format(
      "GPU memory: peak {:.1f} MB in use (weights {:.1f} MB, largest convolution workspace {:.1f} MB), {:.1f} MB "
      "reserved",
      static_cast<double>(memory.peak_bytes()) / 1e6, static_cast<double>(interp.weight_bytes()) / 1e6,
      static_cast<double>(gpu.workspace_bytes()) / 1e6, static_cast<double>(memory.reserved_bytes()) / 1e6));
  return result;
}

}  // namespace ridge::exec::cuda
