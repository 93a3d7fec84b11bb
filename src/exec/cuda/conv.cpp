// Convolutions on cuDNN, with the algorithm chosen per layer (--conv-algo), the workspace it needs,
// and 16-bit autocast (--precision fp16|bf16: input and weights converted, fp32 accumulation, the
// output converted back) or TF32 tensor cores (--precision tf32). In optimized mode a layer may carry its epilogue
// (exec/optimized_graph.h): an activation (its "ridge.activation") and a residual added before it (input 3). A ReLU
// in fp32 or tf32 is cuDNN's fused convolution y = relu(conv(x) + z + bias); every other epilogue (another
// activation, a 16-bit run) is one pass of the epilogue kernel over the fp32 output (kernels.h).
#include <fmt/format.h>

#include <algorithm>

#include "exec/cuda/backward.h"
#include "exec/cuda/compute_type.h"
#include "exec/cuda/conv_graph.h"
#include "exec/cuda/conv_plan.h"
#include "exec/cuda/descriptors.h"
#include "exec/cuda/epilogue.h"
#include "exec/cuda/op_kernel.h"
#include "exec/optimized_graph.h"
#include "sys/cuda/check.h"
#include "util/error.h"

namespace ridge::exec::cuda {

using sys::cuda::check;

namespace {

// Everything a layer needs from the second run on: descriptors, the algorithm, converted weights.
struct ConvState : NodeState {
  ConvGeometry geometry;
  std::vector<int64_t> padded_dims;  // the input copy's dims (asymmetric pads), else empty
  TensorDescriptor x, y, y_fp32, bias;
  FilterDescriptor w;
  ConvolutionDescriptor conv;
  ConvChoice choice;
  // --conv-algo heuristic: the plan of cuDNN's graph API (conv_graph.h), built once; null where cuDNN offered none (the
  // legacy call runs `choice`, and the note says why) and in the fused call's layers.
  std::unique_ptr<ConvGraphPlan> graph;
  GpuTensor weight;  // in the compute type (and KRSC where channels-last)
  // A channels-last run's 4-D layer: x, w and y held NHWC (a tensor whose order does not differ is the same bytes).
  bool channels_last = false;
  // Optimized mode's epilogue: its activation; a ReLU (with a residual when input 3 is there) fused by cuDNN, the bias
  // zeros when the layer has none (the fused call takes one).
  LayerActivation activation;
  bool fused = false;
  ActivationDescriptor relu;
  GpuTensor zero_bias;
  bool ready = false;
};

GpuTensor converted(KernelContext& ctx, const GpuTensor& t, graph::DType to) {
  if (t.dtype == to) return t;
  auto out = ctx.scratch(to, t.dims);
  if (!cast(t.dtype, t.data(), to, out.data(), t.numel(), ctx.gpu.stream())) ctx.fail("cannot convert the tensor");
  ctx.check_launch("cast");
  return out;
}

// The layer's convolution as cuDNN describes it, in the precision's math.
ConvolutionDescriptor convolution_descriptor(const ConvGeometry& g, Precision precision) {
  cudnnConvolutionDescriptor_t conv = nullptr;
  check(cudnnCreateConvolutionDescriptor(&conv), "cudnnCreateConvolutionDescriptor");
  ConvolutionDescriptor owned(conv);
  std::vector<int> pads, strides, dilations;
  for (size_t i = 0; i < g.kernel.size(); ++i) {
    pads.push_back(static_cast<int>(g.cudnn_pads[i]));
    strides.push_back(static_cast<int>(g.strides[i]));
    dilations.push_back(static_cast<int>(g.dilations[i]));
  }
  if (pads.size() == 1) {  // 1-D: the descriptors are (N, C, L, 1), so a trivial second spatial dim
    pads.push_back(0);
    strides.push_back(1);
    dilations.push_back(1);
  }
  // ONNX's Conv is a cross-correlation, as is cuDNN's CROSS_CORRELATION mode; fp32 accumulation always.
  check(cudnnSetConvolutionNdDescriptor(conv, static_cast<int>(pads.size()), pads.data(), strides.data(),
                                        dilations.data(), CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
        "cudnnSetConvolutionNdDescriptor");
  check(cudnnSetConvolutionGroupCount(conv, static_cast<int>(g.group)), "cudnnSetConvolutionGroupCount");
  check(cudnnSetConvolutionMathType(conv, math_type(precision)), "cudnnSetConvolutionMathType");
  return owned;
}

// A weight (K, C/group, R, S) copied into KRSC order, as a channels-last convolution reads it.
GpuTensor krsc(KernelContext& ctx, const GpuTensor& w) {
  auto out = ctx.scratch(w.dtype, w.dims);
  strided_copy(w.data(), nhwc_order(dense_layout(w.dims)), 0, out.data(), w.numel(),
               static_cast<int>(graph::dtype_bytes(w.dtype, 1)), ctx.gpu.stream());
  ctx.check_launch("the weight in KRSC order");
  return out;
}

// The layer's weight as it runs: in the compute type, KRSC where channels-last; kept where it does not change.
GpuTensor layer_weight(KernelContext& ctx, const ConvState& s, const GpuTensor& w, graph::DType type) {
  auto weight = converted(ctx, w, type);
  return s.channels_last ? krsc(ctx, weight) : weight;
}

void prepare(KernelContext& ctx, ConvState& s, const GpuTensor& x, const GpuTensor& w, const std::vector<int64_t>& y) {
  auto type = compute_type(ctx.options.precision);
  s.channels_last = ctx.channels_last && x.dims.size() == 4;
  s.geometry = conv_geometry(ctx.node, x.dims, w.dims);
  const auto& g = s.geometry;
  auto in_dims = x.dims;
  if (g.needs_padded_copy()) {
    for (size_t i = 0; i < g.kernel.size(); ++i) in_dims[i + 2] += g.copy_pad_begin[i] + g.copy_pad_end[i];
    s.padded_dims = in_dims;
  }
  s.x = tensor_descriptor(in_dims, type, s.channels_last);
  s.y = tensor_descriptor(y, type, s.channels_last);
  s.w = filter_descriptor(w.dims, type, s.channels_last);
  s.conv = convolution_descriptor(g, ctx.options.precision);
  auto conv = s.conv.get();
  // cuDNN's own output dims must be what shape inference found, or the layer is misdescribed.
  std::vector<int> out(y.size() < 4 ? 4 : y.size());
  check(cudnnGetConvolutionNdForwardOutputDim(conv, s.x, s.w, static_cast<int>(out.size()), out.data()),
        "cudnnGetConvolutionNdForwardOutputDim");
  for (size_t i = 0; i < y.size(); ++i)
    if (out[i] != y[i])
      ctx.fail(fmt::format("cuDNN computes output dim {} as {}, shape inference {}", i, out[i], y[i]));
  size_t free_bytes = 0, total = 0;
  check(cudaMemGetInfo(&free_bytes, &total), "cudaMemGetInfo");
  size_t workspace_limit = free_bytes / 10 * 8 + ctx.gpu.workspace_bytes();
  s.choice = choose_algorithm(ctx.gpu.cudnn(), s.x, s.w, s.conv, s.y, ctx.options.cudnn_conv_algo, workspace_limit,
                              ctx.options.precision);
  if (ctx.input_is_unchanging(1)) s.weight = layer_weight(ctx, s, w, type);  // a computed or trained W: per run
  s.activation = layer_activation(ctx);
  if (ctx.has(3) && ctx.activation(3).dims != y) ctx.fail("the residual's dims are not the output's");
  // cuDNN's fused call computes its epilogue in the output's type: an fp32 output only.
  s.fused = s.activation.op == EpilogueOp::kRelu && type == graph::DType::kFloat32;
  // The fused call's layers run in optimized mode, which replays a CUDA graph: the legacy call's host time is not paid
  // there, and its fused kernel stays.
  if (ctx.options.cudnn_conv_algo == CudnnConvAlgo::kHeuristic && !s.fused) {
    std::string why;
    auto shape = graph_conv_shape(g, in_dims, w.dims, y);
    shape.channels_last = s.channels_last;
    s.graph = ConvGraphPlan::build(ctx.gpu.cudnn(), shape, type, ctx.options.precision, workspace_limit, why);
    if (!s.graph)
      s.choice.note = fmt::format("{}; ran the legacy heuristic's {}", why, name(from_cudnn(s.choice.algorithm)));
  }
  if (ctx.has(2) || s.fused) {
    std::vector<int64_t> bias_dims(y.size(), 1);
    bias_dims[1] = y[1];
    s.bias = tensor_descriptor(bias_dims, graph::DType::kFloat32);
    s.y_fp32 = tensor_descriptor(y, graph::DType::kFloat32, s.channels_last);
  }
  if (s.fused) {
    cudnnActivationDescriptor_t relu = nullptr;
    check(cudnnCreateActivationDescriptor(&relu), "cudnnCreateActivationDescriptor");
    s.relu = ActivationDescriptor(relu);
    check(cudnnSetActivationDescriptor(relu, CUDNN_ACTIVATION_RELU, CUDNN_PROPAGATE_NAN, 0.0),
          "cudnnSetActivationDescriptor");
    if (!ctx.has(2)) {
      s.zero_bias = ctx.scratch(graph::DType::kFloat32, {y[1]});
      check(cudaMemsetAsync(s.zero_bias.data(), 0, s.zero_bias.bytes(), ctx.gpu.stream()), "cudaMemsetAsync");
    }
  }
  s.ready = true;
}

// y = conv(x) with the layer's algorithm. cuDNN 9 refuses an algorithm for a layer with NOT_SUPPORTED or one of its
// subcodes (..._SHAPE, ..._PADDING, ...) at launch although its workspace query accepted it: a named --conv-algo then
// gives way to the heuristic's choice, which runs from then on, and the layer's note says so.
// With a graph plan, the plan runs; where cuDNN refuses it at launch (or the tensors are not aligned as it was built
// for) the legacy call runs the heuristic's algorithm instead, from then on for a refusal.
void forward(KernelContext& ctx, ConvState& s, const GpuTensor& input, const GpuTensor& weight, void* y) {
  if (s.graph && ConvGraphPlan::accepts(input.data(), weight.data(), y)) {
    auto status = s.graph->execute(ctx.gpu.cudnn(), input.data(), weight.data(), y,
                                   ctx.gpu.workspace(s.graph->workspace_bytes()));
    if (status == CUDNN_STATUS_SUCCESS) return;
    s.choice.note = fmt::format("cuDNN refused the graph API's {} at launch ({}); ran the legacy heuristic's {}",
                                s.graph->name(), cudnnGetErrorString(status), name(from_cudnn(s.choice.algorithm)));
    s.graph.reset();
  }
  float one = 1.f, zero = 0.f;
  void* workspace = ctx.gpu.workspace(s.choice.workspace_bytes);
  auto status = cudnnConvolutionForward(ctx.gpu.cudnn(), &one, s.x, input.data(), s.w, weight.data(), s.conv,
                                        s.choice.algorithm, workspace, s.choice.workspace_bytes, &zero, s.y, y);
  bool refused = CUDNN_STATUS_CATEGORY(status) == CUDNN_STATUS_NOT_SUPPORTED;
  if (refused && ctx.options.cudnn_conv_algo != CudnnConvAlgo::kHeuristic) {
    auto asked = name(from_cudnn(s.choice.algorithm));
    size_t free_bytes = 0, total = 0;
    check(cudaMemGetInfo(&free_bytes, &total), "cudaMemGetInfo");
    s.choice = choose_algorithm(ctx.gpu.cudnn(), s.x, s.w, s.conv, s.y, CudnnConvAlgo::kHeuristic,
                                free_bytes / 10 * 8 + ctx.gpu.workspace_bytes(), ctx.options.precision);
    s.choice.note = fmt::format("{} is not supported for this layer (cudnnConvolutionForward: {}); ran {}", asked,
                                cudnnGetErrorString(status), name(from_cudnn(s.choice.algorithm)));
    workspace = ctx.gpu.workspace(s.choice.workspace_bytes);
    status = cudnnConvolutionForward(ctx.gpu.cudnn(), &one, s.x, input.data(), s.w, weight.data(), s.conv,
                                     s.choice.algorithm, workspace, s.choice.workspace_bytes, &zero, s.y, y);
  }
  check(status, "cudnnConvolutionForward");
}

// relu(conv(x) + z + bias) in one cuDNN call (z: the residual, or none); where cuDNN refuses the fusion for the
// layer's algorithm, the same in steps (convolution, bias, residual, ReLU), so the result never depends on which ran.
void fused_conv(KernelContext& ctx, ConvState& s, const GpuTensor& input, const GpuTensor& weight, GpuTensor& out) {
  auto handle = ctx.gpu.cudnn();
  const GpuTensor& bias = ctx.has(2) ? ctx.float_input(2) : s.zero_bias;
  bool residual = ctx.has(3);
  float one = 1.f, zero = 0.f, alpha2 = residual ? 1.f : 0.f;
  // With alpha2 0 cuDNN does not read z; it may be the output itself.
  const void* z = residual ? ctx.float_input(3).data() : out.data();
  void* workspace = ctx.gpu.workspace(s.choice.workspace_bytes);
  auto status = cudnnConvolutionBiasActivationForward(handle, &one, s.x, input.data(), s.w, weight.data(), s.conv,
                                                      s.choice.algorithm, workspace, s.choice.workspace_bytes, &alpha2,
                                                      s.y, z, s.bias, bias.data(), s.relu, s.y, out.data());
  if (CUDNN_STATUS_CATEGORY(status) != CUDNN_STATUS_NOT_SUPPORTED) {
    check(status, "cudnnConvolutionBiasActivationForward");
    return;
  }
  forward(ctx, s, input, weight, out.data());
  check(cudnnAddTensor(handle, &one, s.bias, bias.data(), &one, s.y_fp32, out.data()), "cudnnAddTensor (bias)");
  if (residual)
    check(cudnnAddTensor(handle, &one, s.y_fp32, ctx.float_input(3).data(), &one, s.y_fp32, out.data()),
          "cudnnAddTensor (residual)");
  check(cudnnActivationForward(handle, s.relu, &one, s.y_fp32, out.data(), &zero, s.y_fp32, out.data()),
        "cudnnActivationForward");
}

void conv(KernelContext& ctx) {
  const auto& x = ctx.activation(0);
  const auto& w = ctx.float_input(1);
  auto& s = ctx.cached<ConvState>();
  auto y_dims = ctx.output_dims(0);
  if (!s.ready) prepare(ctx, s, x, w, y_dims);
  auto type = compute_type(ctx.options.precision);
  auto stream = ctx.gpu.stream();
  GpuTensor input = x;
  if (!s.padded_dims.empty()) {
    auto padded = ctx.scratch(x.dtype, s.padded_dims);
    std::vector<int64_t> begin(x.dims.size(), 0);
    for (size_t i = 0; i < s.geometry.kernel.size(); ++i) begin[i + 2] = s.geometry.copy_pad_begin[i];
    pad_held(x, begin, padded.data(), s.padded_dims, 0.f, s.channels_last, stream);
    ctx.check_launch("padding the input");
    input = std::move(padded);
  }
  input = converted(ctx, input, type);
  GpuTensor weight = s.weight.defined() ? s.weight : layer_weight(ctx, s, w, type);
  auto& out = ctx.allocate_output(0);
  // What the profile names the layer: its algorithm, and the epilogue it computes ("implicit-gemm+add+relu").
  auto algorithm_name = [&] {
    auto label = s.graph ? s.graph->name() : std::string(name(from_cudnn(s.choice.algorithm)));
    if (ctx.has(3)) label += "+add";
    if (!s.activation.name.empty()) label += "+" + s.activation.name;
    return label;
  };
  if (s.fused) {
    fused_conv(ctx, s, input, weight, out);
    if (ctx.algorithm) {
      ctx.algorithm->name = algorithm_name();
      ctx.algorithm->workspace_bytes = static_cast<int64_t>(s.choice.workspace_bytes);
      ctx.algorithm->note = s.choice.note;
    }
    return;
  }
  // The output is fp32, or the 16-bit type the run keeps activations in (storage_plan.h): the compute type's result
  // is written there directly where the types agree, else converted.
  GpuTensor y = type == out.dtype ? out : ctx.scratch(type, y_dims);
  forward(ctx, s, input, weight, y.data());
  if (type != out.dtype) {
    cast(type, y.data(), out.dtype, out.data(), out.numel(), stream);
    ctx.check_launch("cast");
  }
  if (s.activation.op != EpilogueOp::kNone || ctx.has(3) || ctx.has(2)) {
    // The bias, the residual and the activation in one pass over the output, per NCHW channel: one kernel
    // launch, where cudnnAddTensor costs a legacy call's host time for a bias alone.
    auto e = s.activation.epilogue();
    e.bias = ctx.has(2) ? ctx.float_input(2).as<float>() : nullptr;
    if (ctx.has(3) && ctx.activation(3).dtype != out.dtype) ctx.fail("the residual's type is not the output's");
    e.residual = ctx.has(3) ? ctx.activation(3).data() : nullptr;
    e.type = element_type_of(out.dtype);
    e.channels = y_dims.at(1);
    e.inner = 1;  // channels-last: the channel is the innermost dim
    if (!s.channels_last)
      for (size_t d = 2; d < y_dims.size(); ++d) e.inner *= y_dims[d];
    epilogue(out.data(), out.numel(), e, stream);
    ctx.check_launch("the convolution's epilogue");
  }
  if (ctx.algorithm) {
    ctx.algorithm->name = algorithm_name();
    ctx.algorithm->workspace_bytes =
        static_cast<int64_t>(s.graph ? s.graph->workspace_bytes() : s.choice.workspace_bytes);
    ctx.algorithm->note = s.choice.note;
  }
}

// The backward algorithms: cuDNN's heuristic ranking (or, with --conv-algo benchmark, its measured one) within the
// workspace the forward may use, without tensor-core entries in fp32 (as the forward). A candidate cuDNN refuses at
// launch gives way to the next (the first that ran is kept).
template <class Algorithm>
struct Candidates {
  std::vector<std::pair<Algorithm, size_t>> list;  // algorithm, workspace bytes
  size_t next = 0;
};

struct ConvBackwardState : NodeState {
  // The backward's own descriptor in the precision's math (fp32: FMA only): the forward's may carry the math of the
  // algorithm it chose.
  ConvolutionDescriptor conv;
  Candidates<cudnnConvolutionBwdDataAlgo_t> data;
  Candidates<cudnnConvolutionBwdFilterAlgo_t> filter;
  bool ready = false;
};

template <class Perf, class Algorithm>
void rank(const Perf* results, int count, Precision precision, size_t limit, Candidates<Algorithm>& out) {
  for (int i = 0; i < count; ++i) {
    const auto& r = results[i];
    if (r.status != CUDNN_STATUS_SUCCESS || r.memory > limit) continue;
    if (precision == Precision::kFp32 && r.mathType == CUDNN_TENSOR_OP_MATH) continue;
    out.list.emplace_back(r.algo, r.memory);
  }
}

void prepare_backward(KernelContext& ctx, ConvState& s, ConvBackwardState& b) {
  b.conv = convolution_descriptor(s.geometry, ctx.options.precision);
  size_t free_bytes = 0, total = 0;
  check(cudaMemGetInfo(&free_bytes, &total), "cudaMemGetInfo");
  size_t limit = free_bytes / 10 * 8 + ctx.gpu.workspace_bytes();
  // --conv-algo benchmark times every backward algorithm once (cudnnFind*, ranked by time), as the forward's does;
  // otherwise cuDNN's heuristic ranks them.
  bool benchmark = ctx.options.cudnn_conv_algo == CudnnConvAlgo::kBenchmark;
  auto handle = ctx.gpu.cudnn();
  int count = 0;
  cudnnConvolutionBwdDataAlgoPerf_t data[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
  if (benchmark)
    check(cudnnFindConvolutionBackwardDataAlgorithm(handle, s.w, s.y, b.conv, s.x,
                                                    CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &count, data),
          "cudnnFindConvolutionBackwardDataAlgorithm");
  else
    check(cudnnGetConvolutionBackwardDataAlgorithm_v7(handle, s.w, s.y, b.conv, s.x,
                                                      CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &count, data),
          "cudnnGetConvolutionBackwardDataAlgorithm_v7");
  rank(data, count, ctx.options.precision, limit, b.data);
  cudnnConvolutionBwdFilterAlgoPerf_t filter[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
  if (benchmark)
    check(cudnnFindConvolutionBackwardFilterAlgorithm(handle, s.x, s.y, b.conv, s.w,
                                                      CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &count, filter),
          "cudnnFindConvolutionBackwardFilterAlgorithm");
  else
    check(cudnnGetConvolutionBackwardFilterAlgorithm_v7(handle, s.x, s.y, b.conv, s.w,
                                                        CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &count, filter),
          "cudnnGetConvolutionBackwardFilterAlgorithm_v7");
  rank(filter, count, ctx.options.precision, limit, b.filter);
  b.ready = true;
}

// Runs `launch(algorithm, workspace, bytes)` with the current candidate, moving on while cuDNN refuses one.
template <class Algorithm, class Launch>
void run_backward(KernelContext& ctx, Candidates<Algorithm>& c, const char* what, Launch launch) {
  auto status = CUDNN_STATUS_NOT_SUPPORTED;
  for (; c.next < c.list.size(); ++c.next) {
    auto [algorithm, bytes] = c.list[c.next];
    status = launch(algorithm, ctx.gpu.workspace(bytes), bytes);
    if (CUDNN_STATUS_CATEGORY(status) != CUDNN_STATUS_NOT_SUPPORTED) break;
  }
  if (c.next == c.list.size()) ctx.fail(fmt::format("cuDNN runs no {} algorithm for this layer", what));
  check(status, what);
}

// ConvTranspose (conv_plan.h: ConvTransposeGeometry): cuDNN's backward data of a convolution from the extended output
// to the input, with no padding, into the extended output; its bias per channel there (the epilogue kernel); then
// the output cropped from it at `begin` (zeros past it), as the CPU executor does. Algorithms: cuDNN's heuristic
// ranking of the backward-data algorithms (no tensor-core entries in fp32), the next where one is refused at launch.
struct ConvTransposeState : NodeState {
  ConvTransposeGeometry geometry;
  TensorDescriptor x, extended;
  FilterDescriptor w;
  ConvolutionDescriptor conv;
  Candidates<cudnnConvolutionBwdDataAlgo_t> algorithms;
  GpuTensor weight;     // in the compute type
  bool direct = false;  // the extended output is the output (fp32, nothing cropped)
  bool ready = false;
};

void prepare_transpose(KernelContext& ctx, ConvTransposeState& s, const GpuTensor& x, const GpuTensor& w,
                       const std::vector<int64_t>& y) {
  auto type = compute_type(ctx.options.precision);
  s.geometry = conv_transpose_geometry(ctx.node, x.dims, w.dims, y);
  const auto& t = s.geometry;
  ConvGeometry g;  // the convolution from the extended output back to the input
  g.kernel.assign(w.dims.begin() + 2, w.dims.end());
  g.strides = t.strides;
  g.dilations = t.dilations;
  g.cudnn_pads.assign(g.kernel.size(), 0);
  g.group = t.group;
  s.conv = convolution_descriptor(g, ctx.options.precision);
  s.x = tensor_descriptor(x.dims, type);
  s.extended = tensor_descriptor(t.extended, type);
  s.w = filter_descriptor(w.dims, type);
  std::vector<int> back(x.dims.size() < 4 ? 4 : x.dims.size());
  check(cudnnGetConvolutionNdForwardOutputDim(s.conv, s.extended, s.w, static_cast<int>(back.size()), back.data()),
        "cudnnGetConvolutionNdForwardOutputDim");
  for (size_t i = 0; i < x.dims.size(); ++i)
    if (back[i] != x.dims[i])
      ctx.fail(fmt::format("the extended output's dim {} convolves to {}, not the input's {}", i, back[i], x.dims[i]));
  size_t free_bytes = 0, total = 0;
  check(cudaMemGetInfo(&free_bytes, &total), "cudaMemGetInfo");
  int count = 0;
  cudnnConvolutionBwdDataAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
  check(cudnnGetConvolutionBackwardDataAlgorithm_v7(ctx.gpu.cudnn(), s.w, s.x, s.conv, s.extended,
                                                    CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &count, perf),
        "cudnnGetConvolutionBackwardDataAlgorithm_v7");
  rank(perf, count, ctx.options.precision, free_bytes / 10 * 8 + ctx.gpu.workspace_bytes(), s.algorithms);
  if (ctx.input_is_unchanging(1)) s.weight = converted(ctx, w, type);
  s.direct = type == graph::DType::kFloat32 && t.extended == y &&
             std::all_of(t.begin.begin(), t.begin.end(), [](int64_t b) { return b == 0; });
  s.ready = true;
}

void conv_transpose(KernelContext& ctx) {
  const auto& x = ctx.float_input(0);
  const auto& w = ctx.float_input(1);
  auto y_dims = ctx.output_dims(0);
  auto& s = ctx.cached<ConvTransposeState>();
  if (!s.ready) prepare_transpose(ctx, s, x, w, y_dims);
  auto type = compute_type(ctx.options.precision);
  auto stream = ctx.gpu.stream();
  auto input = converted(ctx, x, type);
  GpuTensor weight = s.weight.defined() ? s.weight : converted(ctx, w, type);
  auto& y = ctx.allocate_output(0);
  const auto& extended_dims = s.geometry.extended;
  GpuTensor extended = s.direct ? y : ctx.scratch(type, extended_dims);
  float one = 1.f, zero = 0.f;
  run_backward(ctx, s.algorithms, "cudnnConvolutionBackwardData (ConvTranspose)",
               [&](cudnnConvolutionBwdDataAlgo_t algorithm, void* workspace, size_t bytes) {
                 return cudnnConvolutionBackwardData(ctx.gpu.cudnn(), &one, s.w, weight.data(), s.x, input.data(),
                                                     s.conv, algorithm, workspace, bytes, &zero, s.extended,
                                                     extended.data());
               });
  GpuTensor wide = extended;  // the extended output in fp32
  if (type != graph::DType::kFloat32) {
    wide = ctx.scratch(graph::DType::kFloat32, extended_dims);
    cast(type, extended.data(), graph::DType::kFloat32, wide.data(), wide.numel(), stream);
    ctx.check_launch("cast");
  }
  if (ctx.has(2)) {
    Epilogue e;
    e.bias = ctx.float_input(2).as<float>();
    e.channels = extended_dims[1];
    for (size_t d = 2; d < extended_dims.size(); ++d) e.inner *= extended_dims[d];
    epilogue(wide.as<float>(), wide.numel(), e, stream);
    ctx.check_launch("ConvTranspose's bias");
  }
  if (s.direct) return;
  std::vector<int64_t> begin(y_dims.size(), 0);
  for (size_t d = 2; d < y_dims.size(); ++d) begin[d] = -s.geometry.begin[d - 2];  // a negative pad crops
  pad_constant(wide.as<float>(), dense_layout(extended_dims), begin.data(), y.as<float>(), dense_layout(y_dims), 0.f,
               stream);
  ctx.check_launch("ConvTranspose's crop");
}

// dW from x and dY, dX from W and dY, db as dY summed per channel: cuDNN's three backward calls.
void conv_backward(BackwardContext& b) {
  auto& ctx = b.forward;
  auto& s = b.forward_state<ConvState>();
  if (!s.padded_dims.empty())
    ctx.fail("asymmetric pads: the GPU backward has no gradient of the padded copy the forward convolves");
  auto& state = b.cached<ConvBackwardState>();
  if (!state.ready) prepare_backward(ctx, s, state);
  // Mixed precision as autocast runs it: the backward's convolutions in the forward's 16-bit type (fp32
  // accumulation), their gradients converted back to fp32, the weights' master copies staying fp32.
  // Channels-last (the training step gives this row x and dY held NHWC, and dX is written so): the descriptors are the
  // forward's, NHWC, and the filter's gradient comes out KRSC, as the weight goes in.
  auto type = compute_type(ctx.options.precision);
  auto x = converted(ctx, ctx.float_input(0), type);
  auto w = layer_weight(ctx, s, ctx.float_input(1), type);
  auto dy = converted(ctx, b.dy(0), type);
  auto in_fp32 = [&](GpuTensor& grad, const GpuTensor& computed) {
    if (computed.data() == grad.data()) return;
    cast(type, computed.data(), graph::DType::kFloat32, grad.data(), grad.numel(), ctx.gpu.stream());
    ctx.check_launch("a gradient back to fp32");
  };
  float one = 1.f, zero = 0.f;
  auto handle = ctx.gpu.cudnn();
  if (b.wants(1)) {
    auto& grad = b.grad(1);  // KCRS, as the weight is held
    bool direct = type == graph::DType::kFloat32 && !s.channels_last;
    auto dw = direct ? grad : ctx.scratch(type, grad.dims);
    run_backward(ctx, state.filter, "cudnnConvolutionBackwardFilter",
                 [&](cudnnConvolutionBwdFilterAlgo_t algorithm, void* workspace, size_t bytes) {
                   return cudnnConvolutionBackwardFilter(handle, &one, s.x, x.data(), s.y, dy.data(), state.conv,
                                                         algorithm, workspace, bytes, &zero, s.w, dw.data());
                 });
    if (!s.channels_last) {
      in_fp32(grad, dw);
    } else {
      GpuTensor wide = dw;
      if (type != graph::DType::kFloat32) {
        wide = ctx.scratch(graph::DType::kFloat32, grad.dims);
        in_fp32(wide, dw);
      }
      wide.channels_last = true;  // KRSC: read back in KCRS order
      strided_copy(wide.data(), logical_layout(wide, wide.dims), 0, grad.data(), grad.numel(),
                   static_cast<int>(sizeof(float)), ctx.gpu.stream());
      ctx.check_launch("the filter's gradient from KRSC order");
    }
  }
  if (b.wants(0)) {
    auto& grad = b.grad(0);
    auto dx = type == graph::DType::kFloat32 ? grad : ctx.scratch(type, grad.dims);
    run_backward(ctx, state.data, "cudnnConvolutionBackwardData",
                 [&](cudnnConvolutionBwdDataAlgo_t algorithm, void* workspace, size_t bytes) {
                   return cudnnConvolutionBackwardData(handle, &one, s.w, w.data(), s.y, dy.data(), state.conv,
                                                       algorithm, workspace, bytes, &zero, s.x, dx.data());
                 });
    in_fp32(grad, dx);
  }
  const auto& dy_fp32 = b.dy(0);
  if (ctx.has(2) && b.wants(2)) {
    auto& db = b.grad(2);
    check(cudnnConvolutionBackwardBias(handle, &one, s.y_fp32, dy_fp32.data(), &zero, s.bias, db.data()),
          "cudnnConvolutionBackwardBias");
  }
}

}  // namespace

void register_conv_kernels(KernelRegistry& registry) {
  // A convolution reads its input and its residual (optimized mode's input 3) in a run's 16-bit activations.
  // and channels-last, both.
  constexpr StorageInputs kXZ = storage_input(0) | storage_input(3);
  registry.add("conv", {{"Conv", conv, kXZ, kXZ}, {"ConvTranspose", conv_transpose}});
}

void register_conv_backward(BackwardRegistry& registry) {
  registry.add("conv", {{"Conv", conv_backward, {}, nullptr, /*channels_last=*/true}});
}

}  // namespace ridge::exec::cuda
