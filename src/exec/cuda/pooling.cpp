// Pooling on cuDNN. cuDNN pools with one pad per dim and floor rounding; ONNX's asymmetric pads and
// ceil_mode are applied to MaxPool by padding a copy of the input with -inf (which no window can pick),
// and refused for AveragePool, whose divisor they would change. Lp pooling, which cuDNN lacks, on ridge's kernel, and
// MaxUnpool (max_unpool_plan.h).
#include <fmt/format.h>

#include <limits>

#include "exec/cuda/backward.h"
#include "exec/cuda/descriptors.h"
#include "exec/cuda/index_check.h"
#include "exec/cuda/lp_pool_kernels.h"
#include "exec/cuda/lp_pool_plan.h"
#include "exec/cuda/max_unpool_kernels.h"
#include "exec/cuda/max_unpool_plan.h"
#include "exec/cuda/op_kernel.h"
#include "shape/spatial.h"
#include "sys/cuda/check.h"
#include "util/error.h"

namespace ridge::exec::cuda {

using sys::cuda::check;

namespace {

struct PoolState : NodeState {
  PoolingDescriptor pool;
  TensorDescriptor x, y;
  std::vector<int64_t> padded_dims, pad_begin;  // a -inf padded copy of the input, when needed
  bool channels_last = false;                   // a channels-last run's 2-D pooling: x and y held NHWC
};

// Rank-3 tensors (N, C, L) pool as (N, C, L, 1): cuDNN pools 2-D and 3-D windows.
std::vector<int64_t> as_image(const std::vector<int64_t>& dims) {
  std::vector<int64_t> image(dims);
  image.resize(std::max<size_t>(dims.size(), 4), 1);
  return image;
}

void prepare(KernelContext& ctx, PoolState& s, const GpuTensor& x, const std::vector<int64_t>& y, bool global,
             cudnnPoolingMode_t mode) {
  s.channels_last = ctx.channels_last && x.dims.size() == 4;
  size_t n = x.dims.size() - 2;
  std::vector<int64_t> kernel(x.dims.begin() + 2, x.dims.end()), strides(n, 1), begin(n, 0), end(n, 0);
  if (!global) {
    // The window as shape inference resolves it: one rule for every executor.
    shape::Window window;
    try {
      window = shape::resolve_window(ctx.node, std::vector<int64_t>(x.dims.begin() + 2, x.dims.end()),
                                     ctx.node.get_ints("kernel_shape"));
    } catch (const Error& e) {
      ctx.fail(e.what());
    }
    for (auto d : window.dilations)
      if (d != 1) ctx.fail("dilated pooling: cuDNN pools without dilation");
    kernel = window.kernel;
    strides = window.strides;
    begin = window.pads_begin;
    end = window.pads_end;
  }
  // What cuDNN gives with symmetric pads and floor rounding; otherwise the padding is explicit.
  bool direct = begin == end;
  for (size_t i = 0; i < n && direct; ++i)
    direct = (x.dims[i + 2] + 2 * begin[i] - kernel[i]) / strides[i] + 1 == y[i + 2];
  std::vector<int64_t> in_dims = x.dims, cudnn_pads = begin;
  if (!direct) {
    if (mode != CUDNN_POOLING_MAX)
      ctx.fail("asymmetric pads or ceil_mode in AveragePool: cuDNN's divisor would differ from ONNX's");
    s.pad_begin.assign(x.dims.size(), 0);
    for (size_t i = 0; i < n; ++i) {
      int64_t needed = (y[i + 2] - 1) * strides[i] + kernel[i] - x.dims[i + 2] - begin[i];
      in_dims[i + 2] += begin[i] + std::max(end[i], needed);
      s.pad_begin[i + 2] = begin[i];
    }
    s.padded_dims = in_dims;
    cudnn_pads.assign(n, 0);
  }
  auto image_in = as_image(in_dims);
  if (n == 1) {
    kernel.push_back(1);
    strides.push_back(1);
    cudnn_pads.push_back(0);
  }
  std::vector<int> k(kernel.begin(), kernel.end()), p(cudnn_pads.begin(), cudnn_pads.end()),
      st(strides.begin(), strides.end());
  cudnnPoolingDescriptor_t handle = nullptr;
  check(cudnnCreatePoolingDescriptor(&handle), "cudnnCreatePoolingDescriptor");
  s.pool = PoolingDescriptor(handle);
  check(cudnnSetPoolingNdDescriptor(handle, mode, CUDNN_NOT_PROPAGATE_NAN, static_cast<int>(k.size()), k.data(),
                                    p.data(), st.data()),
        "cudnnSetPoolingNdDescriptor");
  s.x = tensor_descriptor(image_in, x.dtype, s.channels_last);
  s.y = tensor_descriptor(as_image(y), x.dtype, s.channels_last);
  std::vector<int> out(image_in.size());
  check(cudnnGetPoolingNdForwardOutputDim(handle, s.x, static_cast<int>(out.size()), out.data()),
        "cudnnGetPoolingNdForwardOutputDim");
  auto expected = as_image(y);
  for (size_t i = 0; i < expected.size(); ++i)
    if (out[i] != expected[i])
      ctx.fail(fmt::format("cuDNN pools dim {} to {}, shape inference to {}", i, out[i], expected[i]));
}

void pool(KernelContext& ctx, bool global, cudnnPoolingMode_t mode) {
  const auto& x = ctx.activation(0);
  if (x.dims.size() < 3 || x.dims.size() > 5) ctx.fail("pooling takes (N, C, spatial...) with 1 to 3 spatial dims");
  if (ctx.wants_output(1)) ctx.fail("MaxPool's Indices output is not computed on the GPU");
  auto& s = ctx.cached<PoolState>();
  auto y_dims = ctx.output_dims(0);
  if (!s.pool.get()) prepare(ctx, s, x, y_dims, global, mode);
  GpuTensor input = x;
  if (!s.padded_dims.empty()) {
    input = ctx.scratch(x.dtype, s.padded_dims);
    pad_held(x, s.pad_begin, input.data(), s.padded_dims, -std::numeric_limits<float>::infinity(), s.channels_last,
             ctx.gpu.stream());
    ctx.check_launch("padding the input");
  }
  auto& y = ctx.allocate_output(0, x.dtype, y_dims);
  float one = 1.f, zero = 0.f;
  check(cudnnPoolingForward(ctx.gpu.cudnn(), s.pool, &one, s.x, input.data(), &zero, s.y, y.data()),
        "cudnnPoolingForward");
}

void max_pool(KernelContext& ctx) { pool(ctx, false, CUDNN_POOLING_MAX); }
void average_pool(KernelContext& ctx) {
  pool(ctx, false,
       ctx.node.get_int("count_include_pad", 0) ? CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING
                                                : CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING);
}
void global_average_pool(KernelContext& ctx) { pool(ctx, true, CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING); }
void global_max_pool(KernelContext& ctx) { pool(ctx, true, CUDNN_POOLING_MAX); }

// dX from x, y and dY (cuDNN routes a max window's gradient to its maximum, an average's over its window).
void pool_backward(BackwardContext& b) {
  auto& ctx = b.forward;
  auto& s = b.forward_state<PoolState>();
  if (!s.padded_dims.empty()) ctx.fail("pads cuDNN cannot express (asymmetric, or ceil_mode) have no GPU backward");
  if (!b.wants(0)) return;
  const auto& x = ctx.float_input(0);
  const auto& y = ctx.outputs.at(0);
  const auto& dy = b.dy(0);
  auto& dx = b.grad(0);
  float one = 1.f, zero = 0.f;
  check(cudnnPoolingBackward(ctx.gpu.cudnn(), s.pool, &one, s.y, y.data(), s.y, dy.data(), s.x, x.data(), &zero, s.x,
                             dx.data()),
        "cudnnPoolingBackward");
}

// LpPool and GlobalLpPool (lp_pool_plan.h): ridge's kernel, a thread per output element; fp32.
void lp_pool_op(KernelContext& ctx, bool global) {
  const auto& x = ctx.float_input(0);
  auto plan = ctx.planned([&] { return lp_pool_plan(ctx.node, x.dims, global); });
  std::vector<int64_t> dims{x.dims[0], x.dims[1]};
  for (int d = 0; d < plan.spatial; ++d) dims.push_back(plan.out[d]);
  auto& y = ctx.allocate_output(0, graph::DType::kFloat32, dims);
  lp_pool(plan, x.as<float>(), y.as<float>(), ctx.gpu.stream());
  ctx.check_launch(ctx.node.op_type);
}

}  // namespace

void register_pooling_backward(BackwardRegistry& registry) {
  // cuDNN's pooling backward reads and writes in the forward's descriptors: NHWC in a channels-last step.
  constexpr bool kNhwc = true;
  registry.add("pooling", {{"MaxPool", pool_backward, {}, nullptr, kNhwc},
                           {"AveragePool", pool_backward, {}, nullptr, kNhwc},
                           {"GlobalAveragePool", pool_backward, {}, nullptr, kNhwc},
                           {"GlobalMaxPool", pool_backward, {}, nullptr, kNhwc}});
}

namespace {

// MaxUnpool: fp32 X, its indices as int64 (int32 ones widened), Y of the dims shape inference gave (output_shape
// included); indices outside the unpooled tensor counted on the first run and refused by name.
void max_unpool_op(KernelContext& ctx) {
  const auto& x = ctx.float_input(0);
  auto indices = int64_indices(ctx, 1);
  auto plan = ctx.planned([&] { return max_unpool_plan(ctx.node, x.dims, ctx.output_dims(0)); });
  auto& y = ctx.allocate_output(0, graph::DType::kFloat32, ctx.output_dims(0));
  BadIndices bad(ctx);
  max_unpool(plan, x.as<float>(), indices.as<int64_t>(), y.as<float>(), bad.counter(), ctx.gpu.stream());
  ctx.check_launch("MaxUnpool");
  bad.verify(fmt::format("[0, {}), the unpooled tensor's elements", plan.unpooled_count));
}

}  // namespace

void register_pooling_kernels(KernelRegistry& registry) {
  // cuDNN pools 16-bit activations in their own type, and channels-last ones (storage_plan.h).
  constexpr auto kX = storage_input(0);
  registry.add("pooling", {{"MaxPool", max_pool, kX, kX},
                           {"AveragePool", average_pool, kX, kX},
                           {"GlobalAveragePool", global_average_pool, kX, kX},
                           {"GlobalMaxPool", global_max_pool, kX, kX},
                           {"LpPool", [](KernelContext& c) { lp_pool_op(c, false); }},
                           {"GlobalLpPool", [](KernelContext& c) { lp_pool_op(c, true); }},
                           {"MaxUnpool", max_unpool_op}});
}

}  // namespace ridge::exec::cuda
