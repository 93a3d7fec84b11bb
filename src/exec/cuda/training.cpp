#include "exec/cuda/training.h"

#include <fmt/format.h>
#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <map>
#include <set>

#include "exec/cuda/backward.h"
#include "exec/cuda/backward_layout.h"
#include "exec/cuda/training_kernels.h"
#include "sys/cuda/check.h"
#include "util/error.h"

namespace ridge::exec::cuda {

using sys::cuda::check;

namespace {

// torch.optim's defaults for the two optimizers with state: SGD's momentum 0.9 (the cost model's), Adam's betas
// and epsilon.
constexpr float kMomentum = 0.9f, kBeta1 = 0.9f, kBeta2 = 0.999f, kAdamEpsilon = 1e-8f;
// torch.amp.GradScaler's defaults: the first scale, and the clean steps after which it doubles.
constexpr float kInitialLossScale = 65536.f;
constexpr int kGrowthInterval = 2000;

GpuTensor copy_of(Gpu& gpu, const GpuTensor& t) {
  GpuTensor out{t.dtype, t.dims, gpu.allocator().allocate(t.bytes()), 0};
  if (t.bytes())
    check(cudaMemcpyAsync(out.data(), t.data(), t.bytes(), cudaMemcpyDeviceToDevice, gpu.stream()), "copying a weight");
  return out;
}

GpuTensor zeros(Gpu& gpu, const std::vector<int64_t>& dims) {
  GpuTensor out{graph::DType::kFloat32, dims, nullptr, 0};
  out.block = gpu.allocator().allocate(out.bytes());
  check(cudaMemsetAsync(out.data(), 0, out.bytes(), gpu.stream()), "zeroing optimizer state");
  return out;
}

}  // namespace

TrainingStep::TrainingStep(Interpreter& interpreter, Gpu& gpu, const TrainingOptions& options)
    : interpreter_(interpreter), gpu_(gpu), options_(options) {
  check_training_options(interpreter.options().mode);
  // First: values computed from a weight run from now on instead of being folded (exec/node_plan.h), which the plan
  // below must see.
  interpreter.set_weights_change();
  const auto& g = interpreter.graph();
  plan_ = plan_backward(
      g, [&](size_t n) { return interpreter.executes(n); },
      [](std::string_view op) { return BackwardRegistry::instance().find(op) != nullptr; });
  if (!plan_.missing.empty()) {
    std::string list;
    for (const auto& [op, count] : plan_.missing) list += fmt::format("{}{} ({})", list.empty() ? "" : ", ", op, count);
    throw Error("the GPU training step has no backward for " + list + "; docs/gpu.md lists the ops it trains");
  }
  if (plan_.losses.empty()) throw Error("training: no float output of the model depends on a weight");
  for (auto n : plan_.nodes) {
    const auto& node = g.nodes[n];
    const auto* row = BackwardRegistry::instance().find(node.op_type);
    if (!row->refusal) continue;
    std::string why;
    try {
      why = row->refusal(g, node);
    } catch (const Error& e) {
      why = e.what();
    }
    if (!why.empty()) throw Error(fmt::format("node '{}' ({}): {}", node.name, node.op_type, why));
  }
  layout_ = plan_backward_layout(g, interpreter.kernels(), plan_, interpreter.storage());
  backward_states_.resize(g.nodes.size());
  loss_ = GpuTensor{graph::DType::kFloat64, {1}, gpu.allocator().allocate(8), 0};
  steps_ = GpuTensor{graph::DType::kInt64, {1}, gpu.allocator().allocate(8), 0};
  check(cudaMemsetAsync(steps_.data(), 0, 8, gpu.stream()), "zeroing the step count");
  if (interpreter.options().precision == Precision::kFp16) {
    loss_scale_ = GpuTensor{graph::DType::kFloat32, {1}, gpu.allocator().allocate(4), 0};
    found_inf_ = GpuTensor{graph::DType::kInt32, {1}, gpu.allocator().allocate(4), 0};
    clean_steps_ = GpuTensor{graph::DType::kInt32, {1}, gpu.allocator().allocate(4), 0};
    check(cudaMemcpyAsync(loss_scale_.data(), &kInitialLossScale, 4, cudaMemcpyHostToDevice, gpu.stream()),
          "the loss scale");
    check(cudaMemsetAsync(found_inf_.data(), 0, 4, gpu.stream()), "the loss scale");
    check(cudaMemsetAsync(clean_steps_.data(), 0, 4, gpu.stream()), "the loss scale");
    check(cudaStreamSynchronize(gpu.stream()), "the loss scale");  // the scale is read from the host's stack
  }
  // Pinned, so the copy of the loss is an ordinary asynchronous copy a CUDA graph can hold.
  void* host = nullptr;
  check(cudaMallocHost(&host, sizeof(double)), "cudaMallocHost (the loss)");
  loss_host_ = std::shared_ptr<double>(static_cast<double*>(host), [](double* p) { cudaFreeHost(p); });
}

TrainingStep::~TrainingStep() = default;

double TrainingStep::run(Trace* trace, const StepHook& hook) {
  enqueue(trace, hook);
  return finish();
}

double TrainingStep::finish() {
  check(cudaStreamSynchronize(gpu_.stream()), "the training step");
  return *loss_host_;
}

void TrainingStep::enqueue(Trace* trace, const StepHook& hook) {
  const auto& g = interpreter_.graph();
  auto stream = gpu_.stream();
  NodeHook forward_hook;
  if (hook) forward_hook = [&hook](size_t n, bool after) { hook(StepPhase::kForward, n, after); };
  auto values = interpreter_.run_keeping_values(forward_hook);
  std::map<const void*, size_t> blocks;  // views share a block: each counted once, to the furthest byte seen
  for (size_t i = 0; i < values.size(); ++i) {
    const auto& t = values[i];
    if (!t.defined() || interpreter_.constant(static_cast<graph::ValueId>(i)).defined()) continue;
    auto& extent = blocks[t.block.get()];
    extent = std::max(extent, t.offset_bytes + t.bytes());
  }
  saved_bytes_ = 0;
  for (const auto& [block, extent] : blocks) saved_bytes_ += static_cast<int64_t>(extent);
  if (hook) hook(StepPhase::kLoss, 0, false);
  std::vector<GpuTensor> grads(values.size());
  check(cudaMemsetAsync(loss_.data(), 0, 8, stream), "zeroing the loss");
  nvtxRangePushA("loss");
  for (auto id : plan_.losses) {
    const auto& y = values[static_cast<size_t>(id)];
    auto& dy = grads[static_cast<size_t>(id)];
    // Element for element: in y's layout.
    dy = GpuTensor{graph::DType::kFloat32, y.dims, gpu_.allocator().allocate(y.bytes()), 0, y.channels_last};
    squared_mean_loss(y.as<float>(), dy.as<float>(), y.numel(), loss_.as<double>(),
                      loss_scale_.defined() ? loss_scale_.as<float>() : nullptr, stream);
  }
  check(cudaGetLastError(), "the loss");
  nvtxRangePop();
  if (hook) hook(StepPhase::kLoss, 0, true);
  relayouts_ = 0;
  // `t` in the layout asked for, copied where it is not (backward_layout.h).
  auto in_layout = [&](GpuTensor& t, bool channels_last) {
    if (!t.defined() || t.channels_last == channels_last) return;
    t = interpreter_.relaid(t, channels_last);
    ++relayouts_;
  };
  const bool channels_last = interpreter_.storage().channels_last;
  for (auto n : plan_.nodes) {
    const auto& node = g.nodes[n];
    auto ctx = interpreter_.node_context(n, values);
    BackwardContext b{ctx, {}, {}, {}, backward_states_[n]};
    bool any = false;
    for (auto id : node.outputs) {
      b.output_grads.push_back(id == graph::kNoValue ? GpuTensor{} : grads[static_cast<size_t>(id)]);
      any = any || b.output_grads.back().defined();
    }
    if (!any) continue;  // its outputs' consumers passed no gradient back (an untrained branch)
    // The node's backward is timed from its layout conversions to the sums of the gradients it gives.
    if (hook) hook(StepPhase::kBackward, n, false);
    if (channels_last) {
      // An NHWC backward takes the node's inputs in the layouts its forward kernel read them in (the values as held,
      // or the copies the forward made), its outputs as written and each output's gradient in that output's layout;
      // any other takes all of them NCHW.
      const bool nhwc = layout_.nhwc[n];
      const auto& row = *interpreter_.kernels()[n];
      for (size_t i = 0; i < ctx.inputs.size(); ++i)
        if (ctx.inputs[i].defined())
          in_layout(ctx.inputs[i], nhwc && reads_channels_last(row, i, ctx.inputs[i].dims, true));
      if (!nhwc)
        for (auto& t : ctx.outputs) in_layout(t, false);
      for (size_t i = 0; i < b.output_grads.size(); ++i)
        in_layout(b.output_grads[i], ctx.outputs[i].defined() && ctx.outputs[i].channels_last);
      ctx.channels_last = nhwc;
    }
    for (auto id : node.inputs)
      b.needs_grad.push_back(id != graph::kNoValue && plan_.needs_grad[static_cast<size_t>(id)]);
    b.input_grads.resize(node.inputs.size());
    // The backward's kernels carry the forward's range name too, so a profile maps them to the layer.
    auto range = interpreter_.range_name(n) + " backward";
    nvtxRangePushA(range.c_str());
    try {
      BackwardRegistry::instance().find(node.op_type)->backward(b);
    } catch (const Error& e) {
      nvtxRangePop();
      throw Error(fmt::format("node '{}' ({}) backward: {}", node.name, node.op_type, e.what()));
    }
    nvtxRangePop();
    for (auto id : node.outputs)
      if (id != graph::kNoValue) grads[static_cast<size_t>(id)] = {};
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      if (!b.input_grads[i].defined()) continue;
      auto& total = grads[static_cast<size_t>(node.inputs[i])];
      if (!total.defined()) {
        total = std::move(b.input_grads[i]);
        continue;
      }
      // A value read by several nodes sums their gradients, into a new tensor: a gradient may share its block
      // with another value's (a view's, or an Add's operands). Element for element, in the first one's layout.
      in_layout(b.input_grads[i], total.channels_last);
      GpuTensor sum{graph::DType::kFloat32, total.dims, gpu_.allocator().allocate(total.bytes()), 0,
                    total.channels_last};
      auto layout = dense_layout(total.dims);
      binary(BinaryOp::kAdd, false, total.data(), layout, b.input_grads[i].data(), layout, sum.data(), layout, stream);
      check(cudaGetLastError(), "summing gradients");
      total = std::move(sum);
    }
    if (hook) hook(StepPhase::kBackward, n, true);
  }
  trained_ = 0;
  if (hook) hook(StepPhase::kOptimizer, 0, false);
  // The optimizer updates the weights as they are held, NCHW (a 4-D weight's gradient may come from an NHWC backward).
  for (size_t i = 0; i < g.values.size(); ++i)
    if (g.values[i].initializer) in_layout(grads[i], false);
  nvtxRangePushA("optimizer");
  // fp16: the weights' gradients unscaled (each block once: two weights' gradients may share one), and the step
  // skipped on the device where one is not finite.
  const int* skip = nullptr;
  if (loss_scale_.defined()) {
    std::set<const void*> unscaled;
    for (size_t i = 0; i < g.values.size(); ++i)
      if (g.values[i].initializer && grads[i].defined() && unscaled.insert(grads[i].data()).second)
        unscale_gradient(grads[i].as<float>(), grads[i].numel(), loss_scale_.as<float>(), found_inf_.as<int>(), stream);
    skip = found_inf_.as<int>();
  }
  increment(steps_.as<int64_t>(), skip, stream);
  for (size_t i = 0; i < g.values.size(); ++i) {
    const auto& v = g.values[i];
    if (!v.initializer || !grads[i].defined()) continue;
    auto id = static_cast<graph::ValueId>(i);
    const auto& weight = interpreter_.constant(id);
    if (trace) {
      trace->gradients.emplace_back(id, grads[i]);
      trace->before.emplace_back(id, copy_of(gpu_, weight));
    }
    update(id, weight, grads[i], skip);
    if (trace) trace->after.emplace_back(id, copy_of(gpu_, weight));
    ++trained_;
  }
  if (loss_scale_.defined())
    update_loss_scale(loss_scale_.as<float>(), found_inf_.as<int>(), clean_steps_.as<int>(), kGrowthInterval, stream);
  nvtxRangePop();
  if (hook) hook(StepPhase::kOptimizer, 0, true);
  check(cudaMemcpyAsync(loss_host_.get(), loss_.data(), sizeof(double), cudaMemcpyDeviceToHost, stream),
        "copying the loss");
}

int64_t TrainingStep::optimizer_state_bytes() const {
  int64_t bytes = 0;
  for (const auto& [id, state] : optimizer_state_) {
    if (state.first.defined()) bytes += static_cast<int64_t>(state.first.bytes());
    if (state.second.defined()) bytes += static_cast<int64_t>(state.second.bytes());
  }
  return bytes;
}

void TrainingStep::update(graph::ValueId id, const GpuTensor& weight, const GpuTensor& gradient, const int* skip) {
  auto n = weight.numel();
  if (gradient.numel() != n)
    throw Error(fmt::format("weight '{}' and its gradient differ in size", interpreter_.graph().value(id).name));
  auto stream = gpu_.stream();
  auto lr = static_cast<float>(options_.learning_rate);
  switch (options_.optimizer) {
    case cost::Optimizer::kSgd:
      sgd_update(weight.as<float>(), gradient.as<float>(), n, lr, skip, stream);
      break;
    case cost::Optimizer::kMomentum: {
      auto& state = optimizer_state_[id];
      if (!state.first.defined()) state.first = zeros(gpu_, weight.dims);
      momentum_update(weight.as<float>(), gradient.as<float>(), state.first.as<float>(), n, lr, kMomentum, skip,
                      stream);
      break;
    }
    case cost::Optimizer::kAdam: {
      auto& state = optimizer_state_[id];
      if (!state.first.defined()) {
        state.first = zeros(gpu_, weight.dims);
        state.second = zeros(gpu_, weight.dims);
      }
      adam_update(weight.as<float>(), gradient.as<float>(), state.first.as<float>(), state.second.as<float>(), n, lr,
                  kBeta1, kBeta2, kAdamEpsilon, steps_.as<int64_t>(), skip, stream);
      break;
    }
  }
  check(cudaGetLastError(), "the optimizer update");
}

}  // namespace ridge::exec::cuda
