#include "exec/options.h"

#include <algorithm>

#include "exec/backends.h"
#include "util/name_table.h"

namespace ridge::exec {

namespace {

constexpr NameTable<Backend, 2> kBackends{{{Backend::kCpu, "cpu"}, {Backend::kCuda, "cuda"}}};
constexpr NameTable<Precision, 4> kPrecisions{
    {{Precision::kFp32, "fp32"}, {Precision::kBf16, "bf16"}, {Precision::kTf32, "tf32"}, {Precision::kFp16, "fp16"}}};
constexpr NameTable<MemoryFormat, 2> kMemoryFormats{
    {{MemoryFormat::kNchw, "nchw"}, {MemoryFormat::kChannelsLast, "channels-last"}}};
constexpr NameTable<Mode, 3> kModes{
    {{Mode::kEager, "eager"}, {Mode::kOptimized, "optimized"}, {Mode::kCudaGraph, "cuda-graph"}}};
constexpr NameTable<ConvAlgo, 5> kConvAlgos{{{ConvAlgo::kAuto, "auto"},
                                             {ConvAlgo::kDirect, "direct"},
                                             {ConvAlgo::kGemm, "gemm"},
                                             {ConvAlgo::kFft, "fft"},
                                             {ConvAlgo::kWinograd, "winograd"}}};

constexpr NameTable<CudnnConvAlgo, 11> kCudnnConvAlgos{{{CudnnConvAlgo::kImplicitGemm, "implicit-gemm"},
                                                        {CudnnConvAlgo::kImplicitPrecompGemm, "implicit-precomp-gemm"},
                                                        {CudnnConvAlgo::kGemm, "gemm"},
                                                        {CudnnConvAlgo::kDirect, "direct"},
                                                        {CudnnConvAlgo::kFft, "fft"},
                                                        {CudnnConvAlgo::kFftTiling, "fft-tiling"},
                                                        {CudnnConvAlgo::kWinograd, "winograd"},
                                                        {CudnnConvAlgo::kWinogradNonfused, "winograd-nonfused"},
                                                        {CudnnConvAlgo::kHeuristic, "heuristic"},
                                                        {CudnnConvAlgo::kBenchmark, "benchmark"},
                                                        {CudnnConvAlgo::kLegacyHeuristic, "legacy-heuristic"}}};
constexpr NameTable<CudnnConvAlgo, 11> kCudnnConvAlgoHelp{
    {{CudnnConvAlgo::kImplicitGemm, "cuDNN: the convolution as a GEMM without materializing im2col"},
     {CudnnConvAlgo::kImplicitPrecompGemm, "cuDNN: implicit GEMM with precomputed indices (needs a workspace)"},
     {CudnnConvAlgo::kGemm, "cuDNN: explicit im2col into the workspace, then a GEMM"},
     {CudnnConvAlgo::kDirect, "cuDNN: direct convolution"},
     {CudnnConvAlgo::kFft, "cuDNN: FFTs of the whole input and filter, product, inverse FFT"},
     {CudnnConvAlgo::kFftTiling, "cuDNN: FFT on 32x32 tiles of the input"},
     {CudnnConvAlgo::kWinograd, "cuDNN: fused Winograd transform"},
     {CudnnConvAlgo::kWinogradNonfused, "cuDNN: Winograd with separate transform kernels (workspace)"},
     {CudnnConvAlgo::kHeuristic,
      "cuDNN's graph API: its heuristic's engine per layer, the execution plan built once (the legacy heuristic where "
      "it offers none)"},
     {CudnnConvAlgo::kBenchmark,
      "cuDNN's benchmarked choice per layer: every algorithm timed once (cudnnFindConvolutionForwardAlgorithm)"},
     {CudnnConvAlgo::kLegacyHeuristic,
      "cuDNN's legacy heuristic choice per layer (cudnnGetConvolutionForwardAlgorithm_v7, run by "
      "cudnnConvolutionForward)"}}};
constexpr NameTable<CudnnConvAlgo, 11> kCudnnConvAlgoScope{
    {{CudnnConvAlgo::kImplicitGemm, "--device cuda: every 2-D convolution"},
     {CudnnConvAlgo::kImplicitPrecompGemm, "--device cuda: 2-D convolutions"},
     {CudnnConvAlgo::kGemm, "--device cuda: 2-D convolutions"},
     {CudnnConvAlgo::kDirect, "--device cuda: where cuDNN has a direct kernel (few layers)"},
     {CudnnConvAlgo::kFft, "--device cuda: stride 1, no dilation, padding below the kernel size"},
     {CudnnConvAlgo::kFftTiling, "--device cuda: stride 1, no dilation"},
     {CudnnConvAlgo::kWinograd, "--device cuda: 3x3 (and 5x5) kernels, stride 1"},
     {CudnnConvAlgo::kWinogradNonfused, "--device cuda: 3x3 and 5x5 kernels, stride 1"},
     {CudnnConvAlgo::kHeuristic, "--device cuda: every convolution (what auto means there)"},
     {CudnnConvAlgo::kBenchmark, "--device cuda: every convolution"},
     {CudnnConvAlgo::kLegacyHeuristic, "--device cuda: every convolution"}}};

// What each value does and what it applies to, in the same order as the name tables: the text of
// `ridge bench --list-algorithms` (the kernels are exec/aten/kernels/conv_algorithms.cpp).
constexpr NameTable<ConvAlgo, 5> kConvAlgoHelp{
    {{ConvAlgo::kAuto, "whatever ATen's at::convolution picks (oneDNN where it can)"},
     {ConvAlgo::kDirect, "oneDNN's direct convolution (ATen's mkldnn_convolution)"},
     {ConvAlgo::kGemm, "im2col (unfold) and one matrix product per group"},
     {ConvAlgo::kFft, "real FFTs of input and kernel, a channel-summed spectral product, inverse FFT, strided crop"},
     {ConvAlgo::kWinograd, "Winograd F(2x2, 3x3): 16 elementwise products per 4x4 tile instead of 36 MACs"}}};
constexpr NameTable<ConvAlgo, 5> kConvAlgoScope{
    {{ConvAlgo::kAuto, "every convolution"},
     {ConvAlgo::kDirect, "fp32 convolutions of 2-D and 3-D images (libtorch with oneDNN)"},
     {ConvAlgo::kGemm, "2-D convolutions"},
     {ConvAlgo::kFft, "2-D floating-point convolutions without dilation"},
     {ConvAlgo::kWinograd, "2-D convolutions with 3x3 kernels, stride 1, no dilation"}}};
constexpr NameTable<Mode, 3> kModeHelp{
    {{Mode::kEager, "node by node as exported"},
     {Mode::kOptimized,
      "constants and BatchNorms folded, Adds and activations fused into the layer before them, weights packed once "
      "(--device cuda: BatchNorms folded, residual Adds, biases and activations fused into the convolution or product "
      "before them, replayed as a CUDA graph)"},
     {Mode::kCudaGraph,
      "--device cuda: the eager run captured once into a CUDA graph and replayed (no per-kernel launch cost)"}}};
constexpr NameTable<Precision, 4> kPrecisionHelp{
    {{Precision::kFp32, "single precision throughout (on the GPU: no tensor cores)"},
     {Precision::kBf16, "autocast: convolutions and matrix products in bf16, the rest in fp32"},
     {Precision::kTf32, "fp32 tensors, convolutions and matrix products on tensor cores in TF32"},
     {Precision::kFp16, "autocast: convolutions and matrix products in fp16 (fp32 accumulation), the rest in fp32"}}};
constexpr NameTable<Precision, 4> kPrecisionScope{
    {{Precision::kFp32, "every op"},
     {Precision::kBf16, "convolutions and matrix products (ATen's CPU autocast; cuDNN/cuBLAS on the GPU)"},
     {Precision::kTf32, "--device cuda: convolutions and matrix products"},
     {Precision::kFp16, "--device cuda: convolutions and matrix products"}}};
constexpr NameTable<MemoryFormat, 2> kMemoryFormatHelp{
    {{MemoryFormat::kNchw, "channels first, as ONNX lays tensors out"},
     {MemoryFormat::kChannelsLast, "NHWC: channels innermost"}}};

template <class Enum, size_t N>
void add_choices(std::vector<Choice>& out, const char* option, const NameTable<Enum, N>& names,
                 const NameTable<Enum, N>& help, const NameTable<Enum, N>* scope, const char* default_scope) {
  for (const auto& [value, text] : names)
    out.push_back({option, std::string(text), std::string(name_in(help, value)),
                   std::string(scope ? name_in(*scope, value) : default_scope)});
}

}  // namespace

std::string_view name(Backend device) { return name_in(kBackends, device); }
std::string_view name(Precision precision) { return name_in(kPrecisions, precision); }
std::string_view name(MemoryFormat format) { return name_in(kMemoryFormats, format); }
std::string_view name(Mode mode) { return name_in(kModes, mode); }
std::string_view name(ConvAlgo algorithm) { return name_in(kConvAlgos, algorithm); }
Backend parse_backend(std::string_view text) { return parse_in(kBackends, "device", text); }
Precision parse_precision(std::string_view text) { return parse_in(kPrecisions, "precision", text); }
MemoryFormat parse_memory_format(std::string_view text) { return parse_in(kMemoryFormats, "memory format", text); }
Mode parse_mode(std::string_view text) { return parse_in(kModes, "mode", text); }
ConvAlgo parse_conv_algo(std::string_view text) { return parse_in(kConvAlgos, "convolution algorithm", text); }
std::string_view name(CudnnConvAlgo algorithm) { return name_in(kCudnnConvAlgos, algorithm); }
CudnnConvAlgo parse_cudnn_conv_algo(std::string_view text) {
  if (text == kAutoConvAlgo) return CudnnConvAlgo::kHeuristic;
  return parse_in(kCudnnConvAlgos, "cuDNN convolution algorithm", text);
}
std::vector<std::string> cudnn_conv_algo_names() { return names_in(kCudnnConvAlgos); }

std::vector<std::string> all_conv_algo_names() {
  auto names = conv_algo_names();
  for (const auto& n : cudnn_conv_algo_names())
    if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  return names;
}

std::vector<std::string> conv_algo_names(Backend device) { return backend_row(device).conv_algorithms(); }

namespace {

// "a", "a and b", "a, b and c".
std::string and_list(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i == 0 ? "" : i + 1 == items.size() ? " and " : ", ") + items[i];
  return out;
}

}  // namespace

void check_device_options(Backend device, Precision precision, std::string_view conv_algo, Mode mode) {
  auto modes = mode_names(device);
  if (std::find(modes.begin(), modes.end(), name(mode)) == modes.end())
    throw Error(
        fmt::format("--mode {} is not a mode of --device {} ({})", name(mode), name(device), fmt::join(modes, ", ")));
  const auto& row = backend_row(device);
  if (std::find(row.precisions.begin(), row.precisions.end(), precision) == row.precisions.end()) {
    std::vector<std::string> runs, others;
    for (auto p : row.precisions) runs.emplace_back(name(p));
    for (const auto& other : backends())
      if (std::find(other.precisions.begin(), other.precisions.end(), precision) != other.precisions.end())
        others.emplace_back(name(other.backend));
    throw Error(fmt::format("--precision {}: {} runs {}; {} is for --device {}", name(precision), row.executor,
                            and_list(runs), name(precision), fmt::join(others, " or ")));
  }
  if (conv_algo.empty() || conv_algo == kAllConvAlgos || conv_algo == kAutoConvAlgo) return;
  auto names = conv_algo_names(device);
  if (std::find(names.begin(), names.end(), conv_algo) != names.end()) return;
  throw Error(fmt::format("--conv-algo {} is not an algorithm of --device {} ({})", conv_algo, name(device),
                          fmt::join(names, ", ")));
}
void check_training_options(Mode mode) {
  if (mode == Mode::kOptimized) throw Error("--mode optimized is for inference; train with --mode eager");
}
std::vector<std::string> precision_names() { return names_in(kPrecisions); }
std::vector<std::string> memory_format_names() { return names_in(kMemoryFormats); }
std::vector<std::string> mode_names() { return names_in(kModes); }
std::vector<std::string> mode_names(Backend device) {
  std::vector<std::string> out;
  for (auto mode : backend_row(device).modes) out.emplace_back(name(mode));
  return out;
}
std::vector<std::string> both_mode_names(Backend device) {
  auto modes = mode_names(device);
  modes.resize(std::min<size_t>(modes.size(), 2));
  return modes;
}
std::vector<std::string> conv_algo_names() { return names_in(kConvAlgos); }

std::vector<Choice> choices(bool bench) {
  std::vector<Choice> out;
  add_choices(out, "--conv-algo", kConvAlgos, kConvAlgoHelp, &kConvAlgoScope, "");
  for (const auto& [value, text] : kCudnnConvAlgos)
    out.push_back({"--conv-algo", std::string(text), std::string(name_in(kCudnnConvAlgoHelp, value)),
                   std::string(name_in(kCudnnConvAlgoScope, value))});
  if (bench)
    out.push_back({"--conv-algo", std::string(kAllConvAlgos), "measure every algorithm of the device, one run each",
                   "each layer it applies to; the others run auto (CPU) or cuDNN's heuristic choice, named (GPU)"});
  add_choices(out, "--mode", kModes, kModeHelp, static_cast<const NameTable<Mode, 3>*>(nullptr), "the whole model");
  if (bench)
    out.push_back({"--mode", std::string(kBothModes),
                   "measure the device's two: eager and optimized (CPU), eager and cuda-graph (GPU)",
                   "the whole model"});
  add_choices(out, "--precision", kPrecisions, kPrecisionHelp, &kPrecisionScope, "");
  add_choices(out, "--memory-format", kMemoryFormats, kMemoryFormatHelp,
              static_cast<const NameTable<MemoryFormat, 2>*>(nullptr), "4-D activations (images)");
  return out;
}

}  // namespace ridge::exec
