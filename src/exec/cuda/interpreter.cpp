#include "exec/cuda/interpreter.h"

#include <fmt/format.h>
// NVTX v3 is header-only: a range costs one predictable branch unless a profiler (Nsight Compute or Systems)
// injects itself, so every node is named in ridge's own profiles at no cost to its timings.
#include <nvtx3/nvToolsExt.h>

#include <map>

#include "exec/attention_fusion.h"
#include "exec/control_flow_rewrite.h"
#include "exec/cuda/attention_plan.h"
#include "exec/cuda/epilogue.h"
#include "exec/cuda/integer_products.h"
#include "exec/cuda/product_plan.h"
#include "exec/host_values.h"
#include "exec/node_plan.h"
#include "exec/optimized_graph.h"
#include "exec/prepare.h"
#include "sys/cuda/check.h"
#include "util/error.h"

namespace ridge {
template <>
const exec::cuda::KernelRegistry& exec::cuda::KernelRegistry::instance() {
  static const auto* registry = [] {
    auto* r = new exec::cuda::KernelRegistry;
    exec::cuda::register_conv_kernels(*r);
    exec::cuda::register_matmul_kernels(*r);
    exec::cuda::register_elementwise_kernels(*r);
    exec::cuda::register_normalization_kernels(*r);
    exec::cuda::register_pooling_kernels(*r);
    exec::cuda::register_manipulation_kernels(*r);
    exec::cuda::register_resize_kernels(*r);
    exec::cuda::register_recurrent_kernels(*r);
    exec::cuda::register_reduce_kernels(*r);
    exec::cuda::register_indexing_kernels(*r);
    exec::cuda::register_attention_kernels(*r);
    exec::cuda::register_quantization_kernels(*r);
    exec::cuda::register_integer_kernels(*r);
    exec::cuda::register_generator_kernels(*r);
    exec::cuda::register_loss_kernels(*r);
    exec::cuda::register_detection_kernels(*r);
    return r;
  }();
  return *registry;
}
}  // namespace ridge

namespace ridge::exec::cuda {

using sys::cuda::check;

using graph::ValueId;

namespace {

// A Constant holding a tensor: the executor uploads its value once, as it does a weight, where shape inference did not
// keep it (more than shape/context.h's kMaxPropagatedElements elements: a causal mask, a table of positions).
const graph::TensorRef* uploaded_constant(const graph::Node& node) {
  if (!node.is_default_domain() || node.op_type != "Constant") return nullptr;
  const auto* value = node.attribute("value");
  return value ? value->tensor.get() : nullptr;
}

}  // namespace

std::vector<std::pair<std::string, int>> missing_kernels(const graph::Model& model) {
  // What the interpreter runs: Ifs of known condition inlined, loops of known iterations unrolled.
  std::unique_ptr<graph::Model> rewritten;
  if (has_rewritable_control_flow(model.graph)) {
    rewritten = std::make_unique<graph::Model>(model);
    rewrite_control_flow(*rewritten);
  }
  const auto& g = rewritten ? rewritten->graph : model.graph;
  std::map<std::string, int> missing;
  for (const auto& node : g.nodes) {
    if (is_folded_arithmetic(g, node) || uploaded_constant(node)) continue;
    const auto* row = node.is_default_domain() ? KernelRegistry::instance().find(node.op_type) : nullptr;
    if (!row || !node.subgraphs().empty())
      ++missing[node.is_default_domain() ? node.op_type : node.domain + "." + node.op_type];
  }
  return {missing.begin(), missing.end()};
}

namespace {

// What the GPU takes of a layer's epilogue in optimized mode: a convolution's BatchNorm (folded on the host), its
// residual Add before the activation and its activation; a MatMul's bias and a product's activation. cuDNN's fused
// convolution computes relu(conv + residual + bias) in an fp32 output (fp32 and tf32); everything else one pass of
// the epilogue kernel over the layer's fp32 output computes (kernels.h), in every precision. A residual added after
// the activation (YOLO's shortcut) stays a node.
EpilogueChoice gpu_epilogue(const graph::Node& layer, const OptimizationPlan::Epilogue& e) {
  EpilogueChoice c;
  c.activation = epilogue_op(e.activation) != EpilogueOp::kNone;
  if (layer.op_type == "MatMul" || layer.op_type == "Gemm") {
    c.bias = layer.op_type == "MatMul";  // Gemm's bias is its C
    return c;
  }
  if (layer.op_type != "Conv") return {};
  c.batchnorm = true;
  c.residual = e.residual != graph::kNoValue && !e.residual_last;
  return c;
}

}  // namespace

OptimizedGraph gpu_optimized_graph(const graph::Model& model, Precision precision) {
  auto out = optimized_graph(
      model.graph, plan_optimization(model.graph, model.directory),
      [&](const graph::Node& layer, const OptimizationPlan::Epilogue& e) { return gpu_epilogue(layer, e); });
  // Attention's transposes and scaling read and written by its products in place, where cuBLAS can (product_plan.h).
  out.views = absorb_product_views(out.graph, model.directory, [](const ProductLayout& layout) {
    return plan_product_calls(layout, kMaxProductCalls).has_value();
  });
  // The attention kernel computes on CUDA cores, as cuBLAS's fp32 products do: in fp32 it does their work without
  // writing and reading the scores three times. In tf32, fp16 and bf16 the products run on tensor cores, which the
  // kernel does not use, so the products stay.
  if (precision == Precision::kFp32)
    out.attention = fuse_attention(out.graph, model.default_opset(), model.directory, [](const AttentionPattern& p) {
      try {
        fused_attention_plan(p);
        return true;
      } catch (const Error&) {
        return false;
      }
    });
  return out;
}

Interpreter::Interpreter(const graph::Model& model, Gpu& gpu, const ExecOptions& options)
    : graph_(&model.graph),
      directory_(model.directory),
      gpu_(gpu),
      options_(options),
      opset_(model.default_opset()),
      rng_(options.seed) {
  check_tensor_io(model);  // a sequence input or output: refused by name, as on the CPU
  // An If whose condition shape inference knows runs as the branch it takes, and a Loop or Scan whose iterations are
  // known runs as them (nested ones too): their nodes are the model's from here on.
  const graph::Model* source = &model;
  ControlFlowRewrite rewrite;
  if (has_rewritable_control_flow(model.graph)) {
    inlined_ = std::make_unique<graph::Model>(model);
    rewrite = rewrite_control_flow(*inlined_);
    inlining_ = rewrite.summary();
    source = inlined_.get();
    graph_ = &inlined_->graph;
  }
  const auto& original = source->graph;
  auto missing = missing_kernels(*source);
  if (!missing.empty()) {
    std::string list;
    for (const auto& [op, count] : missing) list += fmt::format("{}{} ({})", list.empty() ? "" : ", ", op, count);
    // An If, Loop or Scan left as it is says why: its condition or trip count depends on the data (known only during
    // the run), or its body.
    std::string why;
    for (const auto& [op, count] : missing) {
      if (op == "If")
        why += rewrite.kept_ifs.empty() ? " (the GPU runs an If whose condition is known before the run, as its branch)"
                                        : " (If " + rewrite.kept_ifs.front() + ")";
      if ((op == "Loop" || op == "Scan") && !rewrite.kept_loops.empty())
        why += fmt::format(" ({} {})", op, rewrite.kept_loops.front());
    }
    // A sequence op left says why once: its sequence or position is known only during the run.
    if (!rewrite.kept_sequences.empty()) why += " (" + rewrite.kept_sequences.front() + ")";
    throw Error("the GPU executor has no kernel for " + list + why + "; docs/gpu.md lists the ops the GPU runs");
  }
  // Its kernels move whole bytes per element: a packed 4-bit tensor (int4, uint4, float4) would be read and written
  // past its end.
  for (const auto& v : source->graph.values)
    if (v.dtype != graph::DType::kUndefined && graph::dtype_bits(v.dtype) % 8 != 0)
      throw Error(fmt::format("value '{}' is {}: the GPU executor does not hold packed sub-byte types", v.name,
                              graph::dtype_name(v.dtype)));
  std::vector<BatchNormFold> folds;
  if (options.mode == Mode::kOptimized) {
    auto rewritten = gpu_optimized_graph(*source, options.precision);
    optimization_ = rewritten.summary();
    folds = std::move(rewritten.folds);
    optimized_ = std::make_unique<graph::Graph>(std::move(rewritten.graph));
    graph_ = optimized_.get();
  }
  const auto& g = *graph_;
  // Shape arithmetic is folded into constants, uploaded once; the release rule is every backend's.
  plan_ = plan_nodes(g, true);
  kernels_.assign(g.nodes.size(), nullptr);
  range_names_.reserve(g.nodes.size());
  origins_.reserve(g.nodes.size());
  for (const auto& node : g.nodes) {
    origins_.push_back(rewrite.origin(node));
    // An inlined branch's kernels carry its If's name (an unrolled loop's its loop's): the node the analysis costs and
    // `import ncu -m` maps to.
    range_names_.push_back(!origins_.back().empty() ? origins_.back().name
                                                    : (node.name.empty() ? node.op_type : node.name));
  }
  for (size_t n = 0; n < g.nodes.size(); ++n)
    if (plan_.executes(n)) kernels_[n] = KernelRegistry::instance().find(g.nodes[n].op_type);
  constants_.resize(g.values.size());
  // The rewritten graph keeps every value of the model at its id (new ones come after), and weights are drawn in
  // the model's value order: one seed gives the same weights in every mode.
  std::map<ValueId, HostTensor> fold_inputs;
  for (const auto& f : folds)
    for (auto id : {f.conv_weight, f.conv_bias, f.scale, f.shift, f.mean, f.var})
      if (id != graph::kNoValue) fold_inputs[id];
  for (size_t i = 0; i < original.values.size(); ++i) {
    const auto& v = g.values[i];
    auto id = static_cast<ValueId>(i);
    if (v.is_graph_input && !v.initializer) continue;
    if (v.initializer) {
      auto host = load_initializer(original, id, model.directory, rng_, random_weights_);
      if (fold_inputs.count(id)) fold_inputs[id] = host;
      // A weight only a folded BatchNorm read is not uploaded: its folded copy is.
      if (optimized_ && v.consumers.empty() && !v.is_graph_output) continue;
      weight_bytes_ += static_cast<int64_t>(host.bytes.size());
      constants_[i] = upload(host);
    } else if (v.constant && v.producer >= 0 && !kernels_[static_cast<size_t>(v.producer)]) {
      constants_[i] = upload(constant_tensor(v));
    } else if (v.producer >= 0 && !kernels_[static_cast<size_t>(v.producer)]) {
      if (const auto* tensor = uploaded_constant(g.nodes[static_cast<size_t>(v.producer)])) {
        auto host = attribute_tensor(*tensor, model.directory);
        host.name = v.name;
        weight_bytes_ += static_cast<int64_t>(host.bytes.size());
        constants_[i] = upload(host);
      }
    }
  }
  for (const auto& f : folds) {
    auto input = [&](ValueId id) -> const HostTensor& {
      auto& t = fold_inputs.at(id);
      if (t.bytes.empty() && original.value(id).constant) t = constant_tensor(original.value(id));
      if (t.bytes.empty())
        throw Error(fmt::format("optimized mode: '{}' is computed, not a weight: its BatchNorm cannot be folded",
                                original.value(id).name));
      return t;
    };
    const HostTensor* bias = f.conv_bias == graph::kNoValue ? nullptr : &input(f.conv_bias);
    auto [weight, folded_bias] = fold_batchnorm(input(f.conv_weight), bias, input(f.scale), input(f.shift),
                                                input(f.mean), input(f.var), f.epsilon);
    weight_bytes_ += static_cast<int64_t>(weight.bytes.size() + folded_bias.bytes.size());
    constants_[static_cast<size_t>(f.weight)] = upload(weight);
    constants_[static_cast<size_t>(f.bias)] = upload(folded_bias);
  }
  states_.resize(g.nodes.size());
  algorithms_.resize(g.nodes.size());
  storage_ = plan_storage(g, kernels_, activation_storage(options_, false),
                          options_.memory_format == MemoryFormat::kChannelsLast);
  converted_constants_.resize(g.values.size());
  relaid_constants_.resize(g.values.size());
  check(cudaStreamSynchronize(gpu_.stream()), "uploading the weights");
}

void Interpreter::set_weights_change() {
  weights_change_ = true;
  const auto& g = *graph_;
  converted_constants_.assign(g.values.size(), {});
  relaid_constants_.assign(g.values.size(), {});
  plan_ = plan_nodes(g, true, true);
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    if (!plan_.executes(n) || kernels_[n]) continue;
    const auto& node = g.nodes[n];
    if (uploaded_constant(node)) continue;  // a constant before the first run
    kernels_[n] = node.is_default_domain() ? KernelRegistry::instance().find(node.op_type) : nullptr;
    if (!kernels_[n])
      throw Error(
          fmt::format("training: node '{}' ({}) computes from a weight and the GPU executor has no kernel for it",
                      node.name, node.op_type));
  }
  // A training step keeps fp32 values (its backward reads them) and converts per layer, as autocast does; channels-last
  // holds its 4-D activations NHWC as inference does. Planned over the nodes that now run.
  storage_ = plan_storage(g, kernels_, activation_storage(options_, true),
                          options_.memory_format == MemoryFormat::kChannelsLast);
}

GpuTensor Interpreter::upload(const HostTensor& host) {
  GpuTensor t;
  t.dtype = host.dtype;
  t.dims = host.dims;
  auto expected = t.bytes();
  if (host.bytes.size() != expected)
    throw Error(fmt::format("tensor '{}' holds {} bytes but its shape and type need {}", host.name, host.bytes.size(),
                            expected));
  t.block = gpu_.allocator().allocate(expected);
  if (expected)
    check(cudaMemcpyAsync(t.data(), host.bytes.data(), expected, cudaMemcpyHostToDevice, gpu_.stream()),
          "copying '" + host.name + "' to the GPU");
  // Pageable host memory: the copy has been staged when cudaMemcpyAsync returns, so `host` may go.
  return t;
}

void Interpreter::set_inputs(const std::vector<HostTensor>& inputs) {
  const auto& g = *graph_;
  std::vector<ValueId> runtime;
  for (auto id : g.inputs)
    if (!g.value(id).initializer) runtime.push_back(id);
  if (!inputs.empty() && inputs.size() != runtime.size())
    throw Error(fmt::format("the model takes {} inputs, {} given", runtime.size(), inputs.size()));
  inputs_.clear();
  for (size_t i = 0; i < runtime.size(); ++i) {
    const auto& v = g.value(runtime[i]);
    auto host = inputs.empty() ? generate_input(g, runtime[i], rng_) : inputs[i];
    if (host.dtype != v.dtype)
      throw Error(fmt::format("input '{}' is {}, the model declares {}", v.name, graph::dtype_name(host.dtype),
                              graph::dtype_name(v.dtype)));
    inputs_.push_back(upload(host));
  }
  check(cudaStreamSynchronize(gpu_.stream()), "copying the inputs to the GPU");
  inputs_set_ = true;
}

std::vector<GpuTensor> Interpreter::run(const NodeHook& hook) {
  const auto& g = *graph_;
  auto values = execute(hook, false);
  std::vector<GpuTensor> outputs;
  for (auto id : g.outputs) {
    const auto& t = values[static_cast<size_t>(id)];
    if (!t.defined()) throw Error(fmt::format("output '{}' was not computed", g.value(id).name));
    // An output kept in 16 bits is returned as the graph declares it.
    auto out = t.dtype == g.value(id).dtype ? t : stored_as(t, id, g.value(id).dtype);
    outputs.push_back(out.channels_last ? relaid(out, false) : out);  // and in NCHW
  }
  return outputs;
}

GpuTensor Interpreter::relaid(const GpuTensor& t, bool channels_last) {
  GpuTensor out{t.dtype, t.dims, gpu_.allocator().allocate(t.bytes()), 0, channels_last};
  // NCHW read in NHWC order into a dense NHWC copy, or NHWC read in NCHW order into a dense NCHW one (strided_copy
  // tiles these transposes).
  auto in = channels_last ? nhwc_order(dense_layout(t.dims)) : logical_layout(t, t.dims);
  strided_copy(t.data(), in, 0, out.data(), t.numel(), static_cast<int>(graph::dtype_bytes(t.dtype, 1)), gpu_.stream());
  check(cudaGetLastError(), channels_last ? "a copy to channels-last" : "a copy from channels-last");
  return out;
}

GpuTensor Interpreter::stored_as(const GpuTensor& t, ValueId id, graph::DType to) {
  auto index = static_cast<size_t>(id);
  const bool constant = constants_[index].defined() && !weights_change_;
  if (constant && converted_constants_[index].defined() && converted_constants_[index].dtype == to)
    return converted_constants_[index];
  GpuTensor out{to, t.dims, gpu_.allocator().allocate(static_cast<size_t>(graph::dtype_bytes(to, t.numel()))), 0,
                t.channels_last};
  // A constant beyond fp16's range (an exporter's -3.4e38 mask fill) saturates rather than becoming an infinity.
  if (constants_[index].defined() && t.dtype == graph::DType::kFloat32 && to == graph::DType::kFloat16)
    cast_fp32_to_fp16_saturated(t.as<float>(), out.data(), t.numel(), gpu_.stream());
  else if (!cast(t.dtype, t.data(), to, out.data(), t.numel(), gpu_.stream()))
    throw Error(fmt::format("value '{}': no GPU conversion from {} to {}", graph_->value(id).name,
                            graph::dtype_name(t.dtype), graph::dtype_name(to)));
  check(cudaGetLastError(), "converting '" + graph_->value(id).name + "'");
  if (constant) converted_constants_[index] = out;
  return out;
}

GpuTensor Interpreter::relaid_input(const GpuTensor& t, ValueId id, bool channels_last) {
  auto index = static_cast<size_t>(id);
  if (!constants_[index].defined() || weights_change_) return relaid(t, channels_last);
  auto& kept = relaid_constants_[index];
  if (!kept.defined() || kept.dtype != t.dtype || kept.channels_last != channels_last) kept = relaid(t, channels_last);
  return kept;
}

std::vector<GpuTensor> Interpreter::run_keeping_values(const NodeHook& hook) { return execute(hook, true); }

KernelContext Interpreter::node_context(size_t n, const std::vector<GpuTensor>& values) {
  const auto& node = graph_->nodes.at(n);
  KernelContext ctx{node, *graph_, gpu_, options_, opset_, {}, {}, states_[n], &algorithms_[n], weights_change_};
  ctx.model_directory = directory_;
  for (auto id : node.inputs)
    ctx.inputs.push_back(id == graph::kNoValue ? GpuTensor{} : values[static_cast<size_t>(id)]);
  for (auto id : node.outputs)
    ctx.outputs.push_back(id == graph::kNoValue ? GpuTensor{} : values[static_cast<size_t>(id)]);
  return ctx;
}

std::vector<GpuTensor> Interpreter::execute(const NodeHook& hook, bool keep_values) {
  const auto& g = *graph_;
  if (!inputs_set_) set_inputs({});
  std::vector<GpuTensor> values = constants_;
  size_t next = 0;
  for (auto id : g.inputs)
    if (!g.value(id).initializer) values[static_cast<size_t>(id)] = inputs_[next++];
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    if (!kernels_[n]) continue;
    // Before its inputs' conversions: they are the node's work, and its timing (a profile's events) takes them in.
    if (hook) hook(n, false);
    const auto& node = g.nodes[n];
    KernelContext ctx{node, g, gpu_, options_, opset_, {}, {}, states_[n], &algorithms_[n], weights_change_};
    ctx.model_directory = directory_;
    ctx.inputs.reserve(node.inputs.size());
    for (auto id : node.inputs) {
      if (id == graph::kNoValue) {
        ctx.inputs.emplace_back();
        continue;
      }
      const auto& t = values[static_cast<size_t>(id)];
      if (!t.defined()) throw Error(fmt::format("value '{}' is read before it is computed", g.value(id).name));
      // Where the run keeps activations in 16 bits or channels-last, each input arrives in the type and the layout the
      // kernel reads it in (storage_plan.h).
      const auto& row = *kernels_[n];
      auto want = input_type(row, ctx.inputs.size(), g.value(id).dtype, storage_.storage);
      auto input = t.dtype == want || storage_.storage == graph::DType::kFloat32 ? t : stored_as(t, id, want);
      bool channels_last = reads_channels_last(row, ctx.inputs.size(), t.dims, storage_.channels_last);
      ctx.inputs.push_back(input.channels_last == channels_last ? input : relaid_input(input, id, channels_last));
    }
    if (kernels_[n]->storage != kNoStorage) ctx.storage = storage_.storage;
    ctx.channels_last = storage_.channels_last && kernels_[n]->channels_last != kNoStorage;
    ctx.outputs.resize(node.outputs.size());
    // The range carries the ONNX node's name, so `ridge import ncu -m MODEL` maps the kernels inside it to
    // that layer (profile/layer_map). A CUDA-graph replay launches no host code, hence has no ranges.
    nvtxRangePushA(range_names_[n].c_str());
    try {
      kernels_[n]->kernel(ctx);
    } catch (const Error& e) {
      nvtxRangePop();
      throw Error(fmt::format("node '{}' ({}): {}", node.name, node.op_type, e.what()));
    }
    nvtxRangePop();
    if (hook) hook(n, true);
    for (size_t i = 0; i < node.outputs.size(); ++i)
      if (node.outputs[i] != graph::kNoValue) values[static_cast<size_t>(node.outputs[i])] = std::move(ctx.outputs[i]);
    ctx.inputs.clear();
    if (keep_values) continue;
    for (auto id : plan_.release_after[n]) values[static_cast<size_t>(id)] = {};
  }
  return values;
}

std::vector<HostTensor> Interpreter::download(const std::vector<GpuTensor>& outputs) const {
  const auto& g = *graph_;
  std::vector<HostTensor> hosts;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const auto& t = outputs[i];
    HostTensor h{g.value(g.outputs[i]).name, t.dtype, t.dims, std::vector<uint8_t>(t.bytes())};
    if (!h.bytes.empty())
      check(cudaMemcpyAsync(h.bytes.data(), t.data(), h.bytes.size(), cudaMemcpyDeviceToHost, gpu_.stream()),
            "copying '" + h.name + "' from the GPU");
    hosts.push_back(std::move(h));
  }
  check(cudaStreamSynchronize(gpu_.stream()), "copying the outputs from the GPU");
  return hosts;
}

int64_t Interpreter::executed_nodes() const {
  int64_t n = 0;
  for (const auto* k : kernels_) n += k != nullptr;
  return n;
}

int64_t Interpreter::folded_nodes() const { return static_cast<int64_t>(kernels_.size()) - executed_nodes(); }

// KernelContext

const GpuTensor& KernelContext::in(size_t i) const {
  if (!has(i)) fail(fmt::format("input {} is missing", i));
  return inputs[i];
}

std::vector<int64_t> KernelContext::output_dims(size_t i) const {
  const auto& v = graph.value(node.outputs[i]);
  if (!v.has_shape || !graph::is_fully_known(v.shape))
    fail(
        fmt::format("output '{}' has no known shape (bind the model's dims; after an op whose output size depends "
                    "on the data, such as NonZero, this kernel cannot size its output)",
                    v.name));
  return graph::known_dims(v.shape);
}

graph::DType KernelContext::output_dtype(size_t i) const { return graph.value(node.outputs[i]).dtype; }

GpuTensor& KernelContext::allocate_output(size_t i) {
  auto dtype = output_dtype(i);
  return allocate_output(i, dtype == graph::DType::kFloat32 ? storage : dtype, output_dims(i));
}

GpuTensor& KernelContext::allocate_output(size_t i, graph::DType dtype, std::vector<int64_t> dims) {
  auto& t = outputs[i];
  t.dtype = dtype;
  t.dims = std::move(dims);
  t.offset_bytes = 0;
  t.channels_last = channels_last && layout_differs(t.dims);
  t.block = gpu.allocator().allocate(t.bytes());
  return t;
}

GpuTensor KernelContext::scratch(graph::DType dtype, std::vector<int64_t> dims) const {
  GpuTensor t{dtype, std::move(dims), nullptr, 0};
  t.block = gpu.allocator().allocate(t.bytes());
  return t;
}

void KernelContext::alias_output(size_t i, const GpuTensor& source) {
  auto& t = outputs[i];
  t = source;
  t.dims = output_dims(i);
  if (t.numel() != source.numel())
    fail(fmt::format("output holds {} elements, its input {}", t.numel(), source.numel()));
}

std::vector<int64_t> KernelContext::constant_ints(size_t i) const {
  auto id = node.input(i);
  const auto* c = id == graph::kNoValue ? nullptr : graph.value(id).constant.get();
  if (!c) fail(fmt::format("input {} must be a constant known before the run (shape inference found none)", i));
  std::vector<int64_t> out;
  for (int64_t k = 0; k < c->size(); ++k) out.push_back(c->as_int(static_cast<size_t>(k)));
  return out;
}

std::vector<int64_t> KernelContext::host_ints(size_t i) const {
  if (input_is_constant(i) && graph.value(node.input(i)).constant) return constant_ints(i);
  const auto& t = in(i);
  if (t.dtype != graph::DType::kInt64 && t.dtype != graph::DType::kInt32)
    fail(fmt::format("input {} is {}; integers expected", i, graph::dtype_name(t.dtype)));
  require_eager(fmt::format("input {} is computed during the run", i));
  std::vector<int64_t> out(static_cast<size_t>(t.numel()));
  if (t.dtype == graph::DType::kInt64) {
    copy_to_host(out.data(), t.data(), out.size() * 8);
    return out;
  }
  std::vector<int32_t> narrow(out.size());
  copy_to_host(narrow.data(), t.data(), narrow.size() * 4);
  for (size_t k = 0; k < out.size(); ++k) out[k] = narrow[k];
  return out;
}

std::vector<double> KernelContext::host_reals(size_t i) const {
  if (input_is_constant(i) && graph.value(node.input(i)).constant) {
    const auto& c = *graph.value(node.input(i)).constant;
    std::vector<double> out;
    for (int64_t k = 0; k < c.size(); ++k) out.push_back(c.as_real(static_cast<size_t>(k)));
    return out;
  }
  const auto& t = in(i);
  require_eager(fmt::format("input {} is computed during the run", i));
  auto wide = t;
  if (t.dtype != graph::DType::kFloat64) {
    wide = scratch(graph::DType::kFloat64, t.dims);
    if (!cast(t.dtype, t.data(), graph::DType::kFloat64, wide.data(), t.numel(), gpu.stream()))
      fail(fmt::format("input {} is {}; numbers expected", i, graph::dtype_name(t.dtype)));
  }
  std::vector<double> out(static_cast<size_t>(t.numel()));
  copy_to_host(out.data(), wide.data(), out.size() * 8);
  return out;
}

int64_t KernelContext::read_back(const GpuTensor& count, std::string_view what) const {
  require_eager(fmt::format("{} depends on the data", what));
  int64_t value = 0;
  copy_to_host(&value, count.data(), sizeof(value));
  return value;
}

void KernelContext::require_eager(const std::string& why) const {
  cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
  check(cudaStreamIsCapturing(gpu.stream(), &capturing), "cudaStreamIsCapturing");
  if (capturing != cudaStreamCaptureStatusNone) fail(why + "; a CUDA graph cannot read it back (run eager)");
}

void KernelContext::copy_to_host(void* host, const void* device, size_t bytes) const {
  check(cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, gpu.stream()), "cudaMemcpyAsync");
  check(cudaStreamSynchronize(gpu.stream()), "cudaStreamSynchronize");
}

uint64_t* KernelContext::run_counter(std::shared_ptr<void>& slot) const {
  if (!slot) {
    slot = gpu.allocator().allocate(sizeof(uint64_t));
    check(cudaMemsetAsync(slot.get(), 0, sizeof(uint64_t), gpu.stream()), "zeroing a run count");
  }
  return static_cast<uint64_t*>(slot.get());
}

bool KernelContext::input_is_constant(size_t i) const {
  auto id = node.input(i);
  return id != graph::kNoValue && (graph.value(id).constant || graph.value(id).initializer);
}

const GpuTensor& KernelContext::float_input(size_t i) const {
  const auto& t = in(i);
  if (t.dtype != graph::DType::kFloat32)
    fail(fmt::format("input {} is {}; the GPU kernel takes fp32", i, graph::dtype_name(t.dtype)));
  return t;
}

const GpuTensor& KernelContext::activation(size_t i) const {
  const auto& t = in(i);
  if (t.dtype != graph::DType::kFloat32 && t.dtype != storage)
    fail(fmt::format("input {} is {}; the GPU kernel takes fp32{}", i, graph::dtype_name(t.dtype),
                     storage == graph::DType::kFloat32 ? "" : " or " + std::string(graph::dtype_name(storage))));
  return t;
}

void KernelContext::check_launch(std::string_view what) const { check(cudaGetLastError(), what); }

void KernelContext::fail(const std::string& what) const { throw Error(what); }

bool element_type(graph::DType dtype, ElementType& type) {
  using graph::DType;
  switch (dtype) {
    case DType::kFloat32:
      type = ElementType::kFloat32;
      return true;
    case DType::kFloat16:
      type = ElementType::kFloat16;
      return true;
    case DType::kBFloat16:
      type = ElementType::kBFloat16;
      return true;
    case DType::kFloat64:
      type = ElementType::kFloat64;
      return true;
    case DType::kInt64:
      type = ElementType::kInt64;
      return true;
    case DType::kInt32:
      type = ElementType::kInt32;
      return true;
    case DType::kInt8:
      type = ElementType::kInt8;
      return true;
    case DType::kUInt8:
      type = ElementType::kUInt8;
      return true;
    case DType::kBool:
      type = ElementType::kBool;
      return true;
    default:
      return false;
  }
}

ElementType element_type_of(graph::DType dtype) {
  if (dtype == graph::DType::kFloat16) return ElementType::kFloat16;
  if (dtype == graph::DType::kBFloat16) return ElementType::kBFloat16;
  return ElementType::kFloat32;
}

bool cast(graph::DType from, const void* in, graph::DType to, void* out, int64_t n, cudaStream_t stream) {
  ElementType a{}, b{};
  return element_type(from, a) && element_type(to, b) && cast(a, in, b, out, n, stream);
}

Layout dense_layout(const std::vector<int64_t>& dims) {
  if (dims.size() > static_cast<size_t>(kMaxRank))
    throw Error(fmt::format("rank {} is above the GPU kernels' {}", dims.size(), kMaxRank));
  Layout l;
  l.rank = static_cast<int>(dims.size());
  int64_t stride = 1;
  for (int d = l.rank - 1; d >= 0; --d) {
    l.dims[d] = dims[static_cast<size_t>(d)];
    l.strides[d] = stride;
    stride *= dims[static_cast<size_t>(d)];
  }
  return l;
}

Layout logical_layout(const GpuTensor& t, const std::vector<int64_t>& out_dims) {
  if (!t.channels_last) return broadcast_layout(t.dims, out_dims);
  if (out_dims.size() != 4) throw Error("a channels-last operand is read over a rank other than 4");
  Layout l = dense_layout(out_dims);
  auto strides = channels_last_strides(t.dims);
  for (size_t d = 0; d < 4; ++d) {
    if (t.dims[d] != out_dims[d] && t.dims[d] != 1)
      throw Error(fmt::format("dims {} do not broadcast to the output's", t.dims[d]));
    l.strides[d] = t.dims[d] == out_dims[d] ? strides[d] : 0;
  }
  return l;
}

Layout nhwc_order(const Layout& l) {
  if (l.rank != 4) throw Error("only a rank-4 layout has an NHWC order");
  Layout out = l;
  const int order[4] = {0, 2, 3, 1};
  for (int d = 0; d < 4; ++d) {
    out.dims[d] = l.dims[order[d]];
    out.strides[d] = l.strides[order[d]];
  }
  return out;
}

void pad_held(const GpuTensor& x, const std::vector<int64_t>& begin, void* out, const std::vector<int64_t>& out_dims,
              float value, bool channels_last, cudaStream_t stream) {
  auto held = [&](const std::vector<int64_t>& dims) { return channels_last ? nhwc_dims(dims) : dims; };
  pad_constant(x.data(), dense_layout(held(x.dims)), held(begin).data(), out, dense_layout(held(out_dims)), value,
               stream, element_type_of(x.dtype));
}

Layout broadcast_layout(const std::vector<int64_t>& dims, const std::vector<int64_t>& out_dims) {
  if (out_dims.size() > static_cast<size_t>(kMaxRank) || dims.size() > out_dims.size())
    throw Error(
        fmt::format("cannot broadcast rank {} to rank {} (at most {})", dims.size(), out_dims.size(), kMaxRank));
  Layout l;
  l.rank = static_cast<int>(out_dims.size());
  size_t shift = out_dims.size() - dims.size();
  int64_t stride = 1;
  for (int d = l.rank - 1; d >= 0; --d) {
    l.dims[d] = out_dims[static_cast<size_t>(d)];
    if (static_cast<size_t>(d) < shift) {
      l.strides[d] = 0;
      continue;
    }
    int64_t size = dims[static_cast<size_t>(d) - shift];
    if (size != 1 && size != l.dims[d]) throw Error(fmt::format("dims {} do not broadcast to the output's", size));
    l.strides[d] = size == 1 ? 0 : stride;
    stride *= size;
  }
  return l;
}

}  // namespace ridge::exec::cuda
