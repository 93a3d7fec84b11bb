#include "exec/aten/training.h"

#include <ATen/SequenceNumber.h>
#include <ATen/record_function.h>
#include <fmt/format.h>
#include <torch/optim.h>

#include <algorithm>
#include <atomic>
#include <chrono>

#include "util/error.h"

namespace ridge::exec::aten {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// Where the running backward's functions are added up. Autograd numbers every function it records in the forward
// from one per-thread counter (at::sequence_number), and its engine reports each backward function it runs, with
// that number, to RecordFunction's callbacks: a function's time belongs to the graph node whose forward was
// running when the number was drawn. The callbacks are plain function pointers, hence the global; one step is
// profiled at a time.
struct BackwardTimes {
  uint64_t first = 0;          // the counter when the step's forward began
  std::vector<uint64_t> ends;  // ends[n]: the counter after node n's forward (ascending)
  uint64_t loss_end = 0;       // ... after the loss
  TrainingStep::Profile* profile = nullptr;
};
std::atomic<BackwardTimes*> running_backward{nullptr};

struct Started : at::ObserverContext {
  Clock::time_point start = Clock::now();
};

std::unique_ptr<at::ObserverContext> backward_function_started(const at::RecordFunction&) {
  return std::make_unique<Started>();
}

void backward_function_ended(const at::RecordFunction& function, at::ObserverContext* context) {
  auto* times = running_backward.load();
  if (!times || !context) return;
  double s = seconds_since(static_cast<Started*>(context)->start);
  // AccumulateGrad, which adds a weight's gradient into .grad, carries no number (UINT64_MAX).
  auto number = static_cast<uint64_t>(function.seqNr());
  auto& p = *times->profile;
  auto node = std::upper_bound(times->ends.begin(), times->ends.end(), number);
  if (number >= times->first && node != times->ends.end())
    p.backward_s[static_cast<size_t>(node - times->ends.begin())] += s;
  else if (number >= times->first && number < times->loss_end)
    p.loss_s += s;
  else
    p.accumulate_s += s;
}

// The callbacks, registered for the backward's functions only while a profiled backward runs.
class BackwardProfiler {
 public:
  explicit BackwardProfiler(BackwardTimes& times) {
    running_backward.store(&times);
    handle_ = at::addGlobalCallback(at::RecordFunctionCallback(backward_function_started, backward_function_ended)
                                        .scopes({at::RecordScope::BACKWARD_FUNCTION}));
  }
  ~BackwardProfiler() {
    at::removeCallback(handle_);
    running_backward.store(nullptr);
  }
  BackwardProfiler(const BackwardProfiler&) = delete;
  BackwardProfiler& operator=(const BackwardProfiler&) = delete;

 private:
  at::CallbackHandle handle_;
};

}  // namespace

struct TrainingStep::State {
  std::vector<at::Tensor> parameters;
  std::vector<graph::ValueId> ids;  // of each parameter
  std::unique_ptr<torch::optim::Optimizer> optimizer;
};

TrainingStep::TrainingStep(Interpreter& interpreter, const TrainingOptions& options)
    : interpreter_(interpreter), state_(std::make_unique<State>()) {
  for (auto& [id, tensor] : interpreter.trainable_weights()) {
    tensor->set_requires_grad(true);
    state_->parameters.push_back(*tensor);
    state_->ids.push_back(id);
  }
  if (state_->parameters.empty()) throw Error("training: the model has no float weights to train");
  // The same three optimizers the cost model counts: plain SGD, SGD with momentum (0.9), Adam.
  if (options.optimizer == cost::Optimizer::kAdam)
    state_->optimizer =
        std::make_unique<torch::optim::Adam>(state_->parameters, torch::optim::AdamOptions(options.learning_rate));
  else
    state_->optimizer = std::make_unique<torch::optim::SGD>(
        state_->parameters, torch::optim::SGDOptions(options.learning_rate)
                                .momentum(options.optimizer == cost::Optimizer::kMomentum ? 0.9 : 0.0));
}

TrainingStep::~TrainingStep() = default;

size_t TrainingStep::parameters() const { return state_->parameters.size(); }

double TrainingStep::run(const std::vector<at::Tensor>& inputs, Trace* trace, Profile* profile) {
  state_->optimizer->zero_grad();
  BackwardTimes times;
  NodeObserver observer;
  if (profile) {
    auto count = interpreter_.graph().nodes.size();
    profile->forward_s.resize(count, 0);
    profile->backward_s.resize(count, 0);
    times.profile = profile;
    times.ends.assign(count, 0);
    times.first = at::sequence_number::peek();
    observer = [&](size_t n, double seconds, const std::string&) {
      profile->forward_s[n] += seconds;
      times.ends[n] = at::sequence_number::peek();
    };
  }
  auto outputs = interpreter_.run(inputs, observer);
  auto loss_start = Clock::now();
  at::Tensor loss;
  for (const auto& out : outputs) {
    if (!at::isFloatingType(out.scalar_type()) || !out.requires_grad()) continue;
    auto term = out.to(at::kFloat).pow(2).mean();
    loss = loss.defined() ? loss + term : term;
  }
  if (!loss.defined()) throw Error("training: no model output depends on the weights");
  if (profile) {
    profile->loss_s += seconds_since(loss_start);
    times.loss_end = at::sequence_number::peek();
    BackwardProfiler profiler(times);
    loss.backward();
  } else {
    loss.backward();
  }
  std::vector<size_t> trained;  // parameters with a gradient
  if (trace) {
    at::NoGradGuard no_grad;
    for (size_t i = 0; i < state_->parameters.size(); ++i) {
      const auto& p = state_->parameters[i];
      if (!p.grad().defined()) continue;
      trained.push_back(i);
      trace->gradients.emplace_back(state_->ids[i], p.grad().clone());
      trace->before.emplace_back(state_->ids[i], p.detach().clone());
    }
  }
  auto optimizer_start = Clock::now();
  state_->optimizer->step();
  if (profile) profile->optimizer_s += seconds_since(optimizer_start);
  for (auto i : trained) trace->after.emplace_back(state_->ids[i], state_->parameters[i].detach().clone());
  return loss.item<double>();
}

}  // namespace ridge::exec::aten
