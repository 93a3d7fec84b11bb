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
std::vector<std::string> mode_names() { return names_in(kModes); }
std::vector<std::string> conv_algo_names() { return names_in(kConvAlgos); }

}  // namespace ridge::exec
