#include "exec/cuda/conv_graph.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "exec/cuda/descriptors.h"
#include "exec/cuda/tensor.h"
#include "util/error.h"

namespace ridge::exec::cuda {

namespace {

// cuDNN's own words for the last failure, where it kept them.
std::string last_error() {
  char message[512] = {};
  cudnnGetLastErrorString(message, sizeof message);
  return message;
}

std::string failure(const char* what, cudnnStatus_t status) {
  auto detail = last_error();
  return detail.empty() ? fmt::format("{}: {}", what, cudnnGetErrorString(status))
                        : fmt::format("{}: {} ({})", what, cudnnGetErrorString(status), detail);
}

void set(cudnnBackendDescriptor_t d, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type, int64_t count,
         const void* values, const char* what) {
  auto status = cudnnBackendSetAttribute(d, name, type, count, values);
  if (status != CUDNN_STATUS_SUCCESS) throw Error(failure(what, status));
}

void finalize(cudnnBackendDescriptor_t d, const char* what) {
  auto status = cudnnBackendFinalize(d);
  if (status != CUDNN_STATUS_SUCCESS) throw Error(failure(what, status));
}

void set_ints(cudnnBackendDescriptor_t d, cudnnBackendAttributeName_t name, const std::vector<int64_t>& values,
              const char* what) {
  set(d, name, CUDNN_TYPE_INT64, static_cast<int64_t>(values.size()), values.data(), what);
}

void set_descriptor(cudnnBackendDescriptor_t d, cudnnBackendAttributeName_t name, const BackendDescriptor& value,
                    const char* what) {
  auto handle = value.get();
  set(d, name, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &handle, what);
}

// The handle attributes are marked deprecated in cuDNN 9.19 in favour of device-property descriptors, which older
// cuDNN 9 releases lack; the handle is what every cuDNN 9 takes.
void set_handle(cudnnBackendDescriptor_t d, bool plan, cudnnHandle_t handle, const char* what) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  auto name = plan ? CUDNN_ATTR_EXECUTION_PLAN_HANDLE : CUDNN_ATTR_OPERATIONGRAPH_HANDLE;
#pragma GCC diagnostic pop
  set(d, name, CUDNN_TYPE_HANDLE, 1, &handle, what);
}

BackendDescriptor tensor(const std::vector<int64_t>& dims, graph::DType dtype, int64_t uid, bool channels_last) {
  BackendDescriptor t(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
  auto type = cudnn_type(dtype);
  auto strides = channels_last && dims.size() == 4 ? channels_last_strides(dims) : dense_strides(dims);
  set(t.get(), CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &type, "the tensor's data type");
  set_ints(t.get(), CUDNN_ATTR_TENSOR_DIMENSIONS, dims, "the tensor's dims");
  set_ints(t.get(), CUDNN_ATTR_TENSOR_STRIDES, strides, "the tensor's strides");
  set(t.get(), CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid, "the tensor's id");
  set(t.get(), CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &kGraphTensorAlignment, "the tensor's alignment");
  finalize(t.get(), "a tensor descriptor");
  return t;
}

// The engine's notes of one kind (numerical or behaviour), as cuDNN lists them; none where cuDNN does not give them
// (not an empty list: an engine whose numerics are unknown is not taken, so fp32 never runs on a TF32 engine unseen).
template <class Note>
std::optional<std::vector<Note>> notes(cudnnBackendDescriptor_t engine, cudnnBackendAttributeName_t name,
                                       cudnnBackendAttributeType_t type, int capacity) {
  std::vector<Note> out(static_cast<size_t>(capacity));
  int64_t count = 0;
  if (cudnnBackendGetAttribute(engine, name, type, capacity, &count, out.data()) != CUDNN_STATUS_SUCCESS)
    return std::nullopt;
  out.resize(static_cast<size_t>(std::clamp<int64_t>(count, 0, capacity)));
  return out;
}

}  // namespace

BackendDescriptor::BackendDescriptor(cudnnBackendDescriptorType_t type) {
  auto status = cudnnBackendCreateDescriptor(type, &handle_);
  if (status != CUDNN_STATUS_SUCCESS) throw Error(failure("cudnnBackendCreateDescriptor", status));
}

BackendDescriptor::~BackendDescriptor() {
  if (handle_) cudnnBackendDestroyDescriptor(handle_);
}

std::vector<int64_t> dense_strides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) strides[i - 1] = strides[i] * dims[i];
  return strides;
}

GraphConvShape graph_conv_shape(const ConvGeometry& g, const std::vector<int64_t>& x, const std::vector<int64_t>& w,
                                const std::vector<int64_t>& y) {
  size_t spatial = g.kernel.size();
  if (x.size() != spatial + 2 || w.size() != x.size() || y.size() != x.size() || g.cudnn_pads.size() != spatial ||
      g.strides.size() != spatial || g.dilations.size() != spatial)
    throw Error(fmt::format("a convolution of {} spatial dims on tensors of rank {}, {} and {}", spatial, x.size(),
                            w.size(), y.size()));
  GraphConvShape s{x, w, y, g.cudnn_pads, g.cudnn_pads, g.strides, g.dilations};
  if (spatial == 1) {  // (N, C, L) as (N, C, L, 1), a trivial second window dim
    for (auto* dims : {&s.x, &s.w, &s.y}) dims->push_back(1);
    s.pre_pads.push_back(0);
    s.post_pads.push_back(0);
    s.strides.push_back(1);
    s.dilations.push_back(1);
  }
  return s;
}

bool engine_allowed(const std::vector<cudnnBackendNumericalNote_t>& notes, Precision precision) {
  auto has = [&](cudnnBackendNumericalNote_t n) { return std::find(notes.begin(), notes.end(), n) != notes.end(); };
  if (has(CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION)) return false;
  if (precision == Precision::kFp32)
    return !has(CUDNN_NUMERICAL_NOTE_TENSOR_CORE) && !has(CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS);
  if (precision == Precision::kTf32) return !has(CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS);
  return true;
}

std::string engine_name(int64_t global_index, const std::vector<cudnnBackendNumericalNote_t>& notes) {
  auto name = fmt::format("engine-{}", global_index);
  auto has = [&](cudnnBackendNumericalNote_t n) { return std::find(notes.begin(), notes.end(), n) != notes.end(); };
  if (has(CUDNN_NUMERICAL_NOTE_FFT)) name += "-fft";
  if (has(CUDNN_NUMERICAL_NOTE_WINOGRAD) || has(CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_4x4) ||
      has(CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_6x6) || has(CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_13x13))
    name += "-winograd";
  if (has(CUDNN_NUMERICAL_NOTE_TENSOR_CORE)) name += "-tensor-core";
  return name;
}

BackendDescriptor convolution_operation(const GraphConvShape& s, graph::DType data) {
  auto x = tensor(s.x, data, kConvX, s.channels_last);
  auto w = tensor(s.w, data, kConvW, s.channels_last);
  auto y = tensor(s.y, data, kConvY, s.channels_last);
  BackendDescriptor conv(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
  auto accumulate = CUDNN_DATA_FLOAT;
  auto mode = CUDNN_CROSS_CORRELATION;  // ONNX's Conv, as the legacy descriptor has it
  auto spatial = static_cast<int64_t>(s.strides.size());
  set(conv.get(), CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &accumulate, "the accumulation type");
  set(conv.get(), CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode, "the convolution mode");
  set(conv.get(), CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &spatial, "the spatial dims");
  set_ints(conv.get(), CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, s.pre_pads, "the pads before");
  set_ints(conv.get(), CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, s.post_pads, "the pads after");
  set_ints(conv.get(), CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, s.strides, "the strides");
  set_ints(conv.get(), CUDNN_ATTR_CONVOLUTION_DILATIONS, s.dilations, "the dilations");
  finalize(conv.get(), "the convolution descriptor");
  BackendDescriptor op(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
  float alpha = 1.f, beta = 0.f;
  set_descriptor(op.get(), CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, x, "the operation's input");
  set_descriptor(op.get(), CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, w, "the operation's weight");
  set_descriptor(op.get(), CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, y, "the operation's output");
  set_descriptor(op.get(), CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, conv, "the operation's convolution");
  set(op.get(), CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_FLOAT, 1, &alpha, "alpha");
  set(op.get(), CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_FLOAT, 1, &beta, "beta");
  finalize(op.get(), "the convolution operation");
  return op;
}

std::unique_ptr<ConvGraphPlan> ConvGraphPlan::build(cudnnHandle_t handle, const GraphConvShape& shape,
                                                    graph::DType data, Precision precision, size_t workspace_limit,
                                                    std::string& why) {
  auto plan = std::make_unique<ConvGraphPlan>();
  try {
    auto op = convolution_operation(shape, data);
    plan->graph_ = BackendDescriptor(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
    auto graph = plan->graph_.get();
    set_descriptor(graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, op, "the graph's operation");
    set_handle(graph, false, handle, "the graph's handle");
    finalize(graph, "the operation graph");
    BackendDescriptor heuristic(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
    auto mode = CUDNN_HEUR_MODE_A;
    set(heuristic.get(), CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &graph,
        "the heuristic's graph");
    set(heuristic.get(), CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode, "the heuristic's mode");
    finalize(heuristic.get(), "the engine heuristic");
    int64_t count = 0;
    auto status = cudnnBackendGetAttribute(heuristic.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                           CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count, nullptr);
    if (status != CUDNN_STATUS_SUCCESS) throw Error(failure("the heuristic's engine count", status));
    std::vector<BackendDescriptor> configs;
    std::vector<cudnnBackendDescriptor_t> raw;
    for (int64_t i = 0; i < count; ++i) {
      configs.emplace_back(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
      raw.push_back(configs.back().get());
    }
    int64_t returned = 0;
    status = cudnnBackendGetAttribute(heuristic.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                      count, &returned, raw.data());
    if (status != CUDNN_STATUS_SUCCESS) throw Error(failure("the heuristic's engines", status));
    int refused = 0, excluded = 0, too_large = 0;
    for (int64_t i = 0; i < std::min(returned, count); ++i) {
      BackendDescriptor engine(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
      auto engine_handle = engine.get();
      int64_t got = 0;
      if (cudnnBackendGetAttribute(raw[i], CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &got,
                                   &engine_handle) != CUDNN_STATUS_SUCCESS) {
        ++refused;
        continue;
      }
      auto numerical = notes<cudnnBackendNumericalNote_t>(engine_handle, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE,
                                                          CUDNN_TYPE_NUMERICAL_NOTE, CUDNN_NUMERICAL_NOTE_TYPE_COUNT);
      auto behaviour = notes<cudnnBackendBehaviorNote_t>(engine_handle, CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE,
                                                         CUDNN_TYPE_BEHAVIOR_NOTE, CUDNN_BEHAVIOR_NOTE_TYPE_COUNT);
      if (!numerical || !behaviour) {
        ++refused;
        continue;
      }
      // An engine compiled at run time costs seconds at preparation (NVIDIA/cudnn-frontend#1066) for kernels the
      // precompiled engines match on plain convolutions.
      bool compiled =
          std::find(behaviour->begin(), behaviour->end(), CUDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION) != behaviour->end();
      if (!engine_allowed(*numerical, precision) || compiled) {
        ++excluded;
        continue;
      }
      BackendDescriptor candidate(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
      set_handle(candidate.get(), true, handle, "the plan's handle");
      set(candidate.get(), CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &raw[i],
          "the plan's engine");
      if (cudnnBackendFinalize(candidate.get()) != CUDNN_STATUS_SUCCESS) {
        ++refused;
        continue;
      }
      int64_t bytes = 0;
      status = cudnnBackendGetAttribute(candidate.get(), CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1,
                                        &got, &bytes);
      if (status != CUDNN_STATUS_SUCCESS || bytes < 0 || static_cast<size_t>(bytes) > workspace_limit) {
        ++too_large;
        continue;
      }
      int64_t index = -1;
      cudnnBackendGetAttribute(engine_handle, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &got, &index);
      plan->plan_ = std::move(candidate);
      plan->workspace_bytes_ = static_cast<size_t>(bytes);
      plan->name_ = engine_name(index, *numerical);
      return plan;
    }
    why = fmt::format(
        "cuDNN's graph API ranked {} engines for this layer: {} not in the precision's math or compiled at run time, "
        "{} refused, {} needing more workspace than is free",
        count, excluded, refused, too_large);
  } catch (const Error& e) {
    why = fmt::format("cuDNN's graph API: {}", e.what());
  }
  return nullptr;
}

bool ConvGraphPlan::accepts(const void* x, const void* w, const void* y) {
  auto aligned = [](const void* p) { return reinterpret_cast<uintptr_t>(p) % kGraphTensorAlignment == 0; };
  return aligned(x) && aligned(w) && aligned(y);
}

cudnnStatus_t ConvGraphPlan::execute(cudnnHandle_t handle, const void* x, const void* w, void* y, void* workspace) {
  const void* now[4] = {x, w, y, workspace};
  if (!pack_.get() || !std::equal(now, now + 4, bound_)) {
    // A new variant pack only where the addresses moved: the allocator hands a layer the same buffers run after run.
    cudnnBackendDescriptor_t pack = nullptr;
    auto status = cudnnBackendCreateDescriptor(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &pack);
    if (status != CUDNN_STATUS_SUCCESS) return status;
    BackendDescriptor owned;
    *owned.address() = pack;
    int64_t uids[3] = {kConvX, kConvW, kConvY};
    void* pointers[3] = {const_cast<void*>(x), const_cast<void*>(w), y};
    for (auto [name, type, count, values] :
         {std::tuple{CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 3, static_cast<const void*>(uids)},
          std::tuple{CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 3, static_cast<const void*>(pointers)},
          std::tuple{CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1,
                     static_cast<const void*>(&workspace)}}) {
      status = cudnnBackendSetAttribute(pack, name, type, count, values);
      if (status != CUDNN_STATUS_SUCCESS) return status;
    }
    status = cudnnBackendFinalize(pack);
    if (status != CUDNN_STATUS_SUCCESS) return status;
    pack_ = std::move(owned);
    std::copy(now, now + 4, bound_);
  }
  return cudnnBackendExecute(handle, plan_.get(), pack_.get());
}

}  // namespace ridge::exec::cuda
