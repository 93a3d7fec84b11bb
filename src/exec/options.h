#pragma once
// How the executor runs a model and how `ridge bench` measures it.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cost/cost.h"
#include "exec/statistics.h"

namespace ridge::exec {

// Each option is an enum with one table of names (exec/options.cpp); parse_* throws ridge::Error
// listing the valid names.
enum class Device { kCpu, kCuda };      // cuda is refused: Debian's libtorch has no CUDA backend
enum class Precision { kFp32, kBf16 };  // bf16: autocast, matmul/conv in bf16
enum class MemoryFormat { kNchw, kChannelsLast };
enum class Mode { kEager, kOptimized };
enum class ConvAlgo { kAuto, kDirect, kGemm, kFft, kWinograd };

std::string_view name(Device device);
std::string_view name(Precision precision);
std::string_view name(MemoryFormat format);
std::string_view name(Mode mode);
std::string_view name(ConvAlgo algorithm);
Device parse_device(std::string_view text);
Precision parse_precision(std::string_view text);
MemoryFormat parse_memory_format(std::string_view text);
Mode parse_mode(std::string_view text);
ConvAlgo parse_conv_algo(std::string_view text);
std::vector<std::string> precision_names();
std::vector<std::string> memory_format_names();
std::vector<std::string> mode_names();
std::vector<std::string> conv_algo_names();

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
// Every value of --conv-algo, --mode, --precision and --memory-format in table order; `bench` adds
// "all" and "both".
std::vector<Choice> choices(bool bench);

struct ExecOptions {
  Device device = Device::kCpu;
  int threads = 0;  // intra-op threads; 0 keeps the library's default
  Precision precision = Precision::kFp32;
  MemoryFormat memory_format = MemoryFormat::kNchw;
  Mode mode = Mode::kEager;
  ConvAlgo conv_algo = ConvAlgo::kAuto;
  uint64_t seed = 0;           // random weights and inputs
  bool profile_nodes = false;  // time every node (adds a clock read per node)
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
  StoppingCriterion stopping;
};

}  // namespace ridge::exec
