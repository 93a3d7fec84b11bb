// Ops that make values on the GPU: RandomNormal, RandomUniform (and their Like forms), Bernoulli, the Hann, Hamming
// and Blackman windows, Range and EyeLike (generator_kernels.h), and ConstantOfShape (a fill, kernels.h). The random
// draws are counter-based from the run's seed (or the node's `seed`) and the node's name, so two nodes draw differently
// and every run, a CUDA-graph replay included, draws anew; they are not the CPU executor's draws (ATen's generator), as
// no two frameworks' are.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>

#include "exec/cuda/generator_kernels.h"
#include "exec/cuda/index_kernels.h"
#include "exec/cuda/op_kernel.h"
#include "exec/host_values.h"

namespace ridge::exec::cuda {

namespace {

struct RandomState : NodeState {
  std::shared_ptr<void> runs;  // a uint64 on the device: the runs drawn so far
};

uint64_t* run_count(KernelContext& ctx) { return ctx.run_counter(ctx.cached<RandomState>().runs); }

uint64_t seed_of(const KernelContext& ctx) {
  // ONNX's seed is a float attribute; its value (not its bits) names the stream.
  uint64_t seed = ctx.node.has("seed") ? static_cast<uint64_t>(static_cast<int64_t>(ctx.node.get_float("seed", 0)))
                                       : static_cast<uint64_t>(ctx.options.seed);
  return seed * 0x9E3779B97F4A7C15ull ^ std::hash<std::string>{}(ctx.node.name);
}

// Output 0 of `dims` and the output's type, written by `make` into fp32 (in place where the type is fp32).
template <class Make>
void fp32_output(KernelContext& ctx, const std::vector<int64_t>& dims, Make make) {
  auto& y = ctx.allocate_output(0, ctx.output_dtype(0), dims);
  if (y.dtype == graph::DType::kFloat32) {
    make(y.as<float>(), y.numel());
    return;
  }
  auto f = ctx.scratch(graph::DType::kFloat32, dims);
  make(f.as<float>(), f.numel());
  if (!cast(graph::DType::kFloat32, f.data(), y.dtype, y.data(), y.numel(), ctx.gpu.stream()))
    ctx.fail(fmt::format("no GPU cast from fp32 to {}", graph::dtype_name(y.dtype)));
}

void random_op(KernelContext& ctx, bool normal, bool like) {
  auto dims = like ? ctx.in(0).dims : ctx.output_dims(0);
  float a = static_cast<float>(normal ? ctx.node.get_float("mean", 0.0) : ctx.node.get_float("low", 0.0));
  float b = static_cast<float>(normal ? ctx.node.get_float("scale", 1.0) : ctx.node.get_float("high", 1.0));
  auto seed = seed_of(ctx);
  auto* runs = run_count(ctx);
  fp32_output(ctx, dims, [&](float* y, int64_t n) { random_fill(y, n, normal, a, b, seed, runs, ctx.gpu.stream()); });
  ctx.check_launch(ctx.node.op_type);
}

void bernoulli_op(KernelContext& ctx) {
  auto p = ctx.in(0);
  if (p.dtype != graph::DType::kFloat32) {
    auto f = ctx.scratch(graph::DType::kFloat32, p.dims);
    if (!cast(p.dtype, p.data(), graph::DType::kFloat32, f.data(), p.numel(), ctx.gpu.stream()))
      ctx.fail(fmt::format("probabilities of {}: no GPU cast to fp32", graph::dtype_name(p.dtype)));
    p = f;
  }
  auto seed = seed_of(ctx);
  auto* runs = run_count(ctx);
  fp32_output(ctx, p.dims, [&](float* y, int64_t n) { bernoulli(p.as<float>(), y, n, seed, runs, ctx.gpu.stream()); });
  ctx.check_launch("Bernoulli");
}

void window_op(KernelContext& ctx, Window w) {
  auto size = ctx.host_ints(0);
  if (size.size() != 1 || size[0] < 0) ctx.fail("the window's size must be one value of 0 or more");
  bool periodic = ctx.node.get_int("periodic", 1) != 0;
  auto type = ctx.output_dtype(0);
  if (type == graph::DType::kFloat64) {
    auto& y = ctx.allocate_output(0, type, {size[0]});
    window(w, y.data(), size[0], periodic, true, ctx.gpu.stream());
  } else {
    fp32_output(ctx, {size[0]}, [&](float* y, int64_t n) { window(w, y, n, periodic, false, ctx.gpu.stream()); });
  }
  ctx.check_launch(ctx.node.op_type);
}

// Range: n = max(0, ceil((limit - start) / delta)) elements (the count read back where the scalars are computed in the
// run, so such a run cannot be a CUDA graph).
void range_op(KernelContext& ctx) {
  auto scalar = [&](size_t i) {
    auto v = ctx.host_reals(i);
    if (v.size() != 1) ctx.fail(fmt::format("Range's input {} must be one value", i));
    return v[0];
  };
  const double start = scalar(0), limit = scalar(1), delta = scalar(2);
  if (delta == 0) ctx.fail("Range's delta is 0");
  const auto n = range_count(start, limit, delta);
  auto& y = ctx.allocate_output(0, ctx.in(0).dtype, {n});
  ElementType type{};
  if (!element_type(y.dtype, type) || !range_fill(y.data(), type, n, start, delta, ctx.gpu.stream()))
    ctx.fail(fmt::format("Range of {}: the GPU fills fp32, fp64, int32 and int64", graph::dtype_name(y.dtype)));
  ctx.check_launch("Range");
}

// EyeLike: 2-D, ones where column - row = k, in the node's dtype (the input's by default), as OneHot writes a line.
void eye_like_op(KernelContext& ctx) {
  const auto& x = ctx.in(0);
  if (x.dims.size() != 2) ctx.fail(fmt::format("EyeLike of rank {}: ONNX's EyeLike is 2-D", x.dims.size()));
  const int64_t rows = x.dims[0], cols = x.dims[1];
  auto& y = ctx.allocate_output(0, ctx.output_dtype(0), x.dims);
  if (y.numel() == 0) return;
  auto values = ctx.scratch(graph::DType::kFloat32, {2});
  fill(values.as<float>(), 1, 0.f, ctx.gpu.stream());
  fill(values.as<float>() + 1, 1, 1.f, ctx.gpu.stream());
  auto typed = values;
  if (y.dtype != graph::DType::kFloat32) {
    typed = ctx.scratch(y.dtype, {2});
    if (!cast(graph::DType::kFloat32, values.data(), y.dtype, typed.data(), 2, ctx.gpu.stream()))
      ctx.fail(fmt::format("EyeLike of {}: no GPU cast from fp32", graph::dtype_name(y.dtype)));
  }
  auto selected = ctx.scratch(graph::DType::kInt64, {rows});
  eye_select(selected.as<int64_t>(), rows, cols, ctx.node.get_int("k", 0), ctx.gpu.stream());
  OneHotPlan plan;
  plan.outer = rows, plan.depth = cols, plan.inner = 1;
  one_hot(plan, selected.as<int64_t>(), typed.data(), y.data(), static_cast<int>(graph::dtype_bytes(y.dtype, 1)),
          ctx.gpu.stream());
  ctx.check_launch("EyeLike");
}

// ConstantOfShape where shape inference did not keep its output (more than shape/context.h's kMaxPropagatedElements
// elements: GPT-2's causal mask at 512 tokens, an LSTM's initial state at batch 256): its one-element `value` (fp32 0
// without one) in every element, bit for bit.
struct FillState : NodeState {
  bool decoded = false;
  graph::DType dtype = graph::DType::kFloat32;
  uint64_t bits = 0;  // the element's bytes, low first (fp32 0 without a value)
  int bytes = 4;
};

void constant_of_shape_op(KernelContext& ctx) {
  auto dims = ctx.host_ints(0);
  for (auto d : dims)
    if (d < 0) ctx.fail(fmt::format("negative dimension {}", d));
  auto& fill = ctx.cached<FillState>();
  if (!fill.decoded) {  // the attribute never changes: decoded on the first run
    if (const auto* value = ctx.node.attribute("value"); value && value->tensor) {
      auto t = ctx.planned([&] { return attribute_tensor(*value->tensor, std::string(ctx.model_directory)); });
      if (t.bytes.size() != static_cast<size_t>(graph::dtype_bytes(t.dtype, 1)))
        ctx.fail(fmt::format("its value holds {} bytes; ONNX's is one element", t.bytes.size()));
      if (t.bytes.size() > sizeof fill.bits)
        ctx.fail(
            fmt::format("a value of {}: the GPU fills elements of 1, 2, 4 and 8 bytes", graph::dtype_name(t.dtype)));
      fill.dtype = t.dtype;
      fill.bytes = static_cast<int>(t.bytes.size());
      std::memcpy(&fill.bits, t.bytes.data(), t.bytes.size());  // little-endian, as the element's bytes on the GPU
    }
    fill.decoded = true;
  }
  auto& y = ctx.allocate_output(0, fill.dtype, dims);
  if (!fill_bits(y.data(), y.numel(), fill.bits, fill.bytes, ctx.gpu.stream()))
    ctx.fail(
        fmt::format("a value of {}: the GPU fills elements of 1, 2, 4 and 8 bytes", graph::dtype_name(fill.dtype)));
  ctx.check_launch("ConstantOfShape");
}

}  // namespace

void register_generator_kernels(KernelRegistry& r) {
  r.add("generator", {{"RandomNormal", [](KernelContext& c) { random_op(c, true, false); }},
                      {"RandomNormalLike", [](KernelContext& c) { random_op(c, true, true); }},
                      {"RandomUniform", [](KernelContext& c) { random_op(c, false, false); }},
                      {"RandomUniformLike", [](KernelContext& c) { random_op(c, false, true); }},
                      {"Bernoulli", bernoulli_op},
                      {"HannWindow", [](KernelContext& c) { window_op(c, Window::kHann); }},
                      {"HammingWindow", [](KernelContext& c) { window_op(c, Window::kHamming); }},
                      {"BlackmanWindow", [](KernelContext& c) { window_op(c, Window::kBlackman); }},
                      {"Range", range_op},
                      {"EyeLike", eye_like_op},
                      {"ConstantOfShape", constant_of_shape_op}});
}

}  // namespace ridge::exec::cuda
