#include "exec/cuda/backward.h"

#include <fmt/format.h>

#include "exec/cuda/descriptors.h"
#include "exec/cuda/kernels.h"
#include "sys/cuda/check.h"
#include "util/error.h"

namespace ridge {
template <>
const exec::cuda::BackwardRegistry& exec::cuda::BackwardRegistry::instance() {
  static const auto* registry = [] {
    auto* r = new exec::cuda::BackwardRegistry;
    exec::cuda::register_conv_backward(*r);
    exec::cuda::register_matmul_backward(*r);
    exec::cuda::register_elementwise_backward(*r);
    exec::cuda::register_normalization_backward(*r);
    exec::cuda::register_pooling_backward(*r);
    exec::cuda::register_manipulation_backward(*r);
    exec::cuda::register_recurrent_backward(*r);
    exec::cuda::register_resize_backward(*r);
    return r;
  }();
  return *registry;
}
}  // namespace ridge

namespace ridge::exec::cuda {

using sys::cuda::check;

namespace {

using ReduceDescriptor = Descriptor<cudnnReduceTensorDescriptor_t, cudnnDestroyReduceTensorDescriptor>;

}  // namespace

const GpuTensor& BackwardContext::dy(size_t i) const {
  if (i >= output_grads.size() || !output_grads[i].defined())
    forward.fail(fmt::format("no gradient reached output {}", i));
  return output_grads[i];
}

GpuTensor& BackwardContext::grad(size_t i) {
  auto& g = input_grads.at(i);
  g = forward.scratch(graph::DType::kFloat32, forward.in(i).dims);
  g.channels_last = forward.in(i).channels_last;
  return g;
}

void BackwardContext::set_grad(size_t i, const GpuTensor& g) {
  const auto& x = forward.in(i);
  if (g.numel() != x.numel())
    forward.fail(fmt::format("a gradient of {} elements for input {} of {}", g.numel(), i, x.numel()));
  auto& out = input_grads.at(i);
  out = g.dims == x.dims ? g : nchw_copy(forward, g);  // a view of other dims reads the elements in NCHW order
  out.dims = x.dims;
}

void BackwardContext::set_reduced_grad(size_t i, const GpuTensor& g) {
  set_grad(i, reduce_to(forward, g, forward.in(i).dims));
}

GpuTensor nchw_copy(KernelContext& ctx, const GpuTensor& t) {
  if (!t.channels_last) return t;
  auto out = ctx.scratch(t.dtype, t.dims);
  strided_copy(t.data(), logical_layout(t, t.dims), 0, out.data(), t.numel(),
               static_cast<int>(graph::dtype_bytes(t.dtype, 1)), ctx.gpu.stream());
  ctx.check_launch("a gradient's copy from channels-last");
  return out;
}

GpuTensor reduce_to(KernelContext& ctx, const GpuTensor& g_held, const std::vector<int64_t>& dims) {
  if (dims == g_held.dims) return g_held;
  // cuDNN's reduction below reads NCHW, and a result of other dims is NCHW.
  const auto g = nchw_copy(ctx, g_held);
  if (dims.size() > g.dims.size()) ctx.fail("a gradient cannot be reduced to a higher rank");
  std::vector<int64_t> aligned(g.dims.size() - dims.size(), 1);
  aligned.insert(aligned.end(), dims.begin(), dims.end());
  int64_t count = 1;
  for (size_t d = 0; d < aligned.size(); ++d) {
    if (aligned[d] != 1 && aligned[d] != g.dims[d])
      ctx.fail(fmt::format("dims {} do not broadcast to the gradient's {}", aligned[d], g.dims[d]));
    count *= aligned[d];
  }
  auto out = ctx.scratch(graph::DType::kFloat32, dims);
  if (count == g.numel()) {  // only dims of 1 were added: the same elements
    check(cudaMemcpyAsync(out.data(), g.data(), g.bytes(), cudaMemcpyDeviceToDevice, ctx.gpu.stream()),
          "copying a gradient");
    return out;
  }
  // cuDNN sums A into C over every dim where C has 1 and A more: the reduction broadcasting needs.
  cudnnReduceTensorDescriptor_t handle = nullptr;
  check(cudnnCreateReduceTensorDescriptor(&handle), "cudnnCreateReduceTensorDescriptor");
  ReduceDescriptor reduce(handle);
  check(cudnnSetReduceTensorDescriptor(handle, CUDNN_REDUCE_TENSOR_ADD, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN,
                                       CUDNN_REDUCE_TENSOR_NO_INDICES, CUDNN_32BIT_INDICES),
        "cudnnSetReduceTensorDescriptor");
  auto a = tensor_descriptor(g.dims, graph::DType::kFloat32);
  auto c = tensor_descriptor(aligned, graph::DType::kFloat32);
  size_t bytes = 0;
  check(cudnnGetReductionWorkspaceSize(ctx.gpu.cudnn(), reduce, a, c, &bytes), "cudnnGetReductionWorkspaceSize");
  void* workspace = ctx.gpu.workspace(bytes);
  float one = 1.f, zero = 0.f;
  check(
      cudnnReduceTensor(ctx.gpu.cudnn(), reduce, nullptr, 0, workspace, bytes, &one, a, g.data(), &zero, c, out.data()),
      "cudnnReduceTensor (a broadcast operand's gradient)");
  return out;
}

}  // namespace ridge::exec::cuda
