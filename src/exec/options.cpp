#include "exec/options.h"

#include "util/name_table.h"

namespace ridge::exec {

namespace {

constexpr NameTable<Device, 2> kDevices{{{Device::kCpu, "cpu"}, {Device::kCuda, "cuda"}}};
constexpr NameTable<Precision, 2> kPrecisions{{{Precision::kFp32, "fp32"}, {Precision::kBf16, "bf16"}}};
constexpr NameTable<MemoryFormat, 2> kMemoryFormats{
    {{MemoryFormat::kNchw, "nchw"}, {MemoryFormat::kChannelsLast, "channels-last"}}};
constexpr NameTable<Mode, 2> kModes{{{Mode::kEager, "eager"}, {Mode::kOptimized, "optimized"}}};
constexpr NameTable<ConvAlgo, 5> kConvAlgos{{{ConvAlgo::kAuto, "auto"},
                                             {ConvAlgo::kDirect, "direct"},
                                             {ConvAlgo::kGemm, "gemm"},
                                             {ConvAlgo::kFft, "fft"},
                                             {ConvAlgo::kWinograd, "winograd"}}};

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
constexpr NameTable<Mode, 2> kModeHelp{
    {{Mode::kEager, "node by node as exported"},
     {Mode::kOptimized,
      "constants and BatchNorms folded, Adds and activations fused into the layer before them, weights packed once"}}};
constexpr NameTable<Precision, 2> kPrecisionHelp{
    {{Precision::kFp32, "single precision throughout"},
     {Precision::kBf16, "autocast: convolutions and matrix products in bf16, the rest in fp32"}}};
constexpr NameTable<Precision, 2> kPrecisionScope{
    {{Precision::kFp32, "every op"}, {Precision::kBf16, "convolutions and matrix products (ATen's CPU autocast)"}}};
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

std::string_view name(Device device) { return name_in(kDevices, device); }
std::string_view name(Precision precision) { return name_in(kPrecisions, precision); }
std::string_view name(MemoryFormat format) { return name_in(kMemoryFormats, format); }
std::string_view name(Mode mode) { return name_in(kModes, mode); }
std::string_view name(ConvAlgo algorithm) { return name_in(kConvAlgos, algorithm); }
Device parse_device(std::string_view text) { return parse_in(kDevices, "device", text); }
Precision parse_precision(std::string_view text) { return parse_in(kPrecisions, "precision", text); }
MemoryFormat parse_memory_format(std::string_view text) { return parse_in(kMemoryFormats, "memory format", text); }
Mode parse_mode(std::string_view text) { return parse_in(kModes, "mode", text); }
ConvAlgo parse_conv_algo(std::string_view text) { return parse_in(kConvAlgos, "convolution algorithm", text); }
std::vector<std::string> precision_names() { return names_in(kPrecisions); }
std::vector<std::string> memory_format_names() { return names_in(kMemoryFormats); }
std::vector<std::string> mode_names() { return names_in(kModes); }
std::vector<std::string> conv_algo_names() { return names_in(kConvAlgos); }

std::vector<Choice> choices(bool bench) {
  std::vector<Choice> out;
  add_choices(out, "--conv-algo", kConvAlgos, kConvAlgoHelp, &kConvAlgoScope, "");
  if (bench)
    out.push_back({"--conv-algo", std::string(kAllConvAlgos), "measure every algorithm above, one run each",
                   "each layer it applies to; the others run auto"});
  add_choices(out, "--mode", kModes, kModeHelp, static_cast<const NameTable<Mode, 2>*>(nullptr), "the whole model");
  if (bench) out.push_back({"--mode", std::string(kBothModes), "measure eager and optimized", "the whole model"});
  add_choices(out, "--precision", kPrecisions, kPrecisionHelp, &kPrecisionScope, "");
  add_choices(out, "--memory-format", kMemoryFormats, kMemoryFormatHelp,
              static_cast<const NameTable<MemoryFormat, 2>*>(nullptr), "4-D activations (images)");
  return out;
}

}  // namespace ridge::exec
