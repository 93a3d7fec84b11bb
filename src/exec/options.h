#pragma once
// How the executor runs a model and how `ridge bench` measures it.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cost/cost.h"
#include "sys/statistics.h"

namespace ridge::exec {

// Each option is an enum with one table of names (exec/options.cpp); parse_* throws ridge::Error
// listing the valid names.
// The executor that runs a model (`--device cpu|cuda`; cuda: the GPU module, cuDNN and cuBLAS, exec/cuda). Not a
// hw::Device, the hardware a roofline describes.
enum class Backend { kCpu, kCuda };
// bf16/fp16: autocast, convolutions and matrix products in 16 bits (accumulating in fp32); tf32: fp32 tensors,
// products on tensor cores in TF32 (GPU only); fp16 is GPU only.
enum class Precision { kFp32, kBf16, kTf32, kFp16 };
enum class MemoryFormat { kNchw, kChannelsLast };
// cuda-graph: the GPU's eager run captured once into a CUDA graph and replayed (launch overhead gone).
enum class Mode { kEager, kOptimized, kCudaGraph };
enum class ConvAlgo { kAuto, kDirect, kGemm, kFft, kWinograd };
// cuDNN's forward algorithms (the first eight in cudnnConvolutionFwdAlgo_t's order and values), its
// heuristic's choice (cudnnGetConvolutionForwardAlgorithm_v7) and its benchmarked choice
// (cudnnFindConvolutionForwardAlgorithm), per layer.
enum class CudnnConvAlgo {
  kImplicitGemm = 0,
  kImplicitPrecompGemm = 1,
  kGemm = 2,
  kDirect = 3,
  kFft = 4,
  kFftTiling = 5,
  kWinograd = 6,
  kWinogradNonfused = 7,
  kHeuristic = 8,
  kBenchmark = 9,
  kLegacyHeuristic = 10,
};

std::string_view name(Backend device);
std::string_view name(Precision precision);
std::string_view name(MemoryFormat format);
std::string_view name(Mode mode);
std::string_view name(ConvAlgo algorithm);
std::string_view name(CudnnConvAlgo algorithm);
Backend parse_backend(std::string_view text);
Precision parse_precision(std::string_view text);
MemoryFormat parse_memory_format(std::string_view text);
Mode parse_mode(std::string_view text);
ConvAlgo parse_conv_algo(std::string_view text);
CudnnConvAlgo parse_cudnn_conv_algo(std::string_view text);
std::vector<std::string> precision_names();
std::vector<std::string> memory_format_names();
std::vector<std::string> mode_names();  // every device's
// The modes of a device: eager and optimized on the CPU; eager, cuda-graph and optimized on the GPU.
std::vector<std::string> mode_names(Backend device);
// What `--mode both` measures on a device: eager and optimized on the CPU, eager and cuda-graph on the GPU.
std::vector<std::string> both_mode_names(Backend device);
std::vector<std::string> conv_algo_names();  // the CPU's
std::vector<std::string> cudnn_conv_algo_names();
// Every name --conv-algo takes on some device (the CPU's, then cuDNN's that the CPU lacks).
std::vector<std::string> all_conv_algo_names();
// The precisions and algorithms of a device; a value the device cannot honour is refused in one
// line naming the device that can (`--precision tf32` on the CPU, `--conv-algo fft-tiling` on it).
std::vector<std::string> conv_algo_names(Backend device);
void check_device_options(Backend device, Precision precision, std::string_view conv_algo, Mode mode = Mode::kEager);
// What a training step cannot honour, refused in one line: the CPU's optimized mode (its rewrites are for inference).
void check_training_options(Mode mode);
// cuDNN's "auto": its heuristic.
inline constexpr std::string_view kAutoConvAlgo = "auto";

// Values `ridge bench` adds, each standing for several runs: every mode, every algorithm.
inline constexpr std::string_view kBothModes = "both";
inline constexpr std::string_view kAllConvAlgos = "all";

// One value of an execution option with what it does and what it applies to, for
// `ridge bench --list-algorithms`; the names come from the tables the parsers use.
struct Choice {
  std::string option;  // "--conv-algo"
  std::string name;    // "winograd"
  std::string description;
  std::string applies_to;
};
// Every value of --conv-algo (the CPU's, then cuDNN's), --mode, --precision and --memory-format in table
// order; `bench` adds "all" and "both".
std::vector<Choice> choices(bool bench);

struct ExecOptions {
  Backend device = Backend::kCpu;
  int threads = 0;  // intra-op threads; 0 keeps the library's default
  Precision precision = Precision::kFp32;
  MemoryFormat memory_format = MemoryFormat::kNchw;
  Mode mode = Mode::kEager;
  ConvAlgo conv_algo = ConvAlgo::kAuto;
  CudnnConvAlgo cudnn_conv_algo = CudnnConvAlgo::kHeuristic;  // --device cuda
  int gpu = 0;                                                // --device cuda: the GPU's index
  uint64_t seed = 0;                                          // random weights and inputs
  bool profile_nodes = false;                                 // time every node (adds a clock read per node)
};

struct TrainingOptions {
  bool enabled = false;
  cost::Optimizer optimizer = cost::Optimizer::kSgd;
  double learning_rate = 1e-3;
};

struct BenchOptions {
  ExecOptions exec;
  TrainingOptions training;
  double warmup_seconds = 0.5;  // run at least this long (and at least `min_warmup` runs) first
  int64_t min_warmup = 2;
  int64_t fixed_iterations = 0;  // >0: exactly this many timed runs (no stopping rule)
  sys::StoppingCriterion stopping;
};

}  // namespace ridge::exec
