#pragma once
// Roofline prediction: each node's time on a device in a power mode, from its FLOPs and bytes.
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "cost/cost.h"
#include "hw/roofline.h"

namespace ridge::roofline {

enum class Traffic { kUnfused, kFused };

struct PredictOptions {
  std::string precision = "fp32";  // of the arithmetic: fp32, fp16, bf16, int8, fp64
  bool allow_tf32 = false;         // let fp32 matrix products use TF32 tensor units
  Traffic traffic = Traffic::kUnfused;
  int64_t batch = 1;  // for throughput (samples/s)
};

// What limits a node's time; one table of names (predict.cpp), as outputs write them.
enum class Bound {
  kCompute,
  kMemory,
  kOverhead,
  kNone,         // no work: views, folded shape arithmetic
  kUnpredicted,  // unknown or unresolved op: named, never counted as zero
};
std::string_view name(Bound bound);
Bound parse_bound(std::string_view text);  // throws ridge::Error listing the names

struct NodePrediction {
  std::string name, op, family;
  std::string peak_key;         // the ceiling used, e.g. "fp16_tensor"
  double peak_flops = 0;        // that ceiling
  double attainable_flops = 0;  // min(peak, intensity x bandwidth)
  double compute_s = 0, memory_s = 0, overhead_s = 0, time_s = 0;
  Bound bound = Bound::kNone;
  double efficiency = 1;  // calibration factor applied (1 when uncalibrated)
  int kernels = 0;        // kernel launches: forward, plus backward in a training step
  bool predicted = true;  // false for unknown/unresolved nodes (named, never zero)
  std::string note;
};

struct Prediction {
  std::string device_id, device_name, mode;
  bool calibrated = false;
  std::string calibration_source;
  std::string precision;
  std::vector<NodePrediction> nodes;
  double time_s = 0, compute_bound_s = 0, memory_bound_s = 0, overhead_bound_s = 0;
  double throughput = 0;                             // samples/s
  std::map<std::string, int> unpredicted_ops;        // op type -> count (no cost: unknown or unresolved)
  std::map<std::string, std::string> ceilings_used;  // key -> label (datasheet/theoretical/measured)
};

// Ops whose work runs on matrix (tensor) units when the device has them.
bool is_matrix_family(const std::string& family);

// time = max(FLOPs / compute ceiling, bytes / DRAM bandwidth) / efficiency + overhead, per node
// that does work; with `cost.training`, the backward pass and the optimizer step are added.
// Throws ridge::Error when the device lacks the ceilings needed (e.g. an unmeasured bandwidth).
Prediction predict(const cost::ModelCost& cost, const hw::Roofline& roofline, const PredictOptions& options);

}  // namespace ridge::roofline
